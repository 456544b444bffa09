//! The `llm_calls` table: one row per model call, with tokens, latency and cost,
//! for the merchant's usage report and `/metrics`.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// How a call (or a turn that made none) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum Outcome {
    /// The model answered under the contract.
    Ok,
    /// It did after one repair request.
    Repaired,
    /// Its answer broke the contract twice: the rules answered.
    Fallback,
    /// The server failed: the rules answered.
    Error,
    /// No answer in time: the rules answered.
    Timeout,
    /// No call: the rules read the message whole.
    Rules,
    /// No call: the bot's daily tokens were spent.
    OverBudget,
}

impl Outcome {
    pub const ALL: [Outcome; 7] = [
        Outcome::Ok,
        Outcome::Repaired,
        Outcome::Fallback,
        Outcome::Error,
        Outcome::Timeout,
        Outcome::Rules,
        Outcome::OverBudget,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Repaired => "repaired",
            Outcome::Fallback => "fallback",
            Outcome::Error => "error",
            Outcome::Timeout => "timeout",
            Outcome::Rules => "rules",
            Outcome::OverBudget => "over_budget",
        }
    }

    /// A row of a call the model was asked (and paid for), not a turn without one.
    pub fn is_call(self) -> bool {
        !matches!(self, Outcome::Rules | Outcome::OverBudget)
    }
}

/// One call as recorded.
#[derive(Debug, Clone)]
pub struct NewCall {
    pub bot_id: Uuid,
    pub conversation_id: Uuid,
    pub inbox_id: i64,
    pub model: String,
    pub response_format: &'static str,
    pub outcome: Outcome,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub prompt_chars: usize,
    pub catalog_items: usize,
    pub latency_ms: u128,
    pub cost_micros: i64,
    pub error: Option<String>,
}

/// The calls a turn made (and the turns it answered without one), held until the
/// turn's own transaction writes them: the record of a turn costs no transaction
/// of its own. Shared by the turn's attempts, so a re-plan keeps the first call's
/// row; a turn that fails writes them with its deferral.
#[derive(Debug, Clone, Default)]
pub struct CallLog(Arc<Mutex<Vec<NewCall>>>);

impl CallLog {
    pub fn push(&self, call: NewCall) {
        self.lock().push(call);
    }

    /// Writes the calls not written yet in the caller's transaction; returns how
    /// many, for [`CallLog::committed`] once that transaction commits (until then
    /// they stay, so a rolled-back attempt writes them again).
    pub async fn write(&self, conn: &mut PgConnection) -> sqlx::Result<usize> {
        let calls = self.lock().clone();
        for call in &calls {
            record(&mut *conn, call).await?;
        }
        Ok(calls.len())
    }

    /// Forgets the first `written` calls: the transaction holding them committed.
    pub fn committed(&self, written: usize) {
        let mut calls = self.lock();
        let written = written.min(calls.len());
        calls.drain(..written);
    }

    /// Whether the turn asked the model (a call was made, not only recorded as skipped).
    pub fn asked_model(&self) -> bool {
        self.lock().iter().any(|call| call.outcome.is_call())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<NewCall>> {
        // A panic while pushing leaves a whole vector behind: still usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// One call's row, with the day's running count it adds to (`llm_usage_daily`).
async fn record(db: impl PgExecutor<'_>, call: &NewCall) -> sqlx::Result<()> {
    sqlx::query(
        "WITH call AS (
             INSERT INTO llm_calls (bot_id, conversation_id, inbox_id, model, response_format, outcome,
                 prompt_tokens, completion_tokens, prompt_chars, catalog_items, latency_ms, cost_micros, error)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
             RETURNING bot_id, (created_at AT TIME ZONE 'UTC')::date AS day,
                       prompt_tokens + completion_tokens AS tokens,
                       (outcome = 'over_budget')::int AS over_budget
         )
         INSERT INTO llm_usage_daily (bot_id, day, tokens, over_budget)
         SELECT bot_id, day, tokens, over_budget FROM call WHERE tokens > 0 OR over_budget > 0
         ON CONFLICT (bot_id, day) DO UPDATE SET tokens = llm_usage_daily.tokens + excluded.tokens,
             over_budget = llm_usage_daily.over_budget + excluded.over_budget",
    )
    .bind(call.bot_id)
    .bind(call.conversation_id)
    .bind(call.inbox_id)
    .bind(&call.model)
    .bind(call.response_format)
    .bind(call.outcome)
    .bind(call.prompt_tokens as i32)
    .bind(call.completion_tokens as i32)
    .bind(call.prompt_chars as i32)
    .bind(call.catalog_items as i32)
    .bind(call.latency_ms.min(i32::MAX as u128) as i32)
    .bind(call.cost_micros)
    .bind(
        call.error
            .as_deref()
            .map(|e| e.chars().take(1000).collect::<String>()),
    )
    .execute(db)
    .await?;
    Ok(())
}

/// A bot's calls by outcome.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Usage {
    pub outcome: Outcome,
    pub calls: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub cost_micros: i64,
    pub mean_latency_ms: f64,
}

pub async fn usage(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<Vec<Usage>> {
    sqlx::query_as(
        "SELECT outcome, count(*) AS calls, coalesce(sum(prompt_tokens), 0)::bigint AS prompt_tokens,
                coalesce(sum(completion_tokens), 0)::bigint AS completion_tokens,
                coalesce(sum(cost_micros), 0)::bigint AS cost_micros,
                coalesce(avg(latency_ms), 0)::float8 AS mean_latency_ms
         FROM llm_calls WHERE bot_id = $1 GROUP BY outcome ORDER BY outcome",
    )
    .bind(bot_id)
    .fetch_all(db)
    .await
}

/// What a bot's model calls cost since the start of this month (in the bot's
/// time zone), in millionths of a dollar.
pub async fn month_cost(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT coalesce(sum(l.cost_micros), 0)::bigint FROM llm_calls l JOIN bots b ON b.id = l.bot_id
         WHERE l.bot_id = $1
           AND l.created_at >= date_trunc('month', now() AT TIME ZONE b.timezone) AT TIME ZONE b.timezone",
    )
    .bind(bot_id)
    .fetch_one(db)
    .await
}

/// A bot's use today (UTC): tokens, and turns the rules answered because the
/// budget was spent.
pub async fn today(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> sqlx::Result<(i64, i64)> {
    let row: Option<(i64, i64)> = sqlx::query_as(
        "SELECT tokens, over_budget FROM llm_usage_daily WHERE bot_id = $1 AND day = $2",
    )
    .bind(bot_id)
    .bind(now.date_naive())
    .fetch_optional(db)
    .await?;
    Ok(row.unwrap_or((0, 0)))
}
