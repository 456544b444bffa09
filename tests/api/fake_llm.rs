//! A fake OpenAI-compatible server: a real HTTP server that answers
//! `POST /v1/chat/completions` from a script and records every request body, and
//! `POST /v1/embeddings` (when told to offer them) with bag-of-words vectors.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
    /// Embeddings are offered (otherwise 404, as a server without them answers).
    embeddings: Arc<AtomicBool>,
    embedding_inputs: Arc<Mutex<Vec<String>>>,
}

pub struct FakeLlm {
    pub base_url: String,
    script: Arc<Mutex<VecDeque<Reply>>>,
    requests: Arc<Mutex<Vec<Value>>>,
    pub arrived: mpsc::UnboundedReceiver<()>,
    pub release: Arc<Notify>,
    delay: Arc<Mutex<Duration>>,
    peak: Arc<AtomicUsize>,
    embeddings: Arc<AtomicBool>,
    embedding_inputs: Arc<Mutex<Vec<String>>>,
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
            embeddings: Arc::default(),
            embedding_inputs: Arc::default(),
        };
        let app = axum::Router::new()
            .route("/v1/chat/completions", post(complete))
            .route("/v1/embeddings", post(embed))
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
            embeddings: shared.embeddings,
            embedding_inputs: shared.embedding_inputs,
        }
    }

    /// Answers `/v1/embeddings` from now on (a 404 until then).
    pub fn offer_embeddings(&self, offered: bool) {
        self.embeddings.store(offered, Ordering::SeqCst);
    }

    /// Every text embedded so far.
    pub fn embedded(&self) -> Vec<String> {
        self.embedding_inputs.lock().unwrap().clone()
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

/// Dimensions of the fake's embeddings.
const DIMS: usize = 64;

/// A bag-of-words vector: each lowercase word adds to one of `DIMS` buckets, so
/// texts sharing words point the same way.
pub fn bag_of_words(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0f32; DIMS];
    for word in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let bucket = word
            .bytes()
            .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
        vector[bucket as usize % DIMS] += 1.0;
    }
    vector[0] += 0.01;
    vector
}

async fn embed(State(shared): State<Shared>, Json(body): Json<Value>) -> Response {
    if !shared.embeddings.load(Ordering::SeqCst) {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": {"message": "no such route", "type": "invalid_request_error"}})),
        )
            .into_response();
    }
    let inputs: Vec<String> = match &body["input"] {
        Value::String(one) => vec![one.clone()],
        Value::Array(many) => many
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    shared
        .embedding_inputs
        .lock()
        .unwrap()
        .extend(inputs.iter().cloned());
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": bag_of_words(text)}))
        .collect();
    Json(
        json!({"object": "list", "data": data, "model": "fake-embed",
                "usage": {"prompt_tokens": 8, "total_tokens": 8}}),
    )
    .into_response()
}
