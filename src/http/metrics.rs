//! `GET /metrics`: queue depths and outcomes in the Prometheus text format, read
//! from PostgreSQL at scrape time, so every replica reports the same truth and an
//! alert on parked events or dead letters needs no extra state.

use std::fmt::Write;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::Web;
use super::error::ApiError;
use crate::telemetry;

/// (metric, help, query returning label value and count)
const GAUGES: &[(&str, &str, &str, &str)] = &[
    (
        "tendero_inbox_events",
        "Inbound events not done, by status (pending is the queue depth; parked needs a look).",
        "status",
        // Each count reads a partial index: only what is not done yet.
        "SELECT 'pending', count(*) FROM inbox WHERE status = 'pending'
         UNION ALL SELECT 'parked', count(*) FROM inbox WHERE status = 'parked'",
    ),
    (
        "tendero_outbox_messages",
        "Outbound messages not delivered yet, by status (dead and failed were not delivered).",
        "status",
        // Each status is always exported (0 included), each count from a partial index.
        "SELECT 'pending', count(*) FROM outbox WHERE status = 'pending'
         UNION ALL SELECT 'sending', count(*) FROM outbox WHERE status = 'sending'
         UNION ALL SELECT 'failed', count(*) FROM outbox WHERE status = 'failed'
         UNION ALL SELECT 'dead', count(*) FROM outbox WHERE status = 'dead'",
    ),
    (
        "tendero_conversations",
        "Conversations by state.",
        "state",
        "SELECT fsm_state, count(*) FROM conversations GROUP BY fsm_state",
    ),
    (
        "tendero_llm_calls",
        "LLM calls by outcome.",
        "outcome",
        "SELECT outcome, count(*) FROM llm_calls GROUP BY outcome",
    ),
    (
        "tendero_llm_tokens_today",
        "LLM tokens (prompt and completion) used today (UTC), by bot; the daily budget is TENDERO_LLM_DAILY_TOKENS.",
        "bot",
        "SELECT b.slug, u.tokens FROM llm_usage_daily u JOIN bots b ON b.id = u.bot_id
         WHERE u.day = (now() AT TIME ZONE 'UTC')::date",
    ),
    (
        "tendero_llm_over_budget_today",
        "Turns answered by the rules today (UTC) because the bot's LLM budget was spent, by bot.",
        "bot",
        "SELECT b.slug, u.over_budget FROM llm_usage_daily u JOIN bots b ON b.id = u.bot_id
         WHERE u.day = (now() AT TIME ZONE 'UTC')::date AND u.over_budget > 0",
    ),
    (
        "tendero_knowledge_answers_today",
        "Knowledge answers today (UTC): worked out, served from the day's cache without a model call, and how many of those worked out were the gray zone.",
        "outcome",
        "SELECT 'worked_out', count(*) FROM knowledge_answers WHERE day = (now() AT TIME ZONE 'UTC')::date
         UNION ALL SELECT 'cache_hit', coalesce(sum(hits), 0)::bigint FROM knowledge_answers
             WHERE day = (now() AT TIME ZONE 'UTC')::date
         UNION ALL SELECT 'gray', count(*) FROM knowledge_answers
             WHERE day = (now() AT TIME ZONE 'UTC')::date AND (answer->>'gray')::boolean",
    ),
];

pub async fn metrics(State(state): State<Web>) -> Result<impl IntoResponse, ApiError> {
    let mut out = String::new();
    for (name, help, label, sql) in GAUGES {
        let rows: Vec<(String, i64)> = sqlx::query_as(*sql).fetch_all(&state.pool).await?;
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
        for (value, count) in rows {
            let _ = writeln!(out, "{name}{{{label}=\"{value}\"}} {count}");
        }
    }
    let oldest: Option<f64> = sqlx::query_scalar(
        "SELECT extract(epoch FROM now() - min(received_at))::float8 FROM inbox WHERE status = 'pending'",
    )
    .fetch_one(&state.pool)
    .await?;
    let _ = writeln!(
        out,
        "# HELP tendero_inbox_oldest_pending_seconds Age of the oldest unprocessed inbound event.\n\
         # TYPE tendero_inbox_oldest_pending_seconds gauge\ntendero_inbox_oldest_pending_seconds {}",
        oldest.unwrap_or(0.0)
    );
    for (name, help, gauge) in [
        (
            "tendero_turns_in_flight",
            "Turns running in this process now.",
            &telemetry::TURNS_IN_FLIGHT,
        ),
        (
            "tendero_llm_in_flight",
            "LLM requests this process is waiting on now.",
            &telemetry::LLM_IN_FLIGHT,
        ),
    ] {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {}\n\
             # HELP {name}_peak Highest value since the process started.\n# TYPE {name}_peak gauge\n{name}_peak {}",
            gauge.current(),
            gauge.peak()
        );
    }
    crate::histograms::render(&mut out);
    let _ = writeln!(
        out,
        "# HELP tendero_turns_gathered_total Model-bound turns set aside until the customer's burst went quiet.\n\
         # TYPE tendero_turns_gathered_total counter\ntendero_turns_gathered_total {}",
        telemetry::TURNS_GATHERED.load(std::sync::atomic::Ordering::Relaxed)
    );
    if telemetry::statements_counted() {
        let _ = writeln!(
            out,
            "# HELP tendero_db_statements_total SQL statements this process has run.\n\
             # TYPE tendero_db_statements_total counter\ntendero_db_statements_total {}",
            telemetry::DB_STATEMENTS.load(std::sync::atomic::Ordering::Relaxed)
        );
    }
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], out))
}
