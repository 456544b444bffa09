//! The shape every proposer answers in, whichever profile asks: 1 to 5 actions
//! of the profile's closed set, a short text, an advisory state. The profiles
//! define their actions and inputs (`shop::contract`, `finance::contract`); what
//! they share lives here, with the limits the backend holds every proposal to.
//! Everything a proposer returns is untrusted.

use serde::{Deserialize, Serialize};

/// Most actions one proposal may carry; the rest are rejected.
pub const MAX_ACTIONS: usize = 5;
/// Longest proposer text, in characters; longer text is never shown.
pub const MAX_RESPONSE_TEXT: usize = 500;

/// A proposer's answer, exactly as it arrives, whatever its contract: `A` is the
/// contract's raw action. Every field is untrusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposalOf<A> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    pub proposed_actions: Vec<A>,
    #[serde(default)]
    pub response_text: String,
    /// Advisory only: logged, never applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_state: Option<String>,
    /// Which proposer actually produced this (e.g. the rules after an LLM fallback).
    #[serde(skip)]
    pub origin: Option<Origin>,
}

impl<A> ProposalOf<A> {
    pub fn new(actions: Vec<A>, response_text: impl Into<String>) -> Self {
        ProposalOf {
            reasoning: None,
            proposed_actions: actions,
            response_text: response_text.into(),
            suggested_state: None,
            origin: None,
        }
    }
}

/// Who produced a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The model, under the profile's contract.
    Llm,
    /// The rules read the message whole, so the model was not asked.
    RulesUnderstood,
    /// The rules answered for the model, and why.
    RulesInstead(Fallback),
    /// The model proposed nothing the customer's words support: the rules'
    /// reading was proposed instead.
    RulesOverUngroundedLlm,
    /// Any other proposer, by its name (the rules, a test's script).
    Named(&'static str),
}

/// Why the model was not asked, or its answer not used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// The bot's LLM switch is off.
    Off,
    CircuitOpen,
    BudgetSpent,
    InvalidOutput,
    Error,
    Timeout,
}

impl Origin {
    /// As the audit trail records it.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Llm => "llm",
            Origin::RulesUnderstood => "rules (understood)",
            Origin::RulesInstead(Fallback::Off) => "rules (LLM off for this bot)",
            Origin::RulesInstead(Fallback::CircuitOpen) => "rules (LLM circuit open)",
            Origin::RulesInstead(Fallback::BudgetSpent) => "rules (LLM budget spent)",
            Origin::RulesInstead(Fallback::InvalidOutput) => "rules (LLM output invalid)",
            Origin::RulesInstead(Fallback::Error) => "rules (LLM error)",
            Origin::RulesInstead(Fallback::Timeout) => "rules (LLM timeout)",
            Origin::RulesOverUngroundedLlm => "rules (llm ungrounded)",
            Origin::Named(name) => name,
        }
    }
}

/// An action as a proposer names it, before parsing.
pub trait RawAction {
    fn type_name(&self) -> &str;
}

/// A parameter as a proposer gave it: absent, present but unusable, or usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param<T> {
    Missing,
    Invalid(String),
    Given(T),
}

impl<T> Param<T> {
    pub fn given(&self) -> Option<&T> {
        match self {
            Param::Given(value) => Some(value),
            _ => None,
        }
    }
}

/// A transcript line a proposer is shown.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryEntry {
    /// "customer", "bot", "human" or "system".
    pub role: String,
    pub text: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ProposerError {
    #[error("the proposer did not answer in time")]
    Timeout,
    #[error("the proposer failed: {0}")]
    Failed(String),
}
