//! Signals that a turn is working on an answer: web-chat streams get `typing`
//! and `tools` events (handed over in process when the customer's stream is open
//! here, else through a PostgreSQL notification, so any replica's stream sees
//! them), Telegram chats see "typing…" (`sendChatAction`), WhatsApp chats the
//! Cloud API's typing indicator on the customer's message. Best effort and
//! bounded: a lost signal only means the user waits without a hint.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::PgPool;
use uuid::Uuid;

use crate::channels::ChannelKind;
use crate::channels::telegram::TelegramChannel;
use crate::channels::whatsapp::WhatsAppChannel;
use crate::notify::{PROGRESS_CHANNEL as CHANNEL, Wake};
pub use crate::notify::{Signal, Step};

/// Whom a signal is for.
#[derive(Debug, Clone, Copy)]
pub struct Recipient<'a> {
    pub bot_id: Uuid,
    pub conversation_id: Uuid,
    pub channel: ChannelKind,
    /// The customer's id on the channel.
    pub id: &'a str,
    /// The platform's id of the message being answered (WhatsApp's indicator
    /// hangs on it).
    pub message_id: Option<&'a str>,
}

impl Recipient<'_> {
    /// How often "typing" must be said again while the wait goes on: Telegram
    /// shows it about five seconds, WhatsApp up to 25.
    pub fn typing_refresh(&self) -> Duration {
        match self.channel {
            ChannelKind::Telegram => Duration::from_millis(4500),
            ChannelKind::Whatsapp | ChannelKind::Webchat => Duration::from_secs(20),
        }
    }
}

/// Says "typing" to `to` until `work` finishes, then returns its output.
pub async fn typing_while<F: std::future::Future>(
    progress: &dyn Progress,
    to: Recipient<'_>,
    work: F,
) -> F::Output {
    let keep_typing = async {
        loop {
            progress.show(to, &Step::Typing).await;
            tokio::time::sleep(to.typing_refresh()).await;
        }
    };
    tokio::pin!(work);
    tokio::select! {
        biased;
        output = &mut work => output,
        never = keep_typing => never,
    }
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

/// Longest a signal may hold up a turn.
const BOUND: Duration = Duration::from_millis(500);

pub struct ChannelProgress {
    pool: PgPool,
    telegram: Arc<TelegramChannel>,
    whatsapp: Arc<WhatsAppChannel>,
}

impl ChannelProgress {
    pub fn new(
        pool: PgPool,
        telegram: Arc<TelegramChannel>,
        whatsapp: Arc<WhatsAppChannel>,
    ) -> Self {
        ChannelProgress {
            pool,
            telegram,
            whatsapp,
        }
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
                    let local = Wake::Progress(Arc::new(signal.clone()));
                    // The customer's stream is open here: no notification needed.
                    if crate::notify::deliver_here(to.conversation_id, local) {
                        return;
                    }
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
                ChannelKind::Telegram if *step == Step::Typing => {
                    self.telegram.typing(to.bot_id, to.id).await
                }
                ChannelKind::Whatsapp if *step == Step::Typing => {
                    if let Some(message_id) = to.message_id {
                        self.whatsapp.typing(to.bot_id, message_id).await
                    }
                }
                ChannelKind::Telegram | ChannelKind::Whatsapp => {}
            }
        };
        if tokio::time::timeout(BOUND, sent).await.is_err() {
            tracing::debug!("progress signal timed out");
        }
    }
}
