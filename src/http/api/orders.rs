//! `/api/v1/orders`: the merchant's orders, by bot and status; a paid one
//! followed to the door, or one cancelled — thin doors over `merchant::orders`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{MerchantAuth, parse_id};
use super::openapi::{Answer, Errors};
use crate::http::Web;
use crate::http::error::{ApiError, parse_json};
use crate::merchant::orders;
use crate::shop::orders::OrderStatus;
use crate::text::money;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OrdersQuery {
    bot: Option<String>,
    status: Option<String>,
    limit: Option<i64>,
}

/// `GET /api/v1/orders?bot=&status=&limit=`: newest first.
#[utoipa::path(get, path = "/orders", tag = "orders", params(OrdersQuery),
    responses((status = 200, body = Answer, description = "`{orders: [...]}`, newest first"), Errors))]
pub async fn list(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Query(query): Query<OrdersQuery>,
) -> Result<Json<Value>, ApiError> {
    let status = match &query.status {
        Some(s) => Some(
            s.parse::<OrderStatus>()
                .map_err(|e| ApiError::BadRequest(e.to_string()))?,
        ),
        None => None,
    };
    let listed = orders::list(
        &web.pool,
        merchant_id,
        query.bot.as_deref(),
        status,
        query.limit.unwrap_or(50),
    )
    .await?;
    let orders: Vec<Value> = listed
        .iter()
        .map(|o| {
            let mut view = json!(o);
            view["total"] = json!(money(o.total_minor, &o.currency));
            view
        })
        .collect();
    Ok(Json(json!({ "orders": orders })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct StatusBody {
    /// `preparing`, `ready` (for pickup), `on_the_way` or `delivered`.
    status: String,
}

/// `POST /api/v1/orders/{id}/status`: a paid order moves on; the customer is told.
#[utoipa::path(post, path = "/orders/{id}/status", tag = "orders", params(("id" = String, Path, description = "the id")), request_body = StatusBody,
    responses((status = 200, body = Answer, description = "`{order_id, number, status, customer_told}`; 409 when the order cannot move there (forward only, after payment)"), Errors))]
pub async fn set_status(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "order")?;
    let body: StatusBody = parse_json(&body?)?;
    let status = body
        .status
        .parse::<OrderStatus>()
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let changed = orders::follow(&web.pool, merchant_id, id, status).await?;
    Ok(Json(json!(changed)))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct CancelBody {
    /// Why, in the words the customer reads (at most 300 characters).
    reason: String,
}

/// `POST /api/v1/orders/{id}/cancel`: an order not yet delivered is cancelled;
/// the customer is told why and its units go back on sale.
#[utoipa::path(post, path = "/orders/{id}/cancel", tag = "orders", params(("id" = String, Path, description = "the id")), request_body = CancelBody,
    responses((status = 200, body = Answer, description = "`{order_id, number, status, customer_told}`; 409 when it was delivered or had already ended"), Errors))]
pub async fn cancel(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "order")?;
    let body: CancelBody = parse_json(&body?)?;
    let changed = orders::cancel(&web.pool, merchant_id, id, &body.reason).await?;
    Ok(Json(json!(changed)))
}
