//! Turn benchmark: web chat end to end (POST a message → the turn runs → the reply
//! arrives on the customer's event stream) against a `tendero serve` child process,
//! with the raw SQL of a turn issued directly as the baseline, all in one run on
//! loopback. Prints, per scenario: turns/s, p50/p99 reply latency, tendero and
//! PostgreSQL CPU ms per turn (from /proc), statements and transactions per turn,
//! peak LLM calls in flight and tendero's RSS.
//!
//!     cargo bench --bench turns
//!
//! Environment: `DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/postgres;
//! a scratch database is created and dropped), `BENCH_SECS` (default 6, per
//! scenario), `BENCH_LLM_MS` (default 500, the fake model's thinking time),
//! `BENCH_ONLY` (`rules`, `llm`, `roles`, `streams`, `platforms` or `baseline`: run
//! just that group; `roles` runs `--role web` and two `--role worker` processes;
//! `platforms` sends Telegram and WhatsApp customers through their webhooks to a
//! fake platform that enforces the real send limits),
//! `BENCH_IDLE_STREAMS` (default 10,000: idle event streams held open beside 16
//! buying customers),
//! `BENCH_SERVER_WRAPPER` (a command to run the server under, such as a profiler).
//!
//! The server runs with its defaults. Each customer waits for the reply before
//! writing again, so every message is one turn. With a model configured (the
//! defaults: rules first, the burst window on) customers alternate messages the
//! rules read whole with ones only the model answers, and the two are timed
//! apart; then customers type bursts of three messages within a second, and the
//! replies and model calls each burst got are counted. The `all` rows turn rules
//! first off (`TENDERO_LLM_RULES_FIRST=false`), so every turn asks the model.
//! Statements are counted by tendero itself (`TENDERO_COUNT_STATEMENTS=1`),
//! transactions by PostgreSQL (`pg_stat_database`), CPU from /proc: the child's own
//! and the sum over every `postgres` process.

#[path = "turns/platforms.rs"]
mod platforms;

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Json;
use axum::routing::post;
use futures::StreamExt;
use serde_json::{Value, json};
use sqlx::PgPool;

/// The key the server signs web-chat session tokens with, installed here too so
/// the load generator mints its customers' tokens itself (as many as it likes,
/// without going through the per-address limit on new sessions).
const BENCH_KEY: &str = "bench=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

static SHOP: std::sync::OnceLock<uuid::Uuid> = std::sync::OnceLock::new();

/// A new demo-shop session: (token, session id).
fn new_session() -> (String, String) {
    let (token, session) = tendero::channels::webchat::session::issue(
        tendero::secret::keyring().expect("the bench key is installed"),
        *SHOP.get().expect("the shop is loaded"),
    );
    (token, session.id)
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// (own, reaped children's) CPU time of a process, in milliseconds.
fn cpu_ms_with_children(pid: u32) -> (f64, f64) {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return (0.0, 0.0);
    };
    // Fields after the parenthesised command name: utime, stime, cutime, cstime
    // are fields 14 to 17 of the line.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|v| v.parse().unwrap_or(0.0))
        .collect();
    let ms = |ticks: f64| ticks * 1000.0 / 100.0;
    match fields.as_slice() {
        [u, s, cu, cs] => (ms(u + s), ms(cu + cs)),
        _ => (0.0, 0.0),
    }
}

/// CPU time (user + system) of a process, in milliseconds.
fn cpu_ms(pid: u32) -> f64 {
    cpu_ms_with_children(pid).0
}

/// CPU time of PostgreSQL, in milliseconds: every live `postgres` process, plus
/// what the server has reaped from backends that exited.
fn postgres_cpu_ms() -> f64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim_end() == "postgres")
        })
        .map(|pid| {
            let (own, children) = cpu_ms_with_children(pid);
            own + children
        })
        .sum()
}

/// A memory figure of `/proc/PID/status` (`VmHWM:` the peak, `VmRSS:` now), in MiB.
fn status_mb(pid: u32, field: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn rss_mb(pid: u32) -> f64 {
    status_mb(pid, "VmHWM:")
}

/// How long until every backend has reported its transactions: an idle backend
/// flushes its pending statistics within ten seconds (PostgreSQL 15+).
const STATS_FLUSH: Duration = Duration::from_secs(12);

async fn transactions(pool: &PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT (xact_commit + xact_rollback)::bigint FROM pg_stat_database WHERE datname = current_database()",
    )
    .fetch_one(pool)
    .await
    .expect("pg_stat_database")
}

/// A fake OpenAI-compatible server that thinks for `delay` and counts calls in flight.
struct FakeLlm {
    base_url: String,
    peak: Arc<AtomicUsize>,
    /// Calls answered since the start.
    calls: Arc<AtomicUsize>,
}

async fn fake_llm(delay: Duration) -> FakeLlm {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let calls = Arc::new(AtomicUsize::new(0));
    let (now, high, count) = (in_flight.clone(), peak.clone(), calls.clone());
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |Json(_body): Json<Value>| {
            let (now, high, count) = (now.clone(), high.clone(), count.clone());
            async move {
                count.fetch_add(1, Ordering::SeqCst);
                let current = now.fetch_add(1, Ordering::SeqCst) + 1;
                high.fetch_max(current, Ordering::SeqCst);
                tokio::time::sleep(delay).await;
                now.fetch_sub(1, Ordering::SeqCst);
                let content = json!({"proposed_actions": [{"type": "REPLY", "params": {}}],
                                     "response_text": "Con gusto."})
                .to_string();
                Json(json!({
                    "id": "bench", "object": "chat.completion", "created": 1, "model": "bench",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 400, "completion_tokens": 40, "total_tokens": 440},
                }))
            }
        }),
    );
    // Embeddings too (knowledge search asks for them): small constant vectors.
    let app = app.route(
        "/v1/embeddings",
        post(|Json(body): Json<Value>| async move {
            let inputs = body["input"].as_array().map_or(1, Vec::len);
            let data: Vec<Value> = (0..inputs)
                .map(|i| json!({"object": "embedding", "index": i, "embedding": [0.5, 0.5, 0.5, 0.5]}))
                .collect();
            Json(json!({"object": "list", "model": "bench", "data": data,
                        "usage": {"prompt_tokens": 8, "total_tokens": 8}}))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    FakeLlm {
        base_url,
        peak,
        calls,
    }
}

struct Server {
    child: Child,
    base: String,
    /// Worker-only processes beside it (`--role worker`), with their probe URLs.
    workers: Vec<(Child, String)>,
}

impl Server {
    async fn start(database_url: &str, extra: &[(&str, String)]) -> Server {
        Self::start_as(database_url, extra, "all").await
    }

    /// A web process and `workers` worker processes against one database.
    async fn start_split(database_url: &str, workers: usize) -> Server {
        let mut server = Self::start_as(database_url, &[], "web").await;
        for _ in 0..workers {
            let worker = Self::start_as(database_url, &[], "worker").await;
            let Server { child, base, .. } = worker;
            server.workers.push((child, base));
        }
        server
    }

    async fn start_as(database_url: &str, extra: &[(&str, String)], role: &str) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // BENCH_SERVER_WRAPPER runs the server under a profiler, e.g.
        // "valgrind --tool=callgrind --callgrind-out-file=target/turns.callgrind".
        let wrapper = std::env::var("BENCH_SERVER_WRAPPER").unwrap_or_default();
        let mut words = wrapper.split_whitespace();
        let mut command = match words.next() {
            Some(program) => {
                let mut command = Command::new(program);
                command.args(words).arg(env!("CARGO_BIN_EXE_tendero"));
                command
            }
            None => Command::new(env!("CARGO_BIN_EXE_tendero")),
        };
        command
            .args(["serve", "--role", role])
            .env("DATABASE_URL", database_url)
            .env("TENDERO_LISTEN", format!("127.0.0.1:{port}"))
            .env("TENDERO_COUNT_STATEMENTS", "1")
            .env("TENDERO_SECRET_KEY", BENCH_KEY)
            // Load generators are not customers: no per-contact limit.
            .env("TENDERO_CONTACT_MESSAGES_PER_MINUTE", "1000000")
            .env("RUST_LOG", "error")
            .env_remove("REDIS_URL")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (name, value) in extra {
            command.env(name, value);
        }
        let server = Server {
            child: command.spawn().expect("tendero starts"),
            base: format!("http://127.0.0.1:{port}"),
            workers: Vec::new(),
        };
        let client = reqwest::Client::new();
        for _ in 0..2400 {
            if client
                .get(format!("{}/readyz", server.base))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        server.stop();
        panic!("tendero did not become ready");
    }

    /// Statements run by every process of the server.
    async fn statements(&self, client: &reqwest::Client) -> f64 {
        let mut total = 0.0;
        for base in std::iter::once(&self.base).chain(self.workers.iter().map(|(_, b)| b)) {
            let text = client
                .get(format!("{base}/metrics"))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            total += text
                .lines()
                .find_map(|l| l.strip_prefix("tendero_db_statements_total "))
                .and_then(|v| v.trim().parse::<f64>().ok())
                .unwrap_or(0.0);
        }
        total
    }

    fn pids(&self) -> Vec<u32> {
        std::iter::once(self.child.id())
            .chain(self.workers.iter().map(|(c, _)| c.id()))
            .collect()
    }

    /// CPU of every process of the server, in milliseconds.
    fn cpu_ms(&self) -> f64 {
        self.pids().into_iter().map(cpu_ms).sum()
    }

    /// Peak RSS, summed over the processes.
    fn rss_mb(&self) -> f64 {
        self.pids().into_iter().map(rss_mb).sum()
    }

    fn stop(mut self) {
        for (mut worker, _) in std::mem::take(&mut self.workers) {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(worker.id().to_string())
                .status();
            let _ = worker.wait();
        }
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}

#[derive(Default)]
struct Row {
    name: String,
    turns: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
    tendero_cpu_ms: f64,
    postgres_cpu_ms: f64,
    statements: f64,
    transactions: f64,
    llm_peak: Option<usize>,
    rss_mb: Option<f64>,
    /// Each reply's latency with the index of the message it answered.
    by_message: Vec<(usize, Duration)>,
}

fn quantile_ms(latencies: &[Duration], q: f64) -> f64 {
    if latencies.is_empty() {
        return f64::NAN;
    }
    let mut sorted = latencies.to_vec();
    sorted.sort();
    sorted[((sorted.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0
}

impl Row {
    fn quantile(&self, q: f64) -> f64 {
        quantile_ms(&self.latencies, q)
    }

    /// p50 and p99 of the replies to the messages `which` picks.
    fn of_messages(&self, which: impl Fn(usize) -> bool) -> (usize, f64, f64) {
        let picked: Vec<Duration> = self
            .by_message
            .iter()
            .filter(|(i, _)| which(*i))
            .map(|(_, d)| *d)
            .collect();
        (
            picked.len(),
            quantile_ms(&picked, 0.5),
            quantile_ms(&picked, 0.99),
        )
    }

    fn per_turn(&self, total: f64) -> f64 {
        total / self.turns.max(1) as f64
    }

    fn print(&self) {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        println!(
            "{:<30} {:>8.0} {:>8.1} {:>8.1} {:>9} {:>9.2} {:>7} {:>6.2} {:>6} {:>7}",
            self.name,
            self.turns as f64 / self.elapsed.as_secs_f64(),
            self.quantile(0.5),
            self.quantile(0.99),
            opt((self.tendero_cpu_ms > 0.0 || self.rss_mb.is_some())
                .then(|| format!("{:.2}", self.per_turn(self.tendero_cpu_ms)))),
            self.per_turn(self.postgres_cpu_ms),
            opt(self
                .rss_mb
                .map(|_| format!("{:.1}", self.per_turn(self.statements)))),
            self.per_turn(self.transactions),
            opt(self.llm_peak.map(|p| p.to_string())),
            opt(self.rss_mb.map(|r| format!("{r:.0}"))),
        );
    }
}

/// Lets the load tasks run for `secs`, stops them and gathers their latencies.
async fn run_for<T>(
    secs: u64,
    stop: &AtomicBool,
    tasks: Vec<tokio::task::JoinHandle<Vec<T>>>,
) -> Vec<T> {
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::Relaxed);
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.unwrap());
    }
    latencies
}

/// The SQL of one turn issued directly: lock the conversation, mark the event,
/// queue the reply, write its transcript line and audit row, save the state.
async fn baseline(pool: &PgPool, bot_id: uuid::Uuid, secs: u64, concurrency: usize) -> Row {
    let mut conversations = Vec::new();
    for i in 0..concurrency {
        let mut conn = pool.acquire().await.unwrap();
        conversations.push(
            tendero::conversations::ensure_conversation(
                &mut conn,
                bot_id,
                tendero::channels::ChannelKind::Webchat,
                &format!("baseline-{i}"),
            )
            .await
            .unwrap(),
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (pg0, tx0) = (postgres_cpu_ms(), transactions(pool).await);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (i, conversation) in conversations.into_iter().enumerate() {
        let (pool, stop) = (pool.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let inbox_id: i64 = sqlx::query_scalar(
                    "INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload, status)
                     VALUES ($1, $2, $3, 'message', '{\"text\":\"hola\"}', 'pending') RETURNING id",
                )
                .bind(bot_id)
                .bind(conversation)
                .bind(format!("baseline:{i}:{n}"))
                .fetch_one(&pool)
                .await
                .unwrap();
                let mut tx = pool.begin().await.unwrap();
                sqlx::query("SELECT version FROM conversations WHERE id = $1 FOR UPDATE")
                    .bind(conversation)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                sqlx::query("UPDATE inbox SET status = 'done', processed_at = now() WHERE id = $1")
                    .bind(inbox_id)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                let outbox_id: i64 = sqlx::query_scalar(
                    "INSERT INTO outbox (conversation_id, bot_id, channel, recipient, author, payload, status)
                     VALUES ($1, $2, 'webchat', 'x', 'bot', '{\"text\":\"hola\"}', 'sent') RETURNING id",
                )
                .bind(conversation)
                .bind(bot_id)
                .fetch_one(&mut *tx)
                .await
                .unwrap();
                sqlx::query(
                    "INSERT INTO messages (bot_id, conversation_id, direction, author, text, outbox_id)
                     VALUES ($3, $1, 'out', 'bot', 'hola', $2)",
                )
                .bind(conversation)
                .bind(outbox_id)
                .bind(bot_id)
                .execute(&mut *tx)
                .await
                .unwrap();
                sqlx::query(
                    "INSERT INTO audit_log (bot_id, conversation_id, actor, kind) VALUES ($1, $2, 'backend', 'bench')",
                )
                .bind(bot_id)
                .bind(conversation)
                .execute(&mut *tx)
                .await
                .unwrap();
                sqlx::query("UPDATE conversations SET version = version + 1 WHERE id = $1")
                    .bind(conversation)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                tx.commit().await.unwrap();
                latencies.push(t.elapsed());
                n += 1;
            }
            latencies
        }));
    }
    let latencies = run_for(secs, &stop, tasks).await;
    let elapsed = started.elapsed();
    let pg1 = postgres_cpu_ms();
    tokio::time::sleep(STATS_FLUSH).await;
    let tx1 = transactions(pool).await;
    Row {
        name: format!("raw turn SQL, {concurrency} at once"),
        turns: latencies.len(),
        elapsed,
        latencies,
        postgres_cpu_ms: pg1 - pg0,
        // Each iteration: the inbox insert (as a webhook would) and the turn's tx.
        transactions: (tx1 - tx0 - 1) as f64,
        ..Row::default()
    }
}

/// A shop that has been open a while: `conversations` finished conversations of
/// ten exchanges each (inbox, transcript, replies, audit), analyzed, so the
/// planner sees tables of a real size rather than the empty ones a scratch
/// database starts with.
async fn seed_history(pool: &PgPool, bot_id: uuid::Uuid, conversations: u64) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut tx = pool.begin().await?;
    for sql in [
        "INSERT INTO contacts (bot_id, channel, external_id)
         SELECT $1, 'webchat', 'past-' || g FROM generate_series(1, $2) g",
        "INSERT INTO conversations (bot_id, contact_id, last_customer_at, last_activity_at)
         SELECT $1, id, now() - interval '2 days', now() - interval '2 days'
         FROM contacts WHERE bot_id = $1 AND external_id LIKE 'past-%' AND $2 > 0",
        "INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload, status, attempts, processed_at)
         SELECT $1, c.id, 'past-' || c.id || '-' || n, 'message', '{\"text\": \"hola\"}', 'done', 1, now()
         FROM conversations c CROSS JOIN generate_series(1, 10) n
         WHERE c.bot_id = $1 AND c.fsm_state = 'IDLE' AND $2 > 0",
        "INSERT INTO outbox (conversation_id, bot_id, channel, recipient, author, payload, status, inbox_id, sent_at)
         SELECT i.conversation_id, $1, 'webchat', 'x', 'bot', '{\"text\": \"¡Hola!\"}', 'sent', i.id, now()
         FROM inbox i WHERE i.bot_id = $1 AND $2 > 0",
        "INSERT INTO messages (bot_id, conversation_id, direction, author, text, inbox_id)
         SELECT $1, conversation_id, 'in', 'customer', 'hola', id FROM inbox WHERE bot_id = $1 AND $2 > 0",
        "INSERT INTO messages (bot_id, conversation_id, direction, author, text, outbox_id)
         SELECT $1, conversation_id, 'out', 'bot', '¡Hola!', id FROM outbox WHERE bot_id = $1 AND $2 > 0",
        "INSERT INTO audit_log (bot_id, conversation_id, inbox_id, actor, kind)
         SELECT $1, conversation_id, id, a, k FROM inbox
         CROSS JOIN (VALUES ('agent', 'action_proposed'), ('backend', 'action_accepted'),
                            ('backend', 'action_executed')) v(a, k)
         WHERE bot_id = $1 AND $2 > 0",
    ] {
        sqlx::query(sql)
            .bind(bot_id)
            .bind(conversations as i64)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    sqlx::query("VACUUM ANALYZE").execute(pool).await?;
    println!(
        "history: {conversations} past conversations seeded in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// What the customers say, in turn. With the rules: a greeting and three cart
/// changes. With the LLM: four shop requests, each one model call (a greeting is
/// small talk, answered before any proposer).
const RULES_MESSAGES: &[&str] = &[
    "hola",
    "quiero 2 maracuyá",
    "quiero 1 matcha",
    "vacía el carrito",
];
const LLM_MESSAGES: &[&str] = &[
    "quiero 2 maracuyá",
    "muéstrame el menú",
    "quiero 1 matcha",
    "vacía el carrito",
];

/// With a model configured and the defaults: messages the rules read whole
/// alternate with ones only the model can answer (the even ones and the odd ones).
const MIXED_MESSAGES: &[&str] = &[
    "quiero 2 maracuyá",
    "mira",
    "quiero 1 matcha",
    "no sé qué elegir",
    "vacía el carrito",
    "tengo una duda",
];
/// A burst: three messages only the model can answer, typed 300 ms apart.
const BURST: &[&str] = &["mira", "tengo una duda", "no sé qué elegir"];
const BURST_GAP: Duration = Duration::from_millis(300);

/// Reads `stream` until a reply (an event with an `id:`) arrives or `wait` passes.
async fn next_reply(
    stream: &mut (impl futures::Stream<Item = reqwest::Result<axum::body::Bytes>> + Unpin),
    buffer: &mut String,
    wait: Duration,
) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        while let Some(pos) = buffer.find("\n\n") {
            let block: String = buffer.drain(..pos + 2).collect();
            if block.lines().any(|l| l.starts_with("id:")) {
                return true;
            }
        }
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(Ok(chunk))) => buffer.push_str(&String::from_utf8_lossy(&chunk)),
            _ => return false,
        }
    }
}

/// `customers` sessions each type `rounds` bursts (three messages 300 ms apart,
/// within one second) and count the replies each burst gets; model calls per
/// burst come from the fake and from `llm_calls` (per head message).
async fn bursts(server: &Server, pool: &PgPool, fake: &FakeLlm, customers: usize, rounds: usize) {
    let client = reqwest::Client::new();
    let calls0 = fake.calls.load(Ordering::SeqCst);
    let mut tasks = Vec::new();
    let mut sessions = Vec::new();
    for _ in 0..customers {
        let client = client.clone();
        let base = server.base.clone();
        let (token, session) = new_session();
        sessions.push(session);
        tasks.push(tokio::spawn(async move {
            let response = client
                .get(format!("{base}/webchat/demo-shop/events?token={token}"))
                .send()
                .await
                .unwrap();
            let mut stream = response.bytes_stream();
            let mut buffer = String::new();
            // (replies, ms from the burst's last message to its first reply) per round
            let mut rounds_seen = Vec::new();
            for r in 0..rounds {
                for (i, text) in BURST.iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(BURST_GAP).await;
                    }
                    let status = client
                        .post(format!("{base}/webchat/demo-shop/messages"))
                        .json(&json!({"token": token, "text": text,
                                      "client_id": format!("b{r}-{i}")}))
                        .send()
                        .await
                        .unwrap()
                        .status();
                    assert_eq!(status, 202);
                }
                let last = Instant::now();
                let mut replies = 0;
                let mut first = None;
                if next_reply(&mut stream, &mut buffer, Duration::from_secs(30)).await {
                    replies += 1;
                    first = Some(last.elapsed());
                }
                // Anything more for this burst comes within a quiet two seconds.
                while next_reply(&mut stream, &mut buffer, Duration::from_secs(2)).await {
                    replies += 1;
                }
                rounds_seen.push((replies, first));
            }
            rounds_seen
        }));
    }
    let mut seen = Vec::new();
    for task in tasks {
        seen.extend(task.await.unwrap());
    }
    let calls = fake.calls.load(Ordering::SeqCst) - calls0;
    let most_calls: i64 = sqlx::query_scalar(
        "SELECT coalesce(max(n), 0) FROM (
             SELECT count(*) AS n FROM llm_calls l
             JOIN conversations c ON c.id = l.conversation_id
             JOIN contacts ct ON ct.id = c.contact_id
             WHERE ct.external_id = ANY($1) GROUP BY l.inbox_id) per_head",
    )
    .bind(&sessions)
    .fetch_one(pool)
    .await
    .unwrap();
    let bursts = seen.len();
    let one_reply = seen.iter().filter(|(n, _)| *n == 1).count();
    let most_replies = seen.iter().map(|(n, _)| *n).max().unwrap_or(0);
    let waits: Vec<Duration> = seen.iter().filter_map(|(_, w)| *w).collect();
    println!(
        "bursts (3 messages within 1 s, {customers} customers × {rounds}): {one_reply}/{bursts} \
         answered with one reply (most replies to a burst: {most_replies}); model calls per \
         burst {:.2} (most for one burst: {most_calls}); last message to reply p50 {:.0} ms",
        calls as f64 / bursts.max(1) as f64,
        quantile_ms(&waits, 0.5),
    );
}

/// `customers` web-chat sessions, each posting and waiting for its reply, for `secs`.
async fn end_to_end(
    name: String,
    server: &Server,
    pool: &PgPool,
    customers: usize,
    secs: u64,
    run: &str,
    messages: &'static [&'static str],
) -> Row {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(customers * 2)
        .build()
        .unwrap();
    // Each customer is a device of its own (127.0.x.y): the per-address stream
    // bound is the default's, as for real visitors.
    let device = |c: usize| {
        reqwest::Client::builder()
            .local_address(std::net::IpAddr::from([
                127,
                0,
                2 + (c / 250) as u8,
                1 + (c % 250) as u8,
            ]))
            .build()
            .unwrap()
    };
    // Each scenario starts from tidy tables, whatever the previous one left.
    sqlx::query("VACUUM ANALYZE").execute(pool).await.unwrap();
    // Open every stream first, so connection set-up is not measured.
    let mut streams = Vec::new();
    for c in 0..customers {
        let (token, _) = new_session();
        let response = device(c)
            .get(format!(
                "{}/webchat/demo-shop/events?token={token}",
                server.base
            ))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success());
        streams.push((token, response.bytes_stream()));
    }
    let scrape_cost = {
        let a = server.statements(&client).await;
        let b = server.statements(&client).await;
        b - a
    };
    // Everything before this point (the vacuum, the streams' first looks) reported.
    tokio::time::sleep(STATS_FLUSH).await;
    let tx0 = transactions(pool).await;
    let stop = Arc::new(AtomicBool::new(false));
    let (cpu0, pg0, st0) = (
        server.cpu_ms(),
        postgres_cpu_ms(),
        server.statements(&client).await,
    );
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (c, (token, mut stream)) in streams.into_iter().enumerate() {
        let (client, stop) = (client.clone(), stop.clone());
        let url = format!("{}/webchat/demo-shop/messages", server.base);
        let client_ids = format!("{run}-{c}");
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut buffer = String::new();
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let status = client
                    .post(&url)
                    .json(
                        &json!({"token": token, "text": messages[n % messages.len()],
                                  "client_id": format!("{client_ids}-m{n}")}),
                    )
                    .send()
                    .await
                    .unwrap()
                    .status();
                assert_eq!(status, 202);
                // The reply: one message on this session's stream (a message has an
                // `id:`; `typing` while the model thinks has none).
                'reply: loop {
                    while let Some(pos) = buffer.find("\n\n") {
                        let block: String = buffer.drain(..pos + 2).collect();
                        if block.lines().any(|l| l.starts_with("id:")) {
                            break 'reply;
                        }
                    }
                    match tokio::time::timeout(Duration::from_secs(60), stream.next()).await {
                        Ok(Some(Ok(chunk))) => buffer.push_str(&String::from_utf8_lossy(&chunk)),
                        _ => panic!("no reply within a minute"),
                    }
                }
                latencies.push((n % messages.len(), t.elapsed()));
                n += 1;
            }
            latencies
        }));
    }
    let by_message = run_for(secs, &stop, tasks).await;
    let latencies = by_message.iter().map(|(_, d)| *d).collect::<Vec<_>>();
    let elapsed = started.elapsed();
    let (cpu1, pg1, st1) = (
        server.cpu_ms(),
        postgres_cpu_ms(),
        server.statements(&client).await,
    );
    tokio::time::sleep(STATS_FLUSH).await;
    let tx1 = transactions(pool).await;
    Row {
        name,
        turns: latencies.len(),
        elapsed,
        latencies,
        tendero_cpu_ms: cpu1 - cpu0,
        postgres_cpu_ms: pg1 - pg0,
        statements: st1 - st0 - scrape_cost,
        // Not the turns': two scrapes (each statement its own transaction) and the
        // first read.
        transactions: (tx1 - tx0) as f64 - 2.0 * scrape_cost - 1.0,
        llm_peak: None,
        rss_mb: Some(server.rss_mb()),
        by_message,
    }
}

/// `count` idle web-chat event streams, half of sessions that have a conversation
/// (seeded) and half of sessions that never wrote, spread over client addresses
/// (127.0.x.y) so each stays within the per-address default.
async fn open_idle_streams(server: &Server, pool: &PgPool, count: usize) -> Vec<reqwest::Response> {
    let bot_id: uuid::Uuid = sqlx::query_scalar("SELECT id FROM bots WHERE slug = 'demo-shop'")
        .fetch_one(pool)
        .await
        .unwrap();
    let sessions: Vec<(String, String)> = (0..count).map(|_| new_session()).collect();
    let with: Vec<String> = sessions
        .iter()
        .step_by(2)
        .map(|(_, id)| id.clone())
        .collect();
    sqlx::query(
        "WITH c AS (
             INSERT INTO contacts (bot_id, channel, external_id)
             SELECT $1, 'webchat', s FROM unnest($2::text[]) s
             ON CONFLICT DO NOTHING RETURNING id)
         INSERT INTO conversations (bot_id, contact_id) SELECT $1, id FROM c",
    )
    .bind(bot_id)
    .bind(&with)
    .execute(pool)
    .await
    .unwrap();
    let per_address = 40;
    let mut clients = Vec::new();
    for a in 0..count.div_ceil(per_address) {
        let address = std::net::IpAddr::from([127, 0, 1 + (a / 250) as u8, 1 + (a % 250) as u8]);
        clients.push(
            reqwest::Client::builder()
                .local_address(address)
                .build()
                .unwrap(),
        );
    }
    let opened = futures::stream::iter(0..count)
        .map(|i| {
            let client = clients[i / per_address].clone();
            let url = format!(
                "{}/webchat/demo-shop/events?token={}",
                server.base, sessions[i].0
            );
            async move { client.get(url).send().await.unwrap() }
        })
        .buffer_unordered(64)
        .collect::<Vec<_>>()
        .await;
    for response in &opened {
        assert!(response.status().is_success(), "{}", response.status());
    }
    opened
}

fn rss_now_mb(pid: u32) -> f64 {
    status_mb(pid, "VmRSS:")
}

/// 16 buying customers alone, then beside `count` idle event streams: the ratios
/// of the two runs, tendero's RSS and what the open streams cost when nobody writes.
async fn beside_idle_streams(server: &Server, pool: &PgPool, secs: u64, count: usize) {
    let alone = end_to_end(
        "rules, 16 c., no idle streams".into(),
        server,
        pool,
        16,
        secs,
        "alone",
        RULES_MESSAGES,
    )
    .await;
    alone.print();
    let pid = server.child.id();
    let opening = Instant::now();
    let streams = open_idle_streams(server, pool, count).await;
    println!(
        "opened {count} idle event streams in {:.1} s (half with a conversation); RSS {:.0} MB",
        opening.elapsed().as_secs_f64(),
        rss_now_mb(pid)
    );
    // What they cost with nobody writing.
    let client = reqwest::Client::new();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let scrape = {
        let a = server.statements(&client).await;
        server.statements(&client).await - a
    };
    let (st0, cpu0) = (server.statements(&client).await, cpu_ms(pid));
    let window = Duration::from_secs(10);
    tokio::time::sleep(window).await;
    let (st1, cpu1) = (server.statements(&client).await, cpu_ms(pid));
    println!(
        "idle, {count} event streams open: {:.2} statements/s, tendero CPU {:.1} ms/s",
        (st1 - st0 - scrape) / window.as_secs_f64(),
        (cpu1 - cpu0) / window.as_secs_f64()
    );
    let beside = end_to_end(
        format!("rules, 16 c., {count} idle"),
        server,
        pool,
        16,
        secs,
        "beside",
        RULES_MESSAGES,
    )
    .await;
    beside.print();
    let rate = |r: &Row| r.turns as f64 / r.elapsed.as_secs_f64();
    println!(
        "with {count} idle streams open: turns/s ×{:.2}, tendero CPU per turn ×{:.2}, \
         PostgreSQL CPU per turn ×{:.2} (against the run without them); RSS {:.0} MB",
        rate(&beside) / rate(&alone),
        beside.per_turn(beside.tendero_cpu_ms) / alone.per_turn(alone.tendero_cpu_ms),
        beside.per_turn(beside.postgres_cpu_ms) / alone.per_turn(alone.postgres_cpu_ms),
        rss_now_mb(pid)
    );
    drop(streams);
}

/// What a process costs when nobody writes: statements per second with idle
/// event streams open.
async fn idle(server: &Server, streams: usize) {
    let client = reqwest::Client::new();
    let mut open = Vec::new();
    for _ in 0..streams {
        let (token, _) = new_session();
        let response = client
            .get(format!(
                "{}/webchat/demo-shop/events?token={token}",
                server.base
            ))
            .send()
            .await
            .unwrap();
        open.push(response);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let scrape = {
        let a = server.statements(&client).await;
        server.statements(&client).await - a
    };
    let pid = server.child.id();
    let (st0, cpu0) = (server.statements(&client).await, cpu_ms(pid));
    let window = Duration::from_secs(20);
    tokio::time::sleep(window).await;
    let (st1, cpu1) = (server.statements(&client).await, cpu_ms(pid));
    println!(
        "idle, {streams} event streams open: {:.2} statements/s, tendero CPU {:.1} ms/s",
        (st1 - st0 - scrape) / window.as_secs_f64(),
        (cpu1 - cpu0) / window.as_secs_f64()
    );
    drop(open);
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tendero::startup::install_crypto_provider();
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let secs = env_number("BENCH_SECS", 6);
    let llm_ms = env_number("BENCH_LLM_MS", 500);
    let base = sqlx::PgPool::connect(&url).await?;
    let (pool, scratch) = tendero::db::create_scratch(&base, "tendero_turns").await?;
    let scratch_url = format!(
        "{}/{scratch}",
        url.split('?').next().unwrap().rsplit_once('/').unwrap().0
    );
    tendero::db::migrate(&pool).await?;
    let shop = tendero::demo::load_shop(&pool, tendero::demo::DEMO_SHOP).await?;
    tendero::secret::install(tendero::secret::KeyRing::parse(BENCH_KEY)?);
    SHOP.set(shop.bot_id).expect("set once");
    let past = env_number("BENCH_PAST_CONVERSATIONS", 5000);
    seed_history(&pool, shop.bot_id, past).await?;

    println!(
        "turns: web chat end to end against `tendero serve` (loopback, {secs} s per scenario, same run)"
    );
    println!(
        "{:<30} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7} {:>6} {:>6} {:>7}",
        "scenario",
        "turns/s",
        "p50 ms",
        "p99 ms",
        "tdr ms/t",
        "pg ms/t",
        "stmt/t",
        "tx/t",
        "llm^",
        "RSS MB"
    );
    let only = std::env::var("BENCH_ONLY").ok();
    let wanted = |group: &str| only.as_deref().is_none_or(|o| o == group);
    if wanted("rules") {
        let server = Server::start(&scratch_url, &[]).await;
        for customers in [1, 16, 64] {
            let row = end_to_end(
                format!("rules, {customers} customers"),
                &server,
                &pool,
                customers,
                secs,
                &format!("rules{customers}"),
                RULES_MESSAGES,
            )
            .await;
            row.print();
        }
        idle(&server, 16).await;
        server.stop();
    }

    if wanted("llm") {
        // The defaults a user runs with a model: rules first, the burst window on.
        let fake = fake_llm(Duration::from_millis(llm_ms)).await;
        let server = Server::start(
            &scratch_url,
            &[
                ("OPENAI_BASE_URL", fake.base_url.clone()),
                ("OPENAI_API_KEY", "bench".into()),
            ],
        )
        .await;
        let customers = 16;
        let calls0 = fake.calls.load(Ordering::SeqCst);
        fake.peak.store(0, Ordering::SeqCst);
        let mut row = end_to_end(
            format!("LLM {llm_ms} ms defaults, {customers} c."),
            &server,
            &pool,
            customers,
            secs,
            "mixed",
            MIXED_MESSAGES,
        )
        .await;
        row.llm_peak = Some(fake.peak.load(Ordering::SeqCst));
        row.print();
        let calls = fake.calls.load(Ordering::SeqCst) - calls0;
        let (rules_n, rules_p50, rules_p99) = row.of_messages(|i| i % 2 == 0);
        let (model_n, model_p50, model_p99) = row.of_messages(|i| i % 2 == 1);
        println!(
            "  with defaults (rules first, TENDERO_GATHER_MS 800): rules-read turns p50 {rules_p50:.1} ms \
             p99 {rules_p99:.1} ms ({rules_n}); model-bound turns p50 {model_p50:.1} ms p99 \
             {model_p99:.1} ms ({model_n}); model calls per model-bound message {:.2}",
            calls as f64 / model_n.max(1) as f64
        );
        bursts(&server, &pool, &fake, customers, 3).await;
        server.stop();

        // Every turn asks the model: rules first turned off (the messages are ones
        // the rules read whole, which would otherwise never reach it).
        let server = Server::start(
            &scratch_url,
            &[
                ("OPENAI_BASE_URL", fake.base_url.clone()),
                ("OPENAI_API_KEY", "bench".into()),
                ("TENDERO_LLM_TIMEOUT_MS", "30000".into()),
                ("TENDERO_LLM_RULES_FIRST", "false".into()),
            ],
        )
        .await;
        for customers in [16, 64, 256] {
            fake.peak.store(0, Ordering::SeqCst);
            let mut row = end_to_end(
                format!("LLM {llm_ms} ms all, {customers} c."),
                &server,
                &pool,
                customers,
                secs,
                &format!("llm{customers}"),
                LLM_MESSAGES,
            )
            .await;
            row.llm_peak = Some(fake.peak.load(Ordering::SeqCst));
            row.print();
        }
        server.stop();
    }

    if wanted("roles") {
        // The same customers against a web process and two workers (`--role`).
        let server = Server::start_split(&scratch_url, 2).await;
        for customers in [16, 64] {
            let row = end_to_end(
                format!("rules, {customers} c., web+2 workers"),
                &server,
                &pool,
                customers,
                secs,
                &format!("roles{customers}"),
                RULES_MESSAGES,
            )
            .await;
            row.print();
        }
        server.stop();
    }

    if wanted("streams") {
        let server = Server::start(&scratch_url, &[]).await;
        let count = env_number("BENCH_IDLE_STREAMS", 10_000) as usize;
        beside_idle_streams(&server, &pool, secs, count).await;
        server.stop();
    }

    if wanted("platforms") {
        let fakes = platforms::start().await;
        platforms::connect(&pool, shop.bot_id).await?;
        let server = Server::start(
            &scratch_url,
            &[
                ("TELEGRAM_API_URL", fakes.base_url.clone()),
                ("WHATSAPP_API_URL", fakes.base_url.clone()),
            ],
        )
        .await;
        platforms::header();
        let secs = secs.max(8);
        let mut first = 0;
        for (channel, customers, think_ms) in [
            (platforms::Channel::Telegram, 16, 1000),
            (platforms::Channel::Telegram, 64, 0),
            (platforms::Channel::WhatsApp, 16, 1000),
            (platforms::Channel::WhatsApp, 128, 0),
        ] {
            platforms::run(
                &fakes,
                &server.base,
                &pool,
                channel,
                customers,
                first,
                Duration::from_millis(think_ms),
                secs,
                RULES_MESSAGES,
            )
            .await;
            first += customers;
        }
        println!(
            "  msgs: customer messages posted to the webhook; sends/s: replies the platform \
             took per second; p50/p99: webhook POST to the platform's receipt of the first \
             reply; 429s: sends the platform refused (the dispatcher paces itself to avoid \
             them); lost/doubled/reordered: each customer's received replies against what \
             Tendero queued for them, and posts against inbox rows. Server defaults."
        );
        server.stop();
    }

    // The baseline last: its thousands of transactions must not leak into another row.
    if wanted("baseline") {
        sqlx::query("VACUUM ANALYZE").execute(&pool).await?;
        tokio::time::sleep(STATS_FLUSH).await;
        let raw = baseline(&pool, shop.bot_id, secs, 16).await;
        raw.print();
    }
    println!(
        "Per turn, everything a message costs: the webhook's insert, the claim, the turn's \
         commit and the delivery to the stream. tdr/pg ms/t: CPU of tendero and of all \
         PostgreSQL processes; stmt/t counted by tendero, tx/t by pg_stat_database; llm^: \
         most model calls in flight (limit: TENDERO_LLM_CONCURRENCY, default 64); RSS: \
         tendero's peak."
    );

    tendero::db::drop_scratch(&base, pool, &scratch).await?;
    Ok(())
}
