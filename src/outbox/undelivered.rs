//! Messages that did not reach the customer (failed for good, or out of retries):
//! the merchant lists them, sends one again, or drops it.

use serde::Serialize;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// An undelivered message as the merchant sees it.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Undelivered {
    pub id: i64,
    pub conversation_id: Uuid,
    #[serde(skip)]
    pub bot_id: Uuid,
    pub bot: String,
    pub channel: crate::channels::ChannelKind,
    pub author: super::Author,
    pub text: String,
    pub status: super::Status,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

const COLUMNS: &str = "o.id, o.conversation_id, o.bot_id, b.slug AS bot, o.channel, o.author,
    coalesce(o.payload->>'text', '') AS text, o.status, o.attempts, o.last_error, o.created_at";

/// The merchant's undelivered messages, newest first.
pub async fn list(
    db: impl PgExecutor<'_>,
    merchant_id: Uuid,
    bot: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<Undelivered>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM outbox o JOIN bots b ON b.id = o.bot_id
         WHERE b.merchant_id = $1 AND ($2::text IS NULL OR b.slug = $2)
           AND o.status IN ('failed', 'dead')
         ORDER BY o.id DESC LIMIT $3"
    )))
    .bind(merchant_id)
    .bind(bot)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// One of the merchant's undelivered messages, locked.
pub async fn lock(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    id: i64,
) -> sqlx::Result<Option<Undelivered>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM outbox o JOIN bots b ON b.id = o.bot_id
         WHERE o.id = $1 AND b.merchant_id = $2 AND o.status IN ('failed', 'dead')
         FOR UPDATE OF o"
    )))
    .bind(id)
    .bind(merchant_id)
    .fetch_optional(conn)
    .await
}

/// Queues the message again with fresh attempts (the dispatcher still checks the
/// override, blocks and the WhatsApp window before sending), and wakes it.
pub async fn retry(conn: &mut PgConnection, id: i64) -> sqlx::Result<()> {
    sqlx::query(
        "WITH again AS (
             UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = now(),
                 lease_until = NULL
             WHERE id = $1 RETURNING conversation_id
         )
         SELECT pg_notify('tendero_outbox_pending', conversation_id::text) FROM again",
    )
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn discard(conn: &mut PgConnection, id: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE outbox SET status = 'discarded' WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}
