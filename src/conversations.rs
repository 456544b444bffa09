//! The `conversations` table: state with a compare-and-set version, the human
//! override, and the per-conversation lease that keeps one turn at a time across
//! any number of workers.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgExecutor, PgPool};
use uuid::Uuid;

use crate::agent::contract::HistoryEntry;
use crate::audit::{Actor, Entry};
use crate::conversation::{Event, Release, State, on_event};

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Conversation {
    pub id: Uuid,
    pub bot_id: Uuid,
    pub contact_id: Uuid,
    pub fsm_state: String,
    pub human_override: bool,
    pub override_at: Option<DateTime<Utc>>,
    pub override_by: Option<String>,
    pub state_before_takeover: Option<String>,
    pub version: i64,
    pub last_activity_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Conversation {
    /// The stored state. The column's CHECK constraint admits only the seven names.
    pub fn state(&self) -> State {
        self.fsm_state.parse().unwrap_or(State::Idle)
    }

    pub fn state_before_takeover(&self) -> Option<State> {
        self.state_before_takeover
            .as_deref()
            .and_then(|s| s.parse().ok())
    }
}

const COLUMNS: &str = "id, bot_id, contact_id, fsm_state, human_override, override_at, override_by, \
     state_before_takeover, version, last_activity_at, created_at, updated_at";

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

/// What a committed change writes back. Always bumps the version.
#[derive(Debug, Clone)]
pub struct Update {
    pub state: State,
    pub human_override: bool,
    pub override_by: Option<String>,
    pub state_before_takeover: Option<State>,
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
            activity: false,
        }
    }
}

pub async fn save(
    conn: &mut PgConnection,
    conversation: &Conversation,
    update: &Update,
) -> sqlx::Result<()> {
    let result = sqlx::query(
        "UPDATE conversations SET fsm_state = $3, human_override = $4,
            override_at = CASE WHEN $4 AND NOT human_override THEN now() WHEN NOT $4 THEN NULL ELSE override_at END,
            override_by = CASE WHEN $4 THEN $5 ELSE NULL END,
            state_before_takeover = $6,
            last_activity_at = CASE WHEN $7 THEN now() ELSE last_activity_at END,
            version = version + 1, updated_at = now()
         WHERE id = $1 AND version = $2",
    )
    .bind(conversation.id)
    .bind(conversation.version)
    .bind(update.state.as_str())
    .bind(update.human_override)
    .bind(update.override_by.as_deref())
    .bind(update.state_before_takeover.map(State::as_str))
    .bind(update.activity)
    .execute(conn)
    .await?;
    if result.rows_affected() != 1 {
        // Callers hold the row lock, so this means a caller bug, not a race.
        return Err(sqlx::Error::Protocol(
            "conversation version moved under a row lock".into(),
        ));
    }
    Ok(())
}

/// Turns the override on (if it is not already), remembering where the
/// conversation was. Returns the update and its audit rows.
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
    let to = on_event(
        from,
        Event::TakeoverStarted,
        Release {
            before: None,
            to_idle: false,
        },
    )
    .unwrap_or(State::HumanTakeover);
    update.state = to;
    update.human_override = true;
    update.override_by = Some(by.to_owned());
    update.state_before_takeover = Some(from);
    let mut audit = vec![
        Entry::new(actor, "override_changed")
            .states(from, to)
            .reason(reason)
            .detail(serde_json::json!({"human_override": true, "by": by})),
    ];
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
    let release = Release {
        before: conversation.state_before_takeover(),
        to_idle,
    };
    // A conversation under override is always in HUMAN_TAKEOVER; be lenient if not.
    let to =
        on_event(State::HumanTakeover, Event::TakeoverReleased, release).unwrap_or(State::Idle);
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

/// Claims the conversation whose oldest pending event is due and that nobody holds.
/// `SKIP LOCKED` lets concurrent workers pass each other; the lease keeps the claim
/// after this statement commits, and expires if the holder dies.
pub async fn claim(pool: &PgPool, owner: Uuid, lease: Duration) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar(
        "WITH heads AS (
             SELECT DISTINCT ON (conversation_id) conversation_id, id, available_at
             FROM inbox WHERE status = 'pending'
             ORDER BY conversation_id, id
         ), candidate AS (
             SELECT c.id FROM conversations c JOIN heads h ON h.conversation_id = c.id
             WHERE h.available_at <= now()
               AND (c.lease_until IS NULL OR c.lease_until < now())
             ORDER BY h.id
             LIMIT 1
             FOR UPDATE OF c SKIP LOCKED
         )
         UPDATE conversations c SET lease_owner = $1, lease_until = now() + make_interval(secs => $2)
         FROM candidate WHERE c.id = candidate.id
         RETURNING c.id",
    )
    .bind(owner)
    .bind(lease.as_secs_f64())
    .fetch_optional(pool)
    .await
}

/// Extends a lease this worker still holds; false if it was lost.
pub async fn renew(pool: &PgPool, id: Uuid, owner: Uuid, lease: Duration) -> sqlx::Result<bool> {
    let result = sqlx::query(
        "UPDATE conversations SET lease_until = now() + make_interval(secs => $3)
         WHERE id = $1 AND lease_owner = $2",
    )
    .bind(id)
    .bind(owner)
    .bind(lease.as_secs_f64())
    .execute(pool)
    .await?;
    Ok(result.rows_affected() == 1)
}

pub async fn release_lease(pool: &PgPool, id: Uuid, owner: Uuid) -> sqlx::Result<()> {
    sqlx::query("UPDATE conversations SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2")
        .bind(id)
        .bind(owner)
        .execute(pool)
        .await?;
    Ok(())
}

/// The last `limit` transcript lines before the message of `inbox_id` (the one the
/// turn is about, which the proposer gets on its own), oldest first.
pub async fn history(
    db: impl PgExecutor<'_>,
    id: Uuid,
    inbox_id: i64,
    limit: i64,
) -> sqlx::Result<Vec<HistoryEntry>> {
    let mut rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT author, text FROM messages
         WHERE conversation_id = $1
           AND id < coalesce((SELECT min(id) FROM messages WHERE inbox_id = $3 AND direction = 'in'),
                             9223372036854775807)
         ORDER BY id DESC LIMIT $2",
    )
    .bind(id)
    .bind(limit)
    .bind(inbox_id)
    .fetch_all(db)
    .await?;
    rows.reverse();
    Ok(rows
        .into_iter()
        .map(|(role, text)| HistoryEntry { role, text })
        .collect())
}
