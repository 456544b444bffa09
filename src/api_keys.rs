//! The `api_keys` table: merchant API keys. A key is random, shown once, and
//! stored only as its SHA-256 hash; a lookup is by hash, so no secret is compared
//! in variable time.

use rand::RngCore;
use sha2::{Digest, Sha256};
use sqlx::{PgExecutor, PgPool};
use uuid::Uuid;

fn hash_key(key: &str) -> Vec<u8> {
    Sha256::digest(key.as_bytes()).to_vec()
}

/// Creates a key for the merchant and returns it; only its hash is kept.
pub async fn create(pool: &PgPool, merchant_id: Uuid) -> sqlx::Result<String> {
    create_labelled(pool, merchant_id, "")
        .await
        .map(|(_, key)| key)
}

/// Creates a key with a label; returns its id and the key (shown once).
pub async fn create_labelled(
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

pub async fn list(db: impl PgExecutor<'_>, merchant_id: Uuid) -> sqlx::Result<Vec<KeyInfo>> {
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
pub async fn revoke(
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
