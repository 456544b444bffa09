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
pub mod merchant_chat;
pub mod metrics;
pub mod openapi;
pub mod orders;
pub mod payments;
pub mod undelivered;
pub mod webchat;
pub mod webhooks;

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use sqlx::PgPool;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

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
    /// For fetching payment proofs sent over WhatsApp.
    pub whatsapp: std::sync::Arc<crate::channels::whatsapp::WhatsAppChannel>,
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
    let (api, openapi) = api_router().split_for_parts();
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
        .merge(crate::dashboard::router())
        .nest("/api/v1", api)
        .fallback(|| async { error::ApiError::NotFound("route") })
        .layer(axum::middleware::from_fn(refuse_nul_in_uri))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// A `%00` in a path or query would reach PostgreSQL, which stores no NUL: such a
/// request is a 400 before any handler runs.
async fn refuse_nul_in_uri(
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

/// The merchant API and its OpenAPI document, from one list of handlers.
pub fn api_router() -> OpenApiRouter<AppState> {
    // A catalog file may be larger than other bodies.
    let csv = OpenApiRouter::new()
        .routes(routes!(catalog::export, catalog::import))
        .layer(DefaultBodyLimit::max(CSV_BODY_BYTES));
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(conversations::list_conversations))
        .routes(routes!(conversations::get_conversation))
        .routes(routes!(conversations::takeover))
        .routes(routes!(conversations::release))
        .routes(routes!(conversations::reply))
        .routes(routes!(audit::query))
        .routes(routes!(orders::list))
        .routes(routes!(payments::approve_payment))
        .routes(routes!(payments::reject_payment))
        .routes(routes!(undelivered::list))
        .routes(routes!(undelivered::retry))
        .routes(routes!(undelivered::discard))
        .routes(routes!(keys::list, keys::create))
        .routes(routes!(keys::revoke))
        .routes(routes!(bots::list_bots, bots::create_bot))
        .routes(routes!(bots::update_bot))
        .routes(routes!(bots::set_channel))
        .routes(routes!(bots::llm_usage))
        .routes(routes!(merchant_chat::new_link, merchant_chat::unlink))
        .routes(routes!(finance::learning_metrics))
        .routes(routes!(catalog::list, catalog::create))
        .routes(routes!(catalog::update))
        .merge(csv)
        .layer(DefaultBodyLimit::max(API_BODY_BYTES))
}

/// The OpenAPI document of the merchant API.
pub fn openapi() -> utoipa::openapi::OpenApi {
    api_router().into_openapi()
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
