//! The seam between the engine and what a bot is for. A profile (the shop, the
//! finance assistant) reads a claimed turn and returns a `Decision`: the
//! conversation's next state, its audit rows, its reply and, boxed, the rows of
//! its own tables to write. The engine runs every profile the same way — claim,
//! decide outside any transaction, commit in one — and never asks which one it
//! holds. A new profile is a folder with a type implementing `Profile` and one
//! line where `startup` registers the profiles.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::PgConnection;

use super::burst::Burst;
use super::claim::TurnSnapshot;
use crate::audit::{Actor, Entry, Kind};
use crate::bots::{Bot, ProfileKind};
use crate::channels::OutPayload;
use crate::conversations::{Conversation, StoredState, Update};
use crate::llm::{CallContext, CallLog};
use crate::notices::Notice;
use crate::outbox::Author;
use crate::progress::{Progress, Recipient};
use crate::proposal::HistoryEntry;

/// Everything a profile reads to decide a turn.
pub struct Turn<'a> {
    pub snapshot: &'a TurnSnapshot,
    pub bot: &'a Bot,
    pub burst: &'a Burst,
    /// Where LLM calls are recorded; the turn's transaction writes them.
    pub calls: &'a CallLog,
    /// "Typing" and "tools" signals to the customer's channel.
    pub progress: &'a dyn Progress,
    /// Longest a proposer may take before the turn asks the customer instead.
    pub proposer_timeout: Duration,
}

impl Turn<'_> {
    pub fn conversation(&self) -> &Conversation {
        &self.snapshot.conversation
    }

    /// The platform id of the message a turn answers, where the platform has one a
    /// typing indicator hangs on (WhatsApp events are stored as `wa:<wamid>`).
    pub fn reply_to(&self) -> Option<&str> {
        self.snapshot
            .events
            .first()
            .and_then(|e| e.external_id.strip_prefix("wa:"))
    }

    /// Whom progress signals of this turn are for.
    pub fn audience(&self) -> Recipient<'_> {
        Recipient {
            bot_id: self.bot.id,
            conversation_id: self.snapshot.conversation.id,
            channel: self.snapshot.channel,
            id: &self.snapshot.recipient,
            message_id: self.reply_to(),
        }
    }

    /// The transcript before the turn, as a proposer is shown it.
    pub fn history(&self) -> Vec<HistoryEntry> {
        self.snapshot
            .history
            .iter()
            .map(|line| HistoryEntry {
                role: line.author.as_str().to_owned(),
                text: line.text.clone(),
            })
            .collect()
    }

    /// What an LLM call of this turn is recorded against and bounded by.
    pub fn call_context(&self) -> CallContext {
        CallContext {
            bot_id: self.bot.id,
            bot_slug: self.bot.slug.clone(),
            conversation_id: self.snapshot.conversation.id,
            inbox_id: self.snapshot.head_id,
            agent_enabled: self.bot.agent_enabled,
            channel: self.snapshot.channel,
            recipient: self.snapshot.recipient.clone(),
            reply_to: self.reply_to().map(str::to_owned),
            tokens_today: u64::try_from(self.snapshot.tokens_today).unwrap_or(0),
            calls: self.calls.clone(),
        }
    }
}

#[async_trait]
pub trait Profile: Send + Sync + 'static {
    /// The bots this profile runs (`bots.profile`).
    fn kind(&self) -> ProfileKind;

    /// Decides a turn, outside any transaction. An error fails the turn: its event
    /// is retried with backoff and finally parked.
    async fn decide(&self, turn: &Turn<'_>) -> anyhow::Result<Decision>;

    /// Queues the profile's own timers as inbox events (the shop's payment
    /// deadlines); the sweeper calls it on every replica. Returns how many.
    async fn sweep(&self) -> anyhow::Result<u64> {
        Ok(0)
    }
}

/// A profile's own rows of a turn (cart lines, orders, finance writes), written by
/// the turn's transaction right after the conversation's compare-and-set.
#[async_trait]
pub trait Effects: Send {
    /// Whether what `write` returns goes out after the decision's reply (a
    /// chart after its figures) instead of replacing it.
    fn follows_reply(&self) -> bool {
        false
    }

    /// Writes them, adding to the audit rows; returns the reply when it is
    /// composed from what was written (an order's number), which then replaces
    /// the decision's.
    async fn write(
        self: Box<Self>,
        tx: &mut PgConnection,
        at: &Written<'_>,
        audit: &mut Vec<Entry>,
    ) -> anyhow::Result<Option<(Author, OutPayload)>>;
}

/// What effects are written for.
pub struct Written<'a> {
    pub conversation: &'a Conversation,
    pub bot: &'a Bot,
    /// The inbox event the turn answers.
    pub head_id: i64,
}

/// Everything a turn's commit writes.
pub struct Decision {
    /// A short name of what the turn did, for metric labels.
    pub kind: &'static str,
    pub update: Update,
    pub audit: Vec<Entry>,
    pub effects: Option<Box<dyn Effects>>,
    pub reply: Option<(Author, OutPayload)>,
    /// What the merchant's own chat hears about this turn. A turn that hands the
    /// conversation to a person is told without asking (see `commit`).
    pub notice: Option<Notice>,
}

impl Decision {
    /// Changes nothing yet: the conversation as it is.
    pub fn keep(kind: &'static str, conversation: &Conversation) -> Decision {
        Decision {
            kind,
            update: Update::keep(conversation),
            audit: Vec::new(),
            effects: None,
            reply: None,
            notice: None,
        }
    }

    /// A customer message moves the conversation to `start` before anything else
    /// (the shop's COMPLETED becomes IDLE); audited when it changes.
    pub fn begin(mut self, conversation: &Conversation, start: StoredState) -> Decision {
        self.audit.extend(Entry::state_change(
            Actor::Customer,
            conversation.state(),
            start,
            "new message after completion",
        ));
        self.update.state = start;
        self.update.activity = true;
        self
    }

    pub fn say(&mut self, author: Author, text: impl Into<String>) {
        self.reply = Some((
            author,
            OutPayload {
                template: None,
                text: text.into(),
                choices: Vec::new(),
                file: None,
            },
        ));
    }

    /// The customer asked for a person: the override goes on and `notice` goes out
    /// (a system message, so the override does not silence it).
    pub fn hand_to_person(&mut self, conversation: &Conversation, notice: &str) {
        self.audit
            .push(Entry::new(Actor::Backend, Kind::EventDetected).action(ESCALATION_REQUESTED));
        let (takeover, rows) = crate::handoff::to_person(
            conversation,
            self.update.state,
            Actor::Customer,
            "escalation requested",
        );
        self.update = takeover;
        self.audit.extend(rows);
        self.say(Author::System, notice);
    }
}

/// The event a request for a person is audited as, in every profile.
pub const ESCALATION_REQUESTED: &str = "ESCALATION_REQUESTED";

/// The profiles this process runs, by kind.
#[derive(Clone, Default)]
pub struct Profiles {
    by_kind: HashMap<ProfileKind, Arc<dyn Profile>>,
}

impl Profiles {
    pub fn new() -> Self {
        Profiles::default()
    }

    pub fn with(mut self, profile: Arc<dyn Profile>) -> Self {
        self.by_kind.insert(profile.kind(), profile);
        self
    }

    pub fn get(&self, kind: ProfileKind) -> Option<&Arc<dyn Profile>> {
        self.by_kind.get(&kind)
    }

    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn Profile>> {
        self.by_kind.values()
    }
}
