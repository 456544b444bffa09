//! The `payment_proofs` table: what a customer sent as proof of payment, kept for
//! the merchant, who alone approves or rejects it.

use sqlx::PgConnection;
use uuid::Uuid;

use super::orders::{self, OrderStatus};

/// Keeps a proof and marks its order as having one.
pub async fn record_proof(
    conn: &mut PgConnection,
    order_id: Uuid,
    inbox_id: i64,
    media: Option<&serde_json::Value>,
    text: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO payment_proofs (order_id, inbox_id, media, text) VALUES ($1, $2, $3, $4)",
    )
    .bind(order_id)
    .bind(inbox_id)
    .bind(media)
    .bind(text)
    .execute(&mut *conn)
    .await?;
    orders::set_status(conn, order_id, OrderStatus::ProofReceived, None).await
}
