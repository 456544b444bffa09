//! A fake OpenAI-compatible server: a real HTTP server that answers
//! `POST /v1/chat/completions` from a script and records every request body.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};

/// One scripted answer.
pub enum Reply {
    /// A completion whose message content is this text.
    Content(String),
    /// An HTTP error status.
    Status(u16),
    /// Wait this long, then answer the content.
    Slow(Duration, String),
    /// Say that the request arrived, wait to be released, then answer the content.
    Gate(String),
}

#[derive(Clone)]
struct Shared {
    script: Arc<Mutex<VecDeque<Reply>>>,
    requests: Arc<Mutex<Vec<Value>>>,
    arrived: mpsc::UnboundedSender<()>,
    release: Arc<Notify>,
    /// How long an unscripted answer takes.
    delay: Arc<Mutex<Duration>>,
    in_flight: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

pub struct FakeLlm {
    pub base_url: String,
    script: Arc<Mutex<VecDeque<Reply>>>,
    requests: Arc<Mutex<Vec<Value>>>,
    pub arrived: mpsc::UnboundedReceiver<()>,
    pub release: Arc<Notify>,
    delay: Arc<Mutex<Duration>>,
    peak: Arc<AtomicUsize>,
}

impl FakeLlm {
    pub async fn start() -> FakeLlm {
        let (arrived_tx, arrived) = mpsc::unbounded_channel();
        let shared = Shared {
            script: Arc::new(Mutex::new(VecDeque::new())),
            requests: Arc::new(Mutex::new(Vec::new())),
            arrived: arrived_tx,
            release: Arc::new(Notify::new()),
            delay: Arc::default(),
            in_flight: Arc::default(),
            peak: Arc::default(),
        };
        let app = axum::Router::new()
            .route("/v1/chat/completions", post(complete))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeLlm {
            base_url,
            script: shared.script,
            requests: shared.requests,
            arrived,
            release: shared.release,
            delay: shared.delay,
            peak: shared.peak,
        }
    }

    /// Unscripted answers take this long (a model thinking).
    pub fn set_delay(&self, delay: Duration) {
        *self.delay.lock().unwrap() = delay;
    }

    /// Most requests it was answering at once.
    pub fn peak_in_flight(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    pub fn push(&self, reply: Reply) {
        self.script.lock().unwrap().push_back(reply);
    }

    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1, "model": "fake-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 420, "completion_tokens": 42, "total_tokens": 462},
    })
}

async fn complete(State(shared): State<Shared>, Json(body): Json<Value>) -> Response {
    let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.peak.fetch_max(now, Ordering::SeqCst);
    let response = answer(&shared, body).await;
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
    response
}

async fn answer(shared: &Shared, body: Value) -> Response {
    shared.requests.lock().unwrap().push(body);
    let next = shared.script.lock().unwrap().pop_front();
    match next {
        None => {
            let delay = *shared.delay.lock().unwrap();
            tokio::time::sleep(delay).await;
            Json(completion(r#"{"proposed_actions":[{"type":"CLARIFY","params":{}}],"response_text":"¿Me repites?"}"#)).into_response()
        }
        Some(Reply::Content(content)) => Json(completion(&content)).into_response(),
        Some(Reply::Status(code)) => (
            StatusCode::from_u16(code).unwrap(),
            Json(json!({"error": {"message": "scripted failure", "type": "server_error"}})),
        )
            .into_response(),
        Some(Reply::Slow(delay, content)) => {
            tokio::time::sleep(delay).await;
            Json(completion(&content)).into_response()
        }
        Some(Reply::Gate(content)) => {
            let _ = shared.arrived.send(());
            shared.release.notified().await;
            Json(completion(&content)).into_response()
        }
    }
}
