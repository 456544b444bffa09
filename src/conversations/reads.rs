//! The `conversation_reads` table: the last message the merchant's team saw in
//! each conversation; the inbox counts the customer's messages after it.

use sqlx::PgExecutor;
use uuid::Uuid;

/// Marks everything in the conversation as seen now.
pub async fn mark_seen(db: impl PgExecutor<'_>, conversation_id: Uuid) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO conversation_reads (conversation_id, bot_id, seen_message_id)
         SELECT c.id, c.bot_id,
                coalesce((SELECT max(m.id) FROM messages m WHERE m.conversation_id = c.id), 0)
         FROM conversations c WHERE c.id = $1
         ON CONFLICT (bot_id, conversation_id) DO UPDATE
             SET seen_message_id = greatest(conversation_reads.seen_message_id, excluded.seen_message_id),
                 seen_at = now()",
    )
    .bind(conversation_id)
    .execute(db)
    .await?;
    Ok(())
}
