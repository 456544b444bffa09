//! An image or payment words while an order waits for payment: the proof is kept
//! for the merchant, who alone approves or rejects it.

use serde_json::json;

use super::{Decision, TurnInput};
use crate::audit::{Actor, Entry, Kind};
use crate::channels::MessagePayload;
use crate::notices::Notice;
use crate::outbox::Author;
use crate::shop::core::Event;
use crate::shop::effects::StoreOp;
use crate::shop::messages;
use crate::shop::plan::Answered;

pub fn apply(
    input: &TurnInput<'_>,
    payload: &MessagePayload,
    answers: &[Answered],
    decision: &mut Decision,
) {
    decision.audit.push(
        Entry::new(Actor::Backend, Kind::EventDetected)
            .action(Event::PaymentProofReceived.as_str()),
    );
    let Some(order) = input.open_order else {
        decision.say(Author::Bot, messages::NO_PENDING_ORDER);
        return;
    };
    decision.store.push(StoreOp::RecordProof {
        order_id: order.id,
        inbox_id: input
            .burst
            .attachment_event
            .unwrap_or(input.burst.head_id()),
        media: payload.media.as_ref().map(|m| json!(m)),
        text: payload.text.clone(),
    });
    decision.audit.push(
        Entry::new(Actor::Customer, Kind::PaymentProofReceived)
            .detail(json!({"order_id": order.id, "order_number": order.number})),
    );
    decision.notice = Some(Notice::PaymentProof {
        order_number: order.number,
        total_minor: order.total_minor,
        currency: order.currency.clone(),
    });
    // The questions asked beside it first, then the proof's acknowledgement.
    super::knowledge::audit(answers, decision);
    let mut text: Vec<String> = answers.iter().map(|a| a.answer.text.clone()).collect();
    text.push(messages::proof_received(
        order.number,
        order.total_minor,
        &order.currency,
    ));
    decision.say(Author::Bot, text.join("\n\n"));
}
