//! The shop profile's data and rules: catalog, cart, orders, and the composition of
//! replies from backend facts.

pub mod cart;
pub mod catalog;
pub mod catalog_csv;
pub mod memo;
pub mod messages;
pub mod orders;
pub mod payments;
pub mod reply;
