//! Channel credentials of a bot. Secrets are sealed at rest (XChaCha20-Poly1305,
//! keys from `TENDERO_SECRET_KEY`, see `secret.rs`), opened only where a request is
//! verified or a message is sent, and never logged or returned by the API.

use serde::Deserialize;
use sqlx::PgExecutor;
use uuid::Uuid;

use crate::secret::{self, KeyError, Secret};

#[derive(Debug, Clone)]
pub struct TelegramCredentials {
    pub token: Secret,
    pub secret_token: Secret,
}

#[derive(Debug, Clone)]
pub struct WhatsAppCredentials {
    pub phone_number_id: String,
    pub access_token: Secret,
    pub app_secret: Secret,
    pub verify_token: Secret,
}

/// What a merchant gives to connect a Telegram bot.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TelegramSetup {
    pub token: String,
    pub secret_token: String,
}

/// What a merchant gives to connect a WhatsApp Cloud API number.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WhatsAppSetup {
    pub phone_number_id: String,
    pub access_token: String,
    pub app_secret: String,
    pub verify_token: String,
}

impl std::fmt::Debug for TelegramSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TelegramSetup").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for WhatsAppSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WhatsAppSetup")
            .field("phone_number_id", &self.phone_number_id)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Invalid(&'static str),
    #[error("that WhatsApp phone number id is already connected to another bot")]
    PhoneTaken,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// No key to seal secrets with (a setup error, not the merchant's).
    #[error(transparent)]
    Keys(#[from] KeyError),
}

impl TelegramSetup {
    pub fn validate(&self) -> Result<(), SetupError> {
        let token_ok = self.token.len() <= 200
            && self.token.contains(':')
            && !self.token.contains(char::is_whitespace);
        if !token_ok {
            return Err(SetupError::Invalid(
                "telegram token must look like 123456:ABC...",
            ));
        }
        let secret_ok = (1..=256).contains(&self.secret_token.len())
            && self
                .secret_token
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !secret_ok {
            return Err(SetupError::Invalid(
                "secret_token must be 1-256 characters of A-Z a-z 0-9 _ -",
            ));
        }
        Ok(())
    }
}

impl WhatsAppSetup {
    pub fn validate(&self) -> Result<(), SetupError> {
        if self.phone_number_id.is_empty()
            || self.phone_number_id.len() > 64
            || !self.phone_number_id.chars().all(|c| c.is_ascii_digit())
        {
            return Err(SetupError::Invalid("phone_number_id must be digits"));
        }
        for value in [&self.access_token, &self.app_secret, &self.verify_token] {
            if value.trim().is_empty() || value.len() > 1000 {
                return Err(SetupError::Invalid(
                    "access_token, app_secret and verify_token must be 1-1000 characters",
                ));
            }
        }
        Ok(())
    }
}

/// The authenticated context of a sealed field: its bot and column, so a value
/// copied to another row or column does not decrypt.
fn context(bot_id: Uuid, field: &str) -> String {
    format!("bot_channels/{bot_id}/{field}")
}

fn seal(bot_id: Uuid, field: &str, value: &str) -> Result<String, KeyError> {
    Ok(secret::keyring()?.encrypt(value, &context(bot_id, field)))
}

fn open(bot_id: Uuid, field: &str, stored: &str) -> sqlx::Result<Secret> {
    secret::keyring()
        .and_then(|keys| keys.decrypt(stored, &context(bot_id, field)))
        .map(Secret::new)
        .map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

pub async fn set_telegram(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    setup: &TelegramSetup,
) -> Result<(), SetupError> {
    setup.validate()?;
    let token = seal(bot_id, "telegram_token", &setup.token)?;
    let secret_token = seal(bot_id, "telegram_secret_token", &setup.secret_token)?;
    sqlx::query(
        "INSERT INTO bot_channels (bot_id, channel, telegram_token, telegram_secret_token) VALUES ($1, 'telegram', $2, $3)
         ON CONFLICT (bot_id, channel) DO UPDATE SET telegram_token = excluded.telegram_token,
             telegram_secret_token = excluded.telegram_secret_token, updated_at = now()",
    )
    .bind(bot_id)
    .bind(token)
    .bind(secret_token)
    .execute(db)
    .await?;
    Ok(())
}

pub async fn set_whatsapp(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    setup: &WhatsAppSetup,
) -> Result<(), SetupError> {
    setup.validate()?;
    let access = seal(bot_id, "whatsapp_access_token", &setup.access_token)?;
    let app = seal(bot_id, "whatsapp_app_secret", &setup.app_secret)?;
    let verify = seal(bot_id, "whatsapp_verify_token", &setup.verify_token)?;
    let result = sqlx::query(
        "INSERT INTO bot_channels (bot_id, channel, whatsapp_phone_number_id, whatsapp_access_token, whatsapp_app_secret, whatsapp_verify_token)
         VALUES ($1, 'whatsapp', $2, $3, $4, $5)
         ON CONFLICT (bot_id, channel) DO UPDATE SET whatsapp_phone_number_id = excluded.whatsapp_phone_number_id,
             whatsapp_access_token = excluded.whatsapp_access_token, whatsapp_app_secret = excluded.whatsapp_app_secret,
             whatsapp_verify_token = excluded.whatsapp_verify_token, updated_at = now()",
    )
    .bind(bot_id)
    .bind(&setup.phone_number_id)
    .bind(access)
    .bind(app)
    .bind(verify)
    .execute(db)
    .await;
    match result {
        Ok(_) => Ok(()),
        Err(sqlx::Error::Database(e))
            if e.constraint() == Some("bot_channels_whatsapp_phone_number_id_key") =>
        {
            Err(SetupError::PhoneTaken)
        }
        Err(e) => Err(e.into()),
    }
}

pub async fn telegram(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
) -> sqlx::Result<Option<TelegramCredentials>> {
    let row: Option<(String, String)> = sqlx::query_as(
        "SELECT telegram_token, telegram_secret_token FROM bot_channels WHERE bot_id = $1 AND channel = 'telegram'",
    )
    .bind(bot_id)
    .fetch_optional(db)
    .await?;
    row.map(|(token, secret)| {
        Ok(TelegramCredentials {
            token: open(bot_id, "telegram_token", &token)?,
            secret_token: open(bot_id, "telegram_secret_token", &secret)?,
        })
    })
    .transpose()
}

pub async fn whatsapp(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
) -> sqlx::Result<Option<WhatsAppCredentials>> {
    let row: Option<(String, String, String, String)> = sqlx::query_as(
        "SELECT whatsapp_phone_number_id, whatsapp_access_token, whatsapp_app_secret, whatsapp_verify_token
         FROM bot_channels WHERE bot_id = $1 AND channel = 'whatsapp'",
    )
    .bind(bot_id)
    .fetch_optional(db)
    .await?;
    row.map(|(phone_number_id, access, app, verify)| {
        Ok(WhatsAppCredentials {
            phone_number_id,
            access_token: open(bot_id, "whatsapp_access_token", &access)?,
            app_secret: open(bot_id, "whatsapp_app_secret", &app)?,
            verify_token: open(bot_id, "whatsapp_verify_token", &verify)?,
        })
    })
    .transpose()
}

/// Re-seals every stored channel secret under the active key (after a key is
/// added, or to seal values stored before encryption). Returns how many changed.
pub async fn rotate(pool: &sqlx::PgPool) -> anyhow::Result<u64> {
    const FIELDS: [&str; 5] = [
        "telegram_token",
        "telegram_secret_token",
        "whatsapp_access_token",
        "whatsapp_app_secret",
        "whatsapp_verify_token",
    ];
    let keys = secret::keyring()?;
    let mut tx = pool.begin().await?;
    let rows: Vec<(Uuid, String, Vec<Option<String>>)> = sqlx::query_as(
        "SELECT bot_id, channel, ARRAY[telegram_token, telegram_secret_token, whatsapp_access_token,
                whatsapp_app_secret, whatsapp_verify_token]
         FROM bot_channels FOR UPDATE",
    )
    .fetch_all(&mut *tx)
    .await?;
    let mut changed = 0;
    for (bot_id, channel, values) in rows {
        let mut sealed = values.clone();
        for (field, value) in FIELDS.iter().zip(sealed.iter_mut()) {
            if let Some(stored) = value.as_mut().filter(|s| !keys.is_current(s)) {
                let plain = keys.decrypt(stored, &context(bot_id, field))?;
                *stored = keys.encrypt(&plain, &context(bot_id, field));
            }
        }
        if sealed != values {
            sqlx::query(
                "UPDATE bot_channels SET telegram_token = $3, telegram_secret_token = $4,
                     whatsapp_access_token = $5, whatsapp_app_secret = $6, whatsapp_verify_token = $7,
                     updated_at = now()
                 WHERE bot_id = $1 AND channel = $2",
            )
            .bind(bot_id)
            .bind(&channel)
            .bind(&sealed[0])
            .bind(&sealed[1])
            .bind(&sealed[2])
            .bind(&sealed[3])
            .bind(&sealed[4])
            .execute(&mut *tx)
            .await?;
            changed += 1;
        }
    }
    tx.commit().await?;
    Ok(changed)
}

/// The channels a bot has connected, without any secret.
pub async fn connected(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
) -> sqlx::Result<Vec<(super::ChannelKind, Option<String>)>> {
    sqlx::query_as("SELECT channel, whatsapp_phone_number_id FROM bot_channels WHERE bot_id = $1 ORDER BY channel")
        .bind(bot_id)
        .fetch_all(db)
        .await
}

/// Compares a presented secret with the expected one in constant time.
pub fn secret_matches(presented: &[u8], expected: &Secret) -> bool {
    use subtle::ConstantTimeEq;
    let expected = expected.expose().as_bytes();
    presented.len() == expected.len() && bool::from(presented.ct_eq(expected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setups_never_print_their_secrets() {
        let telegram = TelegramSetup {
            token: "1:TOKEN".into(),
            secret_token: "SECRET".into(),
        };
        let whatsapp = WhatsAppSetup {
            phone_number_id: "123".into(),
            access_token: "ACCESS".into(),
            app_secret: "APP".into(),
            verify_token: "VERIFY".into(),
        };
        let printed = format!("{telegram:?} {whatsapp:?}");
        for secret in ["TOKEN", "SECRET", "ACCESS", "APP", "VERIFY"] {
            assert!(!printed.contains(secret), "{printed}");
        }
        assert!(secret_matches(b"abc", &Secret::new("abc")));
        assert!(!secret_matches(b"abd", &Secret::new("abc")));
        assert!(!secret_matches(b"ab", &Secret::new("abc")));
    }
}
