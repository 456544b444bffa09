//! The merchant's orders, by bot and status.

use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::ApiError;
use super::merchant::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::shop::orders::{self, OrderStatus};
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
    State(state): State<AppState>,
    Query(query): Query<OrdersQuery>,
) -> Result<Json<Value>, ApiError> {
    let status = match &query.status {
        Some(s) => Some(
            s.parse::<OrderStatus>()
                .map_err(|e| ApiError::BadRequest(e.to_string()))?,
        ),
        None => None,
    };
    let limit = query.limit.unwrap_or(50).clamp(1, 500);
    let listed = orders::list_for_merchant(
        &state.pool,
        merchant_id,
        query.bot.as_deref(),
        status,
        limit,
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
