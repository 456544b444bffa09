//! The learning loop (KakeBot P1/P2): the `fin_corrections` and
//! `fin_merchant_rules` tables. Every category a user corrects is kept; the same
//! merchant corrected to the same category twice becomes a rule that files that
//! merchant's next transactions; the latest corrections are the LLM's few-shot
//! examples; the metrics say how the learning goes.

use serde::Serialize;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use super::core::matrix::LearnedRule;
use super::ledger::UserScope;

/// Corrections of one merchant to one category that teach a rule.
pub const CORRECTIONS_TO_LEARN: i64 = 2;
/// Few-shot examples passed to the LLM.
pub const EXAMPLES: i64 = 6;

/// A correction to keep.
#[derive(Debug, Clone)]
pub struct NewCorrection<'a> {
    pub transaction_id: i64,
    pub merchant: Option<&'a str>,
    pub description: &'a str,
    pub from: &'a str,
    pub to: &'a str,
}

/// Stores the correction and, when it is the one that makes a pattern, learns (or
/// updates) the merchant's rule. Returns the rule when one was learned now.
pub async fn record_correction(
    conn: &mut PgConnection,
    user: UserScope,
    correction: &NewCorrection<'_>,
    inbox_id: i64,
) -> sqlx::Result<Option<LearnedRule>> {
    sqlx::query(
        "INSERT INTO fin_corrections (bot_id, contact_id, transaction_id, merchant, description,
                                      from_category, to_category, inbox_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(correction.transaction_id)
    .bind(correction.merchant)
    .bind(correction.description)
    .bind(correction.from)
    .bind(correction.to)
    .bind(inbox_id)
    .execute(&mut *conn)
    .await?;
    let Some(merchant) = correction.merchant.filter(|m| !m.is_empty()) else {
        return Ok(None);
    };
    let learned: Option<String> = sqlx::query_scalar(
        "WITH seen AS (
             SELECT count(*) AS n FROM fin_corrections
             WHERE contact_id = $2 AND bot_id = $1 AND merchant = $3 AND to_category = $4
         )
         INSERT INTO fin_merchant_rules (bot_id, contact_id, merchant, category, corrections)
         SELECT $1, $2, $3, $4, n FROM seen WHERE n >= $5
         ON CONFLICT (bot_id, contact_id, merchant) DO UPDATE SET
             category = excluded.category, corrections = excluded.corrections, updated_at = now()
         RETURNING category",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(merchant)
    .bind(correction.to)
    .bind(CORRECTIONS_TO_LEARN)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(learned.map(|category| LearnedRule {
        merchant: merchant.to_owned(),
        category,
    }))
}

pub async fn rules(db: impl PgExecutor<'_>, user: UserScope) -> sqlx::Result<Vec<LearnedRule>> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT merchant, category FROM fin_merchant_rules WHERE contact_id = $2 AND bot_id = $1",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(merchant, category)| LearnedRule { merchant, category })
        .collect())
}

/// Counts a transaction filed by a learned rule.
pub async fn rule_applied(
    conn: &mut PgConnection,
    user: UserScope,
    merchant: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE fin_merchant_rules SET applied = applied + 1
         WHERE contact_id = $2 AND bot_id = $1 AND merchant = $3",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(merchant)
    .execute(conn)
    .await?;
    Ok(())
}

/// A past correction, as a few-shot example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Example {
    pub description: String,
    pub merchant: Option<String>,
    pub from_category: String,
    pub to_category: String,
}

/// The user's latest corrections, newest first.
pub async fn examples(db: impl PgExecutor<'_>, user: UserScope) -> sqlx::Result<Vec<Example>> {
    sqlx::query_as(
        "SELECT description, merchant, from_category, to_category FROM fin_corrections
         WHERE contact_id = $2 AND bot_id = $1 ORDER BY id DESC LIMIT $3",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(EXAMPLES)
    .fetch_all(db)
    .await
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Misclassified {
    pub from_category: String,
    pub to_category: String,
    pub count: i64,
}

/// How a bot's learning goes, across its users.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Metrics {
    pub corrections: i64,
    pub corrections_last_30_days: i64,
    pub users_correcting: i64,
    pub rules_learned: i64,
    /// Transactions filed by a learned rule.
    pub rules_applied: i64,
    pub transactions_logged: i64,
    /// Share of chat-logged transactions the user had to correct, in basis points.
    pub correction_rate_bp: i64,
    pub top_misclassified: Vec<Misclassified>,
}

pub async fn metrics(db: &sqlx::PgPool, bot_id: Uuid) -> sqlx::Result<Metrics> {
    let (corrections, recent, users, rules, applied, logged): (i64, i64, i64, i64, i64, i64) =
        sqlx::query_as(
            "SELECT
                (SELECT count(*) FROM fin_corrections WHERE bot_id = $1),
                (SELECT count(*) FROM fin_corrections WHERE bot_id = $1 AND created_at > now() - interval '30 days'),
                (SELECT count(DISTINCT contact_id) FROM fin_corrections WHERE bot_id = $1),
                (SELECT count(*) FROM fin_merchant_rules WHERE bot_id = $1),
                (SELECT coalesce(sum(applied), 0)::bigint FROM fin_merchant_rules WHERE bot_id = $1),
                (SELECT count(*) FROM fin_transactions WHERE bot_id = $1 AND source = 'chat')",
        )
        .bind(bot_id)
        .fetch_one(db)
        .await?;
    let top_misclassified = sqlx::query_as(
        "SELECT from_category, to_category, count(*) AS count FROM fin_corrections
         WHERE bot_id = $1 GROUP BY from_category, to_category
         ORDER BY count DESC, from_category, to_category LIMIT 5",
    )
    .bind(bot_id)
    .fetch_all(db)
    .await?;
    Ok(Metrics {
        corrections,
        corrections_last_30_days: recent,
        users_correcting: users,
        rules_learned: rules,
        rules_applied: applied,
        transactions_logged: logged,
        correction_rate_bp: if logged == 0 {
            0
        } else {
            corrections * 10_000 / logged
        },
        top_misclassified,
    })
}

/// Deletes the person's corrections and the rules learned from them (an erasure
/// they confirmed); how many rows.
pub async fn forget(conn: &mut PgConnection, user: UserScope) -> sqlx::Result<u64> {
    let mut gone = 0;
    for table in ["fin_corrections", "fin_merchant_rules"] {
        gone += sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {table} WHERE bot_id = $1 AND contact_id = $2"
        )))
        .bind(user.bot_id)
        .bind(user.contact_id)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    }
    Ok(gone)
}
