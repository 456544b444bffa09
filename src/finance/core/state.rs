//! Conversation states of the finance profile, named for what each one waits for.

use serde::{Deserialize, Serialize};

use crate::conversations::{ForeignState, StoredState};

/// Where a finance conversation stands (DESIGN §4). Stored in the same
/// `fsm_state` column as the shop's states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FinanceState {
    /// No draft: the next message starts something new.
    Idle,
    /// A draft with open questions: the next reply patches it, never restarts it.
    Clarifying,
    /// A complete write waits for an exact confirmation or rejection token.
    AwaitingConfirmation,
    /// A person handles the conversation; the bot is silent.
    HumanTakeover,
}

impl FinanceState {
    pub const ALL: [FinanceState; 4] = [
        FinanceState::Idle,
        FinanceState::Clarifying,
        FinanceState::AwaitingConfirmation,
        FinanceState::HumanTakeover,
    ];

    pub fn as_str(self) -> &'static str {
        StoredState::from(self).as_str()
    }
}

impl std::fmt::Display for FinanceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<FinanceState> for StoredState {
    fn from(state: FinanceState) -> Self {
        match state {
            FinanceState::Idle => StoredState::Idle,
            FinanceState::Clarifying => StoredState::Clarifying,
            FinanceState::AwaitingConfirmation => StoredState::AwaitingConfirmation,
            FinanceState::HumanTakeover => StoredState::HumanTakeover,
        }
    }
}

impl TryFrom<StoredState> for FinanceState {
    type Error = ForeignState;

    fn try_from(stored: StoredState) -> Result<Self, ForeignState> {
        Ok(match stored {
            StoredState::Idle => FinanceState::Idle,
            StoredState::Clarifying => FinanceState::Clarifying,
            StoredState::AwaitingConfirmation => FinanceState::AwaitingConfirmation,
            StoredState::HumanTakeover => FinanceState::HumanTakeover,
            _ => {
                return Err(ForeignState {
                    state: stored,
                    profile: "finance",
                });
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finance_states_round_trip_through_the_stored_name_and_shop_states_do_not_fit() {
        for state in FinanceState::ALL {
            assert_eq!(FinanceState::try_from(StoredState::from(state)), Ok(state));
        }
        for shop_only in [
            StoredState::Browsing,
            StoredState::CartOpen,
            StoredState::Checkout,
            StoredState::AwaitingPayment,
            StoredState::Completed,
        ] {
            assert!(FinanceState::try_from(shop_only).is_err());
        }
    }
}
