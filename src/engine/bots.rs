//! Bots, and whatever a profile derives from a bot (the shop's catalog), kept in
//! memory between turns. Each turn's snapshot carries the bot's `config_version`
//! (bumped by the database on any change to the bot or its products, from any
//! replica or tool), so a stale copy is reloaded by the very next turn that needs
//! it — no notification to lose.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use sqlx::PgPool;
use uuid::Uuid;

use crate::bots::{self, Bot};

/// Values per bot, each good for the configuration version it was loaded at or
/// any older one.
pub struct VersionedCache<T> {
    entries: Mutex<HashMap<Uuid, (i64, Arc<T>)>>,
}

impl<T> Default for VersionedCache<T> {
    fn default() -> Self {
        VersionedCache {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> VersionedCache<T> {
    /// The bot's value as of `version` or newer; `load` reads it afresh and says
    /// which version it read (at least `version`: what it reads is newer than the
    /// snapshot that asked).
    pub async fn get<E, F, Fut>(&self, bot_id: Uuid, version: i64, load: F) -> Result<Arc<T>, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(i64, T), E>>,
    {
        if let Some((cached, value)) = self.lock().get(&bot_id)
            && *cached >= version
        {
            return Ok(value.clone());
        }
        let (loaded, value) = load().await?;
        let value = Arc::new(value);
        let mut entries = self.lock();
        let newer_kept = entries.get(&bot_id).is_some_and(|(kept, _)| *kept > loaded);
        if !newer_kept {
            entries.insert(bot_id, (loaded.max(version), value.clone()));
        }
        Ok(value)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, (i64, Arc<T>)>> {
        self.entries.lock().expect("versioned cache lock")
    }
}

/// The bots themselves.
pub struct BotCache {
    pool: PgPool,
    bots: VersionedCache<Bot>,
}

impl BotCache {
    pub fn new(pool: PgPool) -> Self {
        BotCache {
            pool,
            bots: VersionedCache::default(),
        }
    }

    /// The bot as of `version` or newer.
    pub async fn get(&self, bot_id: Uuid, version: i64) -> sqlx::Result<Arc<Bot>> {
        self.bots
            .get(bot_id, version, || async {
                let bot = bots::by_id(&self.pool, bot_id).await?;
                Ok((bot.config_version, bot))
            })
            .await
    }
}
