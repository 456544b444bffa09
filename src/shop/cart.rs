//! The persisted cart of a conversation.

use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use crate::conversation::{Cart, CartLine};

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

/// Replaces the stored cart with `cart`.
pub async fn save(conn: &mut PgConnection, conversation_id: Uuid, cart: &Cart) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM cart_items WHERE conversation_id = $1")
        .bind(conversation_id)
        .execute(&mut *conn)
        .await?;
    if cart.is_empty() {
        return Ok(());
    }
    let mut builder = sqlx::QueryBuilder::new(
        "INSERT INTO cart_items (conversation_id, product_id, quantity, position) ",
    );
    builder.push_values(cart.lines().iter().enumerate(), |mut row, (i, line)| {
        row.push_bind(conversation_id)
            .push_bind(line.product_id)
            .push_bind(line.quantity as i32)
            .push_bind(i as i32);
    });
    builder.build().execute(conn).await?;
    Ok(())
}
