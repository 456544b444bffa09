//! Stock as the backend keeps it, like prices: units on hand (`products.stock`,
//! `NULL` when a merchant does not count them) and units held by orders waiting
//! for their payment (`products.reserved`). An order reserves its units in the
//! transaction that creates it, under the products' row locks taken in id order,
//! so no unit is ever sold twice whichever process confirms; its payment consumes
//! them, its end (cancelled, expired) returns them. Each order's units move once:
//! `orders.stock_state` records where they are, under the order's row lock.

use serde::Serialize;
use sqlx::PgConnection;
use uuid::Uuid;

use super::core::{CartLine, ProductId};

/// Where an order's units are; stored as its snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum StockState {
    /// Nothing was counted (untracked products, orders from before stock).
    None,
    /// In `products.reserved`.
    Held,
    /// Taken off `products.stock` by the payment.
    Consumed,
    /// Given back by the order's end.
    Returned,
}

/// A line that no longer fits in what is left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortage {
    pub product_id: ProductId,
    pub name: String,
    pub requested: i64,
    pub available: i64,
}

/// A tracked product's units a customer can buy, before and after a reservation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    pub product_id: ProductId,
    pub name: String,
    pub before: i64,
    pub after: i64,
}

impl Level {
    /// The reservation took this product to `threshold` or below (from above it).
    pub fn fell_to(&self, threshold: i64) -> bool {
        self.before > threshold && self.after <= threshold
    }
}

/// Holds the lines' units of every tracked product, or names the first line that
/// does not fit (and holds nothing). Runs in the order's transaction.
pub async fn reserve(
    conn: &mut PgConnection,
    lines: &[CartLine],
) -> sqlx::Result<Result<Vec<Level>, Shortage>> {
    let ids: Vec<ProductId> = lines.iter().map(|l| l.product_id).collect();
    // Row locks in id order: two orders sharing products never wait on each
    // other in a cycle.
    let tracked: Vec<(ProductId, String, i32, i32)> = sqlx::query_as(
        "SELECT id, name, stock, reserved FROM products
         WHERE id = ANY($1) AND stock IS NOT NULL ORDER BY id FOR UPDATE",
    )
    .bind(&ids)
    .fetch_all(&mut *conn)
    .await?;
    let mut levels = Vec::new();
    for line in lines {
        let Some((id, name, stock, reserved)) =
            tracked.iter().find(|(id, ..)| *id == line.product_id)
        else {
            continue;
        };
        let available = i64::from((stock - reserved).max(0));
        if line.quantity > available {
            return Ok(Err(Shortage {
                product_id: *id,
                name: name.clone(),
                requested: line.quantity,
                available,
            }));
        }
        levels.push(Level {
            product_id: *id,
            name: name.clone(),
            before: available,
            after: available - line.quantity,
        });
    }
    if !levels.is_empty() {
        let quantities: Vec<i32> = levels
            .iter()
            .map(|level| (level.before - level.after) as i32)
            .collect();
        let ids: Vec<ProductId> = levels.iter().map(|level| level.product_id).collect();
        sqlx::query(
            "UPDATE products p SET reserved = p.reserved + r.quantity
             FROM unnest($1::bigint[], $2::integer[]) AS r(id, quantity) WHERE p.id = r.id",
        )
        .bind(ids)
        .bind(quantities)
        .execute(&mut *conn)
        .await?;
    }
    Ok(Ok(levels))
}

/// Moves an order's units: `held` ones are consumed by a payment or returned by
/// an end; `consumed` ones go back on the shelf when a paid order is cancelled.
/// The caller holds the order's row lock and says where its units go.
pub async fn settle(
    conn: &mut PgConnection,
    order_id: Uuid,
    from: StockState,
    to: StockState,
) -> sqlx::Result<()> {
    let sql = match (from, to) {
        (StockState::Held, StockState::Consumed) => {
            "UPDATE products p SET stock = greatest(p.stock - i.quantity, 0),
                    reserved = greatest(p.reserved - i.quantity, 0)
             FROM order_items i WHERE i.order_id = $1 AND p.id = i.product_id AND p.stock IS NOT NULL"
        }
        (StockState::Held, StockState::Returned) => {
            "UPDATE products p SET reserved = greatest(p.reserved - i.quantity, 0)
             FROM order_items i WHERE i.order_id = $1 AND p.id = i.product_id AND p.stock IS NOT NULL"
        }
        (StockState::Consumed, StockState::Returned) => {
            "UPDATE products p SET stock = p.stock + i.quantity
             FROM order_items i WHERE i.order_id = $1 AND p.id = i.product_id AND p.stock IS NOT NULL"
        }
        _ => return Ok(()),
    };
    sqlx::query(sql).bind(order_id).execute(&mut *conn).await?;
    sqlx::query("UPDATE orders SET stock_state = $2 WHERE id = $1")
        .bind(order_id)
        .bind(to)
        .execute(conn)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_is_crossed_once_on_the_way_down() {
        let level = |before, after| Level {
            product_id: 1,
            name: "Cheesecake".into(),
            before,
            after,
        };
        assert!(level(5, 3).fell_to(3));
        assert!(level(4, 0).fell_to(3));
        assert!(!level(3, 2).fell_to(3), "already at or below: told before");
        assert!(!level(9, 4).fell_to(3));
        assert!(level(1, 0).fell_to(0), "sold out");
    }
}
