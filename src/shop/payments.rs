//! The `payment_proofs` table: what a customer sent as proof of payment, kept for
//! the merchant, who alone approves or rejects it.

use sqlx::PgConnection;
use uuid::Uuid;

use super::orders::{self, OrderStatus};

/// Keeps a proof and marks its order as having one.
pub async fn record_proof(
    conn: &mut PgConnection,
    bot_id: Uuid,
    order_id: Uuid,
    inbox_id: i64,
    media: Option<&serde_json::Value>,
    text: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO payment_proofs (bot_id, order_id, inbox_id, media, text) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(bot_id)
    .bind(order_id)
    .bind(inbox_id)
    .bind(media)
    .bind(text)
    .execute(&mut *conn)
    .await?;
    orders::set_status(conn, order_id, OrderStatus::ProofReceived, None).await
}

/// A proof as the merchant sees it.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
pub struct Proof {
    pub id: i64,
    pub order_id: Uuid,
    /// `{"kind", "id"}`: the platform's media id, fetched through the console.
    pub media: Option<serde_json::Value>,
    pub text: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// An order's proofs, oldest first.
pub async fn proofs_of(db: impl sqlx::PgExecutor<'_>, order_id: Uuid) -> sqlx::Result<Vec<Proof>> {
    sqlx::query_as(
        "SELECT id, order_id, media, text, created_at FROM payment_proofs WHERE order_id = $1 ORDER BY id",
    )
    .bind(order_id)
    .fetch_all(db)
    .await
}

/// A proof of one of the merchant's bots, with the bot and the customer's channel.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OwnedProof {
    #[sqlx(flatten)]
    pub proof: Proof,
    pub bot_id: Uuid,
    pub channel: crate::channels::ChannelKind,
}

pub async fn proof_for_merchant(
    db: impl sqlx::PgExecutor<'_>,
    proof_id: i64,
    merchant_id: Uuid,
) -> sqlx::Result<Option<OwnedProof>> {
    sqlx::query_as(
        "SELECT p.id, p.order_id, p.media, p.text, p.created_at, b.id AS bot_id, ct.channel
         FROM payment_proofs p JOIN orders o ON o.id = p.order_id JOIN bots b ON b.id = o.bot_id
         JOIN conversations c ON c.id = o.conversation_id JOIN contacts ct ON ct.id = c.contact_id
         WHERE p.id = $1 AND b.merchant_id = $2",
    )
    .bind(proof_id)
    .bind(merchant_id)
    .fetch_optional(db)
    .await
}
