//! Reminders, `fin_reminders`' SQL: one a person asks for, the day before each
//! debt's payment day, and a budget crossing 80 % or 100 % in a month. A reminder
//! is due at 09:00 in the bot's time zone the day before (a notice, at once).
//! Any replica's sweeper sends what is due: it claims the rows (`FOR UPDATE SKIP
//! LOCKED`), marks them sent and queues their messages in one transaction, so a
//! reminder goes out once whatever runs beside it or dies halfway. On WhatsApp
//! the message carries the bot's approved template, which the dispatcher uses
//! outside the 24-hour window; without one it is never sent as free text there.

use chrono::NaiveDate;
use sqlx::{PgConnection, PgExecutor, PgPool};
use uuid::Uuid;

use super::core::amount::pesos;
use super::core::query::month_name;
use super::ledger::UserScope;
use crate::channels::{OutPayload, Template};
use crate::outbox::{self, Author};

/// The hour a reminder is sent, the day before, in the bot's time zone.
pub const HOUR: u32 = 9;
/// Budget shares that are told, once a month each.
pub const THRESHOLDS: [i64; 2] = [80, 100];

/// What kind of reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::Type, serde::Serialize)]
#[sqlx(type_name = "text", rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Custom,
    Debt,
    Budget,
}

/// A reminder waiting to be sent.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow, serde::Serialize)]
pub struct Pending {
    pub what: String,
    pub due_on: NaiveDate,
    pub kind: Kind,
}

/// Schedules what a person asked to be reminded of; `false` when the same thing
/// for the same day was already scheduled.
pub async fn add(
    conn: &mut PgConnection,
    user: UserScope,
    conversation_id: Uuid,
    what: &str,
    due_on: NaiveDate,
    timezone: &str,
) -> sqlx::Result<bool> {
    let key = format!(
        "custom:{}:{due_on}",
        crate::text::normalize(what)
            .chars()
            .take(120)
            .collect::<String>()
    );
    let inserted = sqlx::query(
        "INSERT INTO fin_reminders (bot_id, contact_id, conversation_id, kind, what, due_on, send_at, dedupe_key)
         VALUES ($1, $2, $3, 'custom', $4, $5,
                 greatest(now(), (($5::date - 1)::timestamp + make_time($7, 0, 0)) AT TIME ZONE $6), $8)
         ON CONFLICT ON CONSTRAINT fin_reminders_once DO UPDATE
             SET status = 'pending', send_at = EXCLUDED.send_at,
                 conversation_id = EXCLUDED.conversation_id, sent_at = NULL
             WHERE fin_reminders.status = 'cancelled'",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(conversation_id)
    .bind(what)
    .bind(due_on)
    .bind(timezone)
    .bind(HOUR as i32)
    .bind(key)
    .execute(conn)
    .await?;
    Ok(inserted.rows_affected() == 1)
}

/// The person's reminders still to be sent, soonest first.
pub async fn pending(db: impl PgExecutor<'_>, user: UserScope) -> sqlx::Result<Vec<Pending>> {
    sqlx::query_as(
        "SELECT what, due_on, kind FROM fin_reminders
         WHERE bot_id = $1 AND contact_id = $2 AND status = 'pending'
         ORDER BY due_on, id LIMIT 50",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .fetch_all(db)
    .await
}

/// Cancels the person's pending reminders (those whose words hold `about`, if
/// given); how many. The debts they name (all, without `about`) are not
/// reminded again either.
pub async fn cancel(
    conn: &mut PgConnection,
    user: UserScope,
    about: Option<&str>,
) -> sqlx::Result<u64> {
    sqlx::query(
        "UPDATE fin_debts SET remind = false
         WHERE bot_id = $1 AND contact_id = $2
           AND ($3::text IS NULL OR name_key LIKE '%' || $3 || '%' OR $3 LIKE '%' || name_key || '%')",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(about.map(crate::text::normalize))
    .execute(&mut *conn)
    .await?;
    Ok(sqlx::query(
        "UPDATE fin_reminders SET status = 'cancelled'
         WHERE bot_id = $1 AND contact_id = $2 AND status = 'pending'
           AND ($3::text IS NULL OR translate(lower(what), 'áéíóúüñ', 'aeiouun') LIKE '%' || $3 || '%')",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(about.map(crate::text::normalize))
    .execute(conn)
    .await?
    .rows_affected())
}

/// Deletes every reminder of the person (an erasure they confirmed); how many.
pub async fn forget(conn: &mut PgConnection, user: UserScope) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM fin_reminders WHERE bot_id = $1 AND contact_id = $2")
            .bind(user.bot_id)
            .bind(user.contact_id)
            .execute(conn)
            .await?
            .rows_affected(),
    )
}

/// Schedules, for every debt with a payment day, its next payment (from
/// tomorrow on) in the person's latest conversation; safe to run on every
/// replica at once. How many were new.
pub async fn schedule_debts(pool: &PgPool) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "WITH debts AS (
             SELECT d.bot_id, d.contact_id, d.name, d.name_key, d.due_day, b.timezone,
                    (now() AT TIME ZONE b.timezone)::date AS today
             FROM fin_debts d JOIN bots b ON b.id = d.bot_id
             WHERE d.due_day IS NOT NULL AND d.balance_cents > 0 AND d.remind
               AND b.profile = 'finance'
         ), next AS (
             SELECT debts.*,
                    (SELECT min(day) FROM (
                        SELECT (date_trunc('month', today) + make_interval(months => m)
                                + make_interval(days => least(due_day,
                                    extract(day FROM date_trunc('month', today) + make_interval(months => m + 1)
                                            - interval '1 day')::int) - 1))::date AS day
                        FROM generate_series(0, 1) m) options
                     WHERE day > today) AS due_on
             FROM debts
         )
         INSERT INTO fin_reminders (bot_id, contact_id, conversation_id, kind, what, due_on, send_at, dedupe_key)
         SELECT n.bot_id, n.contact_id, c.id, 'debt', 'pagar ' || n.name, n.due_on,
                greatest(now(), ((n.due_on - 1)::timestamp + make_time($1, 0, 0)) AT TIME ZONE n.timezone),
                'debt:' || n.name_key || ':' || n.due_on
         FROM next n
         JOIN LATERAL (SELECT id FROM conversations
                       WHERE bot_id = n.bot_id AND contact_id = n.contact_id
                       ORDER BY last_activity_at DESC LIMIT 1) c ON true
         WHERE n.due_on IS NOT NULL
         ON CONFLICT ON CONSTRAINT fin_reminders_once DO NOTHING",
    )
    .bind(HOUR as i32)
    .execute(pool)
    .await?
    .rows_affected())
}

/// After an expense: each budget of the month that has now reached 80 % or
/// 100 % is told once (the notice goes out with the next sweep). How many.
pub async fn budget_notices(
    conn: &mut PgConnection,
    user: UserScope,
    conversation_id: Uuid,
    timezone: &str,
) -> sqlx::Result<u64> {
    // The month's caps in force, and what was spent against each: the cap on all
    // variable spending ('') leaves the fixed bills out.
    let fixed = super::core::category::fixed_keys();
    let caps: Vec<(String, i64, NaiveDate)> = sqlx::query_as(
        "SELECT DISTINCT ON (category) category, cap_cents, (now() AT TIME ZONE $3)::date
         FROM fin_budgets
         WHERE bot_id = $1 AND contact_id = $2 AND starts_on <= (now() AT TIME ZONE $3)::date
         ORDER BY category, starts_on DESC",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(timezone)
    .fetch_all(&mut *conn)
    .await?;
    let mut told = 0;
    for (category, cap, today) in caps {
        // The same scope the budget's status counts: an umbrella with its parts.
        let keys: Option<Vec<&str>> =
            super::core::category::by_key(&category).map(super::core::category::analysis_keys);
        let spent: i64 = sqlx::query_scalar(
            "SELECT coalesce(sum(amount_cents), 0)::bigint FROM fin_transactions
             WHERE bot_id = $1 AND contact_id = $2 AND kind = 'expense'
               AND occurred_on >= date_trunc('month', $3::date) AND occurred_on <= $3
               AND CASE WHEN $4::text[] IS NULL THEN category <> ALL($5)
                        ELSE category = ANY($4) END",
        )
        .bind(user.bot_id)
        .bind(user.contact_id)
        .bind(today)
        .bind(keys)
        .bind(&fixed)
        .fetch_one(&mut *conn)
        .await?;
        let Some(reached) = THRESHOLDS
            .iter()
            .rev()
            .find(|t| cap > 0 && spent * 100 >= cap * **t)
        else {
            continue;
        };
        let scope = if category.is_empty() {
            "gastos variables".to_owned()
        } else {
            super::core::category::by_key(&category)
                .map_or(category.clone(), |c| c.label.to_owned())
        };
        let what = format!(
            "llevas el {reached} % de tu presupuesto de {scope} de {}: {} de {}",
            month_name(today),
            pesos(spent),
            pesos(cap)
        );
        let key = format!("budget:{category}:{}:{reached}", today.format("%Y-%m"));
        told += sqlx::query(
            "INSERT INTO fin_reminders (bot_id, contact_id, conversation_id, kind, what, due_on, send_at, dedupe_key)
             VALUES ($1, $2, $3, 'budget', $4, $5, now(), $6)
             ON CONFLICT ON CONSTRAINT fin_reminders_once DO NOTHING",
        )
        .bind(user.bot_id)
        .bind(user.contact_id)
        .bind(conversation_id)
        .bind(&what)
        .bind(today)
        .bind(key)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    }
    Ok(told)
}

/// What a due reminder says.
pub fn message(kind: Kind, what: &str, due_on: NaiveDate) -> String {
    match kind {
        Kind::Budget => format!("Aviso: {what}."),
        Kind::Custom | Kind::Debt => {
            format!(
                "⏰ Recordatorio: {what}, el {due_on}. Para dejar de recibirlo escribe «ya no me recuerdes»."
            )
        }
    }
}

/// Sends what is due: claims up to 100 rows, marks them sent and queues their
/// messages in one transaction. How many.
pub async fn send_due(pool: &PgPool) -> sqlx::Result<u64> {
    // A debt paid off or gone since its reminder was scheduled is not reminded.
    sqlx::query(
        "UPDATE fin_reminders r SET status = 'cancelled'
         WHERE r.kind = 'debt' AND r.status = 'pending' AND r.send_at <= now()
           AND NOT EXISTS (SELECT 1 FROM fin_debts d
                           WHERE d.bot_id = r.bot_id AND d.contact_id = r.contact_id
                             AND d.name_key = split_part(r.dedupe_key, ':', 2)
                             AND d.balance_cents > 0 AND d.remind)",
    )
    .execute(pool)
    .await?;
    let mut tx = pool.begin().await?;
    type Due = (Uuid, Kind, String, NaiveDate, Option<String>, String);
    let due: Vec<Due> = sqlx::query_as(
        "WITH due AS (
             -- What can reach the person now: not while a person has taken the
             -- conversation over, and on WhatsApp outside the 24-hour window only
             -- with a template; the rest waits, pending.
             SELECT r.id, r.bot_id FROM fin_reminders r
             JOIN conversations c ON c.bot_id = r.bot_id AND c.id = r.conversation_id
             JOIN contacts ct ON ct.bot_id = c.bot_id AND ct.id = c.contact_id
             JOIN bots b ON b.id = r.bot_id
             WHERE r.status = 'pending' AND r.send_at <= now() AND NOT c.human_override
               AND NOT (ct.channel = 'whatsapp' AND b.whatsapp_reminder_template IS NULL
                        AND (c.last_customer_at IS NULL OR c.last_customer_at < now() - interval '24 hours'))
             ORDER BY r.send_at LIMIT 100 FOR UPDATE OF r SKIP LOCKED
         )
         UPDATE fin_reminders r SET status = 'sent', sent_at = now()
         FROM due, bots b
         WHERE r.id = due.id AND r.bot_id = due.bot_id AND b.id = r.bot_id
         RETURNING r.conversation_id, r.kind, r.what, r.due_on,
                   b.whatsapp_reminder_template, b.whatsapp_template_language",
    )
    .fetch_all(&mut *tx)
    .await?;
    for (conversation_id, kind, what, due_on, template, language) in &due {
        let text = message(*kind, what, *due_on);
        let payload = OutPayload {
            // Outside WhatsApp's 24-hour window only the approved template may
            // go; the dispatcher picks it there and drops it elsewhere.
            template: template.as_ref().map(|name| Template {
                name: name.clone(),
                language: language.clone(),
                parameters: vec![what.clone(), due_on.to_string()],
            }),
            text,
            ..Default::default()
        };
        outbox::enqueue(&mut tx, *conversation_id, Author::Bot, &payload, None).await?;
    }
    tx.commit().await?;
    Ok(due.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reminder_says_what_and_when_and_how_to_stop_it() {
        let day = NaiveDate::from_ymd_opt(2026, 12, 20).unwrap();
        let text = message(Kind::Custom, "pagar la tarjeta", day);
        assert!(text.contains("pagar la tarjeta, el 2026-12-20"), "{text}");
        assert!(text.contains("ya no me recuerdes"), "{text}");
        assert!(message(Kind::Budget, "llevas el 80 %", day).starts_with("Aviso:"));
    }
}
