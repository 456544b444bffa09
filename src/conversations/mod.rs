//! The `conversations` table: state with a compare-and-set version, the human
//! override, and the merchant's list. The rules of taking a conversation over and
//! handing it back are `handoff`; the per-conversation lease and the claim that
//! reads a turn's snapshot belong to the engine (`engine::claim`).

pub mod reads;
mod state;

pub use state::{ForeignState, StoredState, UnknownState};

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use crate::channels::ChannelKind;

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

/// Takeovers their bot ends on its own: overridden longer than the bot's
/// `takeover_idle_secs` since the later of the takeover and the merchant's last
/// message. With the lock held, `still` re-checks one (`Some(idle secs)`).
pub async fn idle_takeovers(
    db: impl sqlx::PgExecutor<'_>,
    still: Option<Uuid>,
    limit: i64,
) -> sqlx::Result<Vec<(Uuid, i32)>> {
    sqlx::query_as(
        "SELECT c.id, b.takeover_idle_secs FROM conversations c JOIN bots b ON b.id = c.bot_id
         WHERE c.human_override AND b.takeover_idle_secs IS NOT NULL
           AND ($1::uuid IS NULL OR c.id = $1)
           AND greatest(coalesce(c.override_at, c.updated_at),
                        coalesce((SELECT max(o.created_at) FROM outbox o
                                  WHERE o.conversation_id = c.id AND o.author = 'human'),
                                 '-infinity'))
               < now() - make_interval(secs => b.takeover_idle_secs)
         ORDER BY c.override_at
         LIMIT $2",
    )
    .bind(still)
    .bind(limit)
    .fetch_all(db)
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
        "INSERT INTO conversations (bot_id, contact_id) VALUES ($1, $2) ON CONFLICT (bot_id, contact_id) DO NOTHING RETURNING id",
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

/// Corrects the state a turn just saved, in the turn's own transaction (it holds
/// the row lock): what the state assumed could not be written (an order whose
/// units ran out meanwhile).
pub async fn restate(conn: &mut PgConnection, id: Uuid, state: StoredState) -> sqlx::Result<()> {
    sqlx::query("UPDATE conversations SET fsm_state = $2 WHERE id = $1")
        .bind(id)
        .bind(state.as_str())
        .execute(conn)
        .await?;
    Ok(())
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

/// A conversation in a merchant's list.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Listed {
    pub id: Uuid,
    pub bot: String,
    pub channel: ChannelKind,
    pub state: StoredState,
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
    /// The latest line of the transcript (either side), cut short.
    pub last_message: Option<String>,
    /// The latest order: its number, total and currency.
    pub order_number: Option<i64>,
    pub order_total_minor: Option<i64>,
    pub order_currency: Option<String>,
    /// `updated_at` in the bot's time zone, as the shop reads it (`25/11 14:05`).
    pub updated_local: String,
    /// The customer's messages the team has not seen (counted up to 100).
    pub unread: i64,
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
    /// Rows skipped (a page after the first).
    pub offset: i64,
    /// Chats waiting for a person first, then proofs to review, then the rest.
    pub pinned: bool,
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
                              AND o.status IN ('failed', 'dead')) AS undelivered,
                    (SELECT left(m.text, 140) FROM messages m WHERE m.conversation_id = c.id
                     ORDER BY m.conversation_id DESC, m.id DESC LIMIT 1) AS last_message,
                    lo.number AS order_number, lo.total_minor AS order_total_minor,
                    lo.currency::text AS order_currency,
                    to_char(c.updated_at AT TIME ZONE b.timezone, 'DD/MM HH24:MI') AS updated_local,
                    (SELECT count(*) FROM (
                         SELECT 1 FROM messages m
                         WHERE m.conversation_id = c.id AND m.direction = 'in'
                           AND m.id > coalesce((SELECT r.seen_message_id FROM conversation_reads r
                                                WHERE r.conversation_id = c.id), 0)
                         ORDER BY m.conversation_id DESC, m.id DESC LIMIT 100) u) AS unread
             FROM conversations c JOIN bots b ON b.id = c.bot_id JOIN contacts ct ON ct.id = c.contact_id
             LEFT JOIN LATERAL (SELECT number, total_minor, currency FROM orders o
                                WHERE o.conversation_id = c.id ORDER BY o.created_at DESC LIMIT 1) lo ON true
             WHERE b.merchant_id = $1 AND ($2::text IS NULL OR b.slug = $2)
               AND ($3::text IS NULL OR c.fsm_state = $3)
               AND ($4::text IS NULL OR ct.display_name ILIKE $4 OR ct.external_id ILIKE $4
                    OR EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.text ILIKE $4))
         ) listed
         WHERE NOT $5 OR escalated OR proof_waiting OR undelivered
         ORDER BY CASE WHEN $7 THEN escalated ELSE false END DESC,
                  CASE WHEN $7 THEN proof_waiting ELSE false END DESC,
                  updated_at DESC
         LIMIT $6 OFFSET $8",
    )
    .bind(merchant_id)
    .bind(filter.bot)
    .bind(filter.state.map(StoredState::as_str))
    .bind(pattern)
    .bind(filter.needs_me)
    .bind(filter.limit)
    .bind(filter.pinned)
    .bind(filter.offset)
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
/// Whether a client-named web-chat session (the form before tokens) has a
/// conversation still inside its bot's session timeout: only such a session may
/// go on without a token, until it goes quiet.
pub async fn webchat_session_is_live(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    session: &str,
) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (
             SELECT 1 FROM conversations c JOIN contacts ct ON ct.id = c.contact_id
             JOIN bots b ON b.id = c.bot_id
             WHERE ct.bot_id = $1 AND ct.channel = 'webchat' AND ct.external_id = $2
               AND c.last_activity_at > now() - make_interval(secs => b.session_timeout_secs))",
    )
    .bind(bot_id)
    .bind(session)
    .fetch_one(db)
    .await
}

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
