//! The `outbox` table: the outbound queue. Rows are written in the transaction of
//! what caused them (a turn, a merchant's action); `dispatcher` delivers them and
//! `undelivered` is what the merchant does with those that never arrived.

mod dispatcher;
pub mod undelivered;

pub use dispatcher::{Dispatcher, Outcome};

use std::time::Duration;

use rand::Rng;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::channels::OutPayload;

/// Who wrote an outbound message. Only `Bot` messages are silenced by an override.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum Author {
    Bot,
    /// Handoff notices and other messages that must reach the customer even under override.
    System,
    Human,
}

/// Where an outbound row stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum Status {
    Pending,
    Sending,
    Sent,
    /// A bot message that met a human override: never sent.
    Suppressed,
    Failed,
    /// Retries ran out.
    Dead,
    /// A failed or dead row the merchant chose to drop.
    Discarded,
}

impl Status {
    /// Failed for good or out of retries: the customer did not get it.
    pub fn undelivered(self) -> bool {
        matches!(self, Status::Failed | Status::Dead)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Sending => "sending",
            Status::Sent => "sent",
            Status::Suppressed => "suppressed",
            Status::Failed => "failed",
            Status::Dead => "dead",
            Status::Discarded => "discarded",
        }
    }
}

impl Author {
    pub fn as_str(self) -> &'static str {
        match self {
            Author::Bot => "bot",
            Author::System => "system",
            Author::Human => "human",
        }
    }
}

/// Longest text of one outbound row: every channel takes at least this much, so a
/// row is one platform message and a retry never resends half of a reply.
pub const MAX_ROW_TEXT: usize = 4096;

/// Queues a message for the conversation's contact and records it in the
/// transcript, in one statement. Text longer than one platform message becomes
/// several rows, in order; choices go with the last. Returns the id of the last row.
///
/// Web chat has no platform to call: the committed row *is* the delivery, so it is
/// written as sent (or, for a bot message under override, suppressed — the check
/// reads the conversation row in this same statement) and its readers are woken.
/// Other channels' rows wait for the dispatcher.
pub async fn enqueue(
    conn: &mut PgConnection,
    conversation_id: Uuid,
    author: Author,
    payload: &OutPayload,
    inbox_id: Option<i64>,
) -> sqlx::Result<i64> {
    let parts = crate::channels::split_text(&payload.text, MAX_ROW_TEXT);
    let last = parts.len().saturating_sub(1);
    let payloads: Vec<serde_json::Value> = parts
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let part = OutPayload {
                // A template is one message; its fallback text is not split.
                template: payload.template.clone(),
                text,
                choices: if i == last {
                    payload.choices.clone()
                } else {
                    Vec::new()
                },
                // A file rides on the last part, its caption.
                file: if i == last {
                    payload.file.clone()
                } else {
                    None
                },
            };
            serde_json::to_value(part).expect("payload serializes")
        })
        .collect();
    sqlx::query_scalar(
        "WITH target AS (
             SELECT c.id, c.bot_id, ct.channel, ct.external_id,
                    CASE WHEN ct.channel <> 'webchat' THEN 'pending'
                         WHEN $2 = 'bot' AND c.human_override THEN 'suppressed'
                         ELSE 'sent' END AS status
             FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $1
         ), queued AS (
             INSERT INTO outbox (conversation_id, bot_id, channel, recipient, author, payload, inbox_id,
                                 status, sent_at, last_error)
             SELECT t.id, t.bot_id, t.channel, t.external_id, $2, p.payload, $4, t.status,
                    CASE WHEN t.status = 'sent' THEN now() END,
                    CASE WHEN t.status = 'suppressed' THEN 'human override is on' END
             FROM target t CROSS JOIN unnest($3::jsonb[]) WITH ORDINALITY AS p(payload, n)
             ORDER BY p.n
             RETURNING id, bot_id, payload, status
         ), transcript AS (
             INSERT INTO messages (bot_id, conversation_id, direction, author, text, inbox_id, outbox_id)
             SELECT q.bot_id, $1, 'out', $2, q.payload->>'text', $4, q.id FROM queued q ORDER BY q.id
         ), wake AS (
             -- Web chat readers get the message itself when it fits a notification;
             -- otherwise (and for the dispatcher) the conversation id to look up.
             SELECT count(*) AS woken FROM (
                 SELECT pg_notify(
                            CASE WHEN q.status = 'pending' THEN 'tendero_outbox_pending'
                                 WHEN octet_length(n.note) < 7900 THEN 'tendero_delivered'
                                 ELSE 'tendero_outbox' END,
                            CASE WHEN q.status = 'sent' AND octet_length(n.note) < 7900 THEN n.note
                                 ELSE $1::text END)
                 FROM queued q CROSS JOIN target t
                 CROSS JOIN LATERAL (
                     SELECT json_build_object('conversation_id', $1::uuid, 'bot_id', t.bot_id,
                                              'session', t.external_id, 'id', q.id,
                                              'author', $2::text, 'payload', q.payload)::text AS note
                 ) n
                 WHERE q.status <> 'suppressed'
                 ORDER BY q.id
             ) notified
         )
         SELECT max(q.id) FROM queued q, wake",
    )
    .bind(conversation_id)
    .bind(author)
    .bind(payloads)
    .bind(inbox_id)
    .fetch_one(conn)
    .await
}

/// Queues a notice to the merchant's own Telegram chat about a conversation
/// (an escalation, a payment proof, a parked message): to `chat_id`, or when it is
/// `None` to the chat the bot has linked, if any (then nothing is queued). It is
/// not part of the customer's transcript and never waits behind, or holds up, the
/// customer's messages.
pub async fn enqueue_for_merchant(
    conn: &mut PgConnection,
    conversation_id: Uuid,
    chat_id: Option<&str>,
    payload: &OutPayload,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "WITH queued AS (
             INSERT INTO outbox (conversation_id, bot_id, channel, recipient, author, payload, audience)
             SELECT c.id, c.bot_id, 'telegram', coalesce($2, b.merchant_chat_id), 'system', $3, 'merchant'
             FROM conversations c JOIN bots b ON b.id = c.bot_id
             WHERE c.id = $1 AND coalesce($2, b.merchant_chat_id) IS NOT NULL
             RETURNING id
         )
         SELECT q.id FROM queued q, LATERAL (SELECT pg_notify('tendero_outbox_pending', $1::text)) n",
    )
    .bind(conversation_id)
    .bind(chat_id)
    .bind(serde_json::to_value(payload).expect("payload serializes"))
    .fetch_optional(conn)
    .await
}

/// A platform's delivery report (WhatsApp statuses) for a message it was sent.
pub async fn record_delivery_status(
    db: impl sqlx::PgExecutor<'_>,
    bot_id: Uuid,
    provider_message_id: &str,
    status: &str,
    error: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE outbox SET delivery_status = $3,
             status = CASE WHEN $3 = 'failed' THEN 'failed' ELSE status END,
             last_error = coalesce($4, last_error)
         WHERE bot_id = $1 AND provider_message_id = $2",
    )
    .bind(bot_id)
    .bind(provider_message_id)
    .bind(status)
    .bind(error)
    .execute(db)
    .await?;
    Ok(())
}

/// A message delivered to a conversation, as its readers (web chat) see it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Delivered {
    pub id: i64,
    pub author: Author,
    pub payload: serde_json::Value,
}

/// Messages delivered to a conversation after `cursor`, oldest first.
pub async fn delivered_after(
    db: impl sqlx::PgExecutor<'_>,
    conversation_id: Uuid,
    cursor: i64,
    limit: i64,
) -> sqlx::Result<Vec<Delivered>> {
    sqlx::query_as(
        "SELECT id, author, payload FROM outbox
         WHERE conversation_id = $1 AND status = 'sent' AND audience = 'customer' AND id > $2
         ORDER BY id LIMIT $3",
    )
    .bind(conversation_id)
    .bind(cursor)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// Exponential backoff with full jitter, capped at ten minutes.
pub fn backoff(base: Duration, attempt: i32) -> Duration {
    let exp = base.saturating_mul(1u32 << attempt.clamp(0, 16) as u32);
    let capped = exp.min(Duration::from_secs(600));
    if capped.is_zero() {
        return capped;
    }
    let millis = capped.as_millis() as u64;
    Duration::from_millis(rand::rng().random_range(millis / 2..=millis))
}

/// Blanks the words of a conversation's replies already sent or given up on (an
/// erasure the person confirmed); replies still to be sent keep theirs.
pub async fn forget_texts(
    conn: &mut PgConnection,
    bot_id: Uuid,
    conversation_id: Uuid,
) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "UPDATE outbox SET payload = jsonb_set(payload, '{text}', '\"\"')
         WHERE bot_id = $1 AND conversation_id = $2 AND payload ? 'text'
           AND status NOT IN ('pending', 'sending')",
    )
    .bind(bot_id)
    .bind(conversation_id)
    .execute(conn)
    .await?
    .rows_affected())
}
