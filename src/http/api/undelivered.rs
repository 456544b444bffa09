//! `/api/v1/dead-letters`: messages that never reached the customer — list them,
//! send one again, or drop it.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::http::Web;
use crate::http::error::ApiError;
use crate::merchant::undelivered::{self, Choice};

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
    State(web): State<Web>,
    Query(query): Query<UndeliveredQuery>,
) -> Result<Json<Value>, ApiError> {
    let limit = query.limit.unwrap_or(50);
    let items = undelivered::list(&web.pool, merchant_id, query.bot.as_deref(), limit).await?;
    Ok(Json(json!({ "dead_letters": items })))
}

async fn decide(
    web: &Web,
    merchant_id: uuid::Uuid,
    id: &str,
    choice: Choice,
) -> Result<Json<Value>, ApiError> {
    let id: i64 = id.parse().map_err(|_| ApiError::NotFound("dead letter"))?;
    let decided = undelivered::decide(&web.pool, merchant_id, id, choice).await?;
    Ok(Json(json!(decided)))
}

/// `POST /api/v1/dead-letters/{id}/retry`: queued again with fresh attempts.
#[utoipa::path(post, path = "/dead-letters/{id}/retry", tag = "dead letters", params(("id" = i64, Path, description = "the message")),
    responses((status = 200, body = Answer, description = "`{id, status}`"), Errors))]
pub async fn retry(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    decide(&web, merchant_id, &id, Choice::Retry).await
}

/// `POST /api/v1/dead-letters/{id}/discard`: dropped; it leaves the list.
#[utoipa::path(post, path = "/dead-letters/{id}/discard", tag = "dead letters", params(("id" = i64, Path, description = "the message")),
    responses((status = 200, body = Answer, description = "`{id, status}`"), Errors))]
pub async fn discard(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    decide(&web, merchant_id, &id, Choice::Discard).await
}
