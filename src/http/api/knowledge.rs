//! `/api/v1/bots/{slug}/knowledge`: what a shop knows beyond its catalog — thin
//! doors over `merchant::knowledge`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::http::Web;
use crate::http::error::{ApiError, parse_json};
use crate::merchant::knowledge::{self, EntryPatch, NewEntry};

fn entry_id(raw: &str) -> Result<i64, ApiError> {
    raw.parse().map_err(|_| ApiError::NotFound("entry"))
}

/// `GET /api/v1/bots/{slug}/knowledge`: every entry, oldest first.
#[utoipa::path(get, path = "/bots/{slug}/knowledge", tag = "knowledge", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "`{bot, entries: [{id, title, body, created_at, updated_at}]}`"), Errors))]
pub async fn list(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let (bot, entries) = knowledge::list(&web.pool, merchant_id, &slug).await?;
    Ok(Json(json!({ "bot": bot.slug, "entries": entries })))
}

/// `POST /api/v1/bots/{slug}/knowledge`: `{title, body}` (plain text or Markdown,
/// up to 20,000 characters).
#[utoipa::path(post, path = "/bots/{slug}/knowledge", tag = "knowledge", params(("slug" = String, Path, description = "the slug")), request_body = NewEntry,
    responses((status = 201, body = Answer, description = "the entry, with its `id`"), Errors))]
pub async fn create(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    crate::merchant::catalog::shop_bot(&web.pool, merchant_id, &slug).await?;
    let new: NewEntry = parse_json(&body?)?;
    let entry = knowledge::create(&web.pool, merchant_id, &slug, &new).await?;
    Ok((StatusCode::CREATED, Json(json!(entry))))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct Import {
    entries: Vec<NewEntry>,
}

/// `POST /api/v1/bots/{slug}/knowledge/import`: `{entries: [{title, body}]}`, all
/// or nothing (up to 200).
#[utoipa::path(post, path = "/bots/{slug}/knowledge/import", tag = "knowledge", params(("slug" = String, Path, description = "the slug")), request_body = Import,
    responses((status = 201, body = Answer, description = "`{created}`"), Errors))]
pub async fn import(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    crate::merchant::catalog::shop_bot(&web.pool, merchant_id, &slug).await?;
    let import: Import = parse_json(&body?)?;
    let created = knowledge::import(&web.pool, merchant_id, &slug, &import.entries).await?;
    Ok((StatusCode::CREATED, Json(json!({ "created": created }))))
}

#[utoipa::path(get, path = "/bots/{slug}/knowledge/{id}", tag = "knowledge",
    params(("slug" = String, Path, description = "the slug"), ("id" = i64, Path, description = "the entry")),
    responses((status = 200, body = Answer, description = "the entry"), Errors))]
pub async fn get(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let id = entry_id(&id)?;
    let entry = knowledge::get(&web.pool, merchant_id, &slug, id).await?;
    Ok(Json(json!(entry)))
}

#[utoipa::path(patch, path = "/bots/{slug}/knowledge/{id}", tag = "knowledge",
    params(("slug" = String, Path, description = "the slug"), ("id" = i64, Path, description = "the entry")), request_body = EntryPatch,
    responses((status = 200, body = Answer, description = "the entry"), Errors))]
pub async fn update(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path((slug, id)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    crate::merchant::catalog::shop_bot(&web.pool, merchant_id, &slug).await?;
    let id = entry_id(&id)?;
    let patch: EntryPatch = parse_json(&body?)?;
    let entry = knowledge::update(&web.pool, merchant_id, &slug, id, &patch).await?;
    Ok(Json(json!(entry)))
}

#[utoipa::path(delete, path = "/bots/{slug}/knowledge/{id}", tag = "knowledge",
    params(("slug" = String, Path, description = "the slug"), ("id" = i64, Path, description = "the entry")),
    responses((status = 200, body = Answer, description = "`{id, deleted: true}`"), Errors))]
pub async fn delete(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path((slug, id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let id = entry_id(&id)?;
    knowledge::delete(&web.pool, merchant_id, &slug, id).await?;
    Ok(Json(json!({ "id": id, "deleted": true })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct Try {
    question: String,
}

/// `POST /api/v1/bots/{slug}/knowledge/try`: `{question}` → the answer a customer
/// would get (without a model) and the entries it came from, or the gray zone.
#[utoipa::path(post, path = "/bots/{slug}/knowledge/try", tag = "knowledge", params(("slug" = String, Path, description = "the slug")), request_body = Try,
    responses((status = 200, body = Answer, description = "`{text, sources, gray, steps}`"), Errors))]
pub async fn try_question(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    crate::merchant::catalog::shop_bot(&web.pool, merchant_id, &slug).await?;
    let ask: Try = parse_json(&body?)?;
    let answer = knowledge::try_question(&web.pool, merchant_id, &slug, &ask.question).await?;
    Ok(Json(json!(answer)))
}
