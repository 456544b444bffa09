//! Redis, where it earns its place: an early duplicate drop at ingestion, before
//! PostgreSQL is touched. PostgreSQL's unique key stays the truth, so a flushed,
//! stopped or absent Redis changes speed, never correctness. Every call is bounded
//! and a failure counts as a miss.

use std::time::Duration;

use anyhow::Context;
use redis::AsyncCommands;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use uuid::Uuid;

/// Longest any Redis call may take before it is treated as a miss.
const CALL_TIMEOUT: Duration = Duration::from_millis(250);
/// How long a processed event id is remembered. Platforms retry for up to a week;
/// past this window PostgreSQL still catches the repeat.
const DEDUPE_TTL_SECS: u64 = 3 * 24 * 3600;

/// Redis did not answer in time (or at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unavailable;

#[derive(Clone)]
pub struct Redis {
    manager: ConnectionManager,
    /// Namespace for every key, so tests and tenants never collide.
    prefix: String,
}

impl Redis {
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<Redis> {
        let client = redis::Client::open(url).context("REDIS_URL is not a valid Redis URL")?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(CALL_TIMEOUT))
            .set_number_of_retries(2);
        let manager = tokio::time::timeout(
            Duration::from_secs(3),
            ConnectionManager::new_with_config(client, config),
        )
        .await
        .context("Redis did not answer")?
        .context("could not connect to Redis")?;
        Ok(Redis {
            manager,
            prefix: prefix.to_owned(),
        })
    }

    fn dedupe_key(&self, bot_id: Uuid, external_id: &str) -> String {
        format!("{}:seen:{bot_id}:{external_id}", self.prefix)
    }

    /// The inbox id an event was stored under, if Redis remembers it.
    pub async fn seen(&self, bot_id: Uuid, external_id: &str) -> Option<i64> {
        let key = self.dedupe_key(bot_id, external_id);
        let mut conn = self.manager.clone();
        match tokio::time::timeout(CALL_TIMEOUT, conn.get::<_, Option<i64>>(&key)).await {
            Ok(Ok(found)) => found,
            Ok(Err(err)) => {
                tracing::debug!(%err, "Redis lookup failed; PostgreSQL decides");
                None
            }
            Err(_) => None,
        }
    }

    /// Remembers an event after its row is committed (never before: a failed commit
    /// must let the platform's retry through).
    pub async fn remember(&self, bot_id: Uuid, external_id: &str, inbox_id: i64) {
        let key = self.dedupe_key(bot_id, external_id);
        let mut conn = self.manager.clone();
        let options = redis::SetOptions::default()
            .conditional_set(redis::ExistenceCheck::NX)
            .with_expiration(redis::SetExpiry::EX(DEDUPE_TTL_SECS));
        let call = conn.set_options::<_, _, ()>(&key, inbox_id, options);
        if let Ok(Err(err)) = tokio::time::timeout(CALL_TIMEOUT, call).await {
            tracing::debug!(%err, "Redis write failed; PostgreSQL still dedupes");
        }
    }

    /// Counts one use of `key` in the one-second window `second` across replicas.
    /// `None` when Redis cannot answer.
    pub async fn count_in_window(&self, key: &str, second: u64) -> Option<u64> {
        let key = format!("{}:rate:{key}:{second}", self.prefix);
        let mut conn = self.manager.clone();
        let mut pipe = redis::pipe();
        pipe.atomic().incr(&key, 1u64).expire(&key, 2).ignore();
        match tokio::time::timeout(CALL_TIMEOUT, pipe.query_async::<(u64,)>(&mut conn)).await {
            Ok(Ok((count,))) => Some(count),
            _ => None,
        }
    }

    /// A counter's value: `Ok(None)` when it is not set, `Err` when Redis cannot answer.
    pub async fn counter(&self, key: &str) -> Result<Option<u64>, Unavailable> {
        let key = format!("{}:count:{key}", self.prefix);
        let mut conn = self.manager.clone();
        match tokio::time::timeout(CALL_TIMEOUT, conn.get::<_, Option<u64>>(&key)).await {
            Ok(Ok(value)) => Ok(value),
            _ => Err(Unavailable),
        }
    }

    /// Sets a counter that is not set yet (from the durable record), expiring
    /// after `ttl_secs`.
    pub async fn seed_counter(&self, key: &str, value: u64, ttl_secs: u64) {
        let key = format!("{}:count:{key}", self.prefix);
        let mut conn = self.manager.clone();
        let options = redis::SetOptions::default()
            .conditional_set(redis::ExistenceCheck::NX)
            .with_expiration(redis::SetExpiry::EX(ttl_secs));
        let call = conn.set_options::<_, _, ()>(&key, value, options);
        let _ = tokio::time::timeout(CALL_TIMEOUT, call).await;
    }

    /// Paces sends across replicas: every key holds the earliest time (Redis's own
    /// clock, in microseconds) its next send may go. If all keys are due, each is
    /// moved on by its interval and `Some(0)` returns; otherwise nothing changes and
    /// the longest wait (µs) returns. `None` when Redis cannot answer.
    pub async fn pace(&self, keys: &[(String, u64)]) -> Option<u64> {
        let mut conn = self.manager.clone();
        let mut invocation = PACE.prepare_invoke();
        for (key, interval_us) in keys {
            invocation
                .key(format!("{}:pace:{key}", self.prefix))
                .arg(*interval_us);
        }
        let call = invocation.invoke_async::<u64>(&mut conn);
        match tokio::time::timeout(CALL_TIMEOUT, call).await {
            Ok(Ok(wait)) => Some(wait),
            _ => None,
        }
    }

    /// Adds to a counter only if it is set: an unset counter is seeded from the
    /// durable record, which already holds this addition.
    pub async fn add_to_counter(&self, key: &str, by: u64) {
        let key = format!("{}:count:{key}", self.prefix);
        let mut conn = self.manager.clone();
        let mut invocation = ADD_IF_SET.key(&key);
        invocation.arg(by);
        let call = invocation.invoke_async::<Option<u64>>(&mut conn);
        let _ = tokio::time::timeout(CALL_TIMEOUT, call).await;
    }
}

/// The pacing script of [`Redis::pace`], hashed once.
static PACE: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| {
    redis::Script::new(
        "local t = redis.call('TIME')
             local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
             local wait = 0
             for i, key in ipairs(KEYS) do
                 local due = tonumber(redis.call('GET', key) or '0')
                 if due - now > wait then wait = due - now end
             end
             if wait > 0 then return wait end
             for i, key in ipairs(KEYS) do
                 local interval = tonumber(ARGV[i])
                 redis.call('SET', key, now + interval, 'PX', math.floor(interval / 1000) + 1000)
             end
             return 0",
    )
});

/// The script of [`Redis::add_to_counter`], hashed once.
static ADD_IF_SET: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| {
    redis::Script::new(
        "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end return nil",
    )
});
