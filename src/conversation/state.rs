//! Conversation states of the shop profile, named for what each one waits for.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Where a shop conversation stands. Persisted as its SCREAMING_SNAKE name (read
/// back through `StoredState`) so rows written by any version stay readable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    /// Nothing under way; waiting for the customer to start.
    Idle,
    /// The customer is looking at products; the cart is empty.
    Browsing,
    /// The cart has at least one line.
    CartOpen,
    /// The customer was shown the order summary and must confirm or cancel.
    Checkout,
    /// An order exists and waits for the payment to be proven and approved.
    AwaitingPayment,
    /// The last order was paid; the next message starts afresh.
    Completed,
    /// A person handles the conversation; the bot is silent.
    HumanTakeover,
}

impl State {
    pub const ALL: [State; 7] = [
        State::Idle,
        State::Browsing,
        State::CartOpen,
        State::Checkout,
        State::AwaitingPayment,
        State::Completed,
        State::HumanTakeover,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            State::Idle => "IDLE",
            State::Browsing => "BROWSING",
            State::CartOpen => "CART_OPEN",
            State::Checkout => "CHECKOUT",
            State::AwaitingPayment => "AWAITING_PAYMENT",
            State::Completed => "COMPLETED",
            State::HumanTakeover => "HUMAN_TAKEOVER",
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_serializes_as_its_stored_name() {
        for state in State::ALL {
            let json = serde_json::to_string(&state).unwrap();
            assert_eq!(json, format!("\"{}\"", state.as_str()));
        }
    }
}
