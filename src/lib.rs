//! Tendero: a chat-commerce bot worker. See DESIGN.md for the guarantees.
#![forbid(unsafe_code)]

pub mod conversation;
pub mod text;
