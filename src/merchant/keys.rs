//! The merchant's API keys: create one (shown once), list them by prefix, revoke
//! one (never the last active key), and find whose a key is.

use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use super::{MerchantError, Result};
use crate::api_keys::{self, KeyInfo, RevokeError};

pub async fn list(pool: &PgPool, merchant_id: Uuid) -> Result<Vec<KeyInfo>> {
    Ok(api_keys::list(pool, merchant_id).await?)
}

/// A key just created: the only time the key itself is shown.
#[derive(Debug, Clone, Serialize)]
pub struct NewKey {
    pub id: Uuid,
    pub key: String,
    pub prefix: String,
    pub label: String,
}

pub async fn create(pool: &PgPool, merchant_id: Uuid, label: &str) -> Result<NewKey> {
    let label = label.trim();
    if label.chars().count() > 100 {
        return Err(MerchantError::invalid(
            "label",
            "label must be at most 100 characters",
            "El nombre de la llave puede tener hasta 100 caracteres.",
        ));
    }
    let (id, key) = api_keys::create_labelled(pool, merchant_id, label).await?;
    Ok(NewKey {
        id,
        prefix: key[..8].to_owned(),
        key,
        label: label.to_owned(),
    })
}

/// Revokes a key at once; the merchant's last active key cannot be revoked.
pub async fn revoke(pool: &PgPool, merchant_id: Uuid, id: Uuid) -> Result<KeyInfo> {
    let mut tx = pool.begin().await?;
    let revoked = match api_keys::revoke(&mut tx, merchant_id, id).await {
        Ok(key) => key,
        Err(RevokeError::NotFound) => return Err(MerchantError::NotFound("key")),
        Err(RevokeError::LastKey) => return Err(MerchantError::LastKey),
        Err(RevokeError::Database(err)) => return Err(err.into()),
    };
    tx.commit().await?;
    Ok(revoked)
}

/// The merchant a key belongs to, if it is valid now.
pub async fn authenticate(pool: &PgPool, key: &str) -> Result<Option<Uuid>> {
    Ok(api_keys::authenticate(pool, key).await?)
}

/// The merchant and the key's id, if it is valid now (a console session keeps the
/// key it was opened with, so revoking it ends the session).
pub async fn authenticate_key(pool: &PgPool, key: &str) -> Result<Option<(Uuid, Uuid)>> {
    Ok(api_keys::authenticate_key(pool, key).await?)
}
