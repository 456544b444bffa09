//! Each bot's daily LLM budget in tokens, held across replicas. `llm_calls` is the
//! record and `llm_usage_daily` the day's count PostgreSQL keeps as calls are
//! recorded; a turn reads that count with its claim (no round trip of its own).
//! Redis keeps a running count charged the moment a call returns, so replicas see
//! calls whose turns have not committed yet; a missing count (first call of the
//! day, a flushed Redis) is seeded from the claim's figure, and with Redis away
//! that figure decides alone.

use chrono::Utc;
use uuid::Uuid;

use crate::cache::Redis;

/// A day and a little: the count outlives its day only as a stale key.
const COUNT_TTL_SECS: u64 = 26 * 3600;

pub struct Budget {
    daily_tokens: u64,
    redis: Option<Redis>,
}

impl Budget {
    pub fn new(daily_tokens: u64) -> Self {
        Budget {
            daily_tokens,
            redis: None,
        }
    }

    pub fn with_redis(mut self, redis: Option<Redis>) -> Self {
        self.redis = redis;
        self
    }

    fn key(bot_id: Uuid) -> String {
        format!("llm_tokens:{bot_id}:{}", Utc::now().date_naive())
    }

    /// Tokens the bot used today (UTC), given what PostgreSQL counted when the
    /// turn was claimed.
    pub async fn spent_today(&self, bot_id: Uuid, recorded: u64) -> u64 {
        let Some(redis) = &self.redis else {
            return recorded;
        };
        let key = Self::key(bot_id);
        match redis.counter(&key).await {
            // Never below what PostgreSQL counted (a count seeded late, say).
            Ok(Some(spent)) => spent.max(recorded),
            Ok(None) => {
                redis.seed_counter(&key, recorded, COUNT_TTL_SECS).await;
                recorded
            }
            Err(_) => recorded,
        }
    }

    /// Whether the bot may make another call today.
    pub async fn allows(&self, bot_id: Uuid, recorded: u64) -> bool {
        self.spent_today(bot_id, recorded).await < self.daily_tokens
    }

    /// Counts a call's tokens the moment it returns (its `llm_calls` row is written
    /// later, by the turn's transaction).
    pub async fn charge(&self, bot_id: Uuid, tokens: u64) {
        if let Some(redis) = &self.redis
            && tokens > 0
        {
            redis.add_to_counter(&Self::key(bot_id), tokens).await;
        }
    }
}
