//! The pure core of a shop conversation: states, events, actions, the validation
//! matrix and the transitions of DESIGN §3 (and the stored state both profiles share). No I/O, no async: everything here is a
//! function of its arguments, so it is tested exhaustively without a database.

pub mod action;
pub mod cart;
pub mod classify;
pub mod detect;
pub mod event;
pub mod matrix;
pub mod state;
pub mod stored;

#[cfg(test)]
mod tests;

pub use action::{Action, ActionKind, ActionType, ForbiddenKind, Param, ProductId};
pub use cart::{Cart, CartLine, Catalog, MAX_QUANTITY, ProductInfo};
pub use event::{Event, Release, on_customer_message, on_event};
pub use matrix::{
    Accepted, Decision, Effect, Evaluation, MAX_ACTIONS, MAX_RESPONSE_TEXT, Rejection, evaluate,
    valid_in,
};
pub use state::State;
pub use stored::{ForeignState, StoredState};
