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
}

/// Scripted answers per method: (status, body), first in first out.
type Script = HashMap<String, VecDeque<(u16, Value)>>;

#[derive(Clone, Default)]
struct Shared {
    calls: Arc<Mutex<Vec<Call>>>,
    script: Arc<Mutex<Script>>,
    next_id: Arc<AtomicU64>,
}

pub struct FakePlatform {
    pub base_url: String,
    shared: Shared,
}

impl FakePlatform {
    pub async fn start() -> FakePlatform {
        let shared = Shared::default();
        let app = axum::Router::new()
            .route("/{bot_token}/{method}", post(telegram))
            .route("/{version}/{phone}/messages", post(whatsapp))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
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

fn record(shared: &Shared, method: &str, headers: &HeaderMap, body: Value) -> Option<(u16, Value)> {
    shared.calls.lock().unwrap().push(Call {
        method: method.to_owned(),
        body,
        authorization: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        at: Instant::now(),
    });
    shared
        .script
        .lock()
        .unwrap()
        .get_mut(method)
        .and_then(VecDeque::pop_front)
}

async fn telegram(
    State(shared): State<Shared>,
    Path((_token, method)): Path<(String, String)>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    if let Some((status, answer)) = record(&shared, &method, &headers, body) {
        return (StatusCode::from_u16(status).unwrap(), Json(answer)).into_response();
    }
    let id = shared.next_id.fetch_add(1, Ordering::SeqCst) + 1;
    Json(json!({"ok": true, "result": if method == "sendMessage" { json!({"message_id": id}) } else { json!(true) }}))
        .into_response()
}

async fn whatsapp(
    State(shared): State<Shared>,
    Path((_version, _phone)): Path<(String, String)>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    if let Some((status, answer)) = record(&shared, "messages", &headers, body) {
        return (StatusCode::from_u16(status).unwrap(), Json(answer)).into_response();
    }
    let id = shared.next_id.fetch_add(1, Ordering::SeqCst) + 1;
    Json(json!({"messaging_product": "whatsapp", "messages": [{"id": format!("wamid.OUT{id}")}]}))
        .into_response()
}
