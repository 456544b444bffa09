//! Private notes on a conversation and a bot's canned replies: what the
//! merchant's team writes for itself. A note never reaches the customer.

use sqlx::PgPool;
use uuid::Uuid;

use super::{MerchantError, Result, bounded_text, owned_bot};
use crate::notes::{self, Canned, Note};

/// Adds a private note to one of the merchant's conversations.
pub async fn add(
    pool: &PgPool,
    merchant_id: Uuid,
    conversation_id: Uuid,
    text: &str,
) -> Result<Note> {
    let text = bounded_text("text", text, 2000)?;
    let conversation = super::conversations::state(pool, merchant_id, conversation_id).await?;
    Ok(notes::add(pool, conversation.bot_id, conversation_id, text).await?)
}

/// The notes on one of the merchant's conversations, oldest first.
pub async fn of_conversation(
    pool: &PgPool,
    merchant_id: Uuid,
    conversation_id: Uuid,
) -> Result<Vec<Note>> {
    super::conversations::state(pool, merchant_id, conversation_id).await?;
    Ok(notes::of_conversation(pool, conversation_id).await?)
}

/// The canned replies of the merchant's bot.
pub async fn canned(pool: &PgPool, merchant_id: Uuid, slug: &str) -> Result<Vec<Canned>> {
    let bot = owned_bot(pool, merchant_id, slug).await?;
    Ok(notes::canned(pool, bot.id).await?)
}

/// Creates or replaces a canned reply: `shortcut` is what follows «/» in the
/// reply box (lowercase letters, digits, dashes).
pub async fn set_canned(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
    shortcut: &str,
    text: &str,
) -> Result<Canned> {
    let bot = owned_bot(pool, merchant_id, slug).await?;
    let shortcut = shortcut.trim().trim_start_matches('/').to_lowercase();
    let ok = (1..=30).contains(&shortcut.len())
        && shortcut
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !ok {
        return Err(MerchantError::invalid(
            "shortcut",
            "shortcut: 1-30 lowercase letters, digits or dashes",
            "El atajo lleva de 1 a 30 letras sin tilde, números o guiones, como «saludo» o «horario».",
        ));
    }
    let text = bounded_text("text", text, 1000)?;
    Ok(notes::set_canned(pool, bot.id, &shortcut, text).await?)
}

/// Deletes a canned reply of the merchant's bot.
pub async fn delete_canned(pool: &PgPool, merchant_id: Uuid, slug: &str, id: i64) -> Result<()> {
    let bot = owned_bot(pool, merchant_id, slug).await?;
    if notes::delete_canned(pool, bot.id, id).await? {
        Ok(())
    } else {
        Err(MerchantError::NotFound("canned reply"))
    }
}
