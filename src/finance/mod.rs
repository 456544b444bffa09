//! The finance profile: a personal-finance assistant on the same engine, channels,
//! proposer seam, audit and guarantees as the shop. `core` is pure; the other
//! modules hold each finance table's SQL and the tools that read them.

pub mod balances;
pub mod budgets;
pub mod context;
pub mod core;
pub mod debts;
pub mod demo;
pub mod learning;
pub mod ledger;
pub mod messages;
pub mod reply;
pub mod tools;
pub mod writes;
