//! Wake-ups from PostgreSQL LISTEN/NOTIFY, fanned out in-process. They only make
//! things prompt: every consumer also polls, so a lost notification delays, never loses.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
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
        let tx = self.tx.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    result = listen(&pool, &tx) => {
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

/// Web-chat streams open in this process, by conversation, with the notifier they
/// listen on: a progress signal for one of them is handed over in process instead
/// of through a PostgreSQL notification (a transaction of its own). Process-wide,
/// like the streams themselves.
static LOCAL_STREAMS: LazyLock<Mutex<Streams>> = LazyLock::new(Default::default);

/// Open streams (how many) and the notifier they listen on, by conversation.
type Streams = HashMap<Uuid, (usize, broadcast::Sender<Wake>)>;

fn local_streams() -> std::sync::MutexGuard<'static, Streams> {
    LOCAL_STREAMS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Notifier {
    /// Marks a stream of `conversation_id` listening on this notifier as open in
    /// this process, until the returned guard drops.
    pub fn watch(&self, conversation_id: Uuid) -> Watching {
        local_streams()
            .entry(conversation_id)
            .or_insert_with(|| (0, self.tx.clone()))
            .0 += 1;
        Watching { conversation_id }
    }
}

/// A stream's mark in this process's list (see [`Notifier::watch`]).
#[derive(Debug)]
pub struct Watching {
    conversation_id: Uuid,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let mut streams = local_streams();
        if let Some((count, _)) = streams.get_mut(&self.conversation_id) {
            *count -= 1;
            if *count == 0 {
                streams.remove(&self.conversation_id);
            }
        }
    }
}

/// Hands `wake` to the streams of `conversation_id` open in this process; false
/// when none is (the caller notifies through PostgreSQL, for other replicas).
pub fn deliver_here(conversation_id: Uuid, wake: Wake) -> bool {
    match local_streams().get(&conversation_id) {
        Some((_, tx)) => tx.send(wake).is_ok(),
        None => false,
    }
}

impl Default for Notifier {
    fn default() -> Self {
        Self::new()
    }
}

async fn listen(pool: &PgPool, tx: &broadcast::Sender<Wake>) -> sqlx::Result<()> {
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
    let _ = tx.send(Wake::Resync);
    loop {
        let notification = listener.recv().await?;
        if notification.channel() == "tendero_delivered" {
            match serde_json::from_str::<Delivered>(notification.payload()) {
                Ok(delivered) => {
                    let _ = tx.send(Wake::Delivered(std::sync::Arc::new(delivered)));
                }
                // Readers look for themselves on a resync.
                Err(_) => {
                    let _ = tx.send(Wake::Resync);
                }
            }
            continue;
        }
        if notification.channel() == PROGRESS_CHANNEL {
            // A lost signal is only a missing hint; nothing to resync.
            if let Ok(signal) = serde_json::from_str(notification.payload()) {
                let _ = tx.send(Wake::Progress(std::sync::Arc::new(signal)));
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
        // No receivers is fine: nobody is waiting right now.
        let _ = tx.send(wake);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_is_handed_over_in_process_only_while_a_stream_watches() {
        let notifier = Notifier::new();
        let mut wakes = notifier.subscribe();
        let id = Uuid::new_v4();
        assert!(!deliver_here(id, Wake::Resync), "no stream: not here");

        let first = notifier.watch(id);
        let second = notifier.watch(id);
        assert!(deliver_here(id, Wake::Inbox(id)));
        assert_eq!(wakes.try_recv().unwrap(), Wake::Inbox(id));
        drop(first);
        assert!(deliver_here(id, Wake::Resync), "one stream still open");
        assert_eq!(wakes.try_recv().unwrap(), Wake::Resync);
        drop(second);
        assert!(!deliver_here(id, Wake::Resync), "the last stream closed");
        assert!(wakes.try_recv().is_err());
    }
}
