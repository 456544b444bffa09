//! The platform path: Telegram and WhatsApp customers through their webhooks, the
//! turn, the outbox dispatcher and a fake platform that enforces the real limits —
//! Telegram one message per chat and 30 per bot in any rolling second, WhatsApp
//! Cloud API 80 messages per second per number — answering 429 past them (with
//! `retry_after` on Telegram, error 130429 on WhatsApp). Measured from the webhook's
//! POST to the platform's receipt of the first reply; at the end every customer's
//! received replies are checked against the outbox: nothing lost, doubled or
//! reordered.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::Notify;

pub const TELEGRAM_TOKEN: &str = "123456:bench-token";
const TELEGRAM_SECRET: &str = "bench-telegram-secret";
const PHONE_ID: &str = "106540352242922";
const WA_SECRET: &str = "bench-app-secret";

/// What the platforms allow (per rolling second).
const TG_PER_CHAT: usize = 1;
const TG_PER_BOT: usize = 30;
const WA_PER_NUMBER: usize = 80;
const WINDOW: Duration = Duration::from_secs(1);

#[derive(Default)]
struct Platform {
    /// Accepted sends per key (`tg:chat:<id>`, `tg:bot`, `wa:number`), newest last.
    windows: std::sync::Mutex<HashMap<String, VecDeque<Instant>>>,
    /// What each customer received, in order: `tg:<chat>` / `wa:<number>`.
    received: std::sync::Mutex<HashMap<String, Vec<(Instant, String)>>>,
    refused: AtomicU64,
    next_id: AtomicU64,
    arrived: Notify,
}

impl Platform {
    /// Admits a send if every key has room in its rolling second.
    fn admit(&self, keys: &[(String, usize)]) -> bool {
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap();
        for (key, limit) in keys {
            let window = windows.entry(key.clone()).or_default();
            while window
                .front()
                .is_some_and(|t| now.duration_since(*t) >= WINDOW)
            {
                window.pop_front();
            }
            if window.len() >= *limit {
                self.refused.fetch_add(1, Ordering::Relaxed);
                return false;
            }
        }
        for (key, _) in keys {
            windows.get_mut(key).unwrap().push_back(now);
        }
        true
    }

    fn deliver(&self, to: String, text: String) {
        self.received
            .lock()
            .unwrap()
            .entry(to)
            .or_default()
            .push((Instant::now(), text));
        self.arrived.notify_waiters();
    }

    fn count(&self, to: &str) -> usize {
        self.received.lock().unwrap().get(to).map_or(0, Vec::len)
    }
}

async fn telegram(
    State(platform): State<Arc<Platform>>,
    Path((_bot, method)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> Response {
    let id = platform.next_id.fetch_add(1, Ordering::Relaxed) + 1;
    if method != "sendMessage" {
        return Json(json!({"ok": true, "result": true})).into_response();
    }
    let chat = body["chat_id"].to_string();
    if !platform.admit(&[
        (format!("tg:chat:{chat}"), TG_PER_CHAT),
        ("tg:bot".into(), TG_PER_BOT),
    ]) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            Json(json!({"ok": false, "error_code": 429,
                        "description": "Too Many Requests: retry after 1",
                        "parameters": {"retry_after": 1}})),
        )
            .into_response();
    }
    platform.deliver(
        format!("tg:{chat}"),
        body["text"].as_str().unwrap_or_default().to_owned(),
    );
    Json(
        json!({"ok": true, "result": {"message_id": id, "date": 1_795_000_000,
                                       "chat": {"id": body["chat_id"]}}}),
    )
    .into_response()
}

async fn whatsapp(
    State(platform): State<Arc<Platform>>,
    Path((_version, _phone)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> Response {
    let id = platform.next_id.fetch_add(1, Ordering::Relaxed) + 1;
    let Some(to) = body["to"].as_str() else {
        // Read receipts and the like are not messages.
        return Json(json!({"success": true})).into_response();
    };
    if !platform.admit(&[("wa:number".into(), WA_PER_NUMBER)]) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            Json(json!({"error": {"message": "(#130429) Rate limit hit",
                                  "type": "OAuthException", "code": 130429}})),
        )
            .into_response();
    }
    let text = body["text"]["body"]
        .as_str()
        .or_else(|| body["interactive"]["body"]["text"].as_str())
        .unwrap_or_default();
    platform.deliver(format!("wa:{to}"), text.to_owned());
    Json(json!({"messaging_product": "whatsapp",
                "contacts": [{"input": to, "wa_id": to}],
                "messages": [{"id": format!("wamid.bench{id}")}]}))
    .into_response()
}

pub struct FakePlatforms {
    pub base_url: String,
    platform: Arc<Platform>,
}

pub async fn start() -> FakePlatforms {
    let platform = Arc::new(Platform::default());
    let app = Router::new()
        .route("/{bot}/{method}", post(telegram))
        .route("/{version}/{phone}/messages", post(whatsapp))
        .with_state(platform.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    FakePlatforms { base_url, platform }
}

/// Gives the demo shop a Telegram bot and a WhatsApp number (sealed with the
/// bench's key, as the merchant API would).
pub async fn connect(pool: &PgPool, bot_id: uuid::Uuid) -> anyhow::Result<()> {
    use tendero::channels::credentials;
    credentials::set_telegram(
        pool,
        bot_id,
        &credentials::TelegramSetup {
            token: TELEGRAM_TOKEN.into(),
            secret_token: TELEGRAM_SECRET.into(),
        },
    )
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    credentials::set_whatsapp(
        pool,
        bot_id,
        &credentials::WhatsAppSetup {
            phone_number_id: PHONE_ID.into(),
            access_token: "bench-access-token".into(),
            app_secret: WA_SECRET.into(),
            verify_token: "bench-verify".into(),
        },
    )
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
pub enum Channel {
    Telegram,
    WhatsApp,
}

impl Channel {
    fn name(self) -> &'static str {
        match self {
            Channel::Telegram => "telegram",
            Channel::WhatsApp => "whatsapp",
        }
    }
}

static UPDATE: AtomicU64 = AtomicU64::new(1);

fn sign(body: &[u8]) -> String {
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(WA_SECRET.as_bytes()).unwrap();
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// One customer's message to the webhook; the recipient key the platform files
/// its replies under.
async fn post_message(
    client: &reqwest::Client,
    base: &str,
    channel: Channel,
    customer: u64,
    text: &str,
) -> String {
    let n = UPDATE.fetch_add(1, Ordering::Relaxed);
    match channel {
        Channel::Telegram => {
            let chat = 7_000_000_000 + customer;
            let update = json!({"update_id": n, "message": {
                "message_id": n, "date": 1_795_000_000, "text": text,
                "from": {"id": chat, "is_bot": false, "first_name": "Cliente"},
                "chat": {"id": chat, "type": "private", "first_name": "Cliente"}}});
            let response = client
                .post(format!("{base}/webhooks/telegram/demo-shop"))
                .header("X-Telegram-Bot-Api-Secret-Token", TELEGRAM_SECRET)
                .json(&update)
                .send()
                .await
                .unwrap();
            assert!(response.status().is_success(), "{}", response.status());
            format!("tg:{chat}")
        }
        Channel::WhatsApp => {
            let number = 59_170_000_000 + customer;
            let body = json!({"object": "whatsapp_business_account", "entry": [{
                "id": "102290129340398", "changes": [{"field": "messages", "value": {
                    "messaging_product": "whatsapp",
                    "metadata": {"display_phone_number": "15550783881", "phone_number_id": PHONE_ID},
                    "contacts": [{"profile": {"name": "Cliente"}, "wa_id": number.to_string()}],
                    "messages": [{"from": number.to_string(), "id": format!("wamid.in{n}"),
                                  "timestamp": "1795000000", "type": "text",
                                  "text": {"body": text}}]}}]}]});
            let bytes = serde_json::to_vec(&body).unwrap();
            let response = client
                .post(format!("{base}/webhooks/whatsapp/demo-shop"))
                .header("X-Hub-Signature-256", sign(&bytes))
                .header("Content-Type", "application/json")
                .body(bytes)
                .send()
                .await
                .unwrap();
            assert!(response.status().is_success(), "{}", response.status());
            format!("wa:{number}")
        }
    }
}

/// Customers write through `channel` for `secs`, each waiting for its reply and
/// then `think` before the next message; then the outbox drains and every
/// customer's received replies are compared with what Tendero queued for them.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    fakes: &FakePlatforms,
    base: &str,
    pool: &PgPool,
    channel: Channel,
    customers: u64,
    first_customer: u64,
    think: Duration,
    secs: u64,
    messages: &'static [&'static str],
) {
    let platform = fakes.platform.clone();
    let refused0 = platform.refused.load(Ordering::Relaxed);
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(secs);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..customers {
        let (platform, client, base) = (platform.clone(), client.clone(), base.to_owned());
        let customer = first_customer + c;
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut sent = 0u64;
            let mut i = 0;
            while Instant::now() < deadline {
                let text = messages[i % messages.len()];
                i += 1;
                let key = match channel {
                    Channel::Telegram => format!("tg:{}", 7_000_000_000 + customer),
                    Channel::WhatsApp => format!("wa:{}", 59_170_000_000 + customer),
                };
                let before = platform.count(&key);
                let at = Instant::now();
                post_message(&client, &base, channel, customer, text).await;
                sent += 1;
                let patience = Instant::now() + Duration::from_secs(30);
                while platform.count(&key) <= before && Instant::now() < patience {
                    let arrived = platform.arrived.notified();
                    if platform.count(&key) > before {
                        break;
                    }
                    let _ = tokio::time::timeout(Duration::from_millis(20), arrived).await;
                }
                if platform.count(&key) > before {
                    latencies.push(at.elapsed());
                }
                tokio::time::sleep(think).await;
            }
            (sent, latencies)
        }));
    }
    let mut sent = 0;
    let mut latencies = Vec::new();
    for task in tasks {
        let (s, l) = task.await.unwrap();
        sent += s;
        latencies.extend(l);
    }
    let elapsed = started.elapsed().as_secs_f64();
    // Drain: every queued reply is sent (or found stuck).
    for _ in 0..600 {
        let pending: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM outbox WHERE channel = $1 AND status IN ('pending', 'sending')",
        )
        .bind(channel.name())
        .fetch_one(pool)
        .await
        .unwrap();
        let inbox: i64 = sqlx::query_scalar("SELECT count(*) FROM inbox WHERE status = 'pending'")
            .fetch_one(pool)
            .await
            .unwrap_or(0);
        if pending == 0 && inbox == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // What Tendero queued for each of these customers, in order, against what
    // the platform took.
    let (mut lost, mut doubled, mut reordered, mut queued_total) = (0usize, 0usize, 0usize, 0usize);
    let received = platform.received.lock().unwrap().clone();
    for c in 0..customers {
        let customer = first_customer + c;
        let (recipient, key) = match channel {
            Channel::Telegram => {
                let chat = 7_000_000_000 + customer;
                (chat.to_string(), format!("tg:{chat}"))
            }
            Channel::WhatsApp => {
                let number = 59_170_000_000 + customer;
                (number.to_string(), format!("wa:{number}"))
            }
        };
        let queued: Vec<String> = sqlx::query_scalar(
            "SELECT coalesce(payload->>'text', '') FROM outbox
             WHERE channel = $1 AND recipient = $2 AND status = 'sent' ORDER BY id",
        )
        .bind(channel.name())
        .bind(&recipient)
        .fetch_all(pool)
        .await
        .unwrap();
        let unsent: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM outbox WHERE channel = $1 AND recipient = $2 AND status <> 'sent'",
        )
        .bind(channel.name())
        .bind(&recipient)
        .fetch_one(pool)
        .await
        .unwrap();
        lost += unsent as usize;
        queued_total += queued.len();
        let got: Vec<String> = received
            .get(&key)
            .map(|v| v.iter().map(|(_, t)| t.clone()).collect())
            .unwrap_or_default();
        lost += queued.len().saturating_sub(got.len());
        doubled += got.len().saturating_sub(queued.len());
        if got.len() == queued.len() && got != queued {
            reordered += 1;
        }
    }
    // Every message posted became exactly one inbox row.
    let inbound: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM inbox i JOIN contacts ct ON ct.bot_id = i.bot_id
             JOIN conversations c ON c.id = i.conversation_id AND c.contact_id = ct.id
         WHERE ct.channel = $1 AND ct.external_id = ANY($2)",
    )
    .bind(channel.name())
    .bind(
        (0..customers)
            .map(|c| match channel {
                Channel::Telegram => (7_000_000_000 + first_customer + c).to_string(),
                Channel::WhatsApp => (59_170_000_000 + first_customer + c).to_string(),
            })
            .collect::<Vec<_>>(),
    )
    .fetch_one(pool)
    .await
    .unwrap();
    lost += (sent as i64 - inbound).max(0) as usize;
    doubled += (inbound - sent as i64).max(0) as usize;
    latencies.sort();
    let q = |p: f64| -> f64 {
        if latencies.is_empty() {
            return f64::NAN;
        }
        let i = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1;
        latencies[i].as_secs_f64() * 1000.0
    };
    println!(
        "{:<34} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>8} {:>5} {:>7} {:>9}",
        format!(
            "{} {customers} c., think {} ms",
            channel.name(),
            think.as_millis()
        ),
        sent,
        queued_total as f64 / elapsed,
        q(0.5),
        q(0.99),
        platform.refused.load(Ordering::Relaxed) - refused0,
        lost,
        doubled,
        reordered
    );
}

pub fn header() {
    println!(
        "platform path: webhook → turn → outbox dispatcher → fake platform enforcing its limits \
         (Telegram 1/s per chat and 30/s per bot, WhatsApp 80/s per number, rolling seconds)"
    );
    println!(
        "{:<34} {:>6} {:>9} {:>9} {:>9} {:>8} {:>5} {:>7} {:>9}",
        "scenario", "msgs", "sends/s", "p50 ms", "p99 ms", "429s", "lost", "doubled", "reordered"
    );
}
