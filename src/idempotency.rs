//! The `api_idempotency` table: a write retried with the same `Idempotency-Key`
//! answers what the first one answered and does nothing again. The key is taken
//! inside the write's own transaction, so a concurrent retry waits for the first
//! to commit (or roll back) and never runs beside it.

use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::PgConnection;
use uuid::Uuid;

/// What taking a key found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// First use: do the work, then `complete`.
    Fresh,
    /// Already done: answer this again.
    Replay(Value),
    /// The key was used for a different request.
    Mismatch,
}

/// Longest key accepted.
pub const MAX_KEY_LEN: usize = 200;

/// Whether `key` is usable: 1 to 200 visible ASCII characters.
pub fn valid_key(key: &str) -> bool {
    (1..=MAX_KEY_LEN).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic())
}

/// A fingerprint of the request a key stands for (route and body).
pub fn fingerprint(parts: &[&[u8]]) -> Vec<u8> {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part);
    }
    hash.finalize().to_vec()
}

pub async fn claim(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    key: &str,
    request_hash: &[u8],
) -> sqlx::Result<Claim> {
    let inserted: Option<bool> = sqlx::query_scalar(
        "INSERT INTO api_idempotency (merchant_id, key, request_hash) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING true",
    )
    .bind(merchant_id)
    .bind(key)
    .bind(request_hash)
    .fetch_optional(&mut *conn)
    .await?;
    if inserted.is_some() {
        return Ok(Claim::Fresh);
    }
    let (stored_hash, response): (Vec<u8>, Option<Value>) = sqlx::query_as(
        "SELECT request_hash, response FROM api_idempotency WHERE merchant_id = $1 AND key = $2",
    )
    .bind(merchant_id)
    .bind(key)
    .fetch_one(&mut *conn)
    .await?;
    Ok(match response {
        Some(response) if stored_hash == request_hash => Claim::Replay(response),
        _ => Claim::Mismatch,
    })
}

/// Stores the answer of a fresh claim, in the same transaction as the work.
pub async fn complete(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    key: &str,
    response: &Value,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE api_idempotency SET response = $3 WHERE merchant_id = $1 AND key = $2")
        .bind(merchant_id)
        .bind(key)
        .bind(response)
        .execute(conn)
        .await?;
    Ok(())
}

/// Forgets keys older than `age` (retries come within minutes; a day is plenty).
pub async fn purge(pool: &sqlx::PgPool, age: std::time::Duration) -> sqlx::Result<u64> {
    let done = sqlx::query(
        "DELETE FROM api_idempotency WHERE created_at < now() - make_interval(secs => $1)",
    )
    .bind(age.as_secs_f64())
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}
