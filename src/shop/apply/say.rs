//! An answer that needs no proposer: unreadable media, an image with no order,
//! where the customer's order stands.

use super::Decision;
use crate::outbox::Author;

pub fn apply(text: std::borrow::Cow<'static, str>, decision: &mut Decision) {
    decision.say(Author::Bot, text);
}
