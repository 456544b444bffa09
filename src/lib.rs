//! Tendero: a chat-commerce bot worker. See DESIGN.md for the guarantees.
#![forbid(unsafe_code)]

pub mod agent;
pub mod audit;
pub mod cache;
pub mod channels;
pub mod cli;
pub mod config;
pub mod contacts;
pub mod conversation;
pub mod conversations;
pub mod dashboard;
pub mod db;
pub mod demo;
pub mod engine;
pub mod eval;
pub mod finance;
pub mod histograms;
pub mod http;
pub mod idempotency;
pub mod inbox;
pub mod ingest;
pub mod llm_calls;
pub mod merchant;
pub mod merchant_chat;
pub mod notify;
pub mod outbox;
pub mod progress;
pub mod ratelimit;
pub mod secret;
pub mod shop;
pub mod startup;
pub mod telemetry;
pub mod text;
pub mod transcript;
