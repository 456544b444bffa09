//! Proposers: whatever reads a customer message and proposes actions. The backend
//! decides; a proposer only suggests. `Proposer` is the seam the LLM proposer plugs
//! into; `RulesProposer` runs offline.

pub mod catalog_memo;
pub mod contract;
pub mod finance_contract;
pub mod finance_rules;
pub mod llm;
pub mod privacy;
pub mod rules;

use std::sync::Arc;

use async_trait::async_trait;

pub use contract::{Proposal, ProposalInput, ProposedAction};
pub use finance_contract::{FinanceInput, FinanceProposal, RawFinanceAction};

#[derive(Debug, thiserror::Error)]
pub enum ProposerError {
    #[error("the proposer did not answer in time")]
    Timeout,
    #[error("the proposer failed: {0}")]
    Failed(String),
}

#[async_trait]
pub trait Proposer: Send + Sync + 'static {
    /// A short name for logs and the audit trail.
    fn name(&self) -> &'static str;

    /// A shop proposal.
    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError>;

    /// A finance proposal, through the same seam. Proposers that only know the
    /// shop leave finance to the offline rules.
    async fn propose_finance(
        &self,
        input: &FinanceInput,
    ) -> Result<FinanceProposal, ProposerError> {
        Ok(finance_rules::propose(input))
    }
}

/// The offline Spanish rules proposer.
#[derive(Debug, Default, Clone, Copy)]
pub struct RulesProposer;

#[async_trait]
impl Proposer for RulesProposer {
    fn name(&self) -> &'static str {
        "rules"
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        Ok(rules::propose(input))
    }
}

type ScriptFn = dyn Fn(&ProposalInput) -> Result<Proposal, ProposerError> + Send + Sync;
type FinanceScriptFn =
    dyn Fn(&FinanceInput) -> Result<FinanceProposal, ProposerError> + Send + Sync;

/// A proposer driven by closures: tests feed it any proposal, hostile ones
/// included. Finance turns go to the rules unless a finance script is given.
#[derive(Clone)]
pub struct ScriptedProposer {
    script: Arc<ScriptFn>,
    finance: Option<Arc<FinanceScriptFn>>,
}

impl ScriptedProposer {
    pub fn new(
        script: impl Fn(&ProposalInput) -> Result<Proposal, ProposerError> + Send + Sync + 'static,
    ) -> Self {
        ScriptedProposer {
            script: Arc::new(script),
            finance: None,
        }
    }

    /// A proposer for finance turns only.
    pub fn finance(
        script: impl Fn(&FinanceInput) -> Result<FinanceProposal, ProposerError> + Send + Sync + 'static,
    ) -> Self {
        ScriptedProposer {
            script: Arc::new(|input| Ok(rules::propose(input))),
            finance: Some(Arc::new(script)),
        }
    }
}

#[async_trait]
impl Proposer for ScriptedProposer {
    fn name(&self) -> &'static str {
        "scripted"
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        (self.script)(input)
    }

    async fn propose_finance(
        &self,
        input: &FinanceInput,
    ) -> Result<FinanceProposal, ProposerError> {
        match &self.finance {
            Some(script) => script(input),
            None => Ok(finance_rules::propose(input)),
        }
    }
}
