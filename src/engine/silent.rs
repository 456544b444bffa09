//! Human override is on: the messages are kept and marked handled; the bot says nothing.

use super::profile::Decision;
use crate::audit::{Actor, Entry, Kind};
use crate::conversations::Conversation;

pub fn decide(conversation: &Conversation) -> Decision {
    let mut decision = Decision::keep("silent", conversation);
    decision.audit.push(
        Entry::new(Actor::Backend, Kind::TurnSkipped).reason("human override is on: no bot reply"),
    );
    decision
}
