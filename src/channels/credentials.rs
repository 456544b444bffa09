//! Channel credentials of a bot. Secrets are loaded only where a request is
//! verified or a message is sent, and never logged or returned by the API.

use serde::Deserialize;
use sqlx::PgExecutor;
use uuid::Uuid;

use crate::config::Secret;

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
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelegramSetup {
    pub token: String,
    pub secret_token: String,
}

/// What a merchant gives to connect a WhatsApp Cloud API number.
#[derive(Clone, Deserialize)]
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

pub async fn set_telegram(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    setup: &TelegramSetup,
) -> Result<(), SetupError> {
    setup.validate()?;
    sqlx::query(
        "INSERT INTO bot_channels (bot_id, channel, telegram_token, telegram_secret_token) VALUES ($1, 'telegram', $2, $3)
         ON CONFLICT (bot_id, channel) DO UPDATE SET telegram_token = excluded.telegram_token,
             telegram_secret_token = excluded.telegram_secret_token, updated_at = now()",
    )
    .bind(bot_id)
    .bind(&setup.token)
    .bind(&setup.secret_token)
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
    let result = sqlx::query(
        "INSERT INTO bot_channels (bot_id, channel, whatsapp_phone_number_id, whatsapp_access_token, whatsapp_app_secret, whatsapp_verify_token)
         VALUES ($1, 'whatsapp', $2, $3, $4, $5)
         ON CONFLICT (bot_id, channel) DO UPDATE SET whatsapp_phone_number_id = excluded.whatsapp_phone_number_id,
             whatsapp_access_token = excluded.whatsapp_access_token, whatsapp_app_secret = excluded.whatsapp_app_secret,
             whatsapp_verify_token = excluded.whatsapp_verify_token, updated_at = now()",
    )
    .bind(bot_id)
    .bind(&setup.phone_number_id)
    .bind(&setup.access_token)
    .bind(&setup.app_secret)
    .bind(&setup.verify_token)
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
    Ok(row.map(|(token, secret)| TelegramCredentials {
        token: Secret::new(token),
        secret_token: Secret::new(secret),
    }))
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
    Ok(row.map(
        |(phone_number_id, access, app, verify)| WhatsAppCredentials {
            phone_number_id,
            access_token: Secret::new(access),
            app_secret: Secret::new(app),
            verify_token: Secret::new(verify),
        },
    ))
}

/// The channels a bot has connected, without any secret.
pub async fn connected(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
) -> sqlx::Result<Vec<(String, Option<String>)>> {
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
