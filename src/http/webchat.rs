//! The web-chat channel's HTTP side: customers post messages and read replies as
//! server-sent events.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::broadcast;
use uuid::Uuid;

use super::Web;
use super::error::{ApiError, parse_json};
use crate::bots::Bot;
use crate::channels::{ChannelKind, Inbound, MessagePayload};
use crate::conversations;
use crate::inbox::Ingested;
use crate::notify::{Notifier, Wake, Watching};
use crate::outbox;
use crate::progress::{Signal, Step};

/// Longest text a customer may send in one message.
pub const MAX_TEXT_CHARS: usize = 4096;
/// Largest web-chat request body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

#[derive(Debug, Deserialize)]
struct PostBody {
    session: String,
    text: String,
    #[serde(default)]
    client_id: Option<String>,
}

/// An identifier a client chose: 1–128 characters of letters, digits, `_ - . :`.
fn client_token(field: &str, value: &str) -> Result<String, ApiError> {
    let ok = !value.is_empty()
        && value.len() <= 128
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
    if ok {
        Ok(value.to_owned())
    } else {
        Err(ApiError::BadRequest(format!(
            "`{field}` must be 1-128 characters of letters, digits, _ - . :"
        )))
    }
}

async fn bot_or_404(state: &Web, slug: &str) -> Result<Bot, ApiError> {
    let entry = state
        .bots
        .get_promptly(slug)
        .await
        .map_err(|e| e.map_or(ApiError::Unavailable, ApiError::from))?
        .ok_or(ApiError::NotFound("bot"))?;
    Ok(entry.bot.clone())
}

/// `POST /webchat/{bot}/messages`: stored before the 202; a retry with the same
/// `client_id` is stored once.
pub async fn post_message(
    State(state): State<Web>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let body = body?;
    let parsed: PostBody = parse_json(&body)?;
    let session = client_token("session", &parsed.session)?;
    let client_id = match parsed.client_id {
        Some(id) => client_token("client_id", &id)?,
        None => Uuid::new_v4().to_string(),
    };
    let text = parsed.text.trim();
    if text.is_empty() {
        return Err(ApiError::BadRequest("`text` must not be empty".into()));
    }
    if text.chars().count() > MAX_TEXT_CHARS {
        return Err(ApiError::BadRequest(format!(
            "`text` is longer than {MAX_TEXT_CHARS} characters"
        )));
    }
    let bot = bot_or_404(&state, &slug).await?;
    let inbound = Inbound {
        channel: ChannelKind::Webchat,
        sender: session.clone(),
        display_name: None,
        external_id: format!("webchat:{session}:{client_id}"),
        message: MessagePayload {
            text: text.to_owned(),
            media: None,
        },
    };
    let ingested = state.ingest.ingest(&bot, inbound).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({
            "event_id": ingested.inbox_id(),
            "duplicate": matches!(ingested, Ingested::Duplicate { .. }),
        })),
    ))
}

#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    session: String,
    /// Resume after this event id (the `Last-Event-ID` header does the same).
    #[serde(default)]
    after: Option<i64>,
}

/// `GET /webchat/{bot}/events?session=...`: every message sent to the session, then
/// new ones as they are delivered. Each `data:` is `{"id","text","author","choices"}`.
/// While a turn works, `typing` and `tools` events (no id) say so.
pub async fn events(
    State(state): State<Web>,
    Path(slug): Path<String>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let session = client_token("session", &query.session)?;
    let bot = bot_or_404(&state, &slug).await?;
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i64>().ok());
    let cursor = resume.or(query.after).unwrap_or(0);
    let feed = Feed {
        pool: state.pool.clone(),
        wakes: state.notifier.subscribe(),
        notifier: state.notifier.clone(),
        watching: None,
        bot_id: bot.id,
        session,
        conversation_id: None,
        cursor,
        buffer: VecDeque::new(),
        stale: true,
    };
    let stream = futures::stream::unfold(feed, |mut feed| async move {
        let event = feed.next().await;
        Some((Ok(event), feed))
    })
    .take_until(state.shutdown.clone().cancelled_owned());
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

struct Feed {
    pool: sqlx::PgPool,
    wakes: broadcast::Receiver<Wake>,
    notifier: Notifier,
    /// This stream's mark as open in this process, once its conversation is known.
    watching: Option<Watching>,
    bot_id: Uuid,
    session: String,
    conversation_id: Option<Uuid>,
    cursor: i64,
    buffer: VecDeque<Event>,
    /// Something may have been delivered that the stream has not read yet.
    stale: bool,
}

/// Rows read per query.
const FEED_PAGE: i64 = 100;

/// How long a stream waits for a notification before looking anyway. Deliveries
/// notify the stream at commit, and a reconnecting listener sends a resync, so this
/// is only a backstop; an idle stream costs one query per period.
const FEED_POLL: Duration = Duration::from_secs(60);
/// The same, before the session has a conversation (nothing to deliver yet).
const FEED_POLL_NEW: Duration = Duration::from_secs(5);

impl Feed {
    async fn next(&mut self) -> Event {
        loop {
            if let Some(event) = self.buffer.pop_front() {
                return event;
            }
            if self.stale {
                self.stale = false;
                match self.fill().await {
                    // A full page: there may be more right away.
                    Ok(full) => self.stale = full,
                    Err(err) => tracing::warn!(%err, "web chat feed query failed"),
                }
                continue;
            }
            let poll = if self.conversation_id.is_some() {
                FEED_POLL
            } else {
                FEED_POLL_NEW
            };
            match tokio::time::timeout(poll, self.wakes.recv()).await {
                // The message itself, in order: shown without a query.
                Ok(Ok(Wake::Delivered(message)))
                    if Some(message.conversation_id) == self.conversation_id =>
                {
                    if message.id > self.cursor {
                        self.push(message.id, message.author, &message.payload);
                    }
                }
                Ok(Ok(Wake::Delivered(_) | Wake::OutboxSent(_)))
                    if self.conversation_id.is_none() =>
                {
                    self.stale = true
                }
                Ok(Ok(Wake::Progress(signal))) => self.progress(&signal).await,
                Ok(Ok(Wake::OutboxSent(id))) if Some(id) == self.conversation_id => {
                    self.stale = true
                }
                Ok(Ok(Wake::Resync) | Err(broadcast::error::RecvError::Lagged(_))) => {
                    self.stale = true
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => {
                    tokio::time::sleep(poll).await;
                    self.stale = true;
                }
                Ok(Ok(_)) => {}
                // Nothing heard for a while: look anyway.
                Err(_) => self.stale = true,
            }
        }
    }

    /// A turn of this session's conversation is working: an event without an id
    /// (it is not part of the transcript a reconnect resumes).
    async fn progress(&mut self, signal: &Signal) {
        if self.conversation_id.is_none() {
            // A new session learns its conversation on its first turn.
            match conversations::of_webchat_session(&self.pool, self.bot_id, &self.session).await {
                Ok(found) => self.learn(found),
                Err(err) => tracing::debug!(%err, "web chat feed lookup failed"),
            }
        }
        if Some(signal.conversation_id) != self.conversation_id {
            return;
        }
        let data = match &signal.step {
            Step::Typing => json!({}),
            Step::Tools { tools } => json!({ "tools": tools }),
        };
        self.buffer.push_back(
            Event::default()
                .event(signal.step.event())
                .data(data.to_string()),
        );
    }

    /// The session's conversation, once it has one: progress signals for it are
    /// handed to this stream in process from then on.
    fn learn(&mut self, conversation_id: Option<Uuid>) {
        self.conversation_id = conversation_id;
        self.watching = conversation_id.map(|id| self.notifier.watch(id));
    }

    fn push(&mut self, id: i64, author: outbox::Author, payload: &serde_json::Value) {
        self.cursor = id;
        let data = json!({
            "id": id,
            "author": author,
            "text": payload["text"],
            "choices": payload.get("choices").cloned().unwrap_or_else(|| json!([])),
        });
        self.buffer
            .push_back(Event::default().id(id.to_string()).data(data.to_string()));
    }

    /// Reads what was delivered after the cursor; true when the page was full.
    async fn fill(&mut self) -> sqlx::Result<bool> {
        if self.conversation_id.is_none() {
            let found =
                conversations::of_webchat_session(&self.pool, self.bot_id, &self.session).await?;
            self.learn(found);
        }
        let Some(conversation_id) = self.conversation_id else {
            return Ok(false);
        };
        let rows =
            outbox::delivered_after(&self.pool, conversation_id, self.cursor, FEED_PAGE).await?;
        let full = rows.len() as i64 == FEED_PAGE;
        for row in rows {
            self.push(row.id, row.author, &row.payload);
        }
        Ok(full)
    }
}
