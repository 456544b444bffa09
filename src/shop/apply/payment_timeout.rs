//! An order not paid in time expires, and the customer is told.

use serde_json::json;
use uuid::Uuid;

use super::{Decision, TurnInput};
use crate::audit::{Actor, Entry, Kind};
use crate::outbox::Author;
use crate::shop::core::{Event, Release, State, on_event};
use crate::shop::effects::StoreOp;
use crate::shop::messages;
use crate::shop::orders::OrderStatus;

pub fn apply(input: &TurnInput<'_>, order_id: Uuid, before: State, decision: &mut Decision) {
    // The snapshot's open order is current: any change to it (a merchant approving
    // the payment) bumps the conversation version, and the commit checks that.
    let order = input
        .open_order
        .filter(|o| o.id == order_id && o.status == OrderStatus::AwaitingPayment)
        .filter(|o| o.payment_due_at <= chrono::Utc::now());
    let Some(order) = order else {
        decision.audit.push(
            Entry::new(Actor::Backend, Kind::TimeoutSkipped)
                .reason("order no longer awaiting payment"),
        );
        return;
    };
    decision.store.push(StoreOp::SetStatus {
        order_id: order.id,
        status: OrderStatus::Expired,
    });
    decision.audit.push(
        Entry::new(Actor::Backend, Kind::EventDetected)
            .action(Event::PaymentTimeout.as_str())
            .detail(json!({"order_id": order.id, "order_number": order.number})),
    );
    let no_release = Release {
        before: None,
        to_idle: false,
    };
    if let Ok(to) = on_event(before, Event::PaymentTimeout, no_release) {
        decision.audit.extend(Entry::state_change(
            Actor::Backend,
            before,
            to,
            "payment timeout",
        ));
        decision.update.state = to.into();
    }
    decision.say(Author::Bot, messages::order_expired(order.number));
}
