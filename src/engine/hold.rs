//! A contact over the per-minute message limit: the messages are kept (the
//! merchant sees them) and marked handled without a proposal; the burst that
//! crossed the limit gets one "un momento".

use serde_json::json;

use super::messages;
use super::profile::Decision;
use crate::audit::{Actor, Entry, Kind};
use crate::conversations::Conversation;
use crate::outbox::Author;

/// A burst held back by the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// Say "un momento" (once, on the burst that crossed the limit).
    pub notify: bool,
    pub last_minute: i64,
    pub per_minute: u32,
}

/// The per-contact rate limit: a burst of `burst` messages after `last_minute`
/// others in the past minute is held when the total passes `per_minute`.
pub fn limit(last_minute: i64, burst: usize, per_minute: u32) -> Option<Held> {
    let limit = i64::from(per_minute);
    (last_minute + burst as i64 > limit).then_some(Held {
        // Earlier bursts stayed within the limit: this one crossed it.
        notify: last_minute <= limit,
        last_minute,
        per_minute,
    })
}

impl Held {
    pub fn decide(self, conversation: &Conversation, messages_held: usize) -> Decision {
        let mut decision = Decision::keep("hold", conversation);
        decision.audit.push(
            Entry::new(Actor::Backend, Kind::RateLimited)
                .reason(format!(
                    "more than {} messages in a minute",
                    self.per_minute
                ))
                .detail(json!({
                    "messages": messages_held,
                    "last_minute": self.last_minute,
                    "per_minute": self.per_minute,
                    "notified": self.notify,
                })),
        );
        if self.notify {
            decision.say(Author::Bot, messages::SLOW_DOWN);
        }
        decision
    }
}
