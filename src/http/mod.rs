//! HTTP routers: web chat, the merchant API and health checks.

pub mod audit;
pub mod bots;
pub mod catalog;
pub mod conversations;
pub mod directory;
pub mod error;
pub mod finance;
pub mod keys;
pub mod merchant;
pub mod metrics;
pub mod orders;
pub mod payments;
pub mod undelivered;
pub mod webchat;
pub mod webhooks;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use sqlx::PgPool;
use tower_http::trace::TraceLayer;

use crate::notify::Notifier;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub notifier: Notifier,
    /// Optional early duplicate filter.
    pub redis: Option<crate::cache::Redis>,
    /// Where webhooks store what they receive (group commit).
    pub ingest: crate::ingest::IngestQueue,
    /// Fires on shutdown: long-lived responses (event streams) end so the server
    /// can stop at once; clients reconnect elsewhere with `Last-Event-ID`.
    pub shutdown: tokio_util::sync::CancellationToken,
    /// Bots and credentials for the webhook hot path.
    pub bots: std::sync::Arc<directory::BotDirectory>,
    /// For answering inline-button presses right away.
    pub telegram: std::sync::Arc<crate::channels::telegram::TelegramChannel>,
    /// Each bot's daily LLM token budget, when an LLM is configured.
    pub llm_daily_tokens: Option<u64>,
}

/// Largest merchant API body.
const API_BODY_BYTES: usize = 64 * 1024;
/// Largest catalog file (5,000 rows of a few hundred bytes).
const CSV_BODY_BYTES: usize = 2 * 1024 * 1024;

pub fn router(state: AppState) -> Router {
    let webchat = Router::new()
        .route(
            "/webchat/{bot}/messages",
            post(webchat::post_message).layer(axum::middleware::from_fn(timed_ack)),
        )
        .route("/webchat/{bot}/events", get(webchat::events))
        .layer(DefaultBodyLimit::max(webchat::MAX_BODY_BYTES));
    let api = Router::new()
        .route("/conversations", get(conversations::list_conversations))
        .route("/conversations/{id}", get(conversations::get_conversation))
        .route(
            "/conversations/{id}/takeover",
            post(conversations::takeover),
        )
        .route("/conversations/{id}/release", post(conversations::release))
        .route("/conversations/{id}/reply", post(conversations::reply))
        .route("/conversations/{id}/audit", get(audit::query))
        .route("/orders", get(orders::list))
        .route("/dead-letters", get(undelivered::list))
        .route("/dead-letters/{id}/retry", post(undelivered::retry))
        .route("/dead-letters/{id}/discard", post(undelivered::discard))
        .route("/keys", get(keys::list).post(keys::create))
        .route("/keys/{id}", axum::routing::delete(keys::revoke))
        .route("/bots", get(bots::list_bots).post(bots::create_bot))
        .route("/bots/{slug}", axum::routing::patch(bots::update_bot))
        .route(
            "/bots/{slug}/channels/{channel}",
            axum::routing::put(bots::set_channel),
        )
        .route(
            "/bots/{slug}/products",
            get(catalog::list).post(catalog::create),
        )
        .route(
            "/bots/{slug}/products/{id}",
            axum::routing::patch(catalog::update),
        )
        .route(
            "/bots/{slug}/products.csv",
            get(catalog::export)
                .post(catalog::import)
                .layer(DefaultBodyLimit::max(CSV_BODY_BYTES)),
        )
        .route("/bots/{slug}/llm-usage", get(bots::llm_usage))
        .route("/bots/{slug}/learning", get(finance::learning_metrics))
        .route(
            "/orders/{id}/approve-payment",
            post(payments::approve_payment),
        )
        .route(
            "/orders/{id}/reject-payment",
            post(payments::reject_payment),
        )
        .layer(DefaultBodyLimit::max(API_BODY_BYTES));
    let webhooks = Router::new()
        .route("/webhooks/telegram/{bot}", post(webhooks::telegram))
        .route(
            "/webhooks/whatsapp/{bot}",
            get(webhooks::whatsapp_verify).post(webhooks::whatsapp),
        )
        .layer(DefaultBodyLimit::max(webhooks::MAX_WEBHOOK_BYTES))
        .layer(axum::middleware::from_fn(timed_ack));
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .merge(webhooks)
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics::metrics))
        .merge(webchat)
        .nest("/api/v1", api)
        .fallback(|| async { error::ApiError::NotFound("route") })
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Times every inbound delivery (webhooks, web-chat posts) by channel and status:
/// the histogram's `_count` is also the counter of answers per status.
async fn timed_ack(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let path = request.uri().path();
    let channel = if path.starts_with("/webhooks/telegram/") {
        "telegram"
    } else if path.starts_with("/webhooks/whatsapp/") {
        "whatsapp"
    } else {
        "webchat"
    };
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    crate::histograms::observe(
        crate::histograms::Metric::WebhookAck,
        [channel, response.status().as_str()],
        started.elapsed(),
    );
    response
}

/// What a worker-only process serves: probes and its own metrics (turns and LLM
/// calls in flight are per process), nothing a customer or merchant calls.
pub fn health_router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics::metrics))
        .fallback(|| async { error::ApiError::NotFound("route") })
        .with_state(state)
}

/// Ready when the database answers within a second: a probe must not hang for the
/// pool's acquire timeout while PostgreSQL is down.
async fn readyz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    let ping = sqlx::query("SELECT 1").execute(&state.pool);
    match tokio::time::timeout(std::time::Duration::from_secs(1), ping).await {
        Ok(Ok(_)) => (StatusCode::OK, "ready"),
        _ => (StatusCode::SERVICE_UNAVAILABLE, "database unavailable"),
    }
}
