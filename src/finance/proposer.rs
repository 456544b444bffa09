//! The finance profile's proposers: the offline rules, the LLM under the finance
//! contract (answered by the rules when it cannot be asked or fails), or a script
//! in tests — `crate::proposers` wired to the finance contract. Confirmation
//! tokens are never a proposer's to give: the backend reads them alone
//! (`plan::confirm`).

use super::contract::{FinanceInput, RawFinanceAction};
use super::{prompt, rules};
use crate::config::LlmConfig;
use crate::llm::{self, CallContext, Prompt};
use crate::proposal::ProposalOf;

pub use crate::proposers::{Llm as LlmProposer, Proposer, Rules as RulesProposer};

/// The finance contract, for the generic proposers.
pub struct FinanceContract;

impl crate::proposers::Contract for FinanceContract {
    type Input = FinanceInput;
    type Action = RawFinanceAction;

    fn rules(input: &FinanceInput) -> ProposalOf<RawFinanceAction> {
        rules::propose(input)
    }

    fn context(input: &FinanceInput) -> &CallContext {
        &input.context
    }

    fn prompt(config: &LlmConfig, input: &FinanceInput) -> Prompt {
        prompt::prompt(config, input)
    }

    fn contract() -> llm::Contract<ProposalOf<RawFinanceAction>> {
        prompt::contract()
    }
}

/// A finance proposer, as the engine holds one.
pub type FinanceProposer = dyn Proposer<FinanceContract>;

/// A proposer driven by a closure (tests).
pub type ScriptedProposer = crate::proposers::Scripted<FinanceContract>;
