//! The `conversation_notes` and `canned_replies` tables: what a merchant's team
//! writes for itself — private notes on a conversation (never sent) and the
//! bot's canned replies, inserted in the reply box by their shortcut.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgExecutor;
use uuid::Uuid;

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Note {
    pub id: i64,
    pub text: String,
    pub created_at: DateTime<Utc>,
}

pub async fn add(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    conversation_id: Uuid,
    text: &str,
) -> sqlx::Result<Note> {
    sqlx::query_as(
        "INSERT INTO conversation_notes (bot_id, conversation_id, text) VALUES ($1, $2, $3)
         RETURNING id, text, created_at",
    )
    .bind(bot_id)
    .bind(conversation_id)
    .bind(text)
    .fetch_one(db)
    .await
}

/// A conversation's notes, oldest first.
pub async fn of_conversation(
    db: impl PgExecutor<'_>,
    conversation_id: Uuid,
) -> sqlx::Result<Vec<Note>> {
    sqlx::query_as(
        "SELECT id, text, created_at FROM conversation_notes WHERE conversation_id = $1
         ORDER BY id LIMIT 200",
    )
    .bind(conversation_id)
    .fetch_all(db)
    .await
}

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Canned {
    pub id: i64,
    pub shortcut: String,
    pub text: String,
}

/// A bot's canned replies, by shortcut.
pub async fn canned(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<Vec<Canned>> {
    sqlx::query_as(
        "SELECT id, shortcut, text FROM canned_replies WHERE bot_id = $1 ORDER BY shortcut",
    )
    .bind(bot_id)
    .fetch_all(db)
    .await
}

/// Creates the canned reply, or replaces the text of the one with that shortcut.
pub async fn set_canned(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    shortcut: &str,
    text: &str,
) -> sqlx::Result<Canned> {
    sqlx::query_as(
        "INSERT INTO canned_replies (bot_id, shortcut, text) VALUES ($1, $2, $3)
         ON CONFLICT (bot_id, shortcut) DO UPDATE SET text = excluded.text
         RETURNING id, shortcut, text",
    )
    .bind(bot_id)
    .bind(shortcut)
    .bind(text)
    .fetch_one(db)
    .await
}

/// Deletes the bot's canned reply `id`; false when it has none.
pub async fn delete_canned(db: impl PgExecutor<'_>, bot_id: Uuid, id: i64) -> sqlx::Result<bool> {
    let deleted = sqlx::query("DELETE FROM canned_replies WHERE bot_id = $1 AND id = $2")
        .bind(bot_id)
        .bind(id)
        .execute(db)
        .await?
        .rows_affected();
    Ok(deleted == 1)
}
