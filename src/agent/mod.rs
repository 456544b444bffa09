//! Proposers: whatever reads a customer message and proposes actions. The backend
//! decides; a proposer only suggests. `Proposer` is the seam the LLM proposer plugs
//! into; `RulesProposer` runs offline.

pub mod contract;
pub mod llm;
pub mod privacy;
pub mod rules;

use std::sync::Arc;

use async_trait::async_trait;

pub use contract::{Proposal, ProposalInput, ProposedAction};

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

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError>;
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

/// A proposer driven by a closure: tests feed it any proposal, hostile ones included.
#[derive(Clone)]
pub struct ScriptedProposer {
    script: Arc<ScriptFn>,
}

impl ScriptedProposer {
    pub fn new(
        script: impl Fn(&ProposalInput) -> Result<Proposal, ProposerError> + Send + Sync + 'static,
    ) -> Self {
        ScriptedProposer {
            script: Arc::new(script),
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
}
