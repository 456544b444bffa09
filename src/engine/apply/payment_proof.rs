//! An image or payment words while an order waits for payment: the proof is kept
//! for the merchant, who alone approves or rejects it.

use serde_json::json;

use super::{Decision, StoreOp, TurnInput};
use crate::audit::{Actor, Entry};
use crate::conversation::Event;
use crate::inbox::MessagePayload;
use crate::outbox::Author;
use crate::shop::messages;

pub fn apply(input: &TurnInput<'_>, payload: &MessagePayload, decision: &mut Decision) {
    decision.audit.push(
        Entry::new(Actor::Backend, "event_detected").action(Event::PaymentProofReceived.as_str()),
    );
    let Some(order) = input.snapshot.open_order.as_deref() else {
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
        Entry::new(Actor::Customer, "payment_proof_received")
            .detail(json!({"order_id": order.id, "order_number": order.number})),
    );
    decision.say(
        Author::Bot,
        messages::proof_received(order.number, order.total_minor, &order.currency),
    );
}
