//! Files the bot sends (a person's data as CSV, a chart as PNG): stored once in `chat_files`, then
//! delivered by each channel its own way — uploaded to Telegram (`sendDocument`)
//! and WhatsApp (media upload, then a document message), linked in web chat under
//! `/webchat/{bot}/files/{id}/{filename}`. The id is 122 random bits, so the
//! address is the key; it stops working when the file expires.

use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// How long a sent file can be fetched.
pub const FILE_HOURS: i64 = 24;

/// A file a reply carries (the bytes stay in the table).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    pub id: Uuid,
    pub filename: String,
    pub content_type: String,
}

impl FileRef {
    /// Where a web-chat client of bot `slug` fetches it (a path on this server).
    pub fn path(&self, slug: &str) -> String {
        format!("/webchat/{slug}/files/{}/{}", self.id, self.filename)
    }
}

/// A stored file with its bytes.
#[derive(Debug, Clone)]
pub struct File {
    pub filename: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// Stores a file to send in `conversation_id`, valid for [`FILE_HOURS`].
pub async fn store(
    conn: &mut PgConnection,
    bot_id: Uuid,
    conversation_id: Uuid,
    filename: &str,
    content_type: &str,
    bytes: &[u8],
) -> sqlx::Result<FileRef> {
    let id = Uuid::new_v4();
    sqlx::query(
        "INSERT INTO chat_files (id, bot_id, conversation_id, filename, content_type, bytes, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(hours => $7))",
    )
    .bind(id)
    .bind(bot_id)
    .bind(conversation_id)
    .bind(filename)
    .bind(content_type)
    .bind(bytes)
    .bind(FILE_HOURS as i32)
    .execute(conn)
    .await?;
    Ok(FileRef {
        id,
        filename: filename.to_owned(),
        content_type: content_type.to_owned(),
    })
}

/// The file `id` of bot `bot_id`, unless it expired (a channel sending it, or a
/// link).
pub async fn fetch(pool: &PgPool, bot_id: Uuid, id: Uuid) -> sqlx::Result<Option<File>> {
    let row: Option<(String, String, Vec<u8>)> = sqlx::query_as(
        "SELECT filename, content_type, bytes FROM chat_files
         WHERE bot_id = $1 AND id = $2 AND expires_at > now()",
    )
    .bind(bot_id)
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(filename, content_type, bytes)| File {
        filename,
        content_type,
        bytes,
    }))
}

/// Deletes expired files; how many.
pub async fn prune(pool: &PgPool) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM chat_files WHERE expires_at <= now()")
            .execute(pool)
            .await?
            .rows_affected(),
    )
}

/// Deletes the files sent in a conversation (an erasure the person confirmed).
pub async fn forget(
    conn: &mut PgConnection,
    bot_id: Uuid,
    conversation_id: Uuid,
) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM chat_files WHERE bot_id = $1 AND conversation_id = $2")
            .bind(bot_id)
            .bind(conversation_id)
            .execute(conn)
            .await?
            .rows_affected(),
    )
}

/// The stored file a reply carries, for a channel about to send it: an expired
/// one is a permanent failure (its link already 404s), a database error a retry.
pub async fn to_send(
    pool: &PgPool,
    bot_id: Uuid,
    file: &FileRef,
) -> Result<File, super::SendError> {
    fetch(pool, bot_id, file.id)
        .await
        .map_err(|e| super::SendError::Retry {
            reason: e.to_string(),
            after: None,
        })?
        .ok_or_else(|| super::SendError::Permanent("the file expired before it was sent".into()))
}

impl File {
    /// A picture a chat shows inline (a chart), rather than a document.
    pub fn is_picture(&self) -> bool {
        matches!(self.content_type.as_str(), "image/png" | "image/jpeg")
    }

    /// The file as a multipart part (its name and type), for an upload.
    pub fn part(self) -> Result<reqwest::multipart::Part, super::SendError> {
        reqwest::multipart::Part::bytes(self.bytes)
            .file_name(self.filename)
            .mime_str(&self.content_type)
            .map_err(|e| super::SendError::Permanent(format!("bad file type: {e}")))
    }
}
