//! `/api/v1/conversations/{id}/audit`: a conversation's audit trail, queried by
//! kind, page by page.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{MerchantAuth, parse_id};
use super::openapi::{Answer, Errors};
use crate::audit::Kind;
use crate::http::Web;
use crate::http::error::ApiError;
use crate::merchant::conversations;

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
    State(web): State<Web>,
    Path(id): Path<String>,
    Query(query): Query<AuditQuery>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "conversation")?;
    // The conversation first: another merchant's is a 404 whatever the query says.
    conversations::state(&web.pool, merchant_id, id).await?;
    let kind = match query.kind.as_deref() {
        None => None,
        Some(k) if k.len() > 64 => {
            return Err(ApiError::BadRequest(
                "kind must be at most 64 characters".into(),
            ));
        }
        // A kind that does not exist has no rows.
        Some(k) => match k.parse::<Kind>() {
            Ok(kind) => Some(kind),
            Err(_) => return Ok(Json(json!({ "audit": [] }))),
        },
    };
    let limit = query.limit.unwrap_or(100);
    let rows =
        conversations::audit_trail(&web.pool, merchant_id, id, kind, query.before, limit).await?;
    Ok(Json(json!({ "audit": rows })))
}
