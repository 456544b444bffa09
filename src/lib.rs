//! Tendero: a chat-commerce and personal-finance bot worker. See DESIGN.md for the
//! guarantees and README.md for the layout.
#![forbid(unsafe_code)]

pub mod api_keys;
pub mod audit;
pub mod bots;
pub mod cache;
pub mod channels;
pub mod chart;
pub mod cli;
pub mod config;
pub mod contacts;
pub mod conversations;
pub mod dashboard;
pub mod db;
pub mod demo;
pub mod detect;
pub mod directory;
pub mod engine;
pub mod eval;
pub mod finance;
pub mod handoff;
pub mod histograms;
pub mod http;
pub mod idempotency;
pub mod inbox;
pub mod ingest;
pub mod labels;
pub mod llm;
pub mod merchant;
pub mod merchant_chat;
pub mod merchants;
pub mod notes;
pub mod notices;
pub mod notify;
pub mod outbox;
pub mod progress;
pub mod proposal;
pub mod proposers;
pub mod ratelimit;
pub mod secret;
pub mod shop;
pub mod startup;
pub mod telemetry;
pub mod text;
pub mod transcript;
