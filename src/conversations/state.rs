//! A conversation's state as its row stores it, whichever profile the bot runs: the
//! shop's seven states and the finance profile's two of its own (IDLE and
//! HUMAN_TAKEOVER are shared). Each profile converts it into its own closed enum
//! (`shop::core::State`, `finance::core::FinanceState`) and refuses a name that is
//! not one of its states; nothing becomes IDLE by default.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Every state name a `conversations.fsm_state` may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[sqlx(type_name = "text", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StoredState {
    Idle,
    Browsing,
    CartOpen,
    Checkout,
    AwaitingPayment,
    Completed,
    /// Finance: a draft with open questions; the next reply patches it.
    Clarifying,
    /// Finance: a write waits for an exact confirmation token.
    AwaitingConfirmation,
    HumanTakeover,
}

impl StoredState {
    pub const ALL: [StoredState; 9] = [
        StoredState::Idle,
        StoredState::Browsing,
        StoredState::CartOpen,
        StoredState::Checkout,
        StoredState::AwaitingPayment,
        StoredState::Completed,
        StoredState::Clarifying,
        StoredState::AwaitingConfirmation,
        StoredState::HumanTakeover,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StoredState::Idle => "IDLE",
            StoredState::Browsing => "BROWSING",
            StoredState::CartOpen => "CART_OPEN",
            StoredState::Checkout => "CHECKOUT",
            StoredState::AwaitingPayment => "AWAITING_PAYMENT",
            StoredState::Completed => "COMPLETED",
            StoredState::Clarifying => "CLARIFYING",
            StoredState::AwaitingConfirmation => "AWAITING_CONFIRMATION",
            StoredState::HumanTakeover => "HUMAN_TAKEOVER",
        }
    }

    /// States that hold a draft the user has not finished or confirmed: a takeover
    /// drops it, so a confirmation can never land on something stale.
    pub fn holds_draft(self) -> bool {
        matches!(
            self,
            StoredState::Clarifying | StoredState::AwaitingConfirmation
        )
    }

    /// States left behind when the customer goes quiet for the bot's session
    /// timeout: an open cart or checkout, an unfinished or unconfirmed draft.
    pub fn expires_when_idle(self) -> bool {
        match self {
            StoredState::Browsing
            | StoredState::CartOpen
            | StoredState::Checkout
            | StoredState::Clarifying
            | StoredState::AwaitingConfirmation => true,
            StoredState::Idle
            | StoredState::AwaitingPayment
            | StoredState::Completed
            | StoredState::HumanTakeover => false,
        }
    }
}

impl fmt::Display for StoredState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A state name that is not one of the nine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown conversation state `{0}`")]
pub struct UnknownState(pub String);

impl FromStr for StoredState {
    type Err = UnknownState;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StoredState::ALL
            .into_iter()
            .find(|state| state.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownState(s.to_owned()))
    }
}

/// For columns decoded straight into a `StoredState`: an unknown name is an error.
impl TryFrom<String> for StoredState {
    type Error = UnknownState;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// A stored state that belongs to another profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("state {state} is not a state of the {profile} profile")]
pub struct ForeignState {
    pub state: StoredState,
    pub profile: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stored_state_round_trips() {
        for stored in StoredState::ALL {
            assert_eq!(stored.as_str().parse::<StoredState>(), Ok(stored));
            let json = serde_json::to_string(&stored).unwrap();
            assert_eq!(json, format!("\"{}\"", stored.as_str()));
        }
        assert!("SHIPPED".parse::<StoredState>().is_err());
    }
}
