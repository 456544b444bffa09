//! Whatever reads a shop customer's message and proposes actions: the offline
//! rules, an LLM (asked only what the rules cannot read whole, and answered by
//! the rules when it cannot be asked or fails), or a script in tests. The backend
//! decides; a proposer only suggests.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;

use super::contract::{Proposal, ProposalInput};
use super::{prompt, rules};
use crate::llm;
use crate::proposal::{Fallback, Origin, ProposerError};

#[async_trait]
pub trait Proposer: Send + Sync + 'static {
    /// A short name for logs and the audit trail.
    fn name(&self) -> &'static str;

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError>;
}

/// The offline Spanish rules.
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

/// The LLM under the shop's contract. With rules first (the default) a message
/// the rules read whole is answered without a call.
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

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        let fallback = |why: Fallback| {
            let mut proposal = rules::propose(input);
            proposal.origin = Some(Origin::RulesInstead(why));
            proposal
        };
        let config = self.client.config();
        if config.rules_first && input.context.agent_enabled {
            let reading = rules::read(input);
            if reading.confident {
                self.client
                    .record_skip(&input.context, llm::Outcome::Rules)
                    .await;
                let mut proposal = reading.proposal;
                proposal.origin = Some(Origin::RulesUnderstood);
                return Ok(proposal);
            }
        }
        if let Err(why) = self.client.may_ask(&input.context).await {
            return Ok(fallback(why));
        }
        let started = Instant::now();
        let catalog = prompt::catalog_slice(config, input);
        let prompt = prompt::prompt(config, input, catalog);
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

type ScriptFn = dyn Fn(&ProposalInput) -> Result<Proposal, ProposerError> + Send + Sync;

/// A proposer driven by a closure: tests feed it any proposal, hostile ones
/// included.
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
