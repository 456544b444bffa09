//! Integration tests: one binary, real PostgreSQL (a fresh database per test through
//! `#[sqlx::test]`), the real HTTP server on port 0.

mod helpers;

mod architecture;
mod bots;
mod browser;
mod cache;
mod catalog;
mod channels;
mod channels_resilience;
mod cli;
mod concurrency;
mod console_api;
mod dashboard;
mod delivery;
mod deploy;
mod engine;
mod eval;
mod fake_llm;
mod fake_platforms;
mod files;
mod finance;
mod finance_llm;
mod finance_query;
mod finance_tools;
mod fuzz;
mod hostile;
mod input;
mod knowledge;
mod llm;
mod merchant;
mod merchant_chat;
mod observability;
mod openapi;
mod order_follow;
mod override_;
mod purchase;
mod reminders;
mod schema;

mod resilience;
mod serve;
mod stock;
mod streams;
mod timeouts;
mod understanding;
mod webchat_sessions;
mod webchat_uploads;
