//! The proposers every profile has, written once: its offline rules, the LLM
//! under its contract (the rules first where they can read a message whole, and
//! the rules again whenever the model cannot be asked or fails), and a script
//! for tests. A profile plugs in by implementing `Contract` for a marker type.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;

use crate::config::LlmConfig;
use crate::llm::{self, CallContext, Outcome, Prompt};
use crate::proposal::{Fallback, Origin, ProposalOf, ProposerError};

/// What a profile's proposers are made of.
pub trait Contract: Send + Sync + 'static {
    /// What a proposer is shown.
    type Input: Send + Sync;
    /// The profile's raw action, as a proposer names it.
    type Action: Clone + Send + Sync;

    /// The offline rules' proposal.
    fn rules(input: &Self::Input) -> ProposalOf<Self::Action>;

    /// The rules' proposal when they read the message whole, so no model need be
    /// asked; `None` when they cannot tell (the default).
    fn read_whole(_input: &Self::Input) -> Option<ProposalOf<Self::Action>> {
        None
    }

    /// The turn a proposal is for.
    fn context(input: &Self::Input) -> &CallContext;

    /// The messages the model is sent.
    fn prompt(config: &LlmConfig, input: &Self::Input) -> Prompt;

    /// The schema the model is held to and how its answer is read.
    fn contract() -> llm::Contract<ProposalOf<Self::Action>>;
}

#[async_trait]
pub trait Proposer<C: Contract>: Send + Sync + 'static {
    /// A short name for logs and the audit trail.
    fn name(&self) -> &'static str;

    async fn propose(&self, input: &C::Input) -> Result<ProposalOf<C::Action>, ProposerError>;
}

/// The offline rules.
#[derive(Debug, Default, Clone, Copy)]
pub struct Rules;

#[async_trait]
impl<C: Contract> Proposer<C> for Rules {
    fn name(&self) -> &'static str {
        "rules"
    }

    async fn propose(&self, input: &C::Input) -> Result<ProposalOf<C::Action>, ProposerError> {
        Ok(C::rules(input))
    }
}

/// The LLM under the profile's contract. With rules first (the default) a message
/// the rules read whole is answered without a call.
pub struct Llm {
    client: Arc<llm::Client>,
}

impl Llm {
    pub fn new(client: Arc<llm::Client>) -> Self {
        Llm { client }
    }
}

#[async_trait]
impl<C: Contract> Proposer<C> for Llm {
    fn name(&self) -> &'static str {
        "llm"
    }

    async fn propose(&self, input: &C::Input) -> Result<ProposalOf<C::Action>, ProposerError> {
        let context = C::context(input);
        let fallback = |why: Fallback| {
            let mut proposal = C::rules(input);
            proposal.origin = Some(Origin::RulesInstead(why));
            proposal
        };
        let config = self.client.config();
        if config.rules_first
            && context.agent_enabled
            && let Some(mut proposal) = C::read_whole(input)
        {
            self.client.record_skip(context, Outcome::Rules).await;
            proposal.origin = Some(Origin::RulesUnderstood);
            return Ok(proposal);
        }
        if let Err(why) = self.client.may_ask(context).await {
            return Ok(fallback(why));
        }
        let started = Instant::now();
        let prompt = C::prompt(config, input);
        match self
            .client
            .ask(context, &prompt, &C::contract(), started)
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

type ScriptFn<C> = dyn Fn(&<C as Contract>::Input) -> Result<ProposalOf<<C as Contract>::Action>, ProposerError>
    + Send
    + Sync;

/// A proposer driven by a closure: tests feed it any proposal, hostile ones
/// included.
pub struct Scripted<C: Contract> {
    script: Arc<ScriptFn<C>>,
}

impl<C: Contract> Clone for Scripted<C> {
    fn clone(&self) -> Self {
        Scripted {
            script: self.script.clone(),
        }
    }
}

impl<C: Contract> Scripted<C> {
    pub fn new(
        script: impl Fn(&C::Input) -> Result<ProposalOf<C::Action>, ProposerError>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        Scripted {
            script: Arc::new(script),
        }
    }
}

#[async_trait]
impl<C: Contract> Proposer<C> for Scripted<C> {
    fn name(&self) -> &'static str {
        "scripted"
    }

    async fn propose(&self, input: &C::Input) -> Result<ProposalOf<C::Action>, ProposerError> {
        (self.script)(input)
    }
}
