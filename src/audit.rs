//! The audit trail: one row per proposed, accepted, rejected and executed action and
//! per state or override change, written in the transaction of the change itself.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use crate::conversations::StoredState;

/// Who caused an audited change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum Actor {
    /// A proposer (rules or LLM).
    Agent,
    /// Tendero's own rules: the matrix, detectors, timeouts.
    Backend,
    Customer,
    Merchant,
}

impl Actor {
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::Agent => "agent",
            Actor::Backend => "backend",
            Actor::Customer => "customer",
            Actor::Merchant => "merchant",
        }
    }
}

/// What an audit row records. Written and read as these names; a stored name
/// outside the list is an error, never silently another kind.
macro_rules! kinds {
    ($($variant:ident => $name:literal,)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
        #[serde(rename_all = "snake_case")]
        #[sqlx(type_name = "text", rename_all = "snake_case")]
        pub enum Kind {
            $($variant,)*
        }

        impl Kind {
            pub const ALL: &[Kind] = &[$(Kind::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Kind::$variant => $name,)*
                }
            }
        }
    };
}

kinds! {
    ActionAccepted => "action_accepted",
    ActionExecuted => "action_executed",
    ActionProposed => "action_proposed",
    ActionRejected => "action_rejected",
    ChartDrawn => "chart_drawn",
    ConfirmationAnswer => "confirmation_answer",
    ConfirmationAsked => "confirmation_asked",
    DataErased => "data_erased",
    DisclaimerAdded => "disclaimer_added",
    DraftDiscarded => "draft_discarded",
    DraftPatched => "draft_patched",
    EventDetected => "event_detected",
    EventParked => "event_parked",
    HumanReply => "human_reply",
    KnowledgeAnswered => "knowledge_answered",
    MessageClassified => "message_classified",
    MessageRewritten => "message_rewritten",
    OrderStatusChanged => "order_status_changed",
    OutboundNotSent => "outbound_not_sent",
    OutboundRetried => "outbound_retried",
    OutboundDiscarded => "outbound_discarded",
    OverrideChanged => "override_changed",
    PaymentProofReceived => "payment_proof_received",
    PersonOffered => "person_offered",
    PhoneEcho => "phone_echo",
    RateLimited => "rate_limited",
    ReplyReplaced => "reply_replaced",
    SampleHistorySeeded => "sample_history_seeded",
    StateChanged => "state_changed",
    SuggestedStateIgnored => "suggested_state_ignored",
    TimeoutSkipped => "timeout_skipped",
    ToolAdded => "tool_added",
    ToolDropped => "tool_dropped",
    ToolExecuted => "tool_executed",
    ToolFailed => "tool_failed",
    TurnSkipped => "turn_skipped",
    WriteCancelled => "write_cancelled",
    WriteExecuted => "write_executed",
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an audit kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown audit {what} `{name}`")]
pub struct UnknownName {
    pub what: &'static str,
    pub name: String,
}

impl std::str::FromStr for Kind {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL
            .iter()
            .copied()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownName {
                what: "kind",
                name: s.to_owned(),
            })
    }
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub actor: Actor,
    pub kind: Kind,
    pub action: Option<String>,
    pub from_state: Option<StoredState>,
    pub to_state: Option<StoredState>,
    pub reason: Option<String>,
    pub detail: Value,
}

impl Entry {
    pub fn new(actor: Actor, kind: Kind) -> Self {
        Entry {
            actor,
            kind,
            action: None,
            from_state: None,
            to_state: None,
            reason: None,
            detail: Value::Object(Default::default()),
        }
    }

    pub fn action(mut self, action: impl Into<String>) -> Self {
        self.action = Some(action.into());
        self
    }

    pub fn states(mut self, from: impl Into<StoredState>, to: impl Into<StoredState>) -> Self {
        self.from_state = Some(from.into());
        self.to_state = Some(to.into());
        self
    }

    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    pub fn detail(mut self, detail: Value) -> Self {
        self.detail = detail;
        self
    }

    /// A state change row, if the state changed at all.
    pub fn state_change(
        actor: Actor,
        from: impl Into<StoredState>,
        to: impl Into<StoredState>,
        reason: &str,
    ) -> Option<Self> {
        let (from, to) = (from.into(), to.into());
        (from != to).then(|| {
            Entry::new(actor, Kind::StateChanged)
                .states(from, to)
                .reason(reason)
        })
    }
}

/// Where audit rows of one change belong.
#[derive(Debug, Clone, Copy)]
pub struct Scope {
    pub bot_id: Uuid,
    pub conversation_id: Option<Uuid>,
    pub inbox_id: Option<i64>,
}

pub async fn record(conn: &mut PgConnection, scope: Scope, entries: &[Entry]) -> sqlx::Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut builder = sqlx::QueryBuilder::new(
        "INSERT INTO audit_log (bot_id, conversation_id, inbox_id, actor, kind, action, from_state, to_state, reason, detail) ",
    );
    builder.push_values(entries, |mut row, e| {
        row.push_bind(scope.bot_id)
            .push_bind(scope.conversation_id)
            .push_bind(scope.inbox_id)
            .push_bind(e.actor)
            .push_bind(e.kind)
            .push_bind(e.action.as_deref())
            .push_bind(e.from_state)
            .push_bind(e.to_state)
            .push_bind(e.reason.as_deref())
            .push_bind(&e.detail);
    });
    builder.build().execute(conn).await?;
    Ok(())
}

/// An audit row as a merchant reads it.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Row {
    pub id: i64,
    pub actor: Actor,
    pub kind: Kind,
    pub action: Option<String>,
    pub from_state: Option<StoredState>,
    pub to_state: Option<StoredState>,
    pub reason: Option<String>,
    pub detail: Value,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// The latest `limit` rows of a conversation, oldest first.
pub async fn of_conversation(
    db: impl PgExecutor<'_>,
    conversation_id: Uuid,
    limit: i64,
) -> sqlx::Result<Vec<Row>> {
    let mut rows: Vec<Row> = sqlx::query_as(
        "SELECT id, actor, kind, action, from_state, to_state, reason, detail, created_at
         FROM audit_log WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2",
    )
    .bind(conversation_id)
    .bind(limit)
    .fetch_all(db)
    .await?;
    rows.reverse();
    Ok(rows)
}

/// A conversation's rows, newest first: of one kind if given, older than `before`.
pub async fn query(
    db: impl PgExecutor<'_>,
    conversation_id: Uuid,
    kind: Option<Kind>,
    before: Option<i64>,
    limit: i64,
) -> sqlx::Result<Vec<Row>> {
    sqlx::query_as(
        "SELECT id, actor, kind, action, from_state, to_state, reason, detail, created_at
         FROM audit_log
         WHERE conversation_id = $1 AND ($2::text IS NULL OR kind = $2)
           AND ($3::bigint IS NULL OR id < $3)
         ORDER BY id DESC LIMIT $4",
    )
    .bind(conversation_id)
    .bind(kind)
    .bind(before)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// Blanks the details of a conversation's audit trail (an erasure the person
/// confirmed): what happened and when stay, the amounts and words go.
pub async fn forget_details(
    conn: &mut PgConnection,
    bot_id: Uuid,
    conversation_id: Uuid,
) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "UPDATE audit_log SET detail = '{}'::jsonb, reason = NULL
         WHERE bot_id = $1 AND conversation_id = $2",
    )
    .bind(bot_id)
    .bind(conversation_id)
    .execute(conn)
    .await?
    .rows_affected())
}
