//! The merchant's orders, by bot and status, newest first.

use sqlx::PgPool;
use uuid::Uuid;

use super::Result;
use crate::shop::orders::{self, Listed, OrderStatus};

pub async fn list(
    pool: &PgPool,
    merchant_id: Uuid,
    bot: Option<&str>,
    status: Option<OrderStatus>,
    limit: i64,
) -> Result<Vec<Listed>> {
    Ok(orders::list_for_merchant(pool, merchant_id, bot, status, limit.clamp(1, 500)).await?)
}

/// The conversation an order of the merchant's came from.
pub async fn conversation_of(pool: &PgPool, merchant_id: Uuid, order_id: Uuid) -> Result<Uuid> {
    let order = orders::by_id(pool, order_id)
        .await?
        .ok_or(super::MerchantError::NotFound("order"))?;
    if crate::bots::owner_of(pool, order.bot_id).await? != merchant_id {
        return Err(super::MerchantError::NotFound("order"));
    }
    Ok(order.conversation_id)
}
