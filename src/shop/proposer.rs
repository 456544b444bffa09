//! The shop's proposers: the offline rules, the LLM under the shop's contract
//! (asked only what the rules cannot read whole, and answered by the rules when
//! it cannot be asked or fails), or a script in tests — `crate::proposers` wired
//! to the shop's contract. The backend decides; a proposer only suggests.

use super::contract::{ProposalInput, ProposedAction};
use super::{prompt, rules};
use crate::config::LlmConfig;
use crate::llm::{self, CallContext, Prompt};
use crate::proposal::ProposalOf;

pub use crate::proposers::{Llm as LlmProposer, Proposer, Rules as RulesProposer};

/// The shop's contract, for the generic proposers.
pub struct ShopContract;

impl crate::proposers::Contract for ShopContract {
    type Input = ProposalInput;
    type Action = ProposedAction;

    fn rules(input: &ProposalInput) -> ProposalOf<ProposedAction> {
        rules::propose(input)
    }

    fn read_whole(input: &ProposalInput) -> Option<ProposalOf<ProposedAction>> {
        let reading = rules::settled(input);
        reading.confident.then_some(reading.proposal)
    }

    fn context(input: &ProposalInput) -> &CallContext {
        &input.context
    }

    fn prompt(config: &LlmConfig, input: &ProposalInput) -> Prompt {
        let catalog = prompt::catalog_slice(config, input);
        prompt::prompt(config, input, catalog)
    }

    fn contract() -> llm::Contract<ProposalOf<ProposedAction>> {
        prompt::contract()
    }
}

/// A shop proposer, as the engine holds one.
pub type ShopProposer = dyn Proposer<ShopContract>;

/// A proposer driven by a closure (tests).
pub type ScriptedProposer = crate::proposers::Scripted<ShopContract>;
