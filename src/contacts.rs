//! The `contacts` table: the people a bot talks to, one row per channel identity.

use serde::Serialize;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use crate::channels::ChannelKind;

/// A contact as a merchant sees it.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct ContactView {
    pub channel: ChannelKind,
    pub external_id: String,
    pub display_name: Option<String>,
    pub blocked: bool,
}

pub async fn by_id(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<ContactView> {
    sqlx::query_as("SELECT channel, external_id, display_name, blocked FROM contacts WHERE id = $1")
        .bind(id)
        .fetch_one(db)
        .await
}

/// The contact `sender` on `channel`, created if new.
pub async fn ensure(
    conn: &mut PgConnection,
    bot_id: Uuid,
    channel: ChannelKind,
    sender: &str,
) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(
        "INSERT INTO contacts (bot_id, channel, external_id) VALUES ($1, $2, $3)
         ON CONFLICT (bot_id, channel, external_id) DO UPDATE SET external_id = excluded.external_id
         RETURNING id",
    )
    .bind(bot_id)
    .bind(channel.as_str())
    .bind(sender)
    .fetch_one(conn)
    .await
}

/// Records that a user blocked (or unblocked) the bot on a channel.
pub async fn set_blocked(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    channel: ChannelKind,
    external_id: &str,
    blocked: bool,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE contacts SET blocked = $4 WHERE bot_id = $1 AND channel = $2 AND external_id = $3",
    )
    .bind(bot_id)
    .bind(channel.as_str())
    .bind(external_id)
    .bind(blocked)
    .execute(db)
    .await?;
    Ok(())
}

/// Marks the contact of a conversation as having blocked the bot.
pub async fn block_for_conversation(
    db: impl PgExecutor<'_>,
    conversation_id: Uuid,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE contacts SET blocked = true WHERE id = (SELECT contact_id FROM conversations WHERE id = $1)",
    )
    .bind(conversation_id)
    .execute(db)
    .await?;
    Ok(())
}
