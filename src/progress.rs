//! Signals that a turn is working on an answer: web-chat streams get `thinking`
//! and `tools` events (through a PostgreSQL notification, so any replica's stream
//! sees them), Telegram chats see "typing". Best effort and bounded: a lost signal
//! only means the user waits without a hint.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use uuid::Uuid;

use crate::channels::telegram::TelegramChannel;
use crate::inbox::ChannelKind;

/// What the turn is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Reading the message (an LLM call, or a turn that will run tools).
    Thinking,
    /// Running these tools.
    Tools { tools: Vec<String> },
}

impl Step {
    /// The SSE event name.
    pub fn event(&self) -> &'static str {
        match self {
            Step::Thinking => "thinking",
            Step::Tools { .. } => "tools",
        }
    }
}

/// Whom a signal is for.
#[derive(Debug, Clone, Copy)]
pub struct Recipient<'a> {
    pub bot_id: Uuid,
    pub conversation_id: Uuid,
    pub channel: ChannelKind,
    /// The customer's id on the channel.
    pub id: &'a str,
}

/// A progress signal as the notification carries it to event streams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signal {
    pub conversation_id: Uuid,
    #[serde(flatten)]
    pub step: Step,
}

#[async_trait]
pub trait Progress: Send + Sync + 'static {
    async fn show(&self, to: Recipient<'_>, step: &Step);
}

/// For tools and tests that need no signals.
pub struct NoProgress;

#[async_trait]
impl Progress for NoProgress {
    async fn show(&self, _to: Recipient<'_>, _step: &Step) {}
}

/// The notification channel web-chat streams listen on.
pub const CHANNEL: &str = "tendero_progress";

/// Longest a signal may hold up a turn.
const BOUND: Duration = Duration::from_millis(500);

pub struct ChannelProgress {
    pool: PgPool,
    telegram: Arc<TelegramChannel>,
}

impl ChannelProgress {
    pub fn new(pool: PgPool, telegram: Arc<TelegramChannel>) -> Self {
        ChannelProgress { pool, telegram }
    }
}

#[async_trait]
impl Progress for ChannelProgress {
    async fn show(&self, to: Recipient<'_>, step: &Step) {
        let sent = async {
            match to.channel {
                ChannelKind::Webchat => {
                    let signal = Signal {
                        conversation_id: to.conversation_id,
                        step: step.clone(),
                    };
                    let payload = serde_json::to_string(&signal).expect("signal serializes");
                    if let Err(err) = sqlx::query("SELECT pg_notify($1, $2)")
                        .bind(CHANNEL)
                        .bind(payload)
                        .execute(&self.pool)
                        .await
                    {
                        tracing::debug!(%err, "progress notification failed");
                    }
                }
                // "typing" lasts about five seconds on Telegram: once a turn.
                ChannelKind::Telegram if *step == Step::Thinking => {
                    self.telegram.typing(to.bot_id, to.id).await
                }
                ChannelKind::Telegram => {}
                ChannelKind::Whatsapp => {}
            }
        };
        if tokio::time::timeout(BOUND, sent).await.is_err() {
            tracing::debug!("progress signal timed out");
        }
    }
}
