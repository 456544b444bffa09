//! Send-rate limits shared by every replica through Redis (one-second windows), with
//! an in-process fallback when Redis is absent or failing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::cache::Redis;

pub struct RateLimiter {
    redis: Option<Redis>,
    local: Mutex<HashMap<String, (u64, u32)>>,
}

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
}
