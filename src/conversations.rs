//! The `conversations` table: state with a compare-and-set version, the human
//! override, and the per-conversation lease that keeps one turn at a time across
//! any number of processes. The claim also reads everything a turn needs, so a
//! turn costs one round trip before its proposer and one transaction after it.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use sqlx::{PgConnection, PgExecutor, PgPool};
use uuid::Uuid;

use crate::audit::{Actor, Entry};
use crate::conversation::StoredState;
use crate::inbox::{ChannelKind, PendingEvent};
use crate::shop::orders::OrderStatus;

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Conversation {
    pub id: Uuid,
    pub bot_id: Uuid,
    pub contact_id: Uuid,
    /// Decoded strictly: a name outside the nine is an error, never IDLE. Each
    /// profile converts it into its own states.
    #[sqlx(try_from = "String")]
    pub fsm_state: StoredState,
    pub human_override: bool,
    pub override_at: Option<DateTime<Utc>>,
    pub override_by: Option<String>,
    pub state_before_takeover: Option<String>,
    /// The finance profile's draft (open questions or a pending write); the shop
    /// keeps none. Read by the profile that wrote it.
    pub draft: Option<serde_json::Value>,
    pub version: i64,
    pub last_activity_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Conversation {
    pub fn state(&self) -> StoredState {
        self.fsm_state
    }

    pub fn state_before_takeover(&self) -> Option<StoredState> {
        self.state_before_takeover
            .as_deref()
            .and_then(|s| s.parse().ok())
    }
}

const COLUMNS: &str = "id, bot_id, contact_id, fsm_state, human_override, override_at, override_by, \
     state_before_takeover, draft, version, last_activity_at, created_at, updated_at";

pub async fn get(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<Option<Conversation>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM conversations WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(db)
    .await
}

/// Locks the row for the rest of the transaction.
pub async fn lock(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Conversation> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM conversations WHERE id = $1 FOR UPDATE"
    )))
    .bind(id)
    .fetch_one(conn)
    .await
}

/// The bot's conversations whose id starts with `prefix` (lowercase hex, as the
/// merchant's chat names them); more than one means the prefix is ambiguous.
pub async fn with_prefix(
    db: impl sqlx::PgExecutor<'_>,
    bot_id: Uuid,
    prefix: &str,
) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar(
        "SELECT id FROM conversations
         WHERE bot_id = $1 AND id::text LIKE $2 || '%' AND $2 ~ '^[0-9a-f]+$' LIMIT 2",
    )
    .bind(bot_id)
    .bind(prefix)
    .fetch_all(db)
    .await
}

/// What a committed change writes back. Always bumps the version.
#[derive(Debug, Clone)]
pub struct Update {
    pub state: StoredState,
    pub human_override: bool,
    pub override_by: Option<String>,
    pub state_before_takeover: Option<StoredState>,
    /// The draft to store (the current one unless the change replaces or clears it).
    pub draft: Option<serde_json::Value>,
    /// True when the customer did something (resets the inactivity clock).
    pub activity: bool,
}

impl Update {
    pub fn keep(conversation: &Conversation) -> Self {
        Update {
            state: conversation.state(),
            human_override: conversation.human_override,
            override_by: conversation.override_by.clone(),
            state_before_takeover: conversation.state_before_takeover(),
            draft: conversation.draft.clone(),
            activity: false,
        }
    }
}

/// Saves a merchant's or a tool's change; the caller holds the row lock.
pub async fn save(
    conn: &mut PgConnection,
    conversation: &Conversation,
    update: &Update,
) -> sqlx::Result<()> {
    // No lease is handed back: `Uuid::nil()` owns none.
    if save_turn(conn, conversation, update, Uuid::nil()).await? {
        Ok(())
    } else {
        // Callers hold the row lock, so this means a caller bug, not a race.
        Err(sqlx::Error::Protocol(
            "conversation version moved under a row lock".into(),
        ))
    }
}

/// Turns the override on (if it is not already), remembering where the
/// conversation was. A draft awaiting the user's answer is dropped: after a person
/// stepped in, a bare "sí" must not confirm something asked before. Returns the
/// update and its audit rows.
pub fn takeover(
    conversation: &Conversation,
    by: &str,
    actor: Actor,
    reason: &str,
) -> (Update, Vec<Entry>) {
    let mut update = Update::keep(conversation);
    if conversation.human_override {
        return (update, Vec::new());
    }
    let from = conversation.state();
    let to = StoredState::HumanTakeover;
    let before = if from.holds_draft() {
        StoredState::Idle
    } else {
        from
    };
    update.state = to;
    update.human_override = true;
    update.override_by = Some(by.to_owned());
    update.state_before_takeover = Some(before);
    let mut audit = vec![
        Entry::new(actor, "override_changed")
            .states(from, to)
            .reason(reason)
            .detail(serde_json::json!({"human_override": true, "by": by})),
    ];
    if update.draft.take().is_some() {
        audit.push(
            Entry::new(actor, "draft_discarded").reason("a person took the conversation over"),
        );
    }
    audit.extend(Entry::state_change(actor, from, to, reason));
    (update, audit)
}

#[derive(Debug, thiserror::Error)]
#[error("the conversation is not taken over")]
pub struct NotTakenOver;

/// Turns the override off and returns to the state before the takeover (or IDLE).
pub fn release(
    conversation: &Conversation,
    to_idle: bool,
    actor: Actor,
) -> Result<(Update, Vec<Entry>), NotTakenOver> {
    if !conversation.human_override {
        return Err(NotTakenOver);
    }
    let from = conversation.state();
    let to = match conversation.state_before_takeover() {
        Some(before) if !to_idle && before != StoredState::HumanTakeover => before,
        _ => StoredState::Idle,
    };
    let mut update = Update::keep(conversation);
    update.state = to;
    update.human_override = false;
    update.override_by = None;
    update.state_before_takeover = None;
    let mut audit = vec![
        Entry::new(actor, "override_changed")
            .states(from, to)
            .reason("released")
            .detail(serde_json::json!({"human_override": false, "to_idle": to_idle})),
    ];
    audit.extend(Entry::state_change(actor, from, to, "takeover released"));
    Ok((update, audit))
}

/// The conversation with `sender` on `channel`, created (with its contact) if new.
pub async fn ensure_conversation(
    conn: &mut PgConnection,
    bot_id: Uuid,
    channel: ChannelKind,
    sender: &str,
) -> sqlx::Result<Uuid> {
    let contact_id = crate::contacts::ensure(&mut *conn, bot_id, channel, sender).await?;
    conversation_for(conn, bot_id, contact_id).await
}

/// The contact's conversation, created on first contact. Each statement sees
/// rows committed before it, so the second look finds a concurrent insert.
async fn conversation_for(
    conn: &mut PgConnection,
    bot_id: Uuid,
    contact_id: Uuid,
) -> sqlx::Result<Uuid> {
    let find = "SELECT id FROM conversations WHERE contact_id = $1";
    if let Some(id) = sqlx::query_scalar(find)
        .bind(contact_id)
        .fetch_optional(&mut *conn)
        .await?
    {
        return Ok(id);
    }
    let inserted: Option<Uuid> = sqlx::query_scalar(
        "INSERT INTO conversations (bot_id, contact_id) VALUES ($1, $2) ON CONFLICT (contact_id) DO NOTHING RETURNING id",
    )
    .bind(bot_id)
    .bind(contact_id)
    .fetch_optional(&mut *conn)
    .await?;
    match inserted {
        Some(id) => Ok(id),
        None => {
            sqlx::query_scalar(find)
                .bind(contact_id)
                .fetch_one(conn)
                .await
        }
    }
}

/// Saves a turn's update if the conversation is still at the version the turn
/// read (compare-and-set, taking the row lock), and hands the lease back. False
/// when something changed since: the turn must be planned again.
pub async fn save_turn(
    conn: &mut PgConnection,
    conversation: &Conversation,
    update: &Update,
    owner: Uuid,
) -> sqlx::Result<bool> {
    let result = sqlx::query(
        "UPDATE conversations SET fsm_state = $3, human_override = $4,
            override_at = CASE WHEN $4 AND NOT human_override THEN now() WHEN NOT $4 THEN NULL ELSE override_at END,
            override_by = CASE WHEN $4 THEN $5 ELSE NULL END,
            state_before_takeover = $6,
            last_activity_at = CASE WHEN $7 THEN now() ELSE last_activity_at END,
            lease_owner = CASE WHEN lease_owner = $8 THEN NULL ELSE lease_owner END,
            lease_until = CASE WHEN lease_owner = $8 THEN NULL ELSE lease_until END,
            draft = $9,
            version = version + 1, updated_at = now()
         WHERE id = $1 AND version = $2",
    )
    .bind(conversation.id)
    .bind(conversation.version)
    .bind(update.state.as_str())
    .bind(update.human_override)
    .bind(update.override_by.as_deref())
    .bind(update.state_before_takeover.map(StoredState::as_str))
    .bind(update.activity)
    .bind(owner)
    .bind(update.draft.as_ref())
    .execute(conn)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// What the engine asks of one claim.
#[derive(Debug, Clone)]
pub struct ClaimRequest<'a> {
    pub owner: Uuid,
    pub lease: Duration,
    /// A message waits this long after it arrived before its turn may start.
    pub gather: Duration,
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

/// The order waiting for payment, as a turn reads it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OpenOrder {
    pub id: Uuid,
    pub number: i64,
    pub status: OrderStatus,
    pub total_minor: i64,
    pub currency: String,
    pub payment_due_at: DateTime<Utc>,
}

/// A transcript line before the turn's message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PastLine {
    pub author: String,
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
    /// Pending due events from the head on, in arrival order.
    pub events: Json<Vec<PendingEvent>>,
    /// (product id, quantity, current unit price), in the order lines were added.
    pub cart: Json<Vec<(i64, i64, i64)>>,
    pub open_order: Option<Json<OpenOrder>>,
    /// Oldest first.
    pub history: Json<Vec<PastLine>>,
    /// Customer messages received in the last minute before the head: the
    /// per-contact rate, read with the claim at no extra round trip.
    pub recent_messages: i64,
    /// LLM tokens the bot used today (UTC), for its daily budget.
    pub tokens_today: i64,
}

/// The snapshot columns, given `hd(id, head_id, head_attempts)` and the limits.
fn snapshot_select(history_len: i64, max_events: i64) -> String {
    format!(
        "SELECT c.id, c.bot_id, c.contact_id, c.fsm_state, c.human_override, c.override_at, c.override_by,
                c.state_before_takeover, c.draft, c.version, c.last_activity_at, c.created_at, c.updated_at,
                ct.channel, ct.external_id AS recipient, b.config_version, hd.head_id, hd.head_attempts,
                (SELECT coalesce(json_agg(e ORDER BY e.id), '[]') FROM (
                    SELECT id, kind, payload, external_id, attempts, received_at FROM inbox
                    WHERE conversation_id = c.id AND status = 'pending' AND id >= hd.head_id
                      AND available_at <= now()
                    ORDER BY id LIMIT {max_events}) e) AS events,
                (SELECT coalesce(json_agg(json_build_array(ci.product_id, ci.quantity, p.price_minor)
                                          ORDER BY ci.position), '[]')
                 FROM cart_items ci JOIN products p ON p.id = ci.product_id
                 WHERE ci.conversation_id = c.id) AS cart,
                (SELECT row_to_json(o) FROM (
                    SELECT id, number, status, total_minor, currency::text AS currency, payment_due_at
                    FROM orders WHERE conversation_id = c.id
                      AND status IN ('awaiting_payment', 'proof_received')
                    ORDER BY created_at DESC LIMIT 1) o) AS open_order,
                -- The latest lines but the customer's pending messages (the head's
                -- and those behind it, which the turn reads as its message): a walk
                -- backwards down the conversation's index that stops after a few.
                (SELECT coalesce(json_agg(json_build_object('author', m.author, 'text', m.text)
                                          ORDER BY m.id), '[]')
                 FROM (SELECT id, author, text FROM messages
                       WHERE conversation_id = c.id
                         AND NOT (direction = 'in' AND coalesce(inbox_id, 0) >= hd.head_id)
                       ORDER BY conversation_id DESC, id DESC LIMIT {history_len}) m) AS history,
                (SELECT count(*) FROM inbox
                 WHERE conversation_id = c.id AND kind = 'message' AND id < hd.head_id
                   AND received_at > now() - interval '60 seconds') AS recent_messages,
                coalesce((SELECT tokens FROM llm_usage_daily
                          WHERE bot_id = c.bot_id AND day = (now() AT TIME ZONE 'UTC')::date), 0)
                    AS tokens_today
         FROM hd JOIN conversations c ON c.id = hd.id
         JOIN contacts ct ON ct.id = c.contact_id JOIN bots b ON b.id = c.bot_id"
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
             SELECT DISTINCT ON (conversation_id) conversation_id, id, kind, attempts, available_at, received_at
             FROM inbox WHERE status = 'pending' {only}
             ORDER BY conversation_id, id
         ), candidate AS (
             SELECT c.id, h.id AS head_id FROM conversations c JOIN heads h ON h.conversation_id = c.id
             WHERE h.available_at <= now()
               AND (h.kind <> 'message' OR h.attempts > 0
                    OR h.received_at <= now() - make_interval(secs => $3))
               AND (c.lease_until IS NULL OR c.lease_until < now())
               AND c.id <> ALL($5)
             ORDER BY h.id
             LIMIT $4
             FOR UPDATE OF c SKIP LOCKED
         ), claimed AS (
             UPDATE conversations c SET lease_owner = $1, lease_until = now() + make_interval(secs => $2)
             FROM candidate WHERE c.id = candidate.id
             RETURNING c.id, candidate.head_id
         ), bumped AS (
             UPDATE inbox i SET attempts = i.attempts + 1 FROM claimed
             WHERE i.id = claimed.head_id
             RETURNING i.id, i.attempts
         ), relaxed AS (
             -- A claim needs no disk flush before it returns: lost in a database
             -- crash, it is only a lease nobody holds and an attempt not counted;
             -- the turn's own commit (synchronous) flushes it anyway.
             SELECT set_config('synchronous_commit', 'off', true) AS setting
         ), hd AS (
             SELECT claimed.id, claimed.head_id, bumped.attempts AS head_attempts
             FROM claimed JOIN bumped ON bumped.id = claimed.head_id CROSS JOIN relaxed
         )
         {}
         ORDER BY hd.head_id",
        snapshot_select(request.history_len, request.max_events),
        // Two statements rather than `$6 IS NULL OR …`: a generic plan could not
        // use the index for the targeted one.
        only = if request.only.is_some() {
            "AND conversation_id = ANY($6)"
        } else {
            "AND $6::uuid[] IS NULL"
        },
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(request.owner)
        .bind(request.lease.as_secs_f64())
        .bind(request.gather.as_secs_f64())
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
             SELECT conversation_id AS id, id AS head_id, attempts AS head_attempts
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

/// A conversation in a merchant's list.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Listed {
    pub id: Uuid,
    pub bot: String,
    pub channel: String,
    pub state: String,
    pub human_override: bool,
    pub contact_name: Option<String>,
    pub updated_at: DateTime<Utc>,
    /// The customer asked for a person (or the bot handed over) and nobody
    /// released it yet.
    pub escalated: bool,
    /// A payment proof waits for the merchant's approval.
    pub proof_waiting: bool,
    /// A message to the customer failed or ran out of retries.
    pub undelivered: bool,
}

/// Which of a merchant's conversations to list.
#[derive(Debug, Clone, Default)]
pub struct ListFilter<'a> {
    pub bot: Option<&'a str>,
    pub state: Option<StoredState>,
    /// Only those that need the merchant: escalated, a proof waiting, undelivered.
    pub needs_me: bool,
    /// Text in the contact's name or id, or anywhere in the transcript.
    pub text: Option<&'a str>,
    pub limit: i64,
}

/// A merchant's conversations, most recently changed first.
pub async fn list_for_merchant(
    db: impl PgExecutor<'_>,
    merchant_id: Uuid,
    filter: &ListFilter<'_>,
) -> sqlx::Result<Vec<Listed>> {
    let pattern = filter.text.map(|t| {
        let escaped = t
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        format!("%{escaped}%")
    });
    sqlx::query_as(
        "SELECT * FROM (
             SELECT c.id, b.slug AS bot, ct.channel, c.fsm_state AS state, c.human_override,
                    ct.display_name AS contact_name, c.updated_at,
                    (c.human_override AND c.override_by IS DISTINCT FROM 'merchant') AS escalated,
                    EXISTS (SELECT 1 FROM orders o
                            WHERE o.conversation_id = c.id AND o.status = 'proof_received') AS proof_waiting,
                    EXISTS (SELECT 1 FROM outbox o
                            WHERE o.conversation_id = c.id AND o.audience = 'customer'
                              AND o.status IN ('failed', 'dead')) AS undelivered
             FROM conversations c JOIN bots b ON b.id = c.bot_id JOIN contacts ct ON ct.id = c.contact_id
             WHERE b.merchant_id = $1 AND ($2::text IS NULL OR b.slug = $2)
               AND ($3::text IS NULL OR c.fsm_state = $3)
               AND ($4::text IS NULL OR ct.display_name ILIKE $4 OR ct.external_id ILIKE $4
                    OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.text ILIKE $4))
         ) listed
         WHERE NOT $5 OR escalated OR proof_waiting OR undelivered
         ORDER BY updated_at DESC LIMIT $6",
    )
    .bind(merchant_id)
    .bind(filter.bot)
    .bind(filter.state.map(StoredState::as_str))
    .bind(pattern)
    .bind(filter.needs_me)
    .bind(filter.limit)
    .fetch_all(db)
    .await
}

/// Whether the conversation belongs to one of the merchant's bots.
pub async fn owned_by(db: impl PgExecutor<'_>, id: Uuid, merchant_id: Uuid) -> sqlx::Result<bool> {
    let owned: Option<bool> = sqlx::query_scalar(
        "SELECT true FROM conversations c JOIN bots b ON b.id = c.bot_id WHERE c.id = $1 AND b.merchant_id = $2",
    )
    .bind(id)
    .bind(merchant_id)
    .fetch_optional(db)
    .await?;
    Ok(owned.is_some())
}

/// The conversation of a web-chat session, once it has written.
pub async fn of_webchat_session(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    session: &str,
) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar(
        "SELECT c.id FROM conversations c JOIN contacts ct ON ct.id = c.contact_id
         WHERE ct.bot_id = $1 AND ct.channel = 'webchat' AND ct.external_id = $2",
    )
    .bind(bot_id)
    .bind(session)
    .fetch_optional(db)
    .await
}
