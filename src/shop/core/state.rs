//! Conversation states of the shop profile, named for what each one waits for.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::conversations::{ForeignState, StoredState};

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

impl From<State> for StoredState {
    fn from(state: State) -> Self {
        match state {
            State::Idle => StoredState::Idle,
            State::Browsing => StoredState::Browsing,
            State::CartOpen => StoredState::CartOpen,
            State::Checkout => StoredState::Checkout,
            State::AwaitingPayment => StoredState::AwaitingPayment,
            State::Completed => StoredState::Completed,
            State::HumanTakeover => StoredState::HumanTakeover,
        }
    }
}

impl TryFrom<StoredState> for State {
    type Error = ForeignState;

    fn try_from(stored: StoredState) -> Result<Self, ForeignState> {
        Ok(match stored {
            StoredState::Idle => State::Idle,
            StoredState::Browsing => State::Browsing,
            StoredState::CartOpen => State::CartOpen,
            StoredState::Checkout => State::Checkout,
            StoredState::AwaitingPayment => State::AwaitingPayment,
            StoredState::Completed => State::Completed,
            StoredState::HumanTakeover => State::HumanTakeover,
            StoredState::Clarifying | StoredState::AwaitingConfirmation => {
                return Err(ForeignState {
                    state: stored,
                    profile: "shop",
                });
            }
        })
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

#[cfg(test)]
mod stored_tests {
    use super::*;

    #[test]
    fn shop_states_convert_to_stored_states_and_back() {
        for state in State::ALL {
            let stored = StoredState::from(state);
            assert_eq!(stored.as_str(), state.as_str());
            assert_eq!(State::try_from(stored), Ok(state));
        }
        assert!(State::try_from(StoredState::Clarifying).is_err());
    }
}
