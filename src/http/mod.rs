//! The HTTP front door for platforms, customers and merchants' programs: webhooks,
//! web chat, the merchant API, health checks and metrics. Handlers parse, call the
//! merchant actions or the queues, and render; `startup` assembles this router
//! with the console's.

pub mod api;
pub mod cors;
pub mod error;
pub mod metrics;
pub mod streams;
pub mod webchat;
pub mod webhooks;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use sqlx::PgPool;

use crate::notify::Notifier;

/// What this door's handlers reach.
#[derive(Clone)]
pub struct Web {
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
    pub bots: std::sync::Arc<crate::directory::BotDirectory>,
    /// For answering inline-button presses right away.
    pub telegram: std::sync::Arc<crate::channels::telegram::TelegramChannel>,
    /// What merchant actions reach.
    pub office: crate::merchant::Office,
    /// Web-chat event streams open here, within their bounds.
    pub streams: streams::StreamLimits,
    /// New web-chat sessions per client address and second.
    pub limiter: std::sync::Arc<crate::ratelimit::RateLimiter>,
    pub sessions_per_second: u32,
}

/// Webhooks, web chat, the merchant API, health and metrics.
pub fn router(state: Web) -> Router {
    let webchat = Router::new()
        .route("/webchat/widget.js", get(webchat::widget))
        .route("/webchat/{bot}/widget.js", get(webchat::widget))
        .route(
            "/webchat/{bot}/messages",
            post(webchat::post_message).layer(axum::middleware::from_fn(timed_ack)),
        )
        .route(
            "/webchat/{bot}/uploads",
            post(webchat::post_upload)
                .layer(DefaultBodyLimit::max(
                    crate::channels::uploads::MAX_UPLOAD_BYTES + 1,
                ))
                .layer(axum::middleware::from_fn(timed_ack)),
        )
        .route("/webchat/{bot}/events", get(webchat::events))
        .route("/webchat/{bot}/files/{id}/{filename}", get(webchat::file))
        .route("/webchat/{bot}/sessions", post(webchat::post_session))
        .layer(DefaultBodyLimit::max(webchat::MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            cors::webchat,
        ));
    let (api, openapi) = api::router().split_for_parts();
    let openapi = std::sync::Arc::new(openapi.to_pretty_json().expect("the document serializes"));
    let api = api.route(
        "/openapi.json",
        get(move || {
            let openapi = openapi.clone();
            async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    (*openapi).clone(),
                )
            }
        }),
    );
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
        .with_state(state)
}

/// What no route answers.
pub async fn not_found() -> error::ApiError {
    error::ApiError::NotFound("route")
}

/// A `%00` in a path or query would reach PostgreSQL, which stores no NUL: such a
/// request is a 400 before any handler runs.
pub async fn refuse_nul_in_uri(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let uri = request.uri();
    let has_nul = |part: &str| {
        part.as_bytes()
            .windows(3)
            .any(|w| w.eq_ignore_ascii_case(b"%00"))
    };
    if has_nul(uri.path()) || uri.query().is_some_and(has_nul) {
        return error::ApiError::BadRequest("NUL characters are not allowed in URLs".into())
            .into_response();
    }
    next.run(request).await
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
pub fn health_router(state: Web) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics::metrics))
        .with_state(state)
}

/// Ready when the database answers within a second: a probe must not hang for the
/// pool's acquire timeout while PostgreSQL is down.
async fn readyz(State(state): State<Web>) -> (StatusCode, &'static str) {
    let ping = sqlx::query("SELECT 1").execute(&state.pool);
    match tokio::time::timeout(std::time::Duration::from_secs(1), ping).await {
        Ok(Ok(_)) => (StatusCode::OK, "ready"),
        _ => (StatusCode::SERVICE_UNAVAILABLE, "database unavailable"),
    }
}
