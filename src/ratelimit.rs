//! Rate limits shared by every replica through Redis, with an in-process fallback
//! when Redis is absent or failing: counts per one-second window for requests
//! (`acquire`), and paced slots for sends to a platform (`pace`), which never lets
//! two sends on one key come closer than its interval, so a platform that counts
//! over any rolling second (Telegram's per chat and per bot, WhatsApp's per
//! number) never sees a burst across a window's edge.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::cache::Redis;

pub struct RateLimiter {
    redis: Option<Redis>,
    local: Mutex<HashMap<String, (u64, u32)>>,
    /// Per key, when its next paced send may go (in-process fallback).
    slots: Mutex<HashMap<String, Instant>>,
}

/// Paced sends keep this much below the stated rate, so a platform's clock and
/// network jitter never make two of them look closer than allowed.
const PACE_MARGIN: f64 = 1.05;

fn now() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

impl RateLimiter {
    pub fn new(redis: Option<Redis>) -> Self {
        RateLimiter {
            redis,
            local: Mutex::new(HashMap::new()),
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one unit of `key` if the current second has room; otherwise returns how
    /// long to wait for the next window.
    pub async fn acquire(&self, key: &str, per_second: u32) -> Result<(), Duration> {
        let now = now();
        let second = now.as_secs();
        let until_next =
            Duration::from_secs(second + 1).saturating_sub(now) + Duration::from_millis(5);
        let count = match &self.redis {
            Some(redis) => match redis.count_in_window(key, second).await {
                Some(count) => count,
                None => self.local_count(key, second),
            },
            None => self.local_count(key, second),
        };
        if count <= u64::from(per_second) {
            Ok(())
        } else {
            Err(until_next)
        }
    }

    /// Takes the next send slot on every key at once (`(key, sends per second)`), or,
    /// when any key's slot is not due yet, takes none and returns the longest wait.
    pub async fn pace(&self, keys: &[(String, u32)]) -> Result<(), Duration> {
        let intervals: Vec<(String, u64)> = keys
            .iter()
            .map(|(key, per_second)| {
                let interval = 1_000_000.0 / f64::from((*per_second).max(1)) * PACE_MARGIN;
                (key.clone(), interval.ceil() as u64)
            })
            .collect();
        if let Some(redis) = &self.redis
            && let Some(wait_us) = redis.pace(&intervals).await
        {
            return if wait_us == 0 {
                Ok(())
            } else {
                Err(Duration::from_micros(wait_us))
            };
        }
        let now = Instant::now();
        let mut slots = self.slots.lock().expect("rate limiter lock");
        if slots.len() > 10_000 {
            slots.retain(|_, due| *due > now);
        }
        let wait = intervals
            .iter()
            .filter_map(|(key, _)| slots.get(key))
            .map(|due| due.saturating_duration_since(now))
            .max()
            .unwrap_or_default();
        if !wait.is_zero() {
            return Err(wait);
        }
        for (key, interval) in intervals {
            slots.insert(key, now + Duration::from_micros(interval));
        }
        Ok(())
    }

    fn local_count(&self, key: &str, second: u64) -> u64 {
        let mut local = self.local.lock().expect("rate limiter lock");
        if local.len() > 10_000 {
            local.retain(|_, (s, _)| *s == second);
        }
        let entry = local.entry(key.to_owned()).or_insert((second, 0));
        if entry.0 != second {
            *entry = (second, 0);
        }
        entry.1 += 1;
        u64::from(entry.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_in_process_limiter_admits_the_rate_then_asks_to_wait() {
        let limiter = RateLimiter::new(None);
        // Stay inside one window: start just after a second boundary.
        let into_second = now().subsec_millis();
        if into_second > 800 {
            tokio::time::sleep(Duration::from_millis(u64::from(1000 - into_second) + 10)).await;
        }
        assert!(limiter.acquire("chat", 2).await.is_ok());
        assert!(limiter.acquire("chat", 2).await.is_ok());
        let wait = limiter.acquire("chat", 2).await.unwrap_err();
        assert!(wait <= Duration::from_millis(1005));
        assert!(
            limiter.acquire("other", 2).await.is_ok(),
            "keys are independent"
        );
    }

    #[tokio::test]
    async fn paced_sends_never_come_closer_than_the_interval_on_any_key() {
        let limiter = RateLimiter::new(None);
        let chat = |c: &str| vec![(format!("chat:{c}"), 1), ("bot".to_owned(), 20)];
        assert!(limiter.pace(&chat("a")).await.is_ok());
        // Same chat: about a second (plus the margin) to wait.
        let wait = limiter.pace(&chat("a")).await.unwrap_err();
        assert!(wait > Duration::from_millis(1000) && wait <= Duration::from_millis(1050));
        // Another chat waits only for the bot's slot (1/20 s plus the margin)...
        let wait = limiter.pace(&chat("b")).await.unwrap_err();
        assert!(wait <= Duration::from_millis(53), "{wait:?}");
        tokio::time::sleep(wait).await;
        // ...and a refusal took no slot: chat b goes as soon as the bot's is due.
        assert!(limiter.pace(&chat("b")).await.is_ok());
        assert!(limiter.pace(&chat("c")).await.is_err());
    }
}
