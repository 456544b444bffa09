//! Human override is on: the messages are kept and marked handled; the bot says nothing.

use super::Decision;
use crate::audit::{Actor, Entry};

pub fn apply(decision: &mut Decision) {
    decision.audit.push(
        Entry::new(Actor::Backend, "turn_skipped").reason("human override is on: no bot reply"),
    );
}
