//! The `messages` table: the transcript as the merchant reads it. Lines of
//! customers are written by the inbox, lines of the bot by the outbox (each in the
//! statement that stores its message); this module reads them and records what a
//! merchant wrote from elsewhere.

use serde::{Deserialize, Serialize};
use sqlx::PgExecutor;
use uuid::Uuid;

type Timestamp = chrono::DateTime<chrono::Utc>;

/// Which way a line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum Direction {
    In,
    Out,
}

/// Who wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum Speaker {
    Customer,
    Bot,
    /// Handoff notices and other messages that reach the customer even under
    /// override.
    System,
    /// A person of the shop.
    Human,
}

impl Speaker {
    pub fn as_str(self) -> &'static str {
        match self {
            Speaker::Customer => "customer",
            Speaker::Bot => "bot",
            Speaker::System => "system",
            Speaker::Human => "human",
        }
    }
}

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct TranscriptLine {
    pub id: i64,
    pub direction: Direction,
    pub author: Speaker,
    pub text: String,
    /// Outbox status of an outbound message.
    pub delivery: Option<crate::outbox::Status>,
    pub delivery_error: Option<String>,
    /// The quick answers the customer was offered with it (buttons on Telegram
    /// and WhatsApp, in the widget).
    pub choices: sqlx::types::Json<Vec<String>>,
    pub created_at: Timestamp,
}

pub async fn of_conversation(
    db: impl PgExecutor<'_>,
    conversation_id: Uuid,
) -> sqlx::Result<Vec<TranscriptLine>> {
    sqlx::query_as(
        "SELECT m.id, m.direction, m.author, m.text, o.status AS delivery, o.last_error AS delivery_error,
                coalesce(o.payload->'choices', '[]'::jsonb) AS choices, m.created_at
         FROM messages m LEFT JOIN outbox o ON o.id = m.outbox_id
         WHERE m.conversation_id = $1 ORDER BY m.id",
    )
    .bind(conversation_id)
    .fetch_all(db)
    .await
}

/// A line the merchant wrote outside Tendero (from the WhatsApp Business app).
pub async fn record_human(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    conversation_id: Uuid,
    text: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO messages (bot_id, conversation_id, direction, author, text) \
         VALUES ($1, $2, 'out', 'human', $3)",
    )
    .bind(bot_id)
    .bind(conversation_id)
    .bind(text)
    .execute(db)
    .await?;
    Ok(())
}

/// Deletes a conversation's transcript (an erasure the person confirmed).
pub async fn forget(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    conversation_id: Uuid,
) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM messages WHERE bot_id = $1 AND conversation_id = $2")
            .bind(bot_id)
            .bind(conversation_id)
            .execute(db)
            .await?
            .rows_affected(),
    )
}
