//! The pure core of a finance conversation (DESIGN §4): states, drafts, the closed
//! set of actions, the validation matrix, confirmation tokens, tool limits, the
//! tool output validator, search re-ranking and the purchase simulation. No I/O,
//! no async: everything here is a function of its arguments, tested without a
//! database, like the shop's `conversation` core.

pub mod action;
pub mod amount;
pub mod category;
pub mod confirm;
pub mod date;
pub mod draft;
pub mod matrix;
pub mod output;
pub mod query;
pub mod rerank;
pub mod simulate;
pub mod state;
pub mod tools;
pub mod validate;

#[cfg(test)]
mod tests;

pub use action::{
    FinanceAction, FinanceActionKind, FinanceActionType, FinanceForbidden, FinanceParams,
};
pub use draft::{Draft, Field, Intent, TxKind, Write};
pub use matrix::{
    Confirmation, Effect, Evaluation, Facts, Rejection, evaluate, on_answer, valid_in,
};
pub use state::FinanceState;
