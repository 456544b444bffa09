//! The customer asked for a person: the override goes on and a notice goes out
//! (a system message, so the override does not silence it).

use super::{Decision, TurnInput};
use crate::audit::{Actor, Entry, Kind};
use crate::engine::ESCALATION_REQUESTED;
use crate::outbox::Author;

pub fn apply(input: &TurnInput<'_>, notice: &'static str, decision: &mut Decision) {
    decision
        .audit
        .push(Entry::new(Actor::Backend, Kind::EventDetected).action(ESCALATION_REQUESTED));
    let (takeover, rows) = crate::handoff::to_person(
        &input.snapshot.conversation,
        decision.update.state,
        Actor::Customer,
        "escalation requested",
    );
    decision.update = takeover;
    decision.audit.extend(rows);
    decision.say(Author::System, notice);
}
