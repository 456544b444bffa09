//! The claim: the one statement that leases due conversations to this process
//! (`FOR UPDATE SKIP LOCKED`), counts an attempt on each head event and reads
//! everything a turn needs — the conversation, its due events, the transcript
//! before them and, for the shop, its cart and open order — so a turn costs one
//! round trip before its proposer and one transaction after it. The leases are
//! renewed while turns run and handed back by the commit or here.

use std::time::Duration;

use serde::Deserialize;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::channels::ChannelKind;
use crate::conversations::Conversation;
use crate::inbox::PendingEvent;

/// What the engine asks of one claim.
#[derive(Debug, Clone)]
pub struct ClaimRequest<'a> {
    pub owner: Uuid,
    pub lease: Duration,
    pub limit: i64,
    /// Conversations this process is running now.
    pub exclude: &'a [Uuid],
    /// Only these conversations (the ones just woken), or any that is due. A
    /// targeted claim reads a few index entries; a full one scans every pending head.
    pub only: Option<&'a [Uuid]>,
    pub history_len: i64,
    /// Most events one turn takes.
    pub max_events: i64,
}

/// A transcript line before the turn's message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PastLine {
    pub author: crate::transcript::Speaker,
    pub text: String,
}

/// Everything a turn reads, in one statement.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TurnSnapshot {
    #[sqlx(flatten)]
    pub conversation: Conversation,
    #[sqlx(try_from = "String")]
    pub channel: ChannelKind,
    /// The customer's id on the channel (chat id, phone, web session), for
    /// progress signals such as Telegram's "typing".
    pub recipient: String,
    pub config_version: i64,
    /// The oldest pending event: the one the turn is for, with any quick
    /// follow-ups in `events`.
    pub head_id: i64,
    /// The head's attempts, this one included.
    pub head_attempts: i32,
    /// The head already waited once for its burst to go quiet.
    pub head_gathered: bool,
    /// Pending due events from the head on, in arrival order.
    pub events: Json<Vec<PendingEvent>>,
    /// The shop's cart, `[[product id, quantity, current unit price], …]` in the
    /// order lines were added (empty for other profiles). Read with the claim so a
    /// shop turn costs no extra round trip; the shop decodes it (`shop::plan`).
    pub cart: Json<serde_json::Value>,
    /// The shop's order waiting for payment, if any; decoded by the shop.
    pub open_order: Option<Json<serde_json::Value>>,
    /// Oldest first.
    pub history: Json<Vec<PastLine>>,
    /// Customer messages received in the last minute before the head: the
    /// per-contact rate, read with the claim at no extra round trip.
    pub recent_messages: i64,
    /// LLM tokens the bot used today (UTC), for its daily budget.
    pub tokens_today: i64,
}

/// The snapshot columns, given `hd(id, head_id, head_attempts, head_gathered)`
/// and the limits.
fn snapshot_select(history_len: i64, max_events: i64) -> String {
    format!(
        "SELECT c.id, c.bot_id, c.contact_id, c.fsm_state, c.human_override, c.override_at, c.override_by,
                c.state_before_takeover, c.draft, c.version, c.last_activity_at, c.created_at, c.updated_at,
                ct.channel, ct.external_id AS recipient, b.config_version, hd.head_id, hd.head_attempts, hd.head_gathered,
                (SELECT coalesce(json_agg(e ORDER BY e.id), '[]') FROM (
                    SELECT id, kind, payload, external_id, attempts, received_at FROM inbox
                    WHERE bot_id = c.bot_id AND conversation_id = c.id AND status = 'pending'
                      AND id >= hd.head_id
                      AND available_at <= now()
                    ORDER BY id LIMIT {max_events}) e) AS events,
                (SELECT coalesce(json_agg(json_build_array(ci.product_id, ci.quantity, p.price_minor)
                                          ORDER BY ci.position), '[]')
                 FROM cart_items ci JOIN products p ON p.id = ci.product_id AND p.bot_id = ci.bot_id
                 WHERE ci.bot_id = c.bot_id AND ci.conversation_id = c.id) AS cart,
                (SELECT row_to_json(o) FROM (
                    SELECT id, number, status, total_minor, currency::text AS currency, payment_due_at
                    FROM orders WHERE bot_id = c.bot_id AND conversation_id = c.id
                      AND status IN ('awaiting_payment', 'proof_received')
                    ORDER BY created_at DESC LIMIT 1) o) AS open_order,
                -- The latest lines but the customer's pending messages (the head's
                -- and those behind it, which the turn reads as its message): a walk
                -- backwards down the conversation's index that stops after a few.
                (SELECT coalesce(json_agg(json_build_object('author', m.author, 'text', m.text)
                                          ORDER BY m.id), '[]')
                 FROM (SELECT id, author, text FROM messages
                       WHERE bot_id = c.bot_id AND conversation_id = c.id
                         AND NOT (direction = 'in' AND coalesce(inbox_id, 0) >= hd.head_id)
                       ORDER BY conversation_id DESC, id DESC LIMIT {history_len}) m) AS history,
                (SELECT count(*) FROM inbox
                 WHERE bot_id = c.bot_id AND conversation_id = c.id AND kind = 'message'
                   AND id < hd.head_id
                   AND received_at > now() - interval '60 seconds') AS recent_messages,
                coalesce((SELECT tokens FROM llm_usage_daily
                          WHERE bot_id = c.bot_id AND day = (now() AT TIME ZONE 'UTC')::date), 0)
                    AS tokens_today
         FROM hd JOIN conversations c ON c.id = hd.id
         JOIN contacts ct ON ct.id = c.contact_id AND ct.bot_id = c.bot_id
         JOIN bots b ON b.id = c.bot_id"
    )
}

/// Claims up to `limit` conversations whose oldest pending event is due and that
/// nobody holds, counts an attempt on each head, and returns their snapshots.
/// `SKIP LOCKED` lets concurrent processes pass each other; the lease keeps the
/// claim after this statement commits, and expires if the holder dies.
pub async fn claim_turns(
    pool: &PgPool,
    request: &ClaimRequest<'_>,
) -> sqlx::Result<Vec<TurnSnapshot>> {
    let sql = format!(
        "WITH heads AS (
             SELECT DISTINCT ON (conversation_id) conversation_id, id, available_at
             FROM inbox WHERE status = 'pending' {only}
             ORDER BY conversation_id, id
         ), candidate AS (
             SELECT c.id, h.id AS head_id FROM conversations c JOIN heads h ON h.conversation_id = c.id
             WHERE h.available_at <= now()
               AND (c.lease_until IS NULL OR c.lease_until < now())
               AND c.id <> ALL($4)
             ORDER BY h.id
             LIMIT $3
             FOR UPDATE OF c SKIP LOCKED
         ), claimed AS (
             UPDATE conversations c SET lease_owner = $1, lease_until = now() + make_interval(secs => $2)
             FROM candidate WHERE c.id = candidate.id
             RETURNING c.id, candidate.head_id
         ), bumped AS (
             UPDATE inbox i SET attempts = i.attempts + 1 FROM claimed
             WHERE i.id = claimed.head_id
             RETURNING i.id, i.attempts, i.gathered
         ), relaxed AS (
             -- A claim needs no disk flush before it returns: lost in a database
             -- crash, it is only a lease nobody holds and an attempt not counted;
             -- the turn's own commit (synchronous) flushes it anyway.
             SELECT set_config('synchronous_commit', 'off', true) AS setting
         ), hd AS (
             SELECT claimed.id, claimed.head_id, bumped.attempts AS head_attempts,
                    bumped.gathered AS head_gathered
             FROM claimed JOIN bumped ON bumped.id = claimed.head_id CROSS JOIN relaxed
         )
         {}
         ORDER BY hd.head_id",
        snapshot_select(request.history_len, request.max_events),
        // Two statements rather than `$5 IS NULL OR …`: a generic plan could not
        // use the index for the targeted one.
        only = if request.only.is_some() {
            "AND conversation_id = ANY($5)"
        } else {
            "AND $5::uuid[] IS NULL"
        },
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(request.owner)
        .bind(request.lease.as_secs_f64())
        .bind(request.limit)
        .bind(request.exclude)
        .bind(request.only)
        .fetch_all(pool)
        .await
}

/// A fresh snapshot of a conversation this process holds, for planning again
/// after a conflict. `None` when nothing is pending any more.
pub async fn snapshot(
    pool: &PgPool,
    id: Uuid,
    history_len: i64,
    max_events: i64,
) -> sqlx::Result<Option<TurnSnapshot>> {
    let sql = format!(
        "WITH hd AS (
             SELECT conversation_id AS id, id AS head_id, attempts AS head_attempts,
                    gathered AS head_gathered
             FROM inbox WHERE conversation_id = $1 AND status = 'pending'
             ORDER BY id LIMIT 1
         )
         {}",
        snapshot_select(history_len, max_events)
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(pool)
        .await
}

/// Extends the leases this process holds, in one statement.
pub async fn renew_leases(
    pool: &PgPool,
    owner: Uuid,
    ids: &[Uuid],
    lease: Duration,
) -> sqlx::Result<u64> {
    let result = sqlx::query(
        "UPDATE conversations SET lease_until = now() + make_interval(secs => $3)
         WHERE id = ANY($2) AND lease_owner = $1",
    )
    .bind(owner)
    .bind(ids)
    .bind(lease.as_secs_f64())
    .execute(pool)
    .await?;
    Ok(result.rows_affected())
}

/// Hands a lease back without a turn commit (after a failure or a park).
pub async fn release_lease(conn: &mut PgConnection, id: Uuid, owner: Uuid) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE conversations SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2",
    )
    .bind(id)
    .bind(owner)
    .execute(conn)
    .await?;
    Ok(())
}
