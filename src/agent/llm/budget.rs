//! Each bot's daily LLM budget in tokens, held across replicas. `llm_calls` is the
//! record; Redis keeps a running count of today's tokens so a turn does not sum
//! the table. A missing count (first call of the day, a flushed Redis) is seeded
//! from `llm_usage_daily`, the day's count PostgreSQL keeps as calls are recorded;
//! with Redis away that row is read directly.

use chrono::Utc;
use sqlx::PgPool;
use uuid::Uuid;

use crate::cache::Redis;
use crate::llm_calls;

/// A day and a little: the count outlives its day only as a stale key.
const COUNT_TTL_SECS: u64 = 26 * 3600;

pub struct Budget {
    daily_tokens: u64,
    pool: PgPool,
    redis: Option<Redis>,
}

impl Budget {
    pub fn new(daily_tokens: u64, pool: PgPool) -> Self {
        Budget {
            daily_tokens,
            pool,
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

    /// Tokens the bot used today (UTC).
    pub async fn spent_today(&self, bot_id: Uuid) -> sqlx::Result<u64> {
        let key = Self::key(bot_id);
        if let Some(redis) = &self.redis
            && let Ok(Some(spent)) = redis.counter(&key).await
        {
            return Ok(spent);
        }
        let spent = llm_calls::tokens_on(&self.pool, bot_id, Utc::now().date_naive()).await?;
        let spent = u64::try_from(spent).unwrap_or(0);
        if let Some(redis) = &self.redis {
            redis.seed_counter(&key, spent, COUNT_TTL_SECS).await;
        }
        Ok(spent)
    }

    /// Whether the bot may make another call today. When the count cannot be
    /// read the answer is no: the rules answer that turn instead.
    pub async fn allows(&self, bot_id: Uuid) -> bool {
        match self.spent_today(bot_id).await {
            Ok(spent) => spent < self.daily_tokens,
            Err(err) => {
                tracing::warn!(%err, "cannot read the LLM budget; this turn uses the rules");
                false
            }
        }
    }

    /// Counts a recorded call's tokens (after its `llm_calls` row is written).
    pub async fn charge(&self, bot_id: Uuid, tokens: u64) {
        if let Some(redis) = &self.redis
            && tokens > 0
        {
            redis.add_to_counter(&Self::key(bot_id), tokens).await;
        }
    }
}
