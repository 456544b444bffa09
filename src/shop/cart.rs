//! The persisted cart of a conversation.

use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use crate::shop::core::{Cart, CartLine};

/// Loads the cart with current catalog prices, in the order lines were added.
pub async fn load(db: impl PgExecutor<'_>, conversation_id: Uuid) -> sqlx::Result<Cart> {
    let rows: Vec<(i64, i32, i64)> = sqlx::query_as(
        "SELECT ci.product_id, ci.quantity, p.price_minor
         FROM cart_items ci JOIN products p ON p.id = ci.product_id
         WHERE ci.conversation_id = $1 ORDER BY ci.position",
    )
    .bind(conversation_id)
    .fetch_all(db)
    .await?;
    Ok(Cart::new(
        rows.into_iter()
            .map(|(product_id, quantity, unit_price_minor)| CartLine {
                product_id,
                quantity: i64::from(quantity),
                unit_price_minor,
            })
            .collect(),
    ))
}

/// Replaces the stored cart with `cart`, in one statement.
pub async fn save(
    conn: &mut PgConnection,
    bot_id: Uuid,
    conversation_id: Uuid,
    cart: &Cart,
) -> sqlx::Result<()> {
    let products: Vec<i64> = cart.lines().iter().map(|l| l.product_id).collect();
    let quantities: Vec<i32> = cart.lines().iter().map(|l| l.quantity as i32).collect();
    sqlx::query(
        "WITH gone AS (
             DELETE FROM cart_items
             WHERE bot_id = $4 AND conversation_id = $1 AND product_id <> ALL($2)
         )
         INSERT INTO cart_items (bot_id, conversation_id, product_id, quantity, position)
         SELECT $4, $1, t.product_id, t.quantity, t.n::int - 1
         FROM unnest($2::bigint[], $3::int[]) WITH ORDINALITY AS t(product_id, quantity, n)
         ON CONFLICT (bot_id, conversation_id, product_id)
         DO UPDATE SET quantity = excluded.quantity, position = excluded.position",
    )
    .bind(conversation_id)
    .bind(products)
    .bind(quantities)
    .bind(bot_id)
    .execute(conn)
    .await?;
    Ok(())
}
