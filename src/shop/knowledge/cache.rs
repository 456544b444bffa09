//! The same-day answer cache (seed 004): the same question, as read, to the same
//! bot on the same day gets the answer worked out the first time, without
//! another search or model call. Kept per configuration version, so an edit of
//! the knowledge or the catalog leaves old answers behind; served answers are
//! counted for `/metrics`.

use chrono::NaiveDate;
use serde::{Serialize, de::DeserializeOwned};
use sqlx::PgExecutor;
use uuid::Uuid;

/// Where an answer is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub bot_id: Uuid,
    pub day: NaiveDate,
    pub config_version: i64,
    /// The question as read: folded, its words in order.
    pub question: String,
}

impl Key {
    pub fn new(bot_id: Uuid, day: NaiveDate, config_version: i64, question: &str) -> Self {
        let folded = crate::text::normalize(question);
        Key {
            bot_id,
            day,
            config_version,
            question: crate::text::tokens(&folded).join(" "),
        }
    }
}

/// The kept answer, counted as served.
pub async fn get<T: DeserializeOwned>(
    db: impl PgExecutor<'_>,
    key: &Key,
) -> sqlx::Result<Option<T>> {
    let answer: Option<serde_json::Value> = sqlx::query_scalar(
        "UPDATE knowledge_answers SET hits = hits + 1
         WHERE bot_id = $1 AND day = $2 AND config_version = $3 AND question = $4
         RETURNING answer",
    )
    .bind(key.bot_id)
    .bind(key.day)
    .bind(key.config_version)
    .bind(&key.question)
    .fetch_optional(db)
    .await?;
    // An answer this version cannot read is as good as none.
    Ok(answer.and_then(|a| serde_json::from_value(a).ok()))
}

pub async fn put<T: Serialize>(db: impl PgExecutor<'_>, key: &Key, answer: &T) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO knowledge_answers (bot_id, day, config_version, question, answer)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
    )
    .bind(key.bot_id)
    .bind(key.day)
    .bind(key.config_version)
    .bind(&key.question)
    .bind(serde_json::to_value(answer).expect("answers serialize"))
    .execute(db)
    .await?;
    Ok(())
}

/// Drops answers of past days.
pub async fn purge(db: impl PgExecutor<'_>, before: NaiveDate) -> sqlx::Result<u64> {
    let done = sqlx::query("DELETE FROM knowledge_answers WHERE day < $1")
        .bind(before)
        .execute(db)
        .await?;
    Ok(done.rows_affected())
}
