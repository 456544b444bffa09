//! Conversation states of the shop profile, named for what each one waits for.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Where a shop conversation stands. Persisted as its SCREAMING_SNAKE name so that
/// rows written by any version stay readable after a deploy.
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

/// A state name that is not one of the seven.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown conversation state `{0}`")]
pub struct UnknownState(pub String);

impl FromStr for State {
    type Err = UnknownState;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        State::ALL
            .into_iter()
            .find(|state| state.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownState(s.to_owned()))
    }
}

/// For columns decoded straight into a `State`: an unknown name is an error, never
/// a silent default.
impl TryFrom<String> for State {
    type Error = UnknownState;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_round_trips_through_its_name() {
        for state in State::ALL {
            assert_eq!(state.as_str().parse::<State>(), Ok(state));
            let json = serde_json::to_string(&state).unwrap();
            assert_eq!(json, format!("\"{}\"", state.as_str()));
        }
        assert!("SHIPPED".parse::<State>().is_err());
    }
}
