//! `GET /dashboard/events`: a `changed` event whenever one of the merchant's
//! conversations gets a message in or out (fed by PostgreSQL LISTEN/NOTIFY on
//! any replica). Pages refetch what they show; an event carries no data beyond
//! the conversation id.

use std::collections::HashMap;
use std::convert::Infallible;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;
use serde_json::json;
use tokio::sync::broadcast;
use uuid::Uuid;

use super::Console;
use super::session::Session;
use crate::notify::Wake;

struct Feed {
    wakes: broadcast::Receiver<Wake>,
    pool: sqlx::PgPool,
    merchant_id: Uuid,
    shutdown: tokio_util::sync::CancellationToken,
    /// Conversations already looked up: whether they are this merchant's.
    owned: HashMap<Uuid, bool>,
}

impl Feed {
    async fn owns(&mut self, id: Uuid) -> bool {
        if let Some(known) = self.owned.get(&id) {
            return *known;
        }
        if self.owned.len() > 10_000 {
            self.owned.clear();
        }
        let owned = crate::merchant::conversations::is_theirs(&self.pool, self.merchant_id, id)
            .await
            .unwrap_or(false);
        self.owned.insert(id, owned);
        owned
    }

    async fn next(&mut self) -> Option<Event> {
        loop {
            let wake = tokio::select! {
                wake = self.wakes.recv() => wake,
                _ = self.shutdown.cancelled() => return None,
            };
            let id = match wake {
                Ok(Wake::Inbox(id) | Wake::OutboxPending(id) | Wake::OutboxSent(id)) => Some(id),
                Ok(Wake::Delivered(delivered)) => Some(delivered.conversation_id),
                // Missed notifications: everything may have changed.
                Ok(Wake::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => None,
                Ok(Wake::Progress(_) | Wake::Joined(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            };
            match id {
                Some(id) if self.owns(id).await => {
                    return Some(
                        Event::default()
                            .event("changed")
                            .data(json!({"conversation_id": id}).to_string()),
                    );
                }
                Some(_) => continue,
                None => return Some(Event::default().event("changed").data("{}")),
            }
        }
    }
}

pub async fn stream(
    session: Session,
    State(console): State<Console>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let feed = Feed {
        wakes: console.notifier.subscribe(),
        pool: console.office.pool.clone(),
        merchant_id: session.merchant_id,
        shutdown: console.shutdown.clone(),
        owned: HashMap::new(),
    };
    let stream = futures::stream::unfold(feed, |mut feed| async move {
        feed.next().await.map(|event| (Ok(event), feed))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
