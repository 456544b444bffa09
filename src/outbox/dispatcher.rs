//! The dispatcher: claims due outbox rows in batches, delivers them in order per
//! conversation through their channel (keyed by `ChannelKind`), re-checks the
//! human override before each bot-authored send, paces sends under the
//! platforms' rate limits, retries with backoff, and dead-letters what keeps
//! failing — nothing is dropped silently.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use sqlx::PgPool;
use uuid::Uuid;

use super::{Author, Status, backoff};
use crate::audit::{self, Actor, Entry, Kind};
use crate::channels::{Channel, ChannelKind, OutPayload, Outgoing, SendError};

#[derive(Debug, sqlx::FromRow)]
struct Claimed {
    id: i64,
    conversation_id: Uuid,
    bot_id: Uuid,
    channel: ChannelKind,
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
    channels: HashMap<ChannelKind, Arc<dyn Channel>>,
    max_attempts: i32,
    /// First retry delay; doubled per attempt, with jitter.
    base_backoff: Duration,
    limiter: crate::ratelimit::RateLimiter,
    /// The earliest time a row this dispatcher put back falls due, so its loop
    /// wakes for it instead of polling.
    next_retry: std::sync::Mutex<Option<tokio::time::Instant>>,
}

const CLAIM_BATCH: i64 = 32;
/// A send slot due this soon is waited for in place rather than by putting the
/// row back (a bot's next slot under its per-second limit is tens of ms away).
const PACE_IN_PLACE: std::time::Duration = std::time::Duration::from_millis(250);
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
            channels: channels.into_iter().map(|c| (c.kind(), c)).collect(),
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
    async fn deliver(&self, mut row: Claimed) -> anyhow::Result<()> {
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
        // A message with an approved template goes out as the template only
        // where free text cannot (WhatsApp, 24 hours after the customer wrote).
        let has_template = row.payload.get("template").is_some_and(|t| !t.is_null());
        if outside_window && has_template {
            return self.send(row).await;
        }
        if let Some(payload) = row.payload.as_object_mut() {
            payload.remove("template");
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
        let Some(channel) = self.channels.get(&row.channel) else {
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
        let limits = channel.rate_limits(&outgoing);
        if !limits.is_empty() {
            // A slot due within a blink is waited for here; a later one (the
            // chat's next second) puts the row back until then. Neither spends
            // an attempt.
            let mut paced = self.limiter.pace(&limits).await;
            let mut tries = 0;
            while let Err(wait) = paced
                && wait <= PACE_IN_PLACE
                && tries < 20
            {
                tokio::time::sleep(wait).await;
                paced = self.limiter.pace(&limits).await;
                tries += 1;
            }
            if let Err(wait) = paced {
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
            [channel.kind().as_str(), outcome],
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
