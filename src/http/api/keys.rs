//! `/api/v1/keys`: create (the key is shown once), list by prefix, revoke — thin
//! doors over `merchant::keys`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{MerchantAuth, optional_body};
use super::openapi::{Answer, Errors};
use crate::http::Web;
use crate::http::error::ApiError;
use crate::merchant::keys;

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct NewKey {
    #[serde(default)]
    label: String,
}

/// `GET /api/v1/keys`: every key of the merchant, by prefix (never the key).
#[utoipa::path(get, path = "/keys", tag = "keys",
    responses((status = 200, body = Answer, description = "`{keys: [{id, prefix, label, created_at, revoked_at}]}`"), Errors))]
pub async fn list(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
) -> Result<Json<Value>, ApiError> {
    let keys = keys::list(&web.pool, merchant_id).await?;
    Ok(Json(json!({ "keys": keys })))
}

/// `POST /api/v1/keys`: `{"label"}` (optional) → the new key, shown this once.
#[utoipa::path(post, path = "/keys", tag = "keys", request_body(content = Option<NewKey>),
    responses((status = 201, body = Answer, description = "`{id, key, prefix, label}`: the key, shown once"), Errors))]
pub async fn create(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let new: NewKey = optional_body(&body?)?;
    let key = keys::create(&web.pool, merchant_id, &new.label).await?;
    Ok((StatusCode::CREATED, Json(json!(key))))
}

/// `DELETE /api/v1/keys/{id}`: revokes a key at once (409 for the last active one).
#[utoipa::path(delete, path = "/keys/{id}", tag = "keys", params(("id" = String, Path, description = "the id")),
    responses((status = 200, body = Answer, description = "the revoked key"), Errors))]
pub async fn revoke(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = id.parse().map_err(|_| ApiError::NotFound("key"))?;
    let revoked = keys::revoke(&web.pool, merchant_id, id).await?;
    Ok(Json(json!(revoked)))
}
