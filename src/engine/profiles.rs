//! Bots and their catalogs, kept in memory between turns. Each turn's snapshot
//! carries the bot's `config_version` (bumped by the database on any change to the
//! bot or its products, from any replica or tool), so a stale copy is reloaded by
//! the very next turn that needs it — no notification to lose.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sqlx::PgPool;
use uuid::Uuid;

use crate::merchant::{self, Bot};
use crate::shop::catalog::{self, CatalogIndex};

/// What a turn needs to know of its bot.
#[derive(Debug)]
pub struct BotProfile {
    pub bot: Bot,
    pub catalog: CatalogIndex,
}

pub struct Profiles {
    pool: PgPool,
    entries: Mutex<HashMap<Uuid, Arc<BotProfile>>>,
}

impl Profiles {
    pub fn new(pool: PgPool) -> Self {
        Profiles {
            pool,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The bot as of `version` or newer.
    pub async fn get(&self, bot_id: Uuid, version: i64) -> sqlx::Result<Arc<BotProfile>> {
        if let Some(profile) = self.cached(bot_id)
            && profile.bot.config_version >= version
        {
            return Ok(profile);
        }
        // The bot (and its version) first, then the catalog: a change landing in
        // between leaves a catalog newer than the version, never older.
        let bot = merchant::bot_by_id(&self.pool, bot_id).await?;
        let catalog = catalog::load(&self.pool, bot_id).await?;
        let profile = Arc::new(BotProfile { bot, catalog });
        let mut entries = self.entries.lock().expect("profile cache lock");
        let keep = entries
            .get(&bot_id)
            .is_some_and(|p| p.bot.config_version > profile.bot.config_version);
        if !keep {
            entries.insert(bot_id, profile.clone());
        }
        Ok(profile)
    }

    fn cached(&self, bot_id: Uuid) -> Option<Arc<BotProfile>> {
        self.entries
            .lock()
            .expect("profile cache lock")
            .get(&bot_id)
            .cloned()
    }
}
