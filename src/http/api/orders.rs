//! `/api/v1/orders`: the merchant's orders, by bot and status.

use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::http::Web;
use crate::http::error::ApiError;
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
