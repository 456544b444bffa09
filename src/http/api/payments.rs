//! `/api/v1/orders/{id}/approve-payment` and `reject-payment`: thin doors over
//! `merchant::payments`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{MerchantAuth, parse_id};
use super::openapi::{Answer, Errors};
use crate::http::Web;
use crate::http::error::{ApiError, parse_json};
use crate::merchant::payments;

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct ApproveBody {
    /// How it was paid when there is no proof («efectivo al entregar»,
    /// «transferencia revisada»); audited.
    #[serde(default)]
    note: Option<String>,
}

/// `POST /api/v1/orders/{id}/approve-payment`: with a proof under review, or
/// without one (`{"note"}` says how it was paid).
#[utoipa::path(post, path = "/orders/{id}/approve-payment", tag = "orders", params(("id" = String, Path, description = "the id")), request_body = ApproveBody,
    responses((status = 200, body = Answer, description = "`{order_id, status, conversation_state}`"), Errors))]
pub async fn approve_payment(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "order")?;
    let body = body?;
    let body: ApproveBody = if body.is_empty() {
        ApproveBody::default()
    } else {
        parse_json(&body)?
    };
    let decided = payments::approve(&web.pool, merchant_id, id, body.note.as_deref()).await?;
    Ok(Json(json!(decided)))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct RejectBody {
    reason: String,
}

#[utoipa::path(post, path = "/orders/{id}/reject-payment", tag = "orders", params(("id" = String, Path, description = "the id")), request_body = RejectBody,
    responses((status = 200, body = Answer, description = "`{order_id, status}`: the customer is asked for the proof again"), Errors))]
pub async fn reject_payment(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "order")?;
    let body: RejectBody = parse_json(&body?)?;
    let decided = payments::reject(&web.pool, merchant_id, id, &body.reason).await?;
    Ok(Json(json!(decided)))
}
