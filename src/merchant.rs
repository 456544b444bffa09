//! Merchants, their bots and their API keys. Keys are random, shown once, and stored
//! only as SHA-256 hashes.

use rand::RngCore;
use sha2::{Digest, Sha256};
use sqlx::{PgExecutor, PgPool};
use uuid::Uuid;

/// What a bot is for: which state machine, proposer contract and replies it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum BotProfileKind {
    /// Chat commerce: catalog, cart, order, proof of payment.
    Shop,
    /// Personal finance: confirmed writes, tool-sourced analysis.
    Finance,
}

impl BotProfileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BotProfileKind::Shop => "shop",
            BotProfileKind::Finance => "finance",
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Bot {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub slug: String,
    pub name: String,
    pub profile: BotProfileKind,
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
}

const BOT_COLUMNS: &str = "id, merchant_id, slug, name, profile, timezone, sample_history, \
     currency::text AS currency, session_timeout_secs, payment_timeout_secs, agent_enabled, \
     payment_instructions, config_version, merchant_chat_id";

pub async fn bot_by_slug(db: impl PgExecutor<'_>, slug: &str) -> sqlx::Result<Option<Bot>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BOT_COLUMNS} FROM bots WHERE slug = $1"
    )))
    .bind(slug)
    .fetch_optional(db)
    .await
}

pub async fn bot_by_id(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<Bot> {
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

pub async fn bot_slugs(db: impl PgExecutor<'_>, merchant_id: Uuid) -> sqlx::Result<Vec<String>> {
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
             payment_instructions = coalesce($5, payment_instructions)
         WHERE id = $1
         RETURNING {BOT_COLUMNS}"
    )))
    .bind(bot_id)
    .bind(settings.agent_enabled)
    .bind(settings.session_timeout_secs)
    .bind(settings.payment_timeout_secs)
    .bind(settings.payment_instructions.as_deref())
    .fetch_one(db)
    .await
}

pub async fn create_merchant(
    db: impl PgExecutor<'_>,
    slug: &str,
    name: &str,
) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(
        "INSERT INTO merchants (slug, name) VALUES ($1, $2)
         ON CONFLICT (slug) DO UPDATE SET name = merchants.name RETURNING id",
    )
    .bind(slug)
    .bind(name)
    .fetch_one(db)
    .await
}

pub async fn merchant_by_slug(db: impl PgExecutor<'_>, slug: &str) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar("SELECT id FROM merchants WHERE slug = $1")
        .bind(slug)
        .fetch_optional(db)
        .await
}

fn hash_key(key: &str) -> Vec<u8> {
    Sha256::digest(key.as_bytes()).to_vec()
}

/// Creates a key for the merchant and returns it; only its hash is kept.
pub async fn create_api_key(pool: &PgPool, merchant_id: Uuid) -> sqlx::Result<String> {
    create_labelled_key(pool, merchant_id, "")
        .await
        .map(|(_, key)| key)
}

/// Creates a key with a label; returns its id and the key (shown once).
pub async fn create_labelled_key(
    db: impl PgExecutor<'_>,
    merchant_id: Uuid,
    label: &str,
) -> sqlx::Result<(Uuid, String)> {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    let key = format!("tdr_{}", hex::encode(bytes));
    let id = sqlx::query_scalar(
        "INSERT INTO api_keys (merchant_id, key_hash, key_prefix, label) VALUES ($1, $2, $3, $4)
         RETURNING id",
    )
    .bind(merchant_id)
    .bind(hash_key(&key))
    .bind(&key[..8])
    .bind(label)
    .fetch_one(db)
    .await?;
    Ok((id, key))
}

/// A key as the merchant sees it: never the key, only its first characters.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
pub struct KeyInfo {
    pub id: Uuid,
    pub prefix: String,
    pub label: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub revoked_at: Option<chrono::DateTime<chrono::Utc>>,
}

pub async fn list_keys(db: impl PgExecutor<'_>, merchant_id: Uuid) -> sqlx::Result<Vec<KeyInfo>> {
    sqlx::query_as(
        "SELECT id, key_prefix AS prefix, label, created_at, revoked_at FROM api_keys
         WHERE merchant_id = $1 ORDER BY created_at",
    )
    .bind(merchant_id)
    .fetch_all(db)
    .await
}

/// Why a key was not revoked.
#[derive(Debug, thiserror::Error)]
pub enum RevokeError {
    #[error("key not found")]
    NotFound,
    #[error("this is the merchant's last active key; create another one first")]
    LastKey,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Revokes one of the merchant's keys, never the last active one (that would lock
/// the merchant out). Revoking a revoked key is a no-op.
pub async fn revoke_key(
    conn: &mut sqlx::PgConnection,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<KeyInfo, RevokeError> {
    // Serialize revocations of one merchant, so two cannot each leave the other last.
    sqlx::query("SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE")
        .bind(merchant_id)
        .execute(&mut *conn)
        .await?;
    let active: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM api_keys WHERE merchant_id = $1 AND revoked_at IS NULL AND id <> $2",
    )
    .bind(merchant_id)
    .bind(id)
    .fetch_one(&mut *conn)
    .await?;
    let key: Option<KeyInfo> = sqlx::query_as(
        "UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
         WHERE id = $1 AND merchant_id = $2 AND ($3 OR revoked_at IS NOT NULL)
         RETURNING id, key_prefix AS prefix, label, created_at, revoked_at",
    )
    .bind(id)
    .bind(merchant_id)
    .bind(active > 0)
    .fetch_optional(&mut *conn)
    .await?;
    match key {
        Some(key) => Ok(key),
        None if active == 0 && owns_key(&mut *conn, merchant_id, id).await? => {
            Err(RevokeError::LastKey)
        }
        None => Err(RevokeError::NotFound),
    }
}

async fn owns_key(db: impl PgExecutor<'_>, merchant_id: Uuid, id: Uuid) -> sqlx::Result<bool> {
    let found: Option<bool> =
        sqlx::query_scalar("SELECT true FROM api_keys WHERE id = $1 AND merchant_id = $2")
            .bind(id)
            .bind(merchant_id)
            .fetch_optional(db)
            .await?;
    Ok(found.is_some())
}

/// The merchant a key belongs to. Lookup is by hash, so no secret is compared in
/// variable time.
pub async fn authenticate(pool: &PgPool, key: &str) -> sqlx::Result<Option<Uuid>> {
    if key.len() > 200 {
        return Ok(None);
    }
    sqlx::query_scalar(
        "SELECT merchant_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
    )
    .bind(hash_key(key))
    .fetch_optional(pool)
    .await
}

/// The merchant and the key's id, for a key that is valid now.
pub async fn authenticate_key(pool: &PgPool, key: &str) -> sqlx::Result<Option<(Uuid, Uuid)>> {
    if key.len() > 200 {
        return Ok(None);
    }
    sqlx::query_as(
        "SELECT merchant_id, id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
    )
    .bind(hash_key(key.trim()))
    .fetch_optional(pool)
    .await
}

/// A fresh code the merchant sends as `/start <code>` to link their Telegram chat.
pub async fn new_link_code(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut bytes = [0u8; crate::merchant_chat::LINK_CODE_LEN];
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
    #[error("{0}")]
    Invalid(&'static str),
    #[error("a bot with that slug already exists")]
    Taken,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Creates a shop bot for a merchant.
pub async fn create_bot(
    db: impl PgExecutor<'_>,
    merchant_id: Uuid,
    slug: &str,
    name: &str,
    currency: &str,
) -> Result<Bot, CreateBotError> {
    let slug_ok = (1..=63).contains(&slug.len())
        && slug.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !slug_ok {
        return Err(CreateBotError::Invalid(
            "slug must be 1-63 lowercase letters, digits or dashes",
        ));
    }
    if name.trim().is_empty() || name.chars().count() > 100 {
        return Err(CreateBotError::Invalid("name must be 1-100 characters"));
    }
    if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(CreateBotError::Invalid(
            "currency must be a three-letter ISO code such as BOB",
        ));
    }
    let created = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO bots (merchant_id, slug, name, currency) VALUES ($1, $2, $3, $4) RETURNING {BOT_COLUMNS}"
    )))
    .bind(merchant_id)
    .bind(slug)
    .bind(name.trim())
    .bind(currency)
    .fetch_one(db)
    .await;
    match created {
        Ok(bot) => Ok(bot),
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("bots_slug_key") => {
            Err(CreateBotError::Taken)
        }
        Err(e) => Err(e.into()),
    }
}
