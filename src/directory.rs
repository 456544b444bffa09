//! A short-lived cache of bots and their channel credentials for the webhook hot
//! path (merchant actions that change a bot drop its entry).
//! A webhook looks its bot up on every call; caching saves two queries per message.
//! Changes made through this process's API are seen at once (`forget`); other
//! replicas see them within the TTL.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::PgPool;

use crate::bots::{self, Bot};
use crate::channels::credentials::{self, TelegramCredentials, WhatsAppCredentials};

/// How long a looked-up bot is trusted.
const TTL: Duration = Duration::from_secs(5);
/// Most bots kept; past it the cache starts over (it only saves queries).
const CAPACITY: usize = 10_000;

pub struct BotEntry {
    pub bot: Bot,
    pub telegram: Option<TelegramCredentials>,
    pub whatsapp: Option<WhatsAppCredentials>,
}

pub struct BotDirectory {
    pool: PgPool,
    entries: Mutex<HashMap<String, (Instant, Arc<BotEntry>)>>,
}

impl BotDirectory {
    pub fn new(pool: PgPool) -> Self {
        BotDirectory {
            pool,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The bot with this slug, or `None` if there is none (never cached).
    pub async fn get(&self, slug: &str) -> sqlx::Result<Option<Arc<BotEntry>>> {
        if let Some((at, entry)) = self.entries.lock().expect("directory lock").get(slug)
            && at.elapsed() < TTL
        {
            return Ok(Some(entry.clone()));
        }
        let Some(bot) = bots::by_slug(&self.pool, slug).await? else {
            return Ok(None);
        };
        let entry = Arc::new(BotEntry {
            telegram: credentials::telegram(&self.pool, bot.id).await?,
            whatsapp: credentials::whatsapp(&self.pool, bot.id).await?,
            bot,
        });
        let mut entries = self.entries.lock().expect("directory lock");
        if entries.len() >= CAPACITY {
            entries.clear();
        }
        entries.insert(slug.to_owned(), (Instant::now(), entry.clone()));
        Ok(Some(entry))
    }

    /// `get`, answered within a second: with the database down, a webhook hears
    /// "retry later" at once instead of waiting for a connection. `Err(None)`: it
    /// did not answer in time.
    pub async fn get_promptly(
        &self,
        slug: &str,
    ) -> Result<Option<Arc<BotEntry>>, Option<sqlx::Error>> {
        match tokio::time::timeout(std::time::Duration::from_secs(1), self.get(slug)).await {
            Ok(found) => found.map_err(Some),
            Err(_) => Err(None),
        }
    }

    /// Drops a bot after a change made here.
    pub fn forget(&self, slug: &str) {
        self.entries.lock().expect("directory lock").remove(slug);
    }
}
