//! The human override, as rules over a conversation row: taking it over (the bot
//! goes silent, an unconfirmed draft is dropped) and handing it back to where it
//! was. Pure: each returns the update to save and its audit rows.

use crate::audit::{Actor, Entry, Kind};
use crate::conversations::{Conversation, StoredState, Update};

/// Turns the override on (if it is not already), remembering where the
/// conversation was. A draft awaiting the user's answer is dropped: after a person
/// stepped in, a bare "sí" must not confirm something asked before. Returns the
/// update and its audit rows.
pub fn takeover(
    conversation: &Conversation,
    by: &str,
    actor: Actor,
    reason: &str,
) -> (Update, Vec<Entry>) {
    let mut update = Update::keep(conversation);
    if conversation.human_override {
        return (update, Vec::new());
    }
    let from = conversation.state();
    let to = StoredState::HumanTakeover;
    let before = if from.holds_draft() {
        StoredState::Idle
    } else {
        from
    };
    update.state = to;
    update.human_override = true;
    update.override_by = Some(by.to_owned());
    update.state_before_takeover = Some(before);
    let mut audit = vec![
        Entry::new(actor, Kind::OverrideChanged)
            .states(from, to)
            .reason(reason)
            .detail(serde_json::json!({"human_override": true, "by": by})),
    ];
    if update.draft.take().is_some() {
        audit.push(
            Entry::new(actor, Kind::DraftDiscarded).reason("a person took the conversation over"),
        );
    }
    audit.extend(Entry::state_change(actor, from, to, reason));
    (update, audit)
}

/// A customer's turn hands the conversation to a person from `state` (where the
/// turn left it): the takeover, counted as the customer's activity.
pub fn to_person(
    conversation: &Conversation,
    state: StoredState,
    actor: Actor,
    reason: &str,
) -> (Update, Vec<Entry>) {
    let mut at = conversation.clone();
    at.fsm_state = state;
    let (mut update, audit) = takeover(&at, "customer", actor, reason);
    update.activity = true;
    (update, audit)
}

#[derive(Debug, thiserror::Error)]
#[error("the conversation is not taken over")]
pub struct NotTakenOver;

/// Turns the override off and returns to the state before the takeover (or IDLE).
pub fn release(
    conversation: &Conversation,
    to_idle: bool,
    actor: Actor,
) -> Result<(Update, Vec<Entry>), NotTakenOver> {
    if !conversation.human_override {
        return Err(NotTakenOver);
    }
    let from = conversation.state();
    let to = match conversation.state_before_takeover() {
        Some(before) if !to_idle && before != StoredState::HumanTakeover => before,
        _ => StoredState::Idle,
    };
    let mut update = Update::keep(conversation);
    update.state = to;
    update.human_override = false;
    update.override_by = None;
    update.state_before_takeover = None;
    let mut audit = vec![
        Entry::new(actor, Kind::OverrideChanged)
            .states(from, to)
            .reason("released")
            .detail(serde_json::json!({"human_override": false, "to_idle": to_idle})),
    ];
    audit.extend(Entry::state_change(actor, from, to, "takeover released"));
    Ok((update, audit))
}
