//! A fixed answer that needs no proposer (unreadable media, an image with no order).

use super::Decision;
use crate::outbox::Author;

pub fn apply(text: &'static str, decision: &mut Decision) {
    decision.say(Author::Bot, text);
}
