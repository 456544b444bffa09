//! Wake-ups from PostgreSQL LISTEN/NOTIFY, fanned out in-process. They only make
//! things prompt: every consumer also polls, so a lost notification delays, never loses.

use std::time::Duration;

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
    Progress(std::sync::Arc<crate::progress::Signal>),
    /// The listener (re)connected: notifications may have been missed, look again.
    Resync,
}

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
            crate::progress::CHANNEL,
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
        if notification.channel() == crate::progress::CHANNEL {
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
