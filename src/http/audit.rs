//! A conversation's audit trail, queried: by kind, page by page.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::ApiError;
use super::merchant::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::{audit, conversations};

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    kind: Option<String>,
    /// Rows older than this id (the page before).
    before: Option<i64>,
    limit: Option<i64>,
}

/// `GET /api/v1/conversations/{id}/audit?kind=&before=&limit=`: newest first.
#[utoipa::path(get, path = "/conversations/{id}/audit", tag = "conversations", params(("id" = String, Path, description = "the id"), AuditQuery),
    responses((status = 200, body = Answer, description = "`{audit: [...]}`, newest first"), Errors))]
pub async fn query(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<AuditQuery>,
) -> Result<Json<Value>, ApiError> {
    let id = id.parse().map_err(|_| ApiError::NotFound("conversation"))?;
    if !conversations::owned_by(&state.pool, id, merchant_id).await? {
        return Err(ApiError::NotFound("conversation"));
    }
    if query.kind.as_deref().is_some_and(|k| k.len() > 64) {
        return Err(ApiError::BadRequest(
            "kind must be at most 64 characters".into(),
        ));
    }
    let limit = query.limit.unwrap_or(100).clamp(1, 1000);
    let rows = audit::query(&state.pool, id, query.kind.as_deref(), query.before, limit).await?;
    Ok(Json(json!({ "audit": rows })))
}
