//! Events the backend detects or the merchant causes, and the transitions they make.
//! None of them is ever taken from a proposer's word.

use serde::Serialize;

use super::state::State;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Event {
    GreetingReceived,
    /// An image or payment keywords while an order waits for payment.
    PaymentProofReceived,
    /// Merchant only.
    PaymentApproved,
    /// Merchant only; the customer is asked to send the proof again.
    PaymentRejected,
    EscalationRequested,
    SessionTimeout,
    PaymentTimeout,
    /// The merchant cancelled the pending order.
    OrderCancelled,
    /// A person took the conversation over (merchant API, escalation, phone echo).
    TakeoverStarted,
    /// The person handed the conversation back.
    TakeoverReleased,
}

impl Event {
    pub const ALL: [Event; 10] = [
        Event::GreetingReceived,
        Event::PaymentProofReceived,
        Event::PaymentApproved,
        Event::PaymentRejected,
        Event::EscalationRequested,
        Event::SessionTimeout,
        Event::PaymentTimeout,
        Event::OrderCancelled,
        Event::TakeoverStarted,
        Event::TakeoverReleased,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Event::GreetingReceived => "GREETING_RECEIVED",
            Event::PaymentProofReceived => "PAYMENT_PROOF_RECEIVED",
            Event::PaymentApproved => "PAYMENT_APPROVED",
            Event::PaymentRejected => "PAYMENT_REJECTED",
            Event::EscalationRequested => "ESCALATION_REQUESTED",
            Event::SessionTimeout => "SESSION_TIMEOUT",
            Event::PaymentTimeout => "PAYMENT_TIMEOUT",
            Event::OrderCancelled => "ORDER_CANCELLED",
            Event::TakeoverStarted => "TAKEOVER_STARTED",
            Event::TakeoverReleased => "TAKEOVER_RELEASED",
        }
    }
}

/// The events a customer message shows, in a fixed order (greeting, payment
/// proof, escalation), as the shop names them.
pub fn detected(detected: crate::detect::Detected) -> Vec<Event> {
    let mut events = Vec::new();
    if detected.greeting {
        events.push(Event::GreetingReceived);
    }
    if detected.payment {
        events.push(Event::PaymentProofReceived);
    }
    if detected.escalation {
        events.push(Event::EscalationRequested);
    }
    events
}

/// Where the conversation was before a takeover, and where the merchant wants it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub before: Option<State>,
    pub to_idle: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{event:?} does not apply in state {state}")]
pub struct EventNotApplicable {
    pub event: Event,
    pub state: State,
}

/// The state an event leads to from `state`. `release` is read only for
/// `TakeoverReleased`. Events that change nothing in a state return that state.
pub fn on_event(state: State, event: Event, release: Release) -> Result<State, EventNotApplicable> {
    use Event::*;
    use State::*;
    let not_applicable = Err(EventNotApplicable { event, state });
    match (event, state) {
        (GreetingReceived, _) => Ok(state),
        (PaymentProofReceived | PaymentRejected, AwaitingPayment) => Ok(AwaitingPayment),
        (PaymentApproved, AwaitingPayment) => Ok(Completed),
        (PaymentProofReceived | PaymentApproved | PaymentRejected, _) => not_applicable,
        (EscalationRequested | TakeoverStarted, _) => Ok(HumanTakeover),
        (SessionTimeout, Browsing | CartOpen | Checkout) => Ok(Idle),
        (SessionTimeout, _) => not_applicable,
        (PaymentTimeout | OrderCancelled, AwaitingPayment) => Ok(Idle),
        (PaymentTimeout | OrderCancelled, _) => not_applicable,
        (TakeoverReleased, HumanTakeover) => Ok(match release {
            Release { to_idle: true, .. } => Idle,
            Release {
                before: Some(before),
                ..
            } if before != HumanTakeover => before,
            _ => Idle,
        }),
        (TakeoverReleased, _) => not_applicable,
    }
}

/// A customer message after a completed purchase starts afresh.
pub fn on_customer_message(state: State) -> State {
    if state == State::Completed {
        State::Idle
    } else {
        state
    }
}
