//! Fake Telegram Bot API and WhatsApp Cloud API servers: real HTTP servers that
//! record every call and answer from a per-method script (success by default).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

#[derive(Debug, Clone)]
pub struct Call {
    /// `sendMessage`, `answerCallbackQuery`, or `messages` for WhatsApp.
    pub method: String,
    pub body: Value,
    pub authorization: Option<String>,
    pub at: Instant,
    /// The platform took it (answered 2xx): the user saw it.
    #[allow(dead_code, reason = "the fault suite counts accepted sends")]
    pub accepted: bool,
}

/// How the platform behaves until told otherwise, for faults that last a while.
#[allow(dead_code, reason = "the fault suite sets the failing modes")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Normal,
    /// 429 Too Many Requests, asking to wait `retry_after` seconds.
    RateLimited { retry_after: u64 },
    /// 500 on every call.
    Failing,
    /// Holds every call this long, then drops it unprocessed.
    Hanging(std::time::Duration),
}

/// Scripted answers per method: (status, body), first in first out.
type Script = HashMap<String, VecDeque<(u16, Value)>>;

#[derive(Clone, Default)]
struct Shared {
    calls: Arc<Mutex<Vec<Call>>>,
    script: Arc<Mutex<Script>>,
    next_id: Arc<AtomicU64>,
    mode: Arc<Mutex<Mode>>,
    base: Arc<Mutex<String>>,
}

/// The bytes every fake file holds (a JPEG's first bytes, then its id).
pub fn fake_file(id: &str) -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0];
    bytes.extend_from_slice(id.as_bytes());
    bytes
}

pub struct FakePlatform {
    pub base_url: String,
    shared: Shared,
}

impl FakePlatform {
    pub async fn start() -> FakePlatform {
        let shared = Shared::default();
        let app = axum::Router::new()
            // Telegram methods are POSTs; WhatsApp media lookups are GETs of the same shape.
            .route("/{bot_token}/{method}", post(telegram).get(whatsapp_media))
            .route("/{version}/{phone}/messages", post(whatsapp))
            .route("/{version}/{phone}/media", post(whatsapp_upload))
            .route(
                "/file/{bot_token}/{*path}",
                axum::routing::get(telegram_file),
            )
            .route(
                "/media-download/{media_id}",
                axum::routing::get(whatsapp_download),
            )
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        *shared.base.lock().unwrap() = base_url.clone();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakePlatform { base_url, shared }
    }

    /// The next call to `method` answers `status` with `body`.
    pub fn fail_next(&self, method: &str, status: u16, body: Value) {
        self.shared
            .script
            .lock()
            .unwrap()
            .entry(method.to_owned())
            .or_default()
            .push_back((status, body));
    }

    /// From now on, every call meets `mode` (a scripted answer still comes first).
    #[allow(dead_code, reason = "used by the fault suite")]
    pub fn set_mode(&self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = mode;
    }

    /// Calls the platform accepted (answered 2xx).
    #[allow(dead_code, reason = "used by the fault suite")]
    pub fn accepted(&self, method: &str) -> Vec<Call> {
        self.calls(method)
            .into_iter()
            .filter(|c| c.accepted)
            .collect()
    }

    pub fn calls(&self, method: &str) -> Vec<Call> {
        self.shared
            .calls
            .lock()
            .unwrap()
            .iter()
            .filter(|c| c.method == method)
            .cloned()
            .collect()
    }

    /// Texts sent with `sendMessage` (Telegram) or `/messages` (WhatsApp), in order.
    pub fn texts(&self, method: &str) -> Vec<String> {
        self.calls(method)
            .iter()
            .map(|c| {
                c.body["text"]
                    .as_str()
                    .or(c.body["text"]["body"].as_str())
                    .or(c.body["interactive"]["body"]["text"].as_str())
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect()
    }
}

/// What the fake answers a call: a scripted answer first, else what its mode says
/// (`None`: a normal success).
async fn answer(
    shared: &Shared,
    method: &str,
    headers: &HeaderMap,
    body: Value,
) -> Option<(u16, Value)> {
    let scripted = shared
        .script
        .lock()
        .unwrap()
        .get_mut(method)
        .and_then(VecDeque::pop_front);
    let mode = *shared.mode.lock().unwrap();
    let outcome = match (scripted, mode) {
        (Some(answer), _) => Some(answer),
        (None, Mode::Normal) => None,
        (None, Mode::RateLimited { retry_after }) => Some((
            429,
            json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after",
                   "parameters": {"retry_after": retry_after}}),
        )),
        (None, Mode::Failing) => Some((
            500,
            json!({"ok": false, "description": "Internal Server Error"}),
        )),
        (None, Mode::Hanging(hold)) => {
            tokio::time::sleep(hold).await;
            Some((504, json!({"ok": false, "description": "gateway timeout"})))
        }
    };
    shared.calls.lock().unwrap().push(Call {
        method: method.to_owned(),
        body,
        authorization: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        at: Instant::now(),
        accepted: outcome.as_ref().is_none_or(|(status, _)| *status < 300),
    });
    outcome
}

/// A multipart upload read as JSON: each text field by name, each file as
/// `{filename, content_type, text}` (its bytes as UTF-8, lossy).
async fn multipart_body(request: axum::extract::Request) -> Value {
    use axum::extract::FromRequest;
    let mut form = axum::extract::Multipart::from_request(request, &())
        .await
        .unwrap();
    let mut body = json!({});
    while let Some(field) = form.next_field().await.unwrap() {
        let name = field.name().unwrap_or_default().to_owned();
        match field.file_name().map(str::to_owned) {
            Some(filename) => {
                let content_type = field.content_type().unwrap_or_default().to_owned();
                let bytes = field.bytes().await.unwrap();
                body[&name] = json!({"filename": filename, "content_type": content_type,
                                    "text": String::from_utf8_lossy(&bytes)});
                // A PNG's size, from its header (a chart the bot drew).
                if bytes.starts_with(b"\x89PNG") && bytes.len() >= 24 {
                    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
                    body[&name]["png"] =
                        json!({"width": be(16), "height": be(20), "bytes": bytes.len()});
                }
            }
            None => body[name] = json!(field.text().await.unwrap()),
        }
    }
    body
}

/// A JSON body, or a multipart one (`sendDocument`, a media upload) read as JSON.
async fn body_of(request: axum::extract::Request) -> Value {
    let multipart = request
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/"));
    if multipart {
        return multipart_body(request).await;
    }
    let bytes = axum::body::to_bytes(request.into_body(), 16 * 1024 * 1024)
        .await
        .unwrap();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

async fn telegram(
    State(shared): State<Shared>,
    Path((_token, method)): Path<(String, String)>,
    headers: HeaderMap,
    request: axum::extract::Request,
) -> Response {
    let body = body_of(request).await;
    if let Some((status, answer)) = answer(&shared, &method, &headers, body).await {
        return (StatusCode::from_u16(status).unwrap(), Json(answer)).into_response();
    }
    let id = shared.next_id.fetch_add(1, Ordering::SeqCst) + 1;
    let result = match method.as_str() {
        "sendMessage" | "sendDocument" | "sendPhoto" => json!({"message_id": id}),
        "getFile" => {
            json!({"file_id": body_file_id(&shared, &method), "file_path": format!("photos/{}.jpg", body_file_id(&shared, &method))})
        }
        _ => json!(true),
    };
    Json(json!({"ok": true, "result": result})).into_response()
}

async fn whatsapp(
    State(shared): State<Shared>,
    Path((_version, _phone)): Path<(String, String)>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    if let Some((status, answer)) = answer(&shared, "messages", &headers, body).await {
        return (StatusCode::from_u16(status).unwrap(), Json(answer)).into_response();
    }
    let id = shared.next_id.fetch_add(1, Ordering::SeqCst) + 1;
    Json(json!({"messaging_product": "whatsapp", "messages": [{"id": format!("wamid.OUT{id}")}]}))
        .into_response()
}

async fn whatsapp_upload(
    State(shared): State<Shared>,
    Path((_version, _phone)): Path<(String, String)>,
    headers: HeaderMap,
    request: axum::extract::Request,
) -> Response {
    let body = body_of(request).await;
    if let Some((status, answer)) = answer(&shared, "upload", &headers, body).await {
        return (StatusCode::from_u16(status).unwrap(), Json(answer)).into_response();
    }
    let id = shared.next_id.fetch_add(1, Ordering::SeqCst) + 1;
    Json(json!({"id": format!("media-{id}")})).into_response()
}

/// The `file_id` of the last call to `method`.
fn body_file_id(shared: &Shared, method: &str) -> String {
    shared
        .calls
        .lock()
        .unwrap()
        .iter()
        .rev()
        .find(|c| c.method == method)
        .and_then(|c| c.body["file_id"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

async fn telegram_file(
    State(shared): State<Shared>,
    Path((token, path)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let id = path
        .trim_start_matches("photos/")
        .trim_end_matches(".jpg")
        .to_owned();
    let _ = answer(
        &shared,
        "file",
        &headers,
        json!({"token": token, "path": path}),
    )
    .await;
    (
        [(axum::http::header::CONTENT_TYPE, "image/jpeg")],
        fake_file(&id),
    )
        .into_response()
}

async fn whatsapp_media(
    State(shared): State<Shared>,
    Path((_version, media_id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let _ = answer(&shared, "media", &headers, json!({"id": media_id})).await;
    let base = shared.base.lock().unwrap().clone();
    Json(json!({"url": format!("{base}/media-download/{media_id}"), "mime_type": "image/jpeg", "id": media_id}))
        .into_response()
}

async fn whatsapp_download(
    State(shared): State<Shared>,
    Path(media_id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let _ = answer(&shared, "download", &headers, json!({"id": media_id})).await;
    if headers.get("authorization").is_none() {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    (
        [(axum::http::header::CONTENT_TYPE, "image/jpeg")],
        fake_file(&media_id),
    )
        .into_response()
}
