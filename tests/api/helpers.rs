//! `spawn_app` and the helpers tests share.

use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::PgPool;
use tendero::config::{Role, Settings};
use tendero::demo;
use tendero::engine::Engine;
use tendero::outbox::Dispatcher;
use tendero::startup::{self, Application, Proposers};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

pub struct TestApp {
    pub base: String,
    pub pool: PgPool,
    pub client: reqwest::Client,
    pub engine: Engine,
    pub dispatcher: Dispatcher,
    /// The demo merchant's API key.
    pub key: String,
    pub settings: Settings,
    /// Web-chat sessions the tests named, by (bot, name): (token, session id).
    sessions: std::sync::Mutex<std::collections::HashMap<(String, String), (String, String)>>,
    cancel: CancellationToken,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// A new web-chat session at `base` (any server, a child process included):
/// (token, session id).
pub async fn new_session(client: &reqwest::Client, base: &str, bot: &str) -> (String, String) {
    let response = client
        .post(format!("{base}/webchat/{bot}/sessions"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    (
        body["token"].as_str().unwrap().to_owned(),
        body["session"].as_str().unwrap().to_owned(),
    )
}

/// A port nothing listens on right now, for a child process to bind.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A URL for `database` on the test server named by `DATABASE_URL`, for child processes.
pub fn database_url(database: &str) -> String {
    let admin = std::env::var("DATABASE_URL").expect("DATABASE_URL names the test server");
    let server = admin.split('?').next().unwrap().rsplit_once('/').unwrap().0;
    format!("{server}/{database}")
}

pub async fn spawn_app(pool: PgPool) -> TestApp {
    spawn_app_with(pool, Proposers::rules()).await
}

/// Starts the HTTP side only; tests drive the worker and dispatcher themselves so
/// every step is deterministic.
pub async fn spawn_app_with(pool: PgPool, proposers: Proposers) -> TestApp {
    spawn_app_configured(pool, proposers, |_| {}).await
}

pub async fn spawn_app_configured(
    pool: PgPool,
    proposers: Proposers,
    configure: impl FnOnce(&mut Settings),
) -> TestApp {
    startup::install_crypto_provider();
    let mut settings = Settings::for_tests("postgres://unused");
    configure(&mut settings);
    startup::install_secret_keys(&settings).expect("test keys install");
    let shop = demo::load_shop(&pool, demo::DEMO_SHOP)
        .await
        .expect("demo shop loads");
    let key = tendero::api_keys::create(&pool, shop.merchant_id)
        .await
        .unwrap();
    let app = Application::build(settings.clone(), pool.clone(), proposers.clone(), Role::Web)
        .await
        .expect("app builds");
    let base = format!("http://{}", app.local_addr().unwrap());
    let cancel = CancellationToken::new();
    tokio::spawn(app.run_until_stopped(cancel.clone()));
    TestApp {
        base,
        engine: startup::engine(&pool, &settings, &proposers),
        dispatcher: startup::dispatcher(pool.clone(), &settings, startup::redis(&settings).await),
        pool,
        client: reqwest::Client::new(),
        key,
        settings,
        sessions: Default::default(),
        cancel,
    }
}

impl TestApp {
    /// This test's database, as a URL a child process can use.
    pub fn database_url(&self) -> String {
        database_url(self.pool.connect_options().get_database().unwrap())
    }

    pub async fn post_message(
        &self,
        session: &str,
        text: &str,
        client_id: &str,
    ) -> reqwest::Response {
        self.post_to("demo-shop", session, text, client_id).await
    }

    pub async fn post_to(
        &self,
        bot: &str,
        session: &str,
        text: &str,
        client_id: &str,
    ) -> reqwest::Response {
        let token = self.token(bot, session).await;
        self.client
            .post(format!("{}/webchat/{bot}/messages", self.base))
            .json(&json!({"token": token, "text": text, "client_id": client_id}))
            .send()
            .await
            .unwrap()
    }

    /// The token of the web-chat session a test calls `name` at `bot`, issued by
    /// the server the first time (`POST /webchat/{bot}/sessions`).
    pub async fn token(&self, bot: &str, name: &str) -> String {
        let key = (bot.to_owned(), name.to_owned());
        if let Some((token, _)) = self.sessions.lock().unwrap().get(&key) {
            return token.clone();
        }
        let (token, id) = new_session(&self.client, &self.base, bot).await;
        self.sessions
            .lock()
            .unwrap()
            .insert(key, (token.clone(), id));
        token
    }

    /// The contact ids a name stands for: its web-chat sessions at every bot, and
    /// the name itself (a Telegram chat or WhatsApp number is its own id).
    pub fn session_ids(&self, name: &str) -> Vec<String> {
        let sessions = self.sessions.lock().unwrap();
        let mut ids: Vec<String> = sessions
            .iter()
            .filter(|((_, n), _)| n == name)
            .map(|(_, (_, id))| id.clone())
            .collect();
        ids.push(name.to_owned());
        ids
    }

    /// The id of the bot `slug`.
    pub async fn bot_id(&self, slug: &str) -> Uuid {
        sqlx::query_scalar("SELECT id FROM bots WHERE slug = $1")
            .bind(slug)
            .fetch_one(&self.pool)
            .await
            .unwrap()
    }

    /// The events URL of `name`'s session at `bot`.
    pub async fn events_url(&self, bot: &str, name: &str) -> String {
        let token = self.token(bot, name).await;
        format!("{}/webchat/{bot}/events?token={token}", self.base)
    }

    /// Sends one message to `bot`, processes it, and returns the replies it produced.
    pub async fn say_to(&self, bot: &str, session: &str, text: &str) -> Vec<String> {
        let before = self.replies(session).await.len();
        let response = self
            .post_to(bot, session, text, &Uuid::new_v4().to_string())
            .await;
        assert_eq!(response.status(), StatusCode::ACCEPTED, "{text}");
        self.drain().await;
        self.replies(session).await.split_off(before)
    }

    /// Runs workers and the dispatcher until nothing is left to do.
    pub async fn drain(&self) {
        self.engine.run_until_idle().await.expect("worker runs");
        self.dispatcher
            .run_until_idle()
            .await
            .expect("dispatcher runs");
    }

    /// Sends one message, processes it, and returns the replies it produced.
    pub async fn say(&self, session: &str, text: &str) -> Vec<String> {
        let before = self.replies(session).await.len();
        let response = self
            .post_message(session, text, &Uuid::new_v4().to_string())
            .await;
        assert_eq!(response.status(), StatusCode::ACCEPTED, "{text}");
        self.drain().await;
        self.replies(session).await.split_off(before)
    }

    /// Every message delivered to a web-chat session, in order.
    pub async fn replies(&self, session: &str) -> Vec<String> {
        sqlx::query_scalar(
            "SELECT o.payload->>'text' FROM outbox o JOIN conversations c ON c.id = o.conversation_id
             JOIN contacts ct ON ct.id = c.contact_id
             WHERE ct.external_id = ANY($1) AND o.status = 'sent' AND o.audience = 'customer'
             ORDER BY o.id",
        )
        .bind(self.session_ids(session))
        .fetch_all(&self.pool)
        .await
        .unwrap()
    }

    pub async fn conversation_id(&self, session: &str) -> Uuid {
        sqlx::query_scalar(
            "SELECT c.id FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE ct.external_id = ANY($1)",
        )
        .bind(self.session_ids(session))
        .fetch_one(&self.pool)
        .await
        .unwrap()
    }

    /// The id of the latest order of `session`'s conversation, as the API shows it.
    pub async fn order_of(&self, session: &str) -> String {
        let conversation_id = self.conversation_id(session).await;
        let detail = self
            .get_json(&format!("/conversations/{conversation_id}"))
            .await;
        detail["order"]["order"]["id"].as_str().unwrap().to_owned()
    }

    pub async fn state(&self, session: &str) -> String {
        sqlx::query_scalar(
            "SELECT c.fsm_state FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE ct.external_id = ANY($1)",
        )
        .bind(self.session_ids(session))
        .fetch_one(&self.pool)
        .await
        .unwrap()
    }

    /// (product sku, quantity) of the session's cart.
    pub async fn cart(&self, session: &str) -> Vec<(String, i32)> {
        sqlx::query_as(
            "SELECT p.sku, ci.quantity FROM cart_items ci JOIN products p ON p.id = ci.product_id
             JOIN conversations c ON c.id = ci.conversation_id JOIN contacts ct ON ct.id = c.contact_id
             WHERE ct.external_id = ANY($1) ORDER BY ci.position",
        )
        .bind(self.session_ids(session))
        .fetch_all(&self.pool)
        .await
        .unwrap()
    }

    pub async fn count(&self, sql: &str) -> i64 {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
            .fetch_one(&self.pool)
            .await
            .unwrap()
    }

    /// Audit rows of a conversation as (kind, action, reason).
    pub async fn audit(
        &self,
        conversation_id: Uuid,
    ) -> Vec<(String, Option<String>, Option<String>)> {
        sqlx::query_as(
            "SELECT kind, action, reason FROM audit_log WHERE conversation_id = $1 ORDER BY id",
        )
        .bind(conversation_id)
        .fetch_all(&self.pool)
        .await
        .unwrap()
    }

    pub async fn api(
        &self,
        method: reqwest::Method,
        path: &str,
        key: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self
            .client
            .request(method, format!("{}/api/v1{path}", self.base))
            .bearer_auth(key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let body = response.json::<Value>().await.unwrap_or(Value::Null);
        (status, body)
    }

    pub async fn get_json(&self, path: &str) -> Value {
        let (status, body) = self.api(reqwest::Method::GET, path, &self.key, None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }

    /// `PATCH /api/v1/bots/{slug}` with `body`.
    pub async fn patch_bot(&self, slug: &str, body: Value) -> (StatusCode, Value) {
        self.api(
            reqwest::Method::PATCH,
            &format!("/bots/{slug}"),
            &self.key,
            Some(body),
        )
        .await
    }

    pub async fn post_api(&self, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        self.api(reqwest::Method::POST, path, &self.key, body).await
    }

    /// Reads `count` server-sent events from the session's stream (bounded wait).
    pub async fn read_events(
        &self,
        session: &str,
        last_event_id: Option<i64>,
        count: usize,
    ) -> Vec<Value> {
        let url = self.events_url("demo-shop", session).await;
        sse(self.client.clone(), url, last_event_id, count)
            .await
            .into_iter()
            .map(|(_, data)| data)
            .collect()
    }
}

/// Reads `count` server-sent events from `url` (bounded wait): each event's name
/// (`message` unless named) and its JSON data.
pub async fn sse(
    client: reqwest::Client,
    url: String,
    last_event_id: Option<i64>,
    count: usize,
) -> Vec<(String, Value)> {
    let mut request = client.get(url);
    if let Some(id) = last_event_id {
        request = request.header("Last-Event-ID", id.to_string());
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.bytes_stream();
    let mut events = Vec::new();
    // Bytes, not text: a chunk may end inside a multi-byte character.
    let mut buffer: Vec<u8> = Vec::new();
    let read = async {
        while events.len() < count {
            let Some(Ok(chunk)) = stream.next().await else {
                break;
            };
            buffer.extend_from_slice(&chunk);
            while let Some(pos) = buffer.windows(2).position(|w| w == b"\n\n") {
                let block = String::from_utf8(buffer[..pos].to_vec()).unwrap();
                buffer.drain(..pos + 2);
                let mut name = "message".to_string();
                for line in block.lines() {
                    if let Some(n) = line.strip_prefix("event:") {
                        name = n.trim().to_owned();
                    } else if let Some(data) = line.strip_prefix("data:") {
                        events.push((name.clone(), serde_json::from_str(data.trim()).unwrap()));
                    }
                }
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(10), read).await;
    events
}
