//! Messages that never reached the customer: list them, send one again, or drop it.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::ApiError;
use super::merchant::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::audit::{self, Actor, Entry, Scope};
use crate::outbox::undelivered;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UndeliveredQuery {
    bot: Option<String>,
    limit: Option<i64>,
}

/// `GET /api/v1/dead-letters?bot=&limit=`: failed and dead messages, newest first.
#[utoipa::path(get, path = "/dead-letters", tag = "dead letters", params(UndeliveredQuery),
    responses((status = 200, body = Answer, description = "`{dead_letters: [...]}`"), Errors))]
pub async fn list(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Query(query): Query<UndeliveredQuery>,
) -> Result<Json<Value>, ApiError> {
    let limit = query.limit.unwrap_or(50).clamp(1, 500);
    let items = undelivered::list(&state.pool, merchant_id, query.bot.as_deref(), limit).await?;
    Ok(Json(json!({ "dead_letters": items })))
}

#[derive(Debug, Clone, Copy)]
enum Choice {
    Retry,
    Discard,
}

async fn decide(
    state: &AppState,
    merchant_id: uuid::Uuid,
    id: &str,
    choice: Choice,
) -> Result<Json<Value>, ApiError> {
    let id: i64 = id.parse().map_err(|_| ApiError::NotFound("dead letter"))?;
    let mut tx = state.pool.begin().await?;
    let message = undelivered::lock(&mut tx, merchant_id, id)
        .await?
        .ok_or(ApiError::NotFound("dead letter"))?;
    let (kind, status) = match choice {
        Choice::Retry => {
            undelivered::retry(&mut tx, id).await?;
            ("outbound_retried", "pending")
        }
        Choice::Discard => {
            undelivered::discard(&mut tx, id).await?;
            ("outbound_discarded", "discarded")
        }
    };
    let scope = Scope {
        bot_id: message.bot_id,
        conversation_id: Some(message.conversation_id),
        inbox_id: None,
    };
    let entry =
        Entry::new(Actor::Merchant, kind).detail(json!({"outbox_id": id, "was": message.status}));
    audit::record(&mut tx, scope, &[entry]).await?;
    tx.commit().await?;
    Ok(Json(json!({"id": id, "status": status})))
}

/// `POST /api/v1/dead-letters/{id}/retry`: queued again with fresh attempts.
#[utoipa::path(post, path = "/dead-letters/{id}/retry", tag = "dead letters", params(("id" = i64, Path, description = "the message")),
    responses((status = 200, body = Answer, description = "`{id, status}`"), Errors))]
pub async fn retry(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    decide(&state, merchant_id, &id, Choice::Retry).await
}

/// `POST /api/v1/dead-letters/{id}/discard`: dropped; it leaves the list.
#[utoipa::path(post, path = "/dead-letters/{id}/discard", tag = "dead letters", params(("id" = i64, Path, description = "the message")),
    responses((status = 200, body = Answer, description = "`{id, status}`"), Errors))]
pub async fn discard(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    decide(&state, merchant_id, &id, Choice::Discard).await
}
