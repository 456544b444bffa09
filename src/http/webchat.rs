//! The web-chat channel's HTTP side: customers post messages and read replies as
//! server-sent events.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, Query, State};
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
use crate::channels::files::{self, FileRef};
use crate::channels::uploads::{self, UploadRefused};
use crate::channels::webchat::session;
use crate::channels::{ChannelKind, Inbound, Media, MessagePayload};
use crate::conversations;
use crate::inbox::Ingested;
use crate::notify::{Notifier, StreamKey, Wake, Watching};
use crate::outbox;
use crate::progress::{Signal, Step};

/// Longest text a customer may send in one message.
pub const MAX_TEXT_CHARS: usize = 4096;
/// Largest web-chat request body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

#[derive(Debug, Deserialize)]
struct PostBody {
    /// The session token (or `Authorization: Bearer`).
    #[serde(default)]
    token: Option<String>,
    /// A client-named session of the form before tokens (see [`who`]).
    #[serde(default)]
    session: Option<String>,
    text: String,
    #[serde(default)]
    client_id: Option<String>,
    /// The name the customer gave the widget (optional, at most 80 characters):
    /// what the merchant's inbox calls them.
    #[serde(default)]
    name: Option<String>,
}

/// Longest customer name a web chat may give.
const MAX_NAME_CHARS: usize = 80;

/// The embeddable widget a merchant's site loads with a `<script>` tag.
const WIDGET_JS: &str = include_str!("../../assets/widget.js");

/// `GET /webchat/{bot}/widget.js` (or `/webchat/widget.js` with `data-bot`): the
/// chat bubble for a merchant's own site.
pub async fn widget() -> impl axum::response::IntoResponse {
    (
        [
            (
                axum::http::header::CONTENT_TYPE,
                "text/javascript; charset=utf-8",
            ),
            (axum::http::header::CACHE_CONTROL, "public, max-age=300"),
            // Any site may load the script; what it may call is up to the bot's origins.
            (axum::http::header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        WIDGET_JS,
    )
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

/// The session a web-chat call speaks for: the one its token names (the
/// `Authorization: Bearer` header, or the `token` field or parameter), checked
/// against this bot and the key ring with no lookup. A client-named `session` (the
/// form before tokens) is accepted only while its conversation is inside the bot's
/// session timeout, so existing chats finish; anything else is a bare 401.
async fn who(
    state: &Web,
    bot: &Bot,
    headers: &HeaderMap,
    token: Option<&str>,
    legacy: Option<&str>,
) -> Result<String, ApiError> {
    let bearer = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if let Some(token) = bearer.or(token) {
        let keys = crate::secret::keyring().map_err(|e| ApiError::Unexpected(e.into()))?;
        return session::verify(keys, bot.id, token.trim())
            .map(|s| s.id)
            .map_err(|_| ApiError::SessionRequired);
    }
    let Some(legacy) = legacy else {
        return Err(ApiError::SessionRequired);
    };
    let legacy = client_token("session", legacy).map_err(|_| ApiError::SessionRequired)?;
    if session::is_issued_form(&legacy)
        || !conversations::webchat_session_is_live(&state.pool, bot.id, &legacy).await?
    {
        return Err(ApiError::SessionRequired);
    }
    Ok(legacy)
}

#[derive(Debug, Default, Deserialize)]
struct SessionBody {
    /// A signed-in user's id on the merchant's site, with `identifier_hash`.
    #[serde(default)]
    identifier: Option<String>,
    #[serde(default)]
    identifier_hash: Option<String>,
}

/// `POST /webchat/{bot}/sessions`: a new session and its token. Rate-limited per
/// client address.
pub async fn post_session(
    State(state): State<Web>,
    Path(slug): Path<String>,
    connect: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let body = body?;
    let parsed: SessionBody = if body.iter().all(u8::is_ascii_whitespace) {
        SessionBody::default()
    } else {
        parse_json(&body)?
    };
    let bot = bot_or_404(&state, &slug).await?;
    let client = state.streams.client(&headers, connect.as_deref());
    let key = format!(
        "webchat-sessions:{}",
        client.map_or_else(|| "unknown".to_owned(), |ip| ip.to_string())
    );
    if state
        .limiter
        .acquire(&key, state.sessions_per_second)
        .await
        .is_err()
    {
        return Err(ApiError::TooManyRequests(
            "too many new sessions from this address; wait a moment".into(),
        ));
    }
    let keys = crate::secret::keyring().map_err(|e| ApiError::Unexpected(e.into()))?;
    let (token, session) = match (parsed.identifier, parsed.identifier_hash) {
        (None, None) => session::issue(keys, bot.id),
        (Some(identifier), Some(hash)) => {
            let identifier = client_token("identifier", &identifier)?;
            match crate::merchant::bots::verifies_identity(&state.pool, bot.id, &identifier, &hash)
                .await?
            {
                Some(true) => {}
                Some(false) => return Err(ApiError::Forbidden),
                None => {
                    return Err(ApiError::BadRequest(
                        "this bot does not verify identities; create a session without one".into(),
                    ));
                }
            }
            session::issue_verified(keys, bot.id, &identifier)
        }
        _ => {
            return Err(ApiError::BadRequest(
                "`identifier` and `identifier_hash` go together".into(),
            ));
        }
    };
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "token": token,
            "session": session.id,
            "expires_at": session.expires_at,
        })),
    ))
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
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let body = body?;
    let parsed: PostBody = parse_json(&body)?;
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
    let name = customer_name(parsed.name.as_deref())?;
    let bot = bot_or_404(&state, &slug).await?;
    let session = who(
        &state,
        &bot,
        &headers,
        parsed.token.as_deref(),
        parsed.session.as_deref(),
    )
    .await?;
    accept(
        &state,
        &bot,
        session,
        &client_id,
        name,
        MessagePayload {
            text: text.to_owned(),
            media: None,
        },
    )
    .await
}

/// Stores a customer's message (text or file) once per `client_id` and answers 202.
async fn accept(
    state: &Web,
    bot: &Bot,
    session: String,
    client_id: &str,
    name: Option<String>,
    message: MessagePayload,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let inbound = Inbound {
        channel: ChannelKind::Webchat,
        sender: session.clone(),
        display_name: name,
        external_id: external_id(&session, client_id),
        message,
    };
    let ingested = state.ingest.ingest(bot, inbound).await?;
    if let Ingested::New {
        conversation_id, ..
    } = ingested
    {
        // Streams of this session open here learn their conversation now.
        crate::notify::joined(bot.id, &session, conversation_id);
    }
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({
            "event_id": ingested.inbox_id(),
            "duplicate": matches!(ingested, Ingested::Duplicate { .. }),
        })),
    ))
}

/// The dedupe key of a web-chat message: its session and the client's id for it.
fn external_id(session: &str, client_id: &str) -> String {
    format!("webchat:{session}:{client_id}")
}

/// A customer's name as the widget gives it: trimmed, bounded, no control characters.
fn customer_name(name: Option<&str>) -> Result<Option<String>, ApiError> {
    match name.map(str::trim) {
        None | Some("") => Ok(None),
        Some(name)
            if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) =>
        {
            Err(ApiError::BadRequest(format!(
                "`name` must be at most {MAX_NAME_CHARS} characters, without control characters"
            )))
        }
        Some(name) => Ok(Some(name.to_owned())),
    }
}

/// `GET /webchat/{bot}/files/{id}/{filename}`: a file a reply carried (a
/// person's data as CSV, a chart), while it has not expired. The id is the key (122
/// random bits); anything else is a bare 404.
pub async fn file(
    State(state): State<Web>,
    Path((slug, id, _filename)): Path<(String, String, String)>,
) -> Result<axum::response::Response, ApiError> {
    use axum::http::header;
    use axum::response::IntoResponse;
    let id = Uuid::parse_str(&id).map_err(|_| ApiError::NotFound("file"))?;
    let bot = bot_or_404(&state, &slug).await?;
    let file = files::fetch(&state.pool, bot.id, id)
        .await?
        .ok_or(ApiError::NotFound("file"))?;
    // A picture (a chart) is shown where it is linked; anything else downloads.
    let disposition = format!(
        "{}; filename=\"{}\"",
        if file.is_picture() {
            "inline"
        } else {
            "attachment"
        },
        file.filename.replace(['"', '\\', '\r', '\n'], "_")
    );
    Ok((
        [
            (header::CONTENT_TYPE, file.content_type),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        ],
        file.bytes,
    )
        .into_response())
}

#[derive(Debug, Deserialize)]
pub struct UploadQuery {
    /// The session token (or `Authorization: Bearer`).
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    /// Words sent with the file (optional).
    #[serde(default)]
    caption: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

/// `POST /webchat/{bot}/uploads?client_id=…`: a file the customer sends (a
/// payment proof), the body its bytes and `Content-Type` its type (JPEG, PNG,
/// WebP or PDF, at most 5 MiB, its bytes matching the type). Kept by Tendero,
/// then taken as a message with that attachment, exactly as a photo on Telegram;
/// a retry with the same `client_id` is stored once.
pub async fn post_upload(
    State(state): State<Web>,
    Path(slug): Path<String>,
    Query(query): Query<UploadQuery>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let body = body?;
    let client_id = match query.client_id {
        Some(id) => client_token("client_id", &id)?,
        None => Uuid::new_v4().to_string(),
    };
    let caption = query.caption.as_deref().map(str::trim).unwrap_or_default();
    if caption.chars().count() > MAX_TEXT_CHARS || caption.contains('\0') {
        return Err(ApiError::BadRequest(format!(
            "`caption` must be at most {MAX_TEXT_CHARS} characters, without NUL"
        )));
    }
    let name = customer_name(query.name.as_deref())?;
    let bot = bot_or_404(&state, &slug).await?;
    let session = who(&state, &bot, &headers, query.token.as_deref(), None).await?;
    let content_type = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let kind = uploads::check(content_type, &body).map_err(|refused| match refused {
        UploadRefused::TooLarge => ApiError::PayloadTooLarge,
        UploadRefused::Empty => ApiError::BadRequest(refused.to_string()),
        UploadRefused::UnsupportedType | UploadRefused::Mismatch => {
            ApiError::UnsupportedMediaType(refused.to_string())
        }
    })?;
    let upload = uploads::store(
        &state.pool,
        bot.id,
        &external_id(&session, &client_id),
        kind,
        &body,
    )
    .await?;
    let message = MessagePayload {
        text: caption.to_owned(),
        media: Some(Media {
            kind: kind.media_kind().into(),
            id: upload.to_string(),
        }),
    };
    accept(&state, &bot, session, &client_id, name, message).await
}

#[derive(Debug, Deserialize)]
pub struct EventsQuery {
    /// The session token (an `EventSource` cannot send headers).
    #[serde(default)]
    token: Option<String>,
    /// A client-named session of the form before tokens (see [`who`]).
    #[serde(default)]
    session: Option<String>,
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
    connect: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let bot = bot_or_404(&state, &slug).await?;
    let session = who(
        &state,
        &bot,
        &headers,
        query.token.as_deref(),
        query.session.as_deref(),
    )
    .await?;
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i64>().ok());
    let cursor = resume.or(query.after).unwrap_or(0);
    let permit = state
        .streams
        .admit(state.streams.client(&headers, connect.as_deref()), &session)?;
    // The session's conversation, once: from then on it is told, never polled.
    let conversation_id = conversations::of_webchat_session(&state.pool, bot.id, &session).await?;
    let mut feed = Feed {
        pool: state.pool.clone(),
        notifier: state.notifier.clone(),
        wakes: None,
        bot_id: bot.id,
        slug: bot.slug.clone(),
        session,
        conversation_id: None,
        cursor,
        buffer: VecDeque::new(),
        stale: conversation_id.is_some(),
        _permit: permit,
    };
    feed.learn(conversation_id);
    let stream = futures::stream::unfold(feed, |mut feed| async move {
        let event = feed.next().await;
        Some((Ok(event), feed))
    })
    .take_until(state.shutdown.clone().cancelled_owned());
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

struct Feed {
    pool: sqlx::PgPool,
    notifier: Notifier,
    /// The stream's own channel (its conversation's, or its session's until it
    /// has one) and its mark as open in this process.
    wakes: Option<(Watching, broadcast::Receiver<Wake>)>,
    bot_id: Uuid,
    /// The bot's slug, for the addresses of files a reply carries.
    slug: String,
    session: String,
    conversation_id: Option<Uuid>,
    cursor: i64,
    buffer: VecDeque<Event>,
    /// Something may have been delivered that the stream has not read yet.
    stale: bool,
    /// Its place under the stream limits, given back when it closes.
    _permit: crate::http::streams::Permit,
}

/// Rows read per query.
const FEED_PAGE: i64 = 100;

/// How long a stream with a conversation waits for a wake before looking anyway.
/// Deliveries wake it at commit, and a reconnecting listener resyncs every
/// stream, so this is only a backstop against a bug: an idle stream costs one
/// query per period (none before the session has a conversation).
const FEED_POLL: Duration = Duration::from_secs(600);

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
            let Some((_, wakes)) = self.wakes.as_mut() else {
                // Unreachable: a feed always listens on its session or conversation.
                std::future::pending::<()>().await;
                continue;
            };
            let wake = if self.conversation_id.is_some() {
                tokio::time::timeout(FEED_POLL, wakes.recv()).await
            } else {
                Ok(wakes.recv().await)
            };
            match wake {
                // The message itself, in order: shown without a query.
                Ok(Ok(Wake::Delivered(message)))
                    if Some(message.conversation_id) == self.conversation_id =>
                {
                    if message.id > self.cursor {
                        self.push(message.id, message.author, &message.payload);
                    }
                }
                Ok(Ok(Wake::Joined(conversation_id))) if self.conversation_id.is_none() => {
                    self.learn(Some(conversation_id));
                    self.stale = true;
                }
                Ok(Ok(Wake::Progress(signal))) => self.progress(&signal),
                Ok(Ok(Wake::Resync) | Err(broadcast::error::RecvError::Lagged(_))) => {
                    self.stale = true
                }
                Ok(Ok(Wake::OutboxSent(id))) if Some(id) == self.conversation_id => {
                    self.stale = true
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => {
                    // Not while this feed holds its mark; look again to be safe.
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    self.stale = true;
                }
                Ok(Ok(_)) => {}
                // Nothing heard for a long while: look anyway.
                Err(_) => self.stale = true,
            }
        }
    }

    /// A turn of this session's conversation is working: an event without an id
    /// (it is not part of the transcript a reconnect resumes).
    fn progress(&mut self, signal: &Signal) {
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
        let key = match conversation_id {
            Some(id) => StreamKey::Conversation(id),
            None => StreamKey::Session(self.bot_id, self.session.clone()),
        };
        self.wakes = Some(self.notifier.watch(key));
    }

    fn push(&mut self, id: i64, author: outbox::Author, payload: &serde_json::Value) {
        self.cursor = id;
        let mut data = json!({
            "id": id,
            "author": author,
            "text": payload["text"],
            "choices": payload.get("choices").cloned().unwrap_or_else(|| json!([])),
        });
        if let Some(file) = payload
            .get("file")
            .and_then(|f| serde_json::from_value::<FileRef>(f.clone()).ok())
        {
            data["file"] = json!({"url": file.path(&self.slug), "filename": file.filename,
                                  "content_type": file.content_type});
        }
        self.buffer
            .push_back(Event::default().id(id.to_string()).data(data.to_string()));
    }

    /// Reads what was delivered after the cursor; true when the page was full.
    async fn fill(&mut self) -> sqlx::Result<bool> {
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
