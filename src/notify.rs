//! Wake-ups from PostgreSQL LISTEN/NOTIFY, fanned out in-process. They only make
//! things prompt: every consumer also polls, so a lost notification delays, never loses.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// A web-chat message as its commit announced it: readers show it without a query.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Delivered {
    pub conversation_id: Uuid,
    pub bot_id: Uuid,
    /// The web-chat session it went to: a stream of that session that has not
    /// learnt its conversation yet learns it from here.
    #[serde(default)]
    pub session: Option<String>,
    pub id: i64,
    pub author: crate::outbox::Author,
    pub payload: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Wake {
    /// New inbound work for a conversation.
    Inbox(Uuid),
    /// New outbound work queued.
    OutboxPending(Uuid),
    /// A message was delivered to a conversation (web chat streams read it).
    OutboxSent(Uuid),
    /// A web-chat message was delivered, with its content. Every writer of a
    /// conversation's outbox holds the conversation's row lock until it commits, so
    /// these arrive in id order per conversation.
    Delivered(std::sync::Arc<Delivered>),
    /// A turn is working on a reply (web-chat streams show it).
    Progress(std::sync::Arc<Signal>),
    /// A web-chat session's first message made this conversation (sent only to
    /// that session's streams).
    Joined(Uuid),
    /// The listener (re)connected: notifications may have been missed, look again.
    Resync,
}

/// What the turn is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Composing the answer (waiting on the LLM, or a turn that runs tools).
    Typing,
    /// Running these tools.
    Tools { tools: Vec<String> },
}

impl Step {
    /// The SSE event name.
    pub fn event(&self) -> &'static str {
        match self {
            Step::Typing => "typing",
            Step::Tools { .. } => "tools",
        }
    }
}

/// A progress signal as the notification carries it to event streams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signal {
    pub conversation_id: Uuid,
    #[serde(flatten)]
    pub step: Step,
}

/// The notification channel progress signals travel on to web-chat streams.
pub const PROGRESS_CHANNEL: &str = "tendero_progress";

#[derive(Clone)]
pub struct Notifier {
    tx: broadcast::Sender<Wake>,
}

impl Notifier {
    pub fn new() -> Self {
        let (tx, _) = broadcast::channel(1024);
        Notifier { tx }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Wake> {
        self.tx.subscribe()
    }

    /// Listens until cancelled, reconnecting after errors.
    pub fn spawn(&self, pool: PgPool, cancel: CancellationToken) -> tokio::task::JoinHandle<()> {
        let notifier = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    result = listen(&pool, &notifier) => {
                        if let Err(err) = result {
                            tracing::warn!(%err, "notification listener failed; polling until it reconnects");
                        }
                    }
                }
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        })
    }
}

/// Where a web-chat stream listens: its conversation's channel, or, before the
/// session has a conversation, the session's own (told when it gets one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StreamKey {
    Conversation(Uuid),
    /// A bot and a session that has not written yet.
    Session(Uuid, String),
}

/// Web-chat streams open in this process, each key with its own small channel:
/// a delivery or a signal wakes only the streams of its conversation, and an idle
/// stream is woken by nothing at all. Process-wide, like the streams themselves,
/// so a turn's progress reaches a stream open here without a notification.
#[derive(Default)]
struct Streams {
    open: HashMap<StreamKey, (usize, broadcast::Sender<Wake>)>,
}

static STREAMS: LazyLock<Mutex<Streams>> = LazyLock::new(Default::default);

fn streams() -> std::sync::MutexGuard<'static, Streams> {
    STREAMS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Hands `wake` to the streams of `conversation_id` open in this process; false
/// when none is (the caller notifies through PostgreSQL, for other replicas).
pub fn deliver_here(conversation_id: Uuid, wake: Wake) -> bool {
    match streams()
        .open
        .get(&StreamKey::Conversation(conversation_id))
    {
        Some((_, tx)) => tx.send(wake).is_ok(),
        None => false,
    }
}

/// A session's first message was accepted into `conversation_id`: its streams
/// open here move to the conversation (no query per stream).
pub fn joined(bot_id: Uuid, session: &str, conversation_id: Uuid) {
    let key = StreamKey::Session(bot_id, session.to_owned());
    if let Some((_, tx)) = streams().open.get(&key) {
        let _ = tx.send(Wake::Joined(conversation_id));
    }
}

/// Wakes one key's streams may fall behind by before they look again.
const STREAM_BACKLOG: usize = 64;

impl Notifier {
    /// Opens a stream on `key`: its wakes, and its mark as open in this process
    /// until the guard drops.
    pub fn watch(&self, key: StreamKey) -> (Watching, broadcast::Receiver<Wake>) {
        let mut streams = streams();
        let entry = streams
            .open
            .entry(key.clone())
            .or_insert_with(|| (0, broadcast::channel(STREAM_BACKLOG).0));
        entry.0 += 1;
        let receiver = entry.1.subscribe();
        (Watching { key }, receiver)
    }

    /// Fans a wake out: to the process's listeners (the claim loop, the
    /// dispatcher, the console) and to the web-chat streams it is for.
    fn publish(&self, wake: Wake) {
        match &wake {
            Wake::Delivered(delivered) => {
                let here = deliver_here(delivered.conversation_id, wake.clone());
                if !here && let Some(session) = &delivered.session {
                    joined(delivered.bot_id, session, delivered.conversation_id);
                }
            }
            Wake::OutboxSent(id) => {
                deliver_here(*id, wake.clone());
            }
            Wake::Progress(signal) => {
                deliver_here(signal.conversation_id, wake.clone());
            }
            // Every open stream looks again (notifications may have been missed).
            Wake::Resync => {
                for (_, tx) in streams().open.values() {
                    let _ = tx.send(Wake::Resync);
                }
            }
            _ => {}
        }
        // No receivers is fine: nobody is waiting right now.
        let _ = self.tx.send(wake);
    }
}

/// A stream's mark in this process's list (see [`Notifier::watch`]).
#[derive(Debug)]
pub struct Watching {
    key: StreamKey,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let mut streams = streams();
        if let Some((count, _)) = streams.open.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                streams.open.remove(&self.key);
            }
        }
    }
}

impl Default for Notifier {
    fn default() -> Self {
        Self::new()
    }
}

async fn listen(pool: &PgPool, notifier: &Notifier) -> sqlx::Result<()> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener
        .listen_all([
            "tendero_inbox",
            "tendero_outbox",
            "tendero_outbox_pending",
            "tendero_delivered",
            PROGRESS_CHANNEL,
        ])
        .await?;
    notifier.publish(Wake::Resync);
    loop {
        let notification = listener.recv().await?;
        if notification.channel() == "tendero_delivered" {
            match serde_json::from_str::<Delivered>(notification.payload()) {
                Ok(delivered) => notifier.publish(Wake::Delivered(Arc::new(delivered))),
                // Readers look for themselves on a resync.
                Err(_) => notifier.publish(Wake::Resync),
            }
            continue;
        }
        if notification.channel() == PROGRESS_CHANNEL {
            // A lost signal is only a missing hint; nothing to resync.
            if let Ok(signal) = serde_json::from_str(notification.payload()) {
                notifier.publish(Wake::Progress(Arc::new(signal)));
            }
            continue;
        }
        let Ok(id) = notification.payload().parse::<Uuid>() else {
            continue;
        };
        let wake = match notification.channel() {
            "tendero_inbox" => Wake::Inbox(id),
            "tendero_outbox_pending" => Wake::OutboxPending(id),
            _ => Wake::OutboxSent(id),
        };
        notifier.publish(wake);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wake_reaches_only_the_streams_it_is_for() {
        let notifier = Notifier::new();
        let (mine, other) = (Uuid::new_v4(), Uuid::new_v4());
        assert!(!deliver_here(mine, Wake::Resync), "no stream: not here");
        let (first, mut first_rx) = notifier.watch(StreamKey::Conversation(mine));
        let (_other, mut other_rx) = notifier.watch(StreamKey::Conversation(other));
        let bot = Uuid::new_v4();
        let (_new, mut new_rx) = notifier.watch(StreamKey::Session(bot, "s-1".into()));
        let (second, mut second_rx) = notifier.watch(StreamKey::Conversation(mine));
        notifier.publish(Wake::OutboxSent(mine));
        assert_eq!(first_rx.try_recv().unwrap(), Wake::OutboxSent(mine));
        assert_eq!(second_rx.try_recv().unwrap(), Wake::OutboxSent(mine));
        assert!(
            other_rx.try_recv().is_err(),
            "another conversation's stream slept"
        );
        assert!(
            new_rx.try_recv().is_err(),
            "a session without a conversation slept"
        );
        // The session's first message, accepted here.
        joined(bot, "s-1", other);
        assert_eq!(new_rx.try_recv().unwrap(), Wake::Joined(other));
        // From another replica: a delivery names the session.
        let delivered = Wake::Delivered(Arc::new(Delivered {
            conversation_id: Uuid::new_v4(),
            bot_id: bot,
            session: Some("s-1".into()),
            id: 1,
            author: crate::outbox::Author::Bot,
            payload: serde_json::json!({"text": "hola"}),
        }));
        notifier.publish(delivered);
        assert!(matches!(new_rx.try_recv().unwrap(), Wake::Joined(_)));
        notifier.publish(Wake::Resync);
        assert_eq!(
            other_rx.try_recv().unwrap(),
            Wake::Resync,
            "a resync reaches everyone"
        );
        let open = |id| {
            streams()
                .open
                .get(&StreamKey::Conversation(id))
                .map(|(n, _)| *n)
        };
        assert_eq!(open(mine), Some(2));
        drop(first);
        assert!(deliver_here(mine, Wake::Resync), "one stream still open");
        drop(second);
        assert!(!deliver_here(mine, Wake::Resync), "the last stream closed");
        assert_eq!(open(mine), None, "its channel is gone");
    }
}
