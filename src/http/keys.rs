//! The merchant's API keys: create (the key is shown once), list by prefix, revoke.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, parse_json};
use super::merchant::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::merchant::{self, RevokeError};

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
    State(state): State<AppState>,
) -> Result<Json<Value>, ApiError> {
    let keys = merchant::list_keys(&state.pool, merchant_id).await?;
    Ok(Json(json!({ "keys": keys })))
}

/// `POST /api/v1/keys`: `{"label"}` (optional) → the new key, shown this once.
#[utoipa::path(post, path = "/keys", tag = "keys", request_body(content = Option<NewKey>),
    responses((status = 201, body = Answer, description = "`{id, key, prefix, label}`: the key, shown once"), Errors))]
pub async fn create(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let body = body?;
    let new: NewKey = if body.iter().all(u8::is_ascii_whitespace) {
        NewKey::default()
    } else {
        parse_json(&body)?
    };
    let label = new.label.trim();
    if label.chars().count() > 100 {
        return Err(ApiError::BadRequest(
            "label must be at most 100 characters".into(),
        ));
    }
    let (id, key) = merchant::create_labelled_key(&state.pool, merchant_id, label).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": id, "key": key, "prefix": &key[..8], "label": label})),
    ))
}

/// `DELETE /api/v1/keys/{id}`: revokes a key at once (409 for the last active one).
#[utoipa::path(delete, path = "/keys/{id}", tag = "keys", params(("id" = String, Path, description = "the id")),
    responses((status = 200, body = Answer, description = "the revoked key"), Errors))]
pub async fn revoke(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = id.parse().map_err(|_| ApiError::NotFound("key"))?;
    let mut tx = state.pool.begin().await?;
    let revoked = match merchant::revoke_key(&mut tx, merchant_id, id).await {
        Ok(key) => key,
        Err(RevokeError::NotFound) => return Err(ApiError::NotFound("key")),
        Err(err @ RevokeError::LastKey) => return Err(ApiError::Conflict(err.to_string())),
        Err(RevokeError::Database(err)) => return Err(err.into()),
    };
    tx.commit().await?;
    Ok(Json(json!(revoked)))
}
