//! detectAnomalies: expenses far above what this user usually spends in their
//! category (mean + k standard deviations over the last 180 days).

use chrono::{Duration, NaiveDate};

use super::ToolContext;
use crate::finance::core::output::{
    Anomalies, Anomaly, ExpenseLine, Severity, Source, ToolError, ToolOutput,
};
use crate::finance::core::tools::{Period, Sensitivity, ToolName, ToolRequest};
use crate::finance::core::validate::MAX_ANOMALIES;

/// Expenses a category needs before its spread means anything.
const MIN_SAMPLES: i64 = 5;

pub async fn detect(
    context: &ToolContext<'_>,
    request: &ToolRequest,
) -> Result<ToolOutput, ToolError> {
    let tool = ToolName::DetectAnomalies;
    let (from, to) = request
        .period
        .unwrap_or(Period::Last30Days)
        .range(context.today);
    let k = request
        .sensitivity
        .unwrap_or(Sensitivity::Medium)
        .threshold();
    type Row = (i64, NaiveDate, String, String, i64, i64, f64, i64);
    // One more than the validator accepts, so a runaway detection is caught, not cut.
    let rows: Vec<Row> = sqlx::query_as(
        "WITH stats AS (
             SELECT category, avg(amount_cents) AS mean, stddev_samp(amount_cents) AS sd, count(*) AS n
             FROM fin_transactions
             WHERE contact_id = $2 AND bot_id = $1 AND kind = 'expense' AND occurred_on >= $5
             GROUP BY category
         ), scope AS (
             SELECT count(*) AS n FROM fin_transactions
             WHERE contact_id = $2 AND bot_id = $1 AND kind = 'expense' AND occurred_on BETWEEN $3 AND $4
         )
         SELECT t.id, t.occurred_on, t.description, t.category, t.amount_cents,
                round(s.mean)::bigint, ((t.amount_cents - s.mean) / s.sd)::float8, scope.n
         FROM fin_transactions t JOIN stats s ON s.category = t.category CROSS JOIN scope
         WHERE t.contact_id = $2 AND t.bot_id = $1 AND t.kind = 'expense'
           AND t.occurred_on BETWEEN $3 AND $4
           AND ($8::text IS NULL OR t.category = $8)
           AND s.n >= $6 AND s.sd > 0
           AND t.amount_cents > s.mean + $7 * s.sd AND t.amount_cents > 1.5 * s.mean
         ORDER BY 7 DESC, t.id LIMIT $9",
    )
    .bind(context.user.bot_id)
    .bind(context.user.contact_id)
    .bind(from)
    .bind(to)
    .bind(context.today - Duration::days(180))
    .bind(MIN_SAMPLES)
    .bind(k)
    .bind(request.category.map(|c| c.key))
    .bind(MAX_ANOMALIES as i64 + 1)
    .fetch_all(context.pool)
    .await
    .map_err(|e| context.database(tool, e))?;
    let in_scope: i64 = match rows.first() {
        Some(row) => row.7,
        None => sqlx::query_scalar(
            "SELECT count(*) FROM fin_transactions
             WHERE contact_id = $2 AND bot_id = $1 AND kind = 'expense' AND occurred_on BETWEEN $3 AND $4",
        )
        .bind(context.user.bot_id)
        .bind(context.user.contact_id)
        .bind(from)
        .bind(to)
        .fetch_one(context.pool)
        .await
        .map_err(|e| context.database(tool, e))?,
    };
    if in_scope == 0 {
        return Err(context.not_found(tool));
    }
    let items = rows
        .into_iter()
        .map(
            |(id, date, description, category, amount_cents, typical_cents, z, _)| Anomaly {
                line: ExpenseLine {
                    id,
                    date,
                    description,
                    category,
                    amount_cents,
                },
                typical_cents,
                severity: if z >= k + 2.0 {
                    Severity::High
                } else if z >= k + 1.0 {
                    Severity::Medium
                } else {
                    Severity::Low
                },
            },
        )
        .collect();
    Ok(ToolOutput::Anomalies(Anomalies {
        source: Source {
            transactions: in_scope,
            from,
            to,
        },
        items,
    }))
}
