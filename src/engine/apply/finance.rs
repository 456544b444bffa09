//! A finance turn's plan becomes the commit's decision: the state and draft it
//! leaves, its audit rows, its confirmed write and its reply. An accepted
//! ESCALATE turns the override on, as in the shop.

use super::{Decision, TurnInput};
use crate::audit::{Actor, Entry};
use crate::conversations;
use crate::engine::finance::FinancePlan;
use crate::outbox::Author;

pub fn apply(input: &TurnInput<'_>, plan: FinancePlan, decision: &mut Decision) {
    decision.audit.extend(plan.audit);
    decision.update.state = plan.state.into();
    decision.update.draft = plan
        .draft
        .as_ref()
        .map(|d| serde_json::to_value(d).expect("drafts serialize"));
    decision.update.activity = plan.activity;
    decision.finance = plan.writes;
    let mut author = Author::Bot;
    if plan.escalate {
        let mut at_start = input.snapshot.conversation.clone();
        at_start.fsm_state = plan.start.into();
        let (mut takeover, rows) =
            conversations::takeover(&at_start, "customer", Actor::Customer, "ESCALATE accepted");
        takeover.activity = true;
        decision.update = takeover;
        decision.audit.extend(rows);
        decision
            .audit
            .push(Entry::new(Actor::Agent, "override_changed").reason("ESCALATE accepted"));
        author = Author::System;
    }
    if let Some(text) = plan.reply {
        decision.say(author, text);
    }
}
