//! The outbound queue and its dispatcher. Rows are written in the turn's transaction;
//! the dispatcher delivers them in order per conversation, re-checks the human
//! override before each bot-authored send, retries with backoff, and dead-letters
//! what keeps failing — nothing is dropped silently.

pub mod undelivered;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use rand::Rng;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::audit::{self, Actor, Entry, Kind};
use crate::channels::{Channel, OutPayload, Outgoing, SendError};

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
                text,
                choices: if i == last {
                    payload.choices.clone()
                } else {
                    Vec::new()
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
             RETURNING id, payload, status
         ), transcript AS (
             INSERT INTO messages (conversation_id, direction, author, text, inbox_id, outbox_id)
             SELECT $1, 'out', $2, q.payload->>'text', $4, q.id FROM queued q ORDER BY q.id
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
                 FROM queued q
                 CROSS JOIN LATERAL (
                     SELECT json_build_object('conversation_id', $1::uuid, 'id', q.id,
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

#[derive(Debug, sqlx::FromRow)]
struct Claimed {
    id: i64,
    conversation_id: Uuid,
    bot_id: Uuid,
    channel: String,
    recipient: String,
    author: Author,
    payload: serde_json::Value,
    attempts: i32,
    /// A notification to the merchant's own chat: no customer checks apply.
    to_merchant: bool,
}

/// What one dispatcher pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Delivered(usize),
    EmptyQueue,
}

pub struct Dispatcher {
    pool: PgPool,
    channels: HashMap<&'static str, Arc<dyn Channel>>,
    max_attempts: i32,
    /// First retry delay; doubled per attempt, with jitter.
    base_backoff: Duration,
    limiter: crate::ratelimit::RateLimiter,
    /// The earliest time a row this dispatcher put back falls due, so its loop
    /// wakes for it instead of polling.
    next_retry: std::sync::Mutex<Option<tokio::time::Instant>>,
}

const CLAIM_BATCH: i64 = 32;
/// Sends in flight at once from one dispatcher.
const SEND_CONCURRENCY: usize = 8;
const SEND_LEASE_SECS: f64 = 60.0;

impl Dispatcher {
    pub fn new(
        pool: PgPool,
        channels: Vec<Arc<dyn Channel>>,
        max_attempts: i32,
        base_backoff: Duration,
        limiter: crate::ratelimit::RateLimiter,
    ) -> Self {
        Dispatcher {
            pool,
            channels: channels.into_iter().map(|c| (c.name(), c)).collect(),
            max_attempts,
            base_backoff,
            limiter,
            next_retry: std::sync::Mutex::new(None),
        }
    }

    /// Claims the head message of each conversation that has one due, and sends them.
    pub async fn run_once(&self) -> anyhow::Result<Outcome> {
        let claimed: Vec<Claimed> = sqlx::query_as(
            "UPDATE outbox SET status = 'sending', lease_until = now() + make_interval(secs => $2)
             WHERE id IN (
                 SELECT o.id FROM outbox o
                 WHERE ((o.status = 'pending' AND o.next_attempt_at <= now())
                        OR (o.status = 'sending' AND o.lease_until < now()))
                   AND NOT EXISTS (SELECT 1 FROM outbox p
                                   WHERE p.conversation_id = o.conversation_id AND p.id < o.id
                                     AND p.audience = o.audience
                                     AND p.status IN ('pending', 'sending'))
                 ORDER BY o.id LIMIT $1
                 FOR UPDATE SKIP LOCKED)
             RETURNING id, conversation_id, bot_id, channel, recipient, author, payload, attempts,
                       audience = 'merchant' AS to_merchant",
        )
        .bind(CLAIM_BATCH)
        .bind(SEND_LEASE_SECS)
        .fetch_all(&self.pool)
        .await?;
        if claimed.is_empty() {
            return Ok(Outcome::EmptyQueue);
        }
        let count = claimed.len();
        // Each claimed row heads a different conversation, so they may go out in
        // parallel without reordering anything within a conversation.
        let results: Vec<anyhow::Result<()>> = futures::stream::iter(claimed)
            .map(|row| self.deliver(row))
            .buffer_unordered(SEND_CONCURRENCY)
            .collect()
            .await;
        results.into_iter().collect::<anyhow::Result<()>>()?;
        Ok(Outcome::Delivered(count))
    }

    /// When a row this dispatcher put back falls due (and forgets it).
    pub fn take_next_retry(&self) -> Option<tokio::time::Instant> {
        self.next_retry.lock().expect("retry lock").take()
    }

    /// Drains everything due now; for tests and shutdown.
    pub async fn run_until_idle(&self) -> anyhow::Result<usize> {
        let mut total = 0;
        while let Outcome::Delivered(n) = self.run_once().await? {
            total += n;
        }
        Ok(total)
    }

    #[tracing::instrument(skip_all, fields(outbox_id = row.id, conversation_id = %row.conversation_id))]
    async fn deliver(&self, row: Claimed) -> anyhow::Result<()> {
        if row.to_merchant {
            return self.send(row).await;
        }
        let (human_override, blocked, outside_window): (bool, bool, bool) = sqlx::query_as(
            "SELECT c.human_override, ct.blocked,
                    ct.channel = 'whatsapp' AND (c.last_customer_at IS NULL OR c.last_customer_at < now() - interval '24 hours')
             FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $1",
        )
        .bind(row.conversation_id)
        .fetch_one(&self.pool)
        .await?;
        if row.author == Author::Bot && human_override {
            return self
                .finish(&row, Status::Suppressed, Some("human override is on"), None)
                .await;
        }
        if blocked {
            return self
                .finish(
                    &row,
                    Status::Failed,
                    Some("the recipient blocked the bot"),
                    None,
                )
                .await;
        }
        if outside_window {
            return self
                .finish(
                    &row,
                    Status::Failed,
                    Some(crate::channels::whatsapp::OUTSIDE_WINDOW),
                    None,
                )
                .await;
        }
        self.send(row).await
    }

    /// Sends a row through its channel and records the outcome.
    async fn send(&self, row: Claimed) -> anyhow::Result<()> {
        let Some(channel) = self.channels.get(row.channel.as_str()) else {
            return self
                .finish(
                    &row,
                    Status::Failed,
                    Some("no channel configured for this message"),
                    None,
                )
                .await;
        };
        let payload: OutPayload = match serde_json::from_value(row.payload.clone()) {
            Ok(p) => p,
            Err(e) => {
                return self
                    .finish(
                        &row,
                        Status::Failed,
                        Some(&format!("unreadable payload: {e}")),
                        None,
                    )
                    .await;
            }
        };
        let outgoing = Outgoing {
            outbox_id: row.id,
            bot_id: row.bot_id,
            conversation_id: row.conversation_id,
            recipient: row.recipient.clone(),
            payload,
        };
        for (key, per_second) in channel.rate_limits(&outgoing) {
            if let Err(wait) = self.limiter.acquire(&key, per_second).await {
                // Not a failure: wait for the next window without spending an attempt.
                return self.reschedule(&row, wait, None).await;
            }
        }
        let started = std::time::Instant::now();
        let sent = channel.send(&outgoing).await;
        let outcome = match &sent {
            Ok(_) => "sent",
            Err(SendError::Blocked) => "blocked",
            Err(SendError::Permanent(_)) => "failed",
            Err(SendError::Retry { .. }) => "retry",
        };
        crate::histograms::observe(
            crate::histograms::Metric::OutboxSend,
            [channel.name(), outcome],
            started.elapsed(),
        );
        match sent {
            Ok(delivered) => {
                self.finish(
                    &row,
                    Status::Sent,
                    None,
                    delivered.provider_message_id.as_deref(),
                )
                .await
            }
            Err(SendError::Blocked) => {
                // The merchant's own chat blocking the bot says nothing about the customer.
                if !row.to_merchant {
                    crate::contacts::block_for_conversation(&self.pool, row.conversation_id)
                        .await?;
                }
                self.finish(
                    &row,
                    Status::Failed,
                    Some("the recipient blocked the bot"),
                    None,
                )
                .await
            }
            Err(SendError::Permanent(reason)) => {
                self.finish(&row, Status::Failed, Some(&reason), None).await
            }
            Err(SendError::Retry { reason, after }) if row.attempts + 1 < self.max_attempts => {
                let delay = after.unwrap_or_else(|| backoff(self.base_backoff, row.attempts));
                tracing::warn!(%reason, attempt = row.attempts + 1, ?delay, "send failed; will retry");
                self.reschedule(&row, delay, Some(&reason)).await
            }
            Err(SendError::Retry { reason, .. }) => {
                sqlx::query("UPDATE outbox SET attempts = attempts + 1 WHERE id = $1")
                    .bind(row.id)
                    .execute(&self.pool)
                    .await?;
                self.finish(&row, Status::Dead, Some(&reason), None).await
            }
        }
    }

    /// Puts a row back in the queue for later; `error` marks a failed attempt.
    async fn reschedule(
        &self,
        row: &Claimed,
        delay: Duration,
        error: Option<&str>,
    ) -> anyhow::Result<()> {
        let due = tokio::time::Instant::now() + delay;
        {
            let mut next = self.next_retry.lock().expect("retry lock");
            *next = Some(next.map_or(due, |n| n.min(due)));
        }
        sqlx::query(
            "UPDATE outbox SET status = 'pending', lease_until = NULL,
                 attempts = attempts + CASE WHEN $3::text IS NULL THEN 0 ELSE 1 END,
                 last_error = coalesce($3, last_error),
                 next_attempt_at = now() + make_interval(secs => $2)
             WHERE id = $1",
        )
        .bind(row.id)
        .bind(delay.as_secs_f64())
        .bind(error)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn finish(
        &self,
        row: &Claimed,
        status: Status,
        error: Option<&str>,
        provider_message_id: Option<&str>,
    ) -> anyhow::Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "UPDATE outbox SET status = $2, last_error = $3, lease_until = NULL, provider_message_id = $4,
                 sent_at = CASE WHEN $2 = 'sent' THEN now() ELSE sent_at END
             WHERE id = $1",
        )
        .bind(row.id)
        .bind(status)
        .bind(error)
        .bind(provider_message_id)
        .execute(&mut *tx)
        .await?;
        if status == Status::Sent {
            sqlx::query("SELECT pg_notify('tendero_outbox', $1)")
                .bind(row.conversation_id.to_string())
                .execute(&mut *tx)
                .await?;
        } else {
            if status != Status::Suppressed {
                tracing::warn!(status = status.as_str(), error, "message not delivered");
            }
            let entry = Entry::new(Actor::Backend, Kind::OutboundNotSent)
                .reason(error.unwrap_or(status.as_str()))
                .detail(serde_json::json!({"outbox_id": row.id, "status": status}));
            let scope = audit::Scope {
                bot_id: row.bot_id,
                conversation_id: Some(row.conversation_id),
                inbox_id: None,
            };
            audit::record(&mut tx, scope, &[entry]).await?;
        }
        tx.commit().await?;
        Ok(())
    }
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
