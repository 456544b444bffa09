//! Whatever reads a finance user's message and proposes actions: the offline
//! rules, an LLM (answered by the rules when it cannot be asked or fails), or a
//! script in tests. Confirmation tokens are never a proposer's to give: they are
//! read by the backend alone (`plan::confirm`).

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;

use super::contract::{FinanceInput, FinanceProposal};
use super::{prompt, rules};
use crate::llm;
use crate::proposal::{Fallback, Origin, ProposerError};

#[async_trait]
pub trait Proposer: Send + Sync + 'static {
    /// A short name for logs and the audit trail.
    fn name(&self) -> &'static str;

    async fn propose(&self, input: &FinanceInput) -> Result<FinanceProposal, ProposerError>;
}

/// The offline rules (everyday Mexican Spanish).
#[derive(Debug, Default, Clone, Copy)]
pub struct RulesProposer;

#[async_trait]
impl Proposer for RulesProposer {
    fn name(&self) -> &'static str {
        "rules"
    }

    async fn propose(&self, input: &FinanceInput) -> Result<FinanceProposal, ProposerError> {
        Ok(rules::propose(input))
    }
}

/// The LLM under the finance contract.
pub struct LlmProposer {
    client: Arc<llm::Client>,
}

impl LlmProposer {
    pub fn new(client: Arc<llm::Client>) -> Self {
        LlmProposer { client }
    }
}

#[async_trait]
impl Proposer for LlmProposer {
    fn name(&self) -> &'static str {
        "llm"
    }

    async fn propose(&self, input: &FinanceInput) -> Result<FinanceProposal, ProposerError> {
        let fallback = |why: Fallback| {
            let mut proposal = rules::propose(input);
            proposal.origin = Some(Origin::RulesInstead(why));
            proposal
        };
        if let Err(why) = self.client.may_ask(&input.context).await {
            return Ok(fallback(why));
        }
        let started = Instant::now();
        let prompt = prompt::prompt(self.client.config(), input);
        match self
            .client
            .ask(&input.context, &prompt, &prompt::contract(), started)
            .await
        {
            Ok(mut proposal) => {
                proposal.origin = Some(Origin::Llm);
                Ok(proposal)
            }
            Err(why) => Ok(fallback(why)),
        }
    }
}

type ScriptFn = dyn Fn(&FinanceInput) -> Result<FinanceProposal, ProposerError> + Send + Sync;

/// A proposer driven by a closure: tests feed it any proposal, hostile ones
/// included.
#[derive(Clone)]
pub struct ScriptedProposer {
    script: Arc<ScriptFn>,
}

impl ScriptedProposer {
    pub fn new(
        script: impl Fn(&FinanceInput) -> Result<FinanceProposal, ProposerError> + Send + Sync + 'static,
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

    async fn propose(&self, input: &FinanceInput) -> Result<FinanceProposal, ProposerError> {
        (self.script)(input)
    }
}
