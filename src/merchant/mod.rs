//! What a merchant can do, whichever door they come through: the HTTP API, the
//! console and their Telegram chat are thin front doors over these functions.
//! Each takes typed input (the merchant's id first: anything not theirs is
//! `NotFound`, as if it did not exist) and returns a typed outcome or a
//! `MerchantError`; each door renders them in its own way. A change a merchant
//! makes is one transaction with its audit rows.

pub mod bots;
pub mod catalog;
pub mod chat_link;
pub mod conversations;
pub mod delivery;
pub mod keys;
pub mod knowledge;
pub mod notes;
pub mod orders;
pub mod payments;
pub mod undelivered;

use std::sync::Arc;

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::bots::{Bot, ProfileKind};
use crate::channels::telegram::TelegramChannel;
use crate::channels::whatsapp::WhatsAppChannel;
use crate::directory::BotDirectory;
use crate::shop::orders::OrderStatus;

/// What merchant actions reach.
#[derive(Clone)]
pub struct Office {
    pub pool: PgPool,
    /// Bots cached for the webhook path: a change made here drops the bot's entry.
    pub directory: Arc<BotDirectory>,
    /// Each bot's daily LLM token budget, when a model is configured.
    pub llm_daily_tokens: Option<u64>,
    /// Where payment proofs sent over Telegram or WhatsApp are fetched from.
    pub telegram: Arc<TelegramChannel>,
    pub whatsapp: Arc<WhatsAppChannel>,
}

/// Why a merchant action did nothing. The texts are the API's; each front door
/// may word them for its own readers.
#[derive(Debug, thiserror::Error)]
pub enum MerchantError {
    /// Not there, or not this merchant's.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// An input that cannot be used, and why (`es`: the same, for a merchant who
    /// reads Spanish).
    #[error("{message}")]
    Invalid {
        field: &'static str,
        message: String,
        es: String,
    },
    /// A file with bad lines: nothing of it was used.
    #[error("{} line(s) need fixing; nothing was imported", .0.len())]
    BadLines(Vec<crate::shop::catalog_csv::LineError>),
    #[error("order is {}, not awaiting payment", .0.as_str())]
    NotAwaitingPayment(OrderStatus),
    /// An order follows paid → preparing → ready or on the way → delivered.
    #[error("order is {}; it cannot become {}", .from.as_str(), .to.as_str())]
    CannotFollow { from: OrderStatus, to: OrderStatus },
    /// Delivered, cancelled or expired: nothing to cancel.
    #[error("order is {}; only an order not yet delivered can be cancelled", .0.as_str())]
    NotLive(OrderStatus),
    #[error("the conversation is not taken over")]
    NotTakenOver,
    #[error("bot `{bot}` is a {} bot; {needs}", .profile.as_str())]
    WrongProfile {
        bot: String,
        profile: ProfileKind,
        needs: &'static str,
    },
    #[error("this Idempotency-Key was used for a different request")]
    KeyReused { key: String },
    #[error("this is the merchant's last active key; create another one first")]
    LastKey,
    #[error("a product with that sku already exists")]
    SkuTaken,
    #[error("a bot with that slug already exists")]
    SlugTaken,
    #[error("that WhatsApp phone number id is already connected to another bot")]
    PhoneTaken,
    #[error("connect the bot to Telegram first: the merchant links a chat by writing to it")]
    TelegramNotConnected,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Unexpected(#[from] anyhow::Error),
}

impl MerchantError {
    pub fn invalid(field: &'static str, message: impl Into<String>, es: impl Into<String>) -> Self {
        MerchantError::Invalid {
            field,
            message: message.into(),
            es: es.into(),
        }
    }
}

pub type Result<T> = std::result::Result<T, MerchantError>;

/// A bot of this merchant, or `NotFound`.
pub async fn owned_bot(pool: &PgPool, merchant_id: Uuid, slug: &str) -> Result<Bot> {
    crate::bots::by_slug(pool, slug)
        .await?
        .filter(|bot| bot.merchant_id == merchant_id)
        .ok_or(MerchantError::NotFound("bot"))
}

/// A bot of this merchant that runs `profile`; another profile is a conflict
/// that says what only `profile` bots have (`needs`).
pub async fn bot_of_profile(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
    profile: ProfileKind,
    needs: &'static str,
) -> Result<Bot> {
    let bot = owned_bot(pool, merchant_id, slug).await?;
    if bot.profile != profile {
        return Err(MerchantError::WrongProfile {
            bot: bot.slug,
            profile: bot.profile,
            needs,
        });
    }
    Ok(bot)
}

/// `NotFound` unless the conversation belongs to the merchant.
pub async fn ensure_conversation(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<()> {
    if crate::conversations::owned_by(&mut *conn, id, merchant_id).await? {
        Ok(())
    } else {
        Err(MerchantError::NotFound("conversation"))
    }
}

/// Trimmed text of 1..=max characters.
pub fn bounded_text<'a>(field: &'static str, value: &'a str, max: usize) -> Result<&'a str> {
    let text = value.trim();
    if text.is_empty() || text.chars().count() > max {
        return Err(MerchantError::invalid(
            field,
            format!("`{field}` must be 1-{max} characters"),
            format!("{} debe tener entre 1 y {max} caracteres", field_es(field)),
        ));
    }
    Ok(text)
}

/// A field as the merchant knows it.
fn field_es(field: &str) -> &'static str {
    match field {
        "text" => "El mensaje",
        "reason" => "El motivo",
        "payment_instructions" => "Las instrucciones de pago",
        "label" => "El nombre de la llave",
        "question" => "La pregunta",
        _ => "El texto",
    }
}
