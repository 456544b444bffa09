//! Linking the merchant's own Telegram chat to a bot: a one-time code the merchant
//! sends as `/start <code>` from the chat that should get the notices; unlinking.

use sqlx::PgPool;
use uuid::Uuid;

use super::{MerchantError, Office, Result, owned_bot};
use crate::bots::{self, Bot};

/// A code to send, once the bot is on Telegram (the only place it is used).
#[derive(Debug, Clone, serde::Serialize)]
pub struct LinkCode {
    pub bot: String,
    pub code: String,
    /// What to send to the bot, as is.
    pub send: String,
    /// A chat is linked already (linking another replaces it).
    pub linked: bool,
}

/// A fresh code; a new one replaces the old.
pub async fn new_code(office: &Office, merchant_id: Uuid, slug: &str) -> Result<LinkCode> {
    let bot = owned_bot(&office.pool, merchant_id, slug).await?;
    if crate::channels::credentials::telegram(&office.pool, bot.id)
        .await?
        .is_none()
    {
        return Err(MerchantError::TelegramNotConnected);
    }
    let code = bots::new_link_code(&office.pool, bot.id).await?;
    office.directory.forget(&bot.slug);
    Ok(LinkCode {
        send: format!("/start {code}"),
        code,
        bot: bot.slug,
        linked: bot.merchant_chat_id.is_some(),
    })
}

/// No more notices to the linked chat; its commands are a customer's words again.
pub async fn unlink(office: &Office, merchant_id: Uuid, slug: &str) -> Result<Bot> {
    let bot = owned_bot(&office.pool, merchant_id, slug).await?;
    bots::unlink_merchant_chat(&office.pool, bot.id).await?;
    office.directory.forget(&bot.slug);
    Ok(bot)
}

/// `chat_id` sent `code`: linked if it is the bot's current code (then spent).
/// False when it is not (someone else's `/start` with a payload).
pub async fn link(office: &Office, bot: &Bot, code: &str, chat_id: &str) -> Result<bool> {
    if !bots::link_merchant_chat(&office.pool, bot.id, code, chat_id).await? {
        return Ok(false);
    }
    office.directory.forget(&bot.slug);
    tracing::info!(bot = %bot.slug, "merchant chat linked");
    Ok(true)
}

/// The bot's conversation whose id starts with `reference`, as the merchant's
/// chat names it: `Ok(None)` for none, an error when the reference is ambiguous.
pub async fn conversation(pool: &PgPool, bot: &Bot, reference: &str) -> Result<Lookup<Uuid>> {
    let found = crate::conversations::with_prefix(pool, bot.id, reference).await?;
    Ok(match found.as_slice() {
        [id] => Lookup::One(*id),
        [] => Lookup::None,
        _ => Lookup::Ambiguous,
    })
}

/// The bot's order numbered `number`.
pub async fn order(pool: &PgPool, bot: &Bot, number: i64) -> Result<Option<Uuid>> {
    Ok(crate::shop::orders::by_number(pool, bot.id, number).await?)
}

/// What a short reference found.
pub enum Lookup<T> {
    One(T),
    None,
    Ambiguous,
}
