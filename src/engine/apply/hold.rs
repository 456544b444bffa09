//! A contact over the per-minute message limit: the messages are kept (the
//! merchant sees them) and marked handled without a proposal; the burst that
//! crossed the limit gets one "un momento".

use serde_json::json;

use super::{Decision, TurnInput};
use crate::audit::{Actor, Entry};
use crate::outbox::Author;
use crate::shop::messages;

pub fn apply(
    input: &TurnInput<'_>,
    notify: bool,
    last_minute: i64,
    per_minute: u32,
    decision: &mut Decision,
) {
    decision.audit.push(
        Entry::new(Actor::Backend, "rate_limited")
            .reason(format!("more than {per_minute} messages in a minute"))
            .detail(json!({
                "messages": input.burst.ids.len(),
                "last_minute": last_minute,
                "per_minute": per_minute,
                "notified": notify,
            })),
    );
    if notify {
        decision.say(Author::Bot, messages::SLOW_DOWN);
    }
}
