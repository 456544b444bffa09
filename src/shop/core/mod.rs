//! The pure core of a shop conversation: states, events, actions, the validation
//! matrix and the transitions of DESIGN §3. No I/O, no async: everything here is a
//! function of its arguments, so it is tested exhaustively without a database.

pub mod action;
pub mod cart;
pub mod classify;
pub mod event;
pub mod fulfilment;
pub mod matrix;
pub mod state;

#[cfg(test)]
mod tests;

pub use crate::proposal::{MAX_ACTIONS, MAX_RESPONSE_TEXT, Param};
pub use action::{Action, ActionKind, ActionType, ForbiddenKind, ProductId};
pub use cart::{Cart, CartLine, Catalog, MAX_QUANTITY, ProductInfo};
pub use event::{Event, Release, detected, on_customer_message, on_event};
pub use fulfilment::{Choice, Missing, Mode, Options, Settled, Zone};
pub use matrix::{
    Accepted, Decision, Effect, Evaluation, Rejection, evaluate, evaluate_with, valid_in,
};
pub use state::State;
