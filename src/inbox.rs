//! The durable inbound queue. An event is committed here before any platform gets
//! its 2xx, and `(bot_id, external_id)` makes every delivery after the first a no-op.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::bots::Bot;
pub use crate::channels::{Inbound, Media, MessagePayload};
use crate::conversations::StoredState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ingested {
    New {
        inbox_id: i64,
        conversation_id: Uuid,
    },
    Duplicate {
        inbox_id: i64,
    },
}

impl Ingested {
    pub fn inbox_id(self) -> i64 {
        match self {
            Ingested::New { inbox_id, .. } | Ingested::Duplicate { inbox_id } => inbox_id,
        }
    }
}

/// Stores one inbound message: contact, conversation, inbox row and transcript line
/// in one transaction, then wakes the workers. A repeat is recognized by its key
/// and changes nothing.
pub async fn ingest(pool: &PgPool, bot: &Bot, inbound: &Inbound) -> sqlx::Result<Ingested> {
    ingest_one(pool, bot.id, inbound).await
}

/// `ingest` by bot id; what the webhook group commit falls back to.
#[tracing::instrument(skip_all, fields(%bot_id, external_id = %inbound.external_id))]
pub async fn ingest_one(pool: &PgPool, bot_id: Uuid, inbound: &Inbound) -> sqlx::Result<Ingested> {
    let payload = serde_json::to_value(&inbound.message).expect("payload serializes");
    let transcript = transcript_line(&inbound.message);
    // One statement, so one round trip and one atomic commit: the duplicate check,
    // contact, conversation (its reply window stamped: the customer wrote), inbox
    // row, transcript line and the engine's wake-up, which PostgreSQL delivers only
    // once this commits. A known event changes nothing and returns its id.
    let row: Option<(i64, Option<Uuid>)> = sqlx::query_as(
        "WITH known AS (
             SELECT id FROM inbox WHERE bot_id = $1 AND external_id = $5
         ), contact AS (
             INSERT INTO contacts (bot_id, channel, external_id, display_name)
             SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM known)
             ON CONFLICT (bot_id, channel, external_id)
             DO UPDATE SET display_name = coalesce(excluded.display_name, contacts.display_name), blocked = false
             RETURNING id
         ), conversation AS (
             INSERT INTO conversations (bot_id, contact_id, last_customer_at)
             SELECT $1, id, now() FROM contact
             ON CONFLICT (bot_id, contact_id) DO UPDATE SET last_customer_at = now()
             RETURNING id
         ), event AS (
             INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload)
             SELECT $1, id, $5, 'message', $6 FROM conversation
             ON CONFLICT (bot_id, external_id) DO NOTHING
             RETURNING id, conversation_id
         ), transcript AS (
             INSERT INTO messages (bot_id, conversation_id, direction, author, text, inbox_id)
             SELECT $1, conversation_id, 'in', 'customer', $7, id FROM event
         ), wake AS (
             SELECT pg_notify('tendero_inbox', conversation_id::text) AS notified FROM event
         )
         SELECT event.id, event.conversation_id FROM event, wake
         UNION ALL
         SELECT id, NULL FROM known",
    )
    .bind(bot_id)
    .bind(inbound.channel.as_str())
    .bind(&inbound.sender)
    .bind(inbound.display_name.as_deref())
    .bind(&inbound.external_id)
    .bind(&payload)
    .bind(&transcript)
    .fetch_optional(pool)
    .await?;
    match row {
        Some((inbox_id, Some(conversation_id))) => Ok(Ingested::New {
            inbox_id,
            conversation_id,
        }),
        Some((inbox_id, None)) => Ok(Ingested::Duplicate { inbox_id }),
        None => {
            // A concurrent delivery of the same event won the race; nothing was stored.
            let id = existing(pool, bot_id, &inbound.external_id)
                .await?
                .ok_or(sqlx::Error::RowNotFound)?;
            Ok(Ingested::Duplicate { inbox_id: id })
        }
    }
}

/// Stores many inbound messages in one statement (one round trip, one commit),
/// each exactly as `ingest` would: a repeat, in the table or earlier in the same
/// batch, changes nothing and names the stored event. Results follow `items`.
pub async fn ingest_many(
    conn: &mut PgConnection,
    items: &[(Uuid, &Inbound)],
) -> sqlx::Result<Vec<Ingested>> {
    let mut bots = Vec::with_capacity(items.len());
    let mut channels = Vec::with_capacity(items.len());
    let mut senders = Vec::with_capacity(items.len());
    let mut names = Vec::with_capacity(items.len());
    let mut keys = Vec::with_capacity(items.len());
    let mut payloads = Vec::with_capacity(items.len());
    let mut transcripts = Vec::with_capacity(items.len());
    for (bot_id, inbound) in items {
        bots.push(*bot_id);
        channels.push(inbound.channel.as_str());
        senders.push(inbound.sender.as_str());
        names.push(inbound.display_name.as_deref());
        keys.push(inbound.external_id.as_str());
        payloads.push(serde_json::to_value(&inbound.message).expect("payload serializes"));
        transcripts.push(transcript_line(&inbound.message));
    }
    // Rows are written in key order, so concurrent batches lock contacts and
    // conversations in the same order and cannot deadlock each other.
    let rows: Vec<BatchRow> = sqlx::query_as(
        "WITH input AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::text[])
                 WITH ORDINALITY AS t(bot_id, channel, sender, display_name, external_id, payload, transcript, n)
         ), known AS (
             SELECT i.n, x.id FROM input i JOIN inbox x ON x.bot_id = i.bot_id AND x.external_id = i.external_id
         ), fresh AS (
             SELECT DISTINCT ON (i.bot_id, i.external_id) i.* FROM input i
             WHERE NOT EXISTS (SELECT 1 FROM known k WHERE k.n = i.n)
             ORDER BY i.bot_id, i.external_id, i.n
         ), wanted AS (
             SELECT DISTINCT ON (bot_id, channel, sender) bot_id, channel, sender, display_name FROM fresh
             ORDER BY bot_id, channel, sender, n DESC
         ), found AS (
             SELECT ct.id, ct.bot_id, ct.channel, ct.external_id, ct.display_name, ct.blocked,
                    w.display_name AS wanted_name
             FROM wanted w JOIN contacts ct
               ON ct.bot_id = w.bot_id AND ct.channel = w.channel AND ct.external_id = w.sender
         ), created AS (
             INSERT INTO contacts (bot_id, channel, external_id, display_name)
             SELECT w.bot_id, w.channel, w.sender, w.display_name FROM wanted w
             WHERE NOT EXISTS (SELECT 1 FROM found f
                               WHERE f.bot_id = w.bot_id AND f.channel = w.channel AND f.external_id = w.sender)
             ORDER BY w.bot_id, w.channel, w.sender
             ON CONFLICT (bot_id, channel, external_id)
             DO UPDATE SET display_name = coalesce(excluded.display_name, contacts.display_name), blocked = false
             RETURNING id, bot_id, channel, external_id
         ), refreshed AS (
             -- A known contact is written only when something changed: a new name, or
             -- a user who had blocked the bot writing again.
             UPDATE contacts ct SET display_name = coalesce(f.wanted_name, ct.display_name), blocked = false
             FROM found f
             WHERE ct.id = f.id
               AND (f.blocked OR (f.wanted_name IS NOT NULL AND f.wanted_name IS DISTINCT FROM f.display_name))
         ), contact AS (
             SELECT id, bot_id, channel, external_id FROM found
             UNION ALL SELECT id, bot_id, channel, external_id FROM created
         ), conversation_found AS (
             SELECT cv.id, cv.contact_id, cv.last_customer_at
             FROM contact ct JOIN conversations cv ON cv.contact_id = ct.id
         ), conversation_created AS (
             INSERT INTO conversations (bot_id, contact_id, last_customer_at)
             SELECT ct.bot_id, ct.id, now() FROM contact ct
             WHERE NOT EXISTS (SELECT 1 FROM conversation_found f WHERE f.contact_id = ct.id)
             ORDER BY ct.id
             ON CONFLICT (bot_id, contact_id) DO UPDATE SET last_customer_at = now()
             RETURNING id, contact_id
         ), stamped AS (
             -- The reply window (WhatsApp's 24 hours) opens at the customer's last
             -- message; a stamp up to a minute early only ever closes it sooner.
             UPDATE conversations cv SET last_customer_at = now()
             FROM conversation_found f
             WHERE cv.id = f.id
               AND (f.last_customer_at IS NULL OR f.last_customer_at < now() - interval '1 minute')
         ), conversation AS (
             SELECT id, contact_id FROM conversation_found
             UNION ALL SELECT id, contact_id FROM conversation_created
         ), event AS (
             INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload)
             SELECT f.bot_id, cv.id, f.external_id, 'message', f.payload
             FROM fresh f
             JOIN contact ct ON ct.bot_id = f.bot_id AND ct.channel = f.channel AND ct.external_id = f.sender
             JOIN conversation cv ON cv.contact_id = ct.id
             ORDER BY f.n
             ON CONFLICT (bot_id, external_id) DO NOTHING
             RETURNING id, bot_id, external_id, conversation_id
         ), transcript AS (
             INSERT INTO messages (bot_id, conversation_id, direction, author, text, inbox_id)
             SELECT e.bot_id, e.conversation_id, 'in', 'customer', f.transcript, e.id
             FROM event e JOIN fresh f ON f.bot_id = e.bot_id AND f.external_id = e.external_id
             ORDER BY e.id
         ), wake AS (
             SELECT pg_notify('tendero_inbox', conversation_id::text) AS notified
             FROM (SELECT DISTINCT conversation_id FROM event) woken
         )
         SELECT e.id AS new_id, e.conversation_id, coalesce(k.id, again.id) AS duplicate_of
         FROM input i
         LEFT JOIN fresh f ON f.n = i.n
         LEFT JOIN event e ON f.n IS NOT NULL AND e.bot_id = i.bot_id AND e.external_id = i.external_id
         LEFT JOIN known k ON k.n = i.n
         LEFT JOIN event again ON f.n IS NULL AND again.bot_id = i.bot_id AND again.external_id = i.external_id
         CROSS JOIN (SELECT count(*) FROM wake) notified
         ORDER BY i.n",
    )
    .bind(&bots)
    .bind(&channels)
    .bind(&senders)
    .bind(&names)
    .bind(&keys)
    .bind(&payloads)
    .bind(&transcripts)
    .fetch_all(&mut *conn)
    .await?;
    let mut results = Vec::with_capacity(items.len());
    for (row, (bot_id, inbound)) in rows.into_iter().zip(items) {
        results.push(match (row.new_id, row.conversation_id, row.duplicate_of) {
            (Some(inbox_id), Some(conversation_id), _) => Ingested::New {
                inbox_id,
                conversation_id,
            },
            (_, _, Some(inbox_id)) => Ingested::Duplicate { inbox_id },
            _ => {
                // Another batch stored the same event between our check and insert.
                let inbox_id = existing(&mut *conn, *bot_id, &inbound.external_id)
                    .await?
                    .ok_or(sqlx::Error::RowNotFound)?;
                Ingested::Duplicate { inbox_id }
            }
        });
    }
    Ok(results)
}

/// One input's outcome in a batch.
#[derive(sqlx::FromRow)]
struct BatchRow {
    new_id: Option<i64>,
    conversation_id: Option<Uuid>,
    duplicate_of: Option<i64>,
}

/// How an inbound message reads in the transcript.
fn transcript_line(message: &MessagePayload) -> String {
    match (&message.media, message.text.is_empty()) {
        (Some(media), true) => format!("[{}]", media.kind),
        (Some(media), false) => format!("[{}] {}", media.kind, message.text),
        (None, _) => message.text.clone(),
    }
}

async fn existing(
    db: impl sqlx::PgExecutor<'_>,
    bot_id: Uuid,
    external_id: &str,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT id FROM inbox WHERE bot_id = $1 AND external_id = $2")
        .bind(bot_id)
        .bind(external_id)
        .fetch_optional(db)
        .await
}

/// Wakes workers when the surrounding transaction commits.
pub async fn wake(conn: &mut PgConnection, conversation_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("SELECT pg_notify('tendero_inbox', $1)")
        .bind(conversation_id.to_string())
        .execute(conn)
        .await?;
    Ok(())
}

/// What an inbox row is, as stored in its `kind` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum EventKind {
    Message,
    SessionTimeout,
    PaymentTimeout,
}

/// A pending inbox row as a turn's snapshot carries it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PendingEvent {
    pub id: i64,
    pub kind: EventKind,
    pub payload: Value,
    pub external_id: String,
    /// Attempts before this turn's claim counted one more.
    pub attempts: i32,
    pub received_at: chrono::DateTime<chrono::Utc>,
}

/// Marks the events of a turn processed, inside the turn's transaction.
pub async fn mark_done(conn: &mut PgConnection, ids: &[i64]) -> sqlx::Result<u64> {
    let result = sqlx::query(
        "UPDATE inbox SET status = 'done', processed_at = now(), last_error = NULL
         WHERE id = ANY($1) AND status = 'pending'",
    )
    .bind(ids)
    .execute(conn)
    .await?;
    Ok(result.rows_affected())
}

/// Queues a session timeout for every conversation idle past its bot's session
/// timeout in a state that expires, as an inbox event, so it runs as an ordinary
/// turn: in order, under the lease, exactly once. Safe to run on every replica.
pub async fn queue_session_timeouts(pool: &PgPool) -> sqlx::Result<u64> {
    let expiring: Vec<&str> = StoredState::ALL
        .into_iter()
        .filter(|s| s.expires_when_idle())
        .map(StoredState::as_str)
        .collect();
    let mut tx = pool.begin().await?;
    let queued = sqlx::query(
        "INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload)
         SELECT c.bot_id, c.id, 'session-timeout:' || c.id || ':' || c.version, $1, '{}'::jsonb
         FROM conversations c JOIN bots b ON b.id = c.bot_id
         WHERE c.fsm_state = ANY($2)
           AND NOT c.human_override
           AND c.last_activity_at < now() - make_interval(secs => b.session_timeout_secs)
         ON CONFLICT (bot_id, external_id) DO NOTHING",
    )
    .bind(EventKind::SessionTimeout)
    .bind(&expiring)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if queued > 0 {
        // Any conversation id wakes the engine; it claims whatever is due.
        wake(&mut tx, Uuid::nil()).await?;
    }
    tx.commit().await?;
    Ok(queued)
}

/// Schedules a failed event for a later try.
pub async fn defer(
    conn: &mut PgConnection,
    id: i64,
    delay: Duration,
    error: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE inbox SET available_at = now() + make_interval(secs => $2), last_error = $3
         WHERE id = $1 AND status = 'pending'",
    )
    .bind(id)
    .bind(delay.as_secs_f64())
    .bind(truncate(error, 2000))
    .execute(conn)
    .await?;
    Ok(())
}

/// When the newest pending customer message after `after` arrived, if any: a
/// model-bound turn asks this before its commit, to tell a burst still being typed.
pub async fn newest_pending_message_after(
    pool: &PgPool,
    conversation_id: Uuid,
    after: i64,
) -> sqlx::Result<Option<chrono::DateTime<chrono::Utc>>> {
    sqlx::query_scalar(
        "SELECT max(received_at) FROM inbox
         WHERE conversation_id = $1 AND status = 'pending' AND kind = 'message' AND id > $2",
    )
    .bind(conversation_id)
    .bind(after)
    .fetch_one(pool)
    .await
}

/// Sets a head aside until `until` because its customer is still writing: not a
/// failure, so the claim's attempt is handed back, and marked `gathered` so it
/// waits only once.
pub async fn gather(
    conn: &mut PgConnection,
    id: i64,
    until: chrono::DateTime<chrono::Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE inbox SET available_at = $2, gathered = true, attempts = greatest(attempts - 1, 0)
         WHERE id = $1 AND status = 'pending'",
    )
    .bind(id)
    .bind(until)
    .execute(conn)
    .await?;
    Ok(())
}

/// Gives up on an event: it stays visible with its error, and stops blocking the
/// conversation.
pub async fn park(conn: &mut PgConnection, id: i64, error: &str) -> sqlx::Result<bool> {
    let result = sqlx::query(
        "UPDATE inbox SET status = 'parked', processed_at = now(), last_error = coalesce(last_error, $2)
         WHERE id = $1 AND status = 'pending'",
    )
    .bind(id)
    .bind(truncate(error, 2000))
    .execute(conn)
    .await?;
    Ok(result.rows_affected() == 1)
}

fn truncate(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// Blanks the words of a conversation's received messages (an erasure the person
/// confirmed). The rows stay, with their platform ids: a platform's retry of an
/// old message is still recognised and never taken twice.
pub async fn forget_texts(
    conn: &mut PgConnection,
    bot_id: Uuid,
    conversation_id: Uuid,
) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "UPDATE inbox SET payload = jsonb_set(payload, '{text}', '\"\"')
         WHERE bot_id = $1 AND conversation_id = $2 AND payload ? 'text'",
    )
    .bind(bot_id)
    .bind(conversation_id)
    .execute(conn)
    .await?
    .rows_affected())
}
