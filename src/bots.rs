//! The `bots` table: what each bot is for (its profile), its settings, the
//! merchant's Telegram chat link, and creating one.

use rand::RngCore;
use sqlx::PgExecutor;
use uuid::Uuid;

/// What a bot is for: which state machine, proposer contract and replies it runs.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    sqlx::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum ProfileKind {
    /// Chat commerce: catalog, cart, order, proof of payment.
    Shop,
    /// Personal finance: confirmed writes, tool-sourced analysis.
    Finance,
}

impl ProfileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileKind::Shop => "shop",
            ProfileKind::Finance => "finance",
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Bot {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub slug: String,
    pub name: String,
    pub profile: ProfileKind,
    /// IANA zone: "today" for the finance profile is a date here.
    pub timezone: String,
    /// Demo bots: a new user starts with sample history.
    pub sample_history: bool,
    pub currency: String,
    pub session_timeout_secs: i32,
    pub payment_timeout_secs: i32,
    pub agent_enabled: bool,
    pub payment_instructions: String,
    /// Bumped by the database on any change to the bot or its products; a cached
    /// copy older than a turn's snapshot is reloaded.
    pub config_version: i64,
    /// The merchant's Telegram chat for escalations and payment proofs, once linked.
    pub merchant_chat_id: Option<String>,
    /// A takeover with no message from the merchant this long goes back to the
    /// bot (`None`: never).
    pub takeover_idle_secs: Option<i32>,
    /// Origins (`https://shop.example`) whose pages may call the web-chat API.
    pub webchat_origins: Vec<String>,
    /// The merchant's chat is told when a product falls to this many units left
    /// (`None`: only when it sells out).
    pub low_stock_threshold: Option<i32>,
    /// An approved WhatsApp template for order updates outside the 24-hour
    /// window (body parameters: order number, status in words).
    pub whatsapp_order_template: Option<String>,
    /// An approved WhatsApp template for a finance bot's reminders outside the
    /// 24-hour window (body parameters: what to remember, the date).
    pub whatsapp_reminder_template: Option<String>,
    pub whatsapp_template_language: String,
    /// Customers may pick their order up at the shop.
    pub pickup_enabled: bool,
    /// The shop delivers to its zones (`delivery_zones`).
    pub delivery_enabled: bool,
}

const BOT_COLUMNS: &str = "id, merchant_id, slug, name, profile, timezone, sample_history, \
     currency::text AS currency, session_timeout_secs, payment_timeout_secs, agent_enabled, \
     payment_instructions, config_version, merchant_chat_id, takeover_idle_secs, \
     webchat_origins, low_stock_threshold, whatsapp_order_template, whatsapp_reminder_template, whatsapp_template_language, \
     pickup_enabled, delivery_enabled";

pub async fn by_slug(db: impl PgExecutor<'_>, slug: &str) -> sqlx::Result<Option<Bot>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BOT_COLUMNS} FROM bots WHERE slug = $1"
    )))
    .bind(slug)
    .fetch_optional(db)
    .await
}

pub async fn by_id(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<Bot> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BOT_COLUMNS} FROM bots WHERE id = $1"
    )))
    .bind(id)
    .fetch_one(db)
    .await
}

/// The merchant a bot belongs to.
pub async fn owner_of(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<Uuid> {
    sqlx::query_scalar("SELECT merchant_id FROM bots WHERE id = $1")
        .bind(bot_id)
        .fetch_one(db)
        .await
}

pub async fn slugs_of(db: impl PgExecutor<'_>, merchant_id: Uuid) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar("SELECT slug FROM bots WHERE merchant_id = $1 ORDER BY slug")
        .bind(merchant_id)
        .fetch_all(db)
        .await
}

/// Settings a merchant may change on a bot; `None` keeps the current value.
#[derive(Debug, Clone, Default)]
pub struct BotSettings {
    pub agent_enabled: Option<bool>,
    pub session_timeout_secs: Option<i32>,
    pub payment_timeout_secs: Option<i32>,
    pub payment_instructions: Option<String>,
    /// `Some(None)` turns the idle release off.
    pub takeover_idle_secs: Option<Option<i32>>,
    pub webchat_origins: Option<Vec<String>>,
    /// `Some(None)`: told only when a product sells out.
    pub low_stock_threshold: Option<Option<i32>>,
    /// `Some(None)`: no template (order updates wait for the customer to write).
    pub whatsapp_order_template: Option<Option<String>>,
    /// `Some(None)`: no template (reminders wait for the person to write).
    pub whatsapp_reminder_template: Option<Option<String>>,
    pub whatsapp_template_language: Option<String>,
}

/// Applies `settings` and returns the bot as it now is.
pub async fn update_settings(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    settings: &BotSettings,
) -> sqlx::Result<Bot> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE bots SET agent_enabled = coalesce($2, agent_enabled),
             session_timeout_secs = coalesce($3, session_timeout_secs),
             payment_timeout_secs = coalesce($4, payment_timeout_secs),
             payment_instructions = coalesce($5, payment_instructions),
             takeover_idle_secs = CASE WHEN $6 THEN $7 ELSE takeover_idle_secs END,
             webchat_origins = coalesce($8, webchat_origins),
             low_stock_threshold = CASE WHEN $9 THEN $10 ELSE low_stock_threshold END,
             whatsapp_order_template = CASE WHEN $11 THEN $12 ELSE whatsapp_order_template END,
             whatsapp_template_language = coalesce($13, whatsapp_template_language),
             whatsapp_reminder_template = CASE WHEN $14 THEN $15 ELSE whatsapp_reminder_template END
         WHERE id = $1
         RETURNING {BOT_COLUMNS}"
    )))
    .bind(bot_id)
    .bind(settings.agent_enabled)
    .bind(settings.session_timeout_secs)
    .bind(settings.payment_timeout_secs)
    .bind(settings.payment_instructions.as_deref())
    .bind(settings.takeover_idle_secs.is_some())
    .bind(settings.takeover_idle_secs.flatten())
    .bind(settings.webchat_origins.as_deref())
    .bind(settings.low_stock_threshold.is_some())
    .bind(settings.low_stock_threshold.flatten())
    .bind(settings.whatsapp_order_template.is_some())
    .bind(settings.whatsapp_order_template.clone().flatten())
    .bind(settings.whatsapp_template_language.as_deref())
    .bind(settings.whatsapp_reminder_template.is_some())
    .bind(settings.whatsapp_reminder_template.clone().flatten())
    .fetch_one(db)
    .await
}

/// The bot's web-chat identity secret, sealed (`None`: identities are not verified).
pub async fn webchat_identity_secret(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT webchat_identity_secret FROM bots WHERE id = $1")
        .bind(bot_id)
        .fetch_optional(db)
        .await
        .map(Option::flatten)
}

/// Stores a new sealed identity secret, or none (verification off).
pub async fn set_webchat_identity_secret(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    sealed: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE bots SET webchat_identity_secret = $2 WHERE id = $1")
        .bind(bot_id)
        .bind(sealed)
        .execute(db)
        .await?;
    Ok(())
}

/// Characters of a code that links a merchant's Telegram chat.
pub const LINK_CODE_LEN: usize = 8;

/// A fresh code the merchant sends as `/start <code>` to link their Telegram chat.
pub async fn new_link_code(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut bytes = [0u8; LINK_CODE_LEN];
    rand::rng().fill_bytes(&mut bytes);
    let code: String = bytes
        .iter()
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect();
    sqlx::query("UPDATE bots SET merchant_link_code = $2 WHERE id = $1")
        .bind(bot_id)
        .bind(&code)
        .execute(db)
        .await?;
    Ok(code)
}

/// Links `chat_id` as the bot's merchant chat if `code` is the bot's current code
/// (it is then spent). False when the code is not this bot's.
pub async fn link_merchant_chat(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    code: &str,
    chat_id: &str,
) -> sqlx::Result<bool> {
    let linked = sqlx::query(
        "UPDATE bots SET merchant_chat_id = $3, merchant_link_code = NULL
         WHERE id = $1 AND merchant_link_code = $2",
    )
    .bind(bot_id)
    .bind(code)
    .bind(chat_id)
    .execute(db)
    .await?;
    Ok(linked.rows_affected() == 1)
}

/// Stops notices to the merchant's chat; its commands are then a customer's words.
pub async fn unlink_merchant_chat(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("UPDATE bots SET merchant_chat_id = NULL, merchant_link_code = NULL WHERE id = $1")
        .bind(bot_id)
        .execute(db)
        .await?;
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub enum CreateBotError {
    /// What is wrong, in English (the API) and in Spanish (the console).
    #[error("{0}")]
    Invalid(&'static str, &'static str),
    #[error("a bot with that slug already exists")]
    Taken,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

const TZ_EN: &str = "timezone must be an IANA zone such as America/La_Paz";
const TZ_ES: &str = "La zona horaria debe ser una como America/La_Paz o America/Mexico_City.";

/// A bot to create; the rest of its settings start at their defaults.
#[derive(Debug, Clone)]
pub struct NewBot<'a> {
    pub slug: &'a str,
    pub name: &'a str,
    pub currency: &'a str,
    pub profile: ProfileKind,
    /// IANA zone; "today" for the finance profile is a date here.
    pub timezone: &'a str,
    /// Demo bots: every new user starts with sample history.
    pub sample_history: bool,
}

impl<'a> NewBot<'a> {
    /// A shop in the default time zone.
    pub fn shop(slug: &'a str, name: &'a str, currency: &'a str) -> Self {
        NewBot {
            slug,
            name,
            currency,
            profile: ProfileKind::Shop,
            timezone: "America/Mexico_City",
            sample_history: false,
        }
    }
}

pub async fn create(
    db: impl PgExecutor<'_>,
    merchant_id: Uuid,
    new: &NewBot<'_>,
) -> Result<Bot, CreateBotError> {
    let NewBot {
        slug,
        name,
        currency,
        ..
    } = *new;
    let slug_ok = (1..=63).contains(&slug.len())
        && slug.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !slug_ok {
        return Err(CreateBotError::Invalid(
            "slug must be 1-63 lowercase letters, digits or dashes",
            "El código debe tener de 1 a 63 letras minúsculas, números o guiones.",
        ));
    }
    if name.trim().is_empty() || name.chars().count() > 100 {
        return Err(CreateBotError::Invalid(
            "name must be 1-100 characters",
            "El nombre debe tener de 1 a 100 caracteres.",
        ));
    }
    if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(CreateBotError::Invalid(
            "currency must be a three-letter ISO code such as BOB",
            "La moneda debe ser un código de tres letras, como BOB o MXN.",
        ));
    }
    if new.timezone.is_empty() || new.timezone.len() > 64 {
        return Err(CreateBotError::Invalid(TZ_EN, TZ_ES));
    }
    // The zone is checked against PostgreSQL's own list in the same statement:
    // «today» for a finance bot is computed there.
    let created = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO bots (merchant_id, slug, name, currency, profile, timezone, sample_history)
         SELECT $1, $2, $3, $4, $5, $6, $7
         WHERE EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $6)
         RETURNING {BOT_COLUMNS}"
    )))
    .bind(merchant_id)
    .bind(slug)
    .bind(name.trim())
    .bind(currency)
    .bind(new.profile)
    .bind(new.timezone)
    .bind(new.sample_history)
    .fetch_optional(db)
    .await;
    match created {
        Ok(Some(bot)) => Ok(bot),
        Ok(None) => Err(CreateBotError::Invalid(TZ_EN, TZ_ES)),
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("bots_slug_key") => {
            Err(CreateBotError::Taken)
        }
        Err(e) => Err(e.into()),
    }
}
