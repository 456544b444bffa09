//! The fault suite: real `tendero serve` processes (one web, two workers) on a
//! scratch database, customers buying over web chat, and faults injected while they
//! do. Each scenario prints lost / doubled / out-of-order / unanswered counts (all
//! must be 0) and the longest a customer waited for a reply through the faults.
//!
//!     cargo test --test faults -- --nocapture
//!
//! Bounded: a few customers, a few seconds of faults per scenario.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::PgPool;

const TEST_KEY: &str = tendero::config::TEST_SECRET_KEY;

/// Scenarios that kill and restart processes take turns: on two cores, two of
/// them at once measure the machine, not Tendero.
static CHURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
const TG_SECRET: &str = "faults_secret";

#[allow(dead_code, reason = "the API tests use the rest of the fakes")]
#[path = "api/fake_platforms.rs"]
mod fake_platforms;

struct Cluster {
    url: String,
    redis: RedisAt,
    /// Further environment of every process (platform URLs, send limits).
    env: Vec<(&'static str, String)>,
    port: u16,
    web: Child,
    workers: Vec<Child>,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Redis for the processes, as (URL, key prefix); `None` runs them without it.
type RedisAt = Option<(String, String)>;

fn spawn(url: &str, role: &str, port: u16, redis: &RedisAt, env: &[(&str, String)]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tendero"));
    match redis {
        Some((redis_url, prefix)) => {
            command
                .env("REDIS_URL", redis_url)
                .env("TENDERO_REDIS_PREFIX", prefix);
        }
        None => {
            command.env_remove("REDIS_URL");
        }
    }
    command
        .args(["serve", "--role", role])
        .env("DATABASE_URL", url)
        .env("TENDERO_LISTEN", format!("127.0.0.1:{port}"))
        .env("TENDERO_SECRET_KEY", TEST_KEY)
        .env("TENDERO_LEASE_SECS", "2")
        .env("TENDERO_POLL_MS", "200")
        .env("TENDERO_RETRY_BACKOFF_MS", "100")
        .env("TENDERO_MAX_ATTEMPTS", "20")
        .env("TENDERO_DEMO", "false")
        // Scripted load, not customers: no per-contact limit.
        .env("TENDERO_CONTACT_MESSAGES_PER_MINUTE", "1000000")
        .env("TELEGRAM_API_URL", "http://127.0.0.1:9")
        .env("RUST_LOG", "error")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tendero starts")
}

impl Drop for Cluster {
    /// A failed run must not leave servers behind.
    fn drop(&mut self) {
        for child in self.workers.iter_mut().chain([&mut self.web]) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Cluster {
    async fn start(url: &str, redis: RedisAt) -> Cluster {
        Self::start_with(url, redis, Vec::new()).await
    }

    async fn start_with(url: &str, redis: RedisAt, env: Vec<(&'static str, String)>) -> Cluster {
        let port = free_port();
        let cluster = Cluster {
            url: url.to_owned(),
            port,
            web: spawn(url, "web", port, &redis, &env),
            workers: vec![
                spawn(url, "worker", free_port(), &redis, &env),
                spawn(url, "worker", free_port(), &redis, &env),
            ],
            redis,
            env,
        };
        let client = reqwest::Client::new();
        for _ in 0..300 {
            if client
                .get(format!("http://127.0.0.1:{port}/readyz"))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                return cluster;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the web process did not become ready");
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// SIGKILL a worker (whatever it was doing) and start a new one in its place.
    fn kill_and_restart_worker(&mut self, which: usize) {
        let worker = &mut self.workers[which];
        let _ = worker.kill();
        let _ = worker.wait();
        *worker = spawn(&self.url, "worker", free_port(), &self.redis, &self.env);
    }

    /// SIGTERM, as an orchestrator stops them; each must exit cleanly.
    fn stop(mut self) {
        for child in self.workers.iter_mut().chain([&mut self.web]) {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            assert!(
                child.wait().unwrap().success(),
                "a process stopped uncleanly"
            );
        }
    }
}

/// What a scenario measured.
#[derive(Default)]
struct Tally {
    messages: i64,
    lost: i64,
    doubled: i64,
    out_of_order: i64,
    unanswered: i64,
    /// Bot replies committed while a person held the conversation.
    under_override: i64,
    longest_wait: Duration,
}

impl Tally {
    fn header() -> String {
        format!(
            "{:<48} {:>8} {:>5} {:>8} {:>13} {:>11} {:>15} {:>10}",
            "fault",
            "messages",
            "lost",
            "doubled",
            "out-of-order",
            "unanswered",
            "under override",
            "longest s"
        )
    }

    fn row(&self, name: &str) -> String {
        format!(
            "{name:<48} {:>8} {:>5} {:>8} {:>13} {:>11} {:>15} {:>10.1}",
            self.messages,
            self.lost,
            self.doubled,
            self.out_of_order,
            self.unanswered,
            self.under_override,
            self.longest_wait.as_secs_f64()
        )
    }

    fn clean(&self) -> bool {
        self.lost == 0
            && self.doubled == 0
            && self.out_of_order == 0
            && self.unanswered == 0
            && self.under_override == 0
    }
}

/// The web-chat token of the customer `name`: a verified identity signed with the
/// key the processes share, so their session id is `u:<name>` (see [`sid`]).
async fn token(pool: &PgPool, name: &str) -> String {
    tendero::secret::install(tendero::secret::KeyRing::parse(TEST_KEY).unwrap());
    let bot: uuid::Uuid = sqlx::query_scalar("SELECT id FROM bots WHERE slug = 'demo-shop'")
        .fetch_one(pool)
        .await
        .unwrap();
    let keys = tendero::secret::keyring().unwrap();
    tendero::channels::webchat::session::issue_verified(keys, bot, name).0
}

/// The session id of the customer `name`.
fn sid(name: &str) -> String {
    format!("u:{name}")
}

async fn replies(pool: &PgPool, session: &str) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM outbox o JOIN conversations c ON c.id = o.conversation_id
         JOIN contacts ct ON ct.id = c.contact_id
         WHERE ct.external_id = $1 AND o.author = 'bot' AND o.status = 'sent'",
    )
    .bind(session)
    .fetch_one(pool)
    .await
    // The database may be restarting: not yet, then.
    .unwrap_or(-1)
}

/// Customers each buying `per_customer` matchas, one message at a time, waiting for
/// every reply (so each message is one turn); returns the longest wait.
async fn shop(
    base: &str,
    pool: &PgPool,
    run: &str,
    customers: usize,
    per_customer: i64,
) -> Duration {
    let client = reqwest::Client::new();
    let mut tasks = Vec::new();
    for c in 0..customers {
        let (client, pool, base) = (client.clone(), pool.clone(), base.to_owned());
        let session = format!("{run}-{c}");
        let token = token(&pool, &session).await;
        tasks.push(tokio::spawn(async move {
            let mut longest = Duration::ZERO;
            for n in 0..per_customer {
                let asked = Instant::now();
                // The web process may be briefly unable to commit; the client retries
                // with the same id, as a platform would.
                for _ in 0..100 {
                    let sent = client
                        .post(format!("{base}/webchat/demo-shop/messages"))
                        .json(&json!({"token": token, "text": "quiero 1 matcha",
                                      "client_id": format!("m{n}")}))
                        .send()
                        .await;
                    if sent.is_ok_and(|r| r.status().is_success()) {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                let deadline = Instant::now() + Duration::from_secs(40);
                while replies(&pool, &sid(&session)).await <= n && Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                longest = longest.max(asked.elapsed());
            }
            longest
        }));
    }
    let mut longest = Duration::ZERO;
    for task in tasks {
        longest = longest.max(task.await.unwrap());
    }
    longest
}

/// Checks every session of `run` against what its customer sent.
async fn tally(pool: &PgPool, run: &str, customers: usize, per_customer: i64) -> Tally {
    let mut tally = Tally {
        messages: customers as i64 * per_customer,
        ..Tally::default()
    };
    for c in 0..customers {
        let one = tally_session(pool, &sid(&format!("{run}-{c}")), per_customer).await;
        tally.lost += one.lost;
        tally.doubled += one.doubled;
        tally.out_of_order += one.out_of_order;
        tally.unanswered += one.unanswered;
    }
    tally
}

/// Checks one customer (one matcha per message) against what they sent.
async fn tally_session(pool: &PgPool, session: &str, per_customer: i64) -> Tally {
    let mut tally = Tally::default();
    let (stored, done): (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE i.status = 'done') FROM inbox i
         JOIN conversations c ON c.id = i.conversation_id JOIN contacts ct ON ct.id = c.contact_id
         WHERE ct.external_id = $1",
    )
    .bind(session)
    .fetch_one(pool)
    .await
    .unwrap();
    tally.lost += (per_customer - stored).max(0);
    tally.unanswered += stored - done;
    let sent = replies(pool, session).await;
    // What an unclean row is made of, for whoever reads a failure.
    if stored != per_customer || done != stored || sent != per_customer {
        println!("{session}: {stored} stored, {done} done, {sent} replies sent of {per_customer}");
    }
    tally.unanswered += (per_customer - sent).max(0);
    tally.doubled += (sent - per_customer).max(0);
    let quantity: i64 = sqlx::query_scalar(
        "SELECT coalesce(sum(ci.quantity), 0)::bigint FROM cart_items ci
         JOIN conversations c ON c.id = ci.conversation_id JOIN contacts ct ON ct.id = c.contact_id
         WHERE ct.external_id = $1",
    )
    .bind(session)
    .fetch_one(pool)
    .await
    .unwrap();
    tally.doubled += (quantity - per_customer).max(0);
    tally.lost += (per_customer - quantity).max(0);
    // Replies follow the order of the messages they answer.
    let order: Vec<i64> = sqlx::query_scalar(
        "SELECT o.inbox_id FROM outbox o JOIN conversations c ON c.id = o.conversation_id
         JOIN contacts ct ON ct.id = c.contact_id
         WHERE ct.external_id = $1 AND o.author = 'bot' ORDER BY o.id",
    )
    .bind(session)
    .fetch_all(pool)
    .await
    .unwrap();
    tally.out_of_order += order.windows(2).filter(|w| w[0] >= w[1]).count() as i64;
    tally
}

/// Runs `fault` every `every` while the customers shop.
async fn with_fault<F>(every: Duration, stop: Arc<AtomicBool>, mut fault: F)
where
    F: FnMut() -> Option<tokio::task::JoinHandle<()>>,
{
    tokio::time::sleep(every / 4).await;
    while !stop.load(Ordering::Relaxed) {
        if let Some(task) = fault() {
            let _ = task.await;
        }
        tokio::time::sleep(every).await;
    }
}

/// A scratch database on the test server with the demo shop loaded: (admin pool,
/// pool, database name, URL for child processes, the shop).
async fn scratch_shop(prefix: &str) -> (PgPool, PgPool, String, String, tendero::demo::LoadedShop) {
    scratch_with(prefix, tendero::demo::DEMO_SHOP).await
}

/// A scratch database, migrated, with the bot of `fixture` loaded: (admin pool,
/// its pool, its name, its URL, the bot).
async fn scratch_with(
    prefix: &str,
    fixture: &str,
) -> (PgPool, PgPool, String, String, tendero::demo::LoadedShop) {
    let admin_url = std::env::var("DATABASE_URL").expect("DATABASE_URL names the test server");
    let admin = PgPool::connect(&admin_url).await.unwrap();
    let (pool, scratch) = tendero::db::create_scratch(&admin, prefix).await.unwrap();
    tendero::db::migrate(&pool).await.unwrap();
    let shop = tendero::demo::load_shop(&pool, fixture).await.unwrap();
    let server = admin_url
        .split('?')
        .next()
        .unwrap()
        .rsplit_once('/')
        .unwrap()
        .0;
    let url = format!("{server}/{scratch}");
    (admin, pool, scratch, url, shop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn faults_lose_double_and_reorder_nothing() {
    let _turn = CHURN.lock().await;
    tendero::startup::install_crypto_provider();
    let (admin, pool, scratch, url, shop_ids) = scratch_shop("tendero_faults").await;
    tendero::secret::install(tendero::secret::KeyRing::parse(TEST_KEY).unwrap());
    tendero::channels::credentials::set_telegram(
        &pool,
        shop_ids.bot_id,
        &tendero::channels::credentials::TelegramSetup {
            token: "1:faults".into(),
            secret_token: TG_SECRET.into(),
        },
    )
    .await
    .unwrap();
    let cluster = Arc::new(tokio::sync::Mutex::new(Cluster::start(&url, None).await));
    let base = cluster.lock().await.base();
    let (customers, per_customer) = (6, 12);
    let mut rows = Vec::new();

    // 1. SIGKILL of a worker mid-turn, repeatedly, with two workers serving.
    let stop = Arc::new(AtomicBool::new(false));
    let kills = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let chaos = {
        let (cluster, stop, kills) = (cluster.clone(), stop.clone(), kills.clone());
        let mut n = 0;
        tokio::spawn(with_fault(Duration::from_millis(600), stop, move || {
            let cluster = cluster.clone();
            n += 1;
            kills.fetch_add(1, Ordering::Relaxed);
            Some(tokio::spawn(async move {
                cluster.lock().await.kill_and_restart_worker(n % 2);
            }))
        }))
    };
    let longest = shop(&base, &pool, "kill", customers, per_customer).await;
    stop.store(true, Ordering::Relaxed);
    chaos.await.unwrap();
    let mut t = tally(&pool, "kill", customers, per_customer).await;
    t.longest_wait = longest;
    let kills = kills.load(Ordering::Relaxed);
    assert!(kills > 0, "workers were killed");
    rows.push((
        format!("SIGKILL of a worker every 0.6 s ({kills} kills)"),
        t,
    ));

    // 2. Every connection the processes hold is terminated, repeatedly.
    let stop = Arc::new(AtomicBool::new(false));
    let terminated = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let chaos = {
        let (admin, stop, scratch) = (admin.clone(), stop.clone(), scratch.clone());
        let terminated = terminated.clone();
        tokio::spawn(with_fault(Duration::from_millis(250), stop, move || {
            let (admin, scratch, terminated) = (admin.clone(), scratch.clone(), terminated.clone());
            Some(tokio::spawn(async move {
                let killed: i64 = sqlx::query_scalar(
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
                     WHERE datname = $1 AND application_name <> 'faults-observer'
                       AND pid <> pg_backend_pid()",
                )
                .bind(&scratch)
                .fetch_one(&admin)
                .await
                .unwrap_or(0);
                terminated.fetch_add(killed as usize, Ordering::Relaxed);
            }))
        }))
    };
    // The checker's own connections survive (they carry their own name).
    let observer = PgPool::connect_with(
        url.parse::<sqlx::postgres::PgConnectOptions>()
            .unwrap()
            .application_name("faults-observer"),
    )
    .await
    .unwrap();
    let longest = shop(&base, &observer, "term", customers, per_customer).await;
    stop.store(true, Ordering::Relaxed);
    chaos.await.unwrap();
    let mut t = tally(&observer, "term", customers, per_customer).await;
    t.longest_wait = longest;
    let terminated = terminated.load(Ordering::Relaxed);
    assert!(terminated > 0, "connections were terminated");
    rows.push((
        format!("pg_terminate_backend every 0.25 s ({terminated} conns)"),
        t,
    ));

    // 3. A thousand deliveries of one Telegram update, 32 at a time.
    let client = reqwest::Client::new();
    let update = json!({"update_id": 777, "message": {"message_id": 1, "date": 1,
        "text": "quiero 1 matcha", "chat": {"id": 4242, "type": "private"},
        "from": {"id": 4242, "is_bot": false, "first_name": "Rita"}}});
    let started = Instant::now();
    let responses: Vec<reqwest::Result<reqwest::Response>> =
        futures::StreamExt::collect(futures::StreamExt::buffer_unordered(
            futures::stream::iter((0..1000).map(|_| {
                client
                    .post(format!("{base}/webhooks/telegram/demo-shop"))
                    .header("X-Telegram-Bot-Api-Secret-Token", TG_SECRET)
                    .json(&update)
                    .send()
            })),
            32,
        ))
        .await;
    let answers: Vec<u16> = responses
        .into_iter()
        .map(|r| r.map_or(0, |r| r.status().as_u16()))
        .collect();
    assert!(
        answers.iter().all(|s| *s == 200),
        "every replay acknowledged"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let executed = loop {
        let executed: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM audit_log a JOIN conversations c ON c.id = a.conversation_id
             JOIN contacts ct ON ct.id = c.contact_id
             WHERE ct.external_id = '4242' AND a.kind = 'action_executed'",
        )
        .fetch_one(&observer)
        .await
        .unwrap();
        if executed > 0 || Instant::now() > deadline {
            break executed;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM inbox WHERE external_id = 'tg:777'")
        .fetch_one(&observer)
        .await
        .unwrap();
    rows.push((
        "1,000 replays of one Telegram update".to_string(),
        Tally {
            messages: 1,
            lost: (1 - stored).max(0),
            doubled: (stored - 1).max(0) + (executed - 1).max(0),
            out_of_order: 0,
            unanswered: (1 - executed).max(0),
            under_override: 0,
            longest_wait: started.elapsed(),
        },
    ));

    // 4. A thousand takeovers and releases racing the turns of messages just sent.
    let key = tendero::api_keys::create(&observer, shop_ids.merchant_id)
        .await
        .unwrap();
    let started = Instant::now();
    let mut races = Vec::new();
    for s in 0..20 {
        let (client, base, key, observer) =
            (client.clone(), base.clone(), key.clone(), observer.clone());
        races.push(tokio::spawn(async move {
            let session = format!("race-{s}");
            let token = token(&observer, &session).await;
            let mut conversation: Option<String> = None;
            for n in 0..50 {
                let _ = client
                    .post(format!("{base}/webchat/demo-shop/messages"))
                    .json(&json!({"token": token, "text": "quiero 1 brownie",
                                  "client_id": format!("r{n}")}))
                    .send()
                    .await;
                if conversation.is_none() {
                    conversation = sqlx::query_scalar(
                        "SELECT c.id::text FROM conversations c JOIN contacts ct ON ct.id = c.contact_id
                         WHERE ct.external_id = $1",
                    )
                    .bind(sid(&session))
                    .fetch_optional(&observer)
                    .await
                    .unwrap();
                }
                let Some(id) = &conversation else { continue };
                for action in ["takeover", "release"] {
                    let _ = client
                        .post(format!("{base}/api/v1/conversations/{id}/{action}"))
                        .bearer_auth(&key)
                        .send()
                        .await;
                }
            }
        }));
    }
    for race in races {
        race.await.unwrap();
    }
    // Let the last turns finish (on two cores beside the other scenarios a fixed
    // wait was sometimes short: once, 184 turns were still queued), then replay each
    // conversation's audit trail in commit order: a bot reply must never have been
    // committed while the override was on.
    // The wait ends when every turn is done, or when nothing has moved for ten
    // seconds (a stuck turn is what this row must catch), or after two minutes.
    let mut last = (i64::MAX, Instant::now());
    let waited = Instant::now();
    loop {
        let waiting = unfinished_race_turns(&observer).await;
        if waiting == 0 || waited.elapsed() > Duration::from_secs(120) {
            break;
        }
        if waiting < last.0 {
            last = (waiting, Instant::now());
        } else if last.1.elapsed() > Duration::from_secs(10) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let takeovers: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE kind = 'override_changed'
         AND (detail->>'human_override')::boolean AND actor = 'merchant'",
    )
    .fetch_one(&observer)
    .await
    .unwrap();
    let violations: i64 = sqlx::query_scalar(
        "WITH sent AS (
             SELECT o.conversation_id, o.inbox_id FROM outbox o
             JOIN conversations c ON c.id = o.conversation_id JOIN contacts ct ON ct.id = c.contact_id
             WHERE ct.external_id LIKE 'u:race-%' AND o.author = 'bot' AND o.status = 'sent'
         ), committed_at AS (
             SELECT s.conversation_id, min(a.id) AS audit_id FROM sent s
             JOIN audit_log a ON a.conversation_id = s.conversation_id AND a.inbox_id = s.inbox_id
             WHERE a.kind <> 'turn_skipped'
             GROUP BY s.conversation_id, s.inbox_id
         )
         SELECT count(*) FROM committed_at t
         WHERE coalesce((SELECT (a.detail->>'human_override')::boolean FROM audit_log a
                         WHERE a.conversation_id = t.conversation_id AND a.kind = 'override_changed'
                           AND a.id < t.audit_id ORDER BY a.id DESC LIMIT 1), false)",
    )
    .fetch_one(&observer)
    .await
    .unwrap();
    let pending = unfinished_race_turns(&observer).await;
    assert!(takeovers >= 900, "the takeovers ran: {takeovers}");
    // Both sides of the race happened: turns answered, and turns silenced.
    let (answered, silenced): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE o.author = 'bot' AND o.status = 'sent'),
                (SELECT count(*) FROM audit_log a JOIN conversations c2 ON c2.id = a.conversation_id
                 JOIN contacts ct2 ON ct2.id = c2.contact_id
                 WHERE ct2.external_id LIKE 'u:race-%' AND a.kind = 'turn_skipped')
         FROM outbox o JOIN conversations c ON c.id = o.conversation_id
         JOIN contacts ct ON ct.id = c.contact_id WHERE ct.external_id LIKE 'u:race-%'",
    )
    .fetch_one(&observer)
    .await
    .unwrap();
    assert!(
        answered > 0 && silenced > 0,
        "answered {answered}, silenced {silenced}"
    );
    rows.push((
        format!("{takeovers} takeovers racing turns ({answered} replies)"),
        Tally {
            messages: 1000,
            under_override: violations,
            unanswered: pending,
            longest_wait: started.elapsed(),
            ..Tally::default()
        },
    ));

    println!("{}", Tally::header());
    for (name, tally) in &rows {
        println!("{}", tally.row(name));
    }
    Arc::try_unwrap(cluster)
        .ok()
        .expect("no fault task holds the cluster")
        .into_inner()
        .stop();
    observer.close().await;
    tendero::db::drop_scratch(&admin, pool, &scratch)
        .await
        .unwrap();
    for (name, tally) in &rows {
        assert!(tally.clean(), "{name}: {}", tally.row(name));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_database_restart_under_load_loses_nothing_and_probes_answer_at_once() {
    tendero::startup::install_crypto_provider();
    // A private cluster this test may stop: never the shared server.
    let dir = std::env::temp_dir().join(format!("tendero-faults-{}", uuid::Uuid::new_v4()));
    let mut settings = tendero::config::Settings::from_lookup(|_| None).unwrap();
    settings.local_pg = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    settings.data_dir = dir.clone();
    let database = tendero::db::connect(&settings)
        .await
        .expect("private cluster starts");
    tendero::db::migrate(&database.pool).await.unwrap();
    tendero::demo::load_shop(&database.pool, tendero::demo::DEMO_SHOP)
        .await
        .unwrap();
    let mut postgres = database.cluster.expect("a private cluster");
    let pg_port: u16 = std::fs::read_to_string(dir.join("tendero.port"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let url = format!("postgres://postgres@127.0.0.1:{pg_port}/tendero");
    let pool = database.pool;
    let cluster = Cluster::start(&url, None).await;
    let base = cluster.base();
    let (customers, per_customer) = (4, 40);
    let shopping = {
        let (base, pool) = (base.clone(), pool.clone());
        tokio::spawn(async move { shop(&base, &pool, "restart", customers, per_customer).await })
    };
    tokio::time::sleep(Duration::from_millis(800)).await;

    // While PostgreSQL is down, probes and webhooks must answer at once, and never 2xx
    // for a message they could not store.
    let stop = Arc::new(AtomicBool::new(false));
    let probe = token(&pool, "probe").await;
    let probing = {
        let (base, stop) = (base.clone(), stop.clone());
        tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut seen: Vec<(u16, Duration, &'static str)> = Vec::new();
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                let ready = client.get(format!("{base}/readyz")).send().await;
                seen.push((
                    ready.map_or(0, |r| r.status().as_u16()),
                    started.elapsed(),
                    "readyz",
                ));
                let started = Instant::now();
                n += 1;
                let posted = client
                    .post(format!("{base}/webchat/demo-shop/messages"))
                    .json(&json!({"token": probe, "text": "hola", "client_id": format!("p{n}")}))
                    .send()
                    .await;
                seen.push((
                    posted.map_or(0, |r| r.status().as_u16()),
                    started.elapsed(),
                    "post",
                ));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            seen
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let restarted = Instant::now();
    postgres.restart(Duration::from_secs(3)).await.unwrap();
    stop.store(true, Ordering::Relaxed);
    let seen = probing.await.unwrap();
    let longest = shopping.await.unwrap();
    let recovery = restarted.elapsed();

    let unavailable: Vec<_> = seen
        .iter()
        .filter(|(status, _, _)| *status == 503)
        .collect();
    assert!(
        unavailable.iter().any(|(_, _, what)| *what == "readyz"),
        "/readyz said 503 while the database was down: {seen:?}"
    );
    let slowest = seen.iter().map(|(_, took, _)| *took).max().unwrap();
    assert!(
        slowest < Duration::from_millis(2500),
        "every probe and post answered promptly, the slowest took {slowest:?}"
    );
    // Posts acknowledged with 2xx were stored: the probe session's messages.
    let acknowledged = seen
        .iter()
        .filter(|(status, _, what)| *what == "post" && (200..300).contains(status))
        .count() as i64;
    let mut t = tally(&pool, "restart", customers, per_customer).await;
    let probe_stored: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM inbox i JOIN conversations c ON c.id = i.conversation_id
         JOIN contacts ct ON ct.id = c.contact_id WHERE ct.external_id = 'u:probe'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    t.lost += (acknowledged - probe_stored).max(0);
    t.longest_wait = longest;
    println!("{}", Tally::header());
    println!("{}", t.row("PostgreSQL restarted (down 3 s) under load"));
    println!(
        "  while down: {} answers of 503, slowest probe {:.2} s; back to normal {:.1} s after the stop",
        unavailable.len(),
        slowest.as_secs_f64(),
        recovery.as_secs_f64()
    );
    cluster.stop();
    pool.close().await;
    postgres.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
    assert!(t.clean(), "{}", t.row("restart"));
}

/// A TCP proxy in front of the machine's Redis, which the test can cut.
struct RedisProxy {
    port: u16,
    connections: Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl RedisProxy {
    async fn start() -> RedisProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections: Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>> = Arc::default();
        let registry = connections.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let conn = tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect("127.0.0.1:6379").await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                registry.lock().unwrap().push(conn.abort_handle());
            }
        });
        connections.lock().unwrap().push(accept.abort_handle());
        RedisProxy { port, connections }
    }

    /// Redis goes away: no new connections, and every open one drops.
    fn stop(&self) {
        for task in self.connections.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_flushed_and_stopped_mid_traffic_loses_and_doubles_nothing() {
    tendero::startup::install_crypto_provider();
    let (admin, pool, scratch, url, _) = scratch_shop("tendero_faults_redis").await;
    let proxy = RedisProxy::start().await;
    let prefix = format!("faults-{}", uuid::Uuid::new_v4().simple());
    let cluster = Cluster::start(
        &url,
        Some((format!("redis://127.0.0.1:{}", proxy.port), prefix.clone())),
    )
    .await;
    let base = cluster.base();
    let (customers, per_customer) = (4, 30);
    let shopping = {
        let (base, pool) = (base.clone(), pool.clone());
        tokio::spawn(async move { shop(&base, &pool, "redis", customers, per_customer).await })
    };
    // Flush everything Tendero keeps in Redis once traffic has put some there (on
    // a loaded machine that takes a while), then take Redis away altogether.
    let redis = redis::Client::open("redis://127.0.0.1:6379").unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let keys: Vec<String> = loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{prefix}*"))
            .query_async(&mut conn)
            .await
            .unwrap();
        if !keys.is_empty() || tokio::time::Instant::now() > deadline {
            break keys;
        }
    };
    if !keys.is_empty() {
        let _: () = redis::cmd("DEL")
            .arg(&keys)
            .query_async(&mut conn)
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    proxy.stop();
    let longest = shopping.await.unwrap();
    let mut t = tally(&pool, "redis", customers, per_customer).await;
    t.longest_wait = longest;
    println!("{}", Tally::header());
    println!(
        "{}",
        t.row(&format!(
            "Redis flushed ({} keys), then stopped",
            keys.len()
        ))
    );
    cluster.stop();
    tendero::db::drop_scratch(&admin, pool, &scratch)
        .await
        .unwrap();
    assert!(!keys.is_empty(), "Redis was in use before it was flushed");
    assert!(t.clean(), "{}", t.row("redis"));
}

/// Telegram customers buying one matcha per message, each waiting for the reply
/// to be delivered before writing again; returns the longest wait.
async fn telegram_shop(base: &str, pool: &PgPool, chats: &[i64], per_customer: i64) -> Duration {
    let client = reqwest::Client::new();
    let mut tasks = Vec::new();
    for &chat in chats {
        let (client, pool, base) = (client.clone(), pool.clone(), base.to_owned());
        tasks.push(tokio::spawn(async move {
            let mut longest = Duration::ZERO;
            for n in 0..per_customer {
                let asked = Instant::now();
                let update = json!({"update_id": chat * 1000 + n, "message": {"message_id": n + 1,
                    "date": 1, "text": "quiero 1 matcha", "chat": {"id": chat, "type": "private"},
                    "from": {"id": chat, "is_bot": false, "first_name": "Cliente"}}});
                let answered = client
                    .post(format!("{base}/webhooks/telegram/demo-shop"))
                    .header("X-Telegram-Bot-Api-Secret-Token", TG_SECRET)
                    .json(&update)
                    .send()
                    .await;
                assert!(answered.is_ok_and(|r| r.status().is_success()));
                let deadline = Instant::now() + Duration::from_secs(60);
                while replies(&pool, &chat.to_string()).await <= n && Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                longest = longest.max(asked.elapsed());
            }
            longest
        }));
    }
    let mut longest = Duration::ZERO;
    for task in tasks {
        longest = longest.max(task.await.unwrap());
    }
    longest
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_platform_answering_429_500_and_timing_out_loses_and_doubles_nothing() {
    use fake_platforms::{FakePlatform, Mode};
    tendero::startup::install_crypto_provider();
    let (admin, pool, scratch, url, shop_ids) = scratch_shop("tendero_faults_platform").await;
    tendero::secret::install(tendero::secret::KeyRing::parse(TEST_KEY).unwrap());
    tendero::channels::credentials::set_telegram(
        &pool,
        shop_ids.bot_id,
        &tendero::channels::credentials::TelegramSetup {
            token: "1:faults".into(),
            secret_token: TG_SECRET.into(),
        },
    )
    .await
    .unwrap();
    let fake = Arc::new(FakePlatform::start().await);
    let env = vec![
        ("TELEGRAM_API_URL", fake.base_url.clone()),
        ("TENDERO_SEND_TIMEOUT_MS", "700".to_string()),
        ("TENDERO_SEND_BACKOFF_MS", "100".to_string()),
        ("TENDERO_SEND_ATTEMPTS", "40".to_string()),
    ];
    let cluster = Cluster::start_with(&url, None, env).await;
    let base = cluster.base();
    let chats = [5001, 5002, 5003, 5004];
    let per_customer = 8;
    // The platform misbehaves for six seconds: rate limits, then errors, then it
    // hangs past the send timeout; then it recovers.
    let phases = {
        let fake = fake.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            for mode in [
                Mode::RateLimited { retry_after: 1 },
                Mode::Failing,
                Mode::Hanging(Duration::from_millis(1500)),
            ] {
                fake.set_mode(mode);
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
            fake.set_mode(Mode::Normal);
            Instant::now()
        })
    };
    let longest = telegram_shop(&base, &pool, &chats, per_customer).await;
    let recovered_from = phases.await.unwrap();
    // Recovery: from the platform answering again to the first reply it took.
    let recovery = fake
        .accepted("sendMessage")
        .iter()
        .map(|c| c.at)
        .filter(|at| *at >= recovered_from)
        .min()
        .map_or(Duration::ZERO, |at| at - recovered_from);
    let mut t = Tally {
        messages: chats.len() as i64 * per_customer,
        longest_wait: longest,
        ..Tally::default()
    };
    for chat in chats {
        let one = tally_session(&pool, &chat.to_string(), per_customer).await;
        t.lost += one.lost;
        t.doubled += one.doubled;
        t.out_of_order += one.out_of_order;
        t.unanswered += one.unanswered;
        // What the user saw: each reply accepted by the platform exactly once.
        let seen = fake
            .accepted("sendMessage")
            .iter()
            .filter(|c| c.body["chat_id"].to_string().trim_matches('"') == chat.to_string())
            .count() as i64;
        t.doubled += (seen - per_customer).max(0);
        t.unanswered += (per_customer - seen).max(0);
    }
    let failed = fake
        .calls("sendMessage")
        .iter()
        .filter(|c| !c.accepted)
        .count();
    println!("{}", Tally::header());
    println!(
        "{}",
        t.row(&format!(
            "Telegram 429/500/timeouts 6 s ({failed} refused, back in {:.1} s)",
            recovery.as_secs_f64()
        ))
    );
    cluster.stop();
    tendero::db::drop_scratch(&admin, pool, &scratch)
        .await
        .unwrap();
    assert!(failed > 0, "the platform did refuse sends");
    assert!(t.clean(), "{}", t.row("platform"));
}

/// Reminders through worker kills: every due reminder is claimed, marked sent and
/// queued in one transaction by whichever worker's sweeper gets it, so SIGKILLs
/// mid-sweep and two sweepers racing send each exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reminders_are_sent_once_through_worker_kills() {
    let _turn = CHURN.lock().await;
    tendero::startup::install_crypto_provider();
    let mut fixture: serde_json::Value = serde_json::from_str(tendero::demo::DEMO_FINANCE).unwrap();
    fixture["bot"]["sample_history"] = json!(false);
    let (admin, pool, scratch, url, loaded) =
        scratch_with("tendero_reminders", &fixture.to_string()).await;
    let bot = tendero::bots::by_id(&pool, loaded.bot_id).await.unwrap();
    // 40 people, each with a conversation and five reminders falling due over
    // the next three seconds.
    let (people, each) = (40, 5);
    for person in 0..people {
        let inbound = tendero::channels::Inbound {
            channel: tendero::channels::ChannelKind::Webchat,
            sender: format!("reminded-{person}"),
            display_name: None,
            external_id: format!("reminded-{person}"),
            message: tendero::channels::MessagePayload {
                text: "hola".into(),
                media: None,
            },
        };
        tendero::inbox::ingest(&pool, &bot, &inbound).await.unwrap();
    }
    sqlx::query(
        "INSERT INTO fin_reminders (bot_id, contact_id, conversation_id, kind, what, due_on, send_at, dedupe_key)
         SELECT c.bot_id, c.contact_id, c.id, 'custom', 'pagar ' || n, current_date + 1,
                now() + make_interval(secs => (n * 0.6)::float8), 'fault:' || n
         FROM conversations c CROSS JOIN generate_series(1, $1) n WHERE c.bot_id = $2",
    )
    .bind(each)
    .bind(bot.id)
    .execute(&pool)
    .await
    .unwrap();
    let cluster = Arc::new(tokio::sync::Mutex::new(
        Cluster::start_with(&url, None, vec![("TENDERO_SWEEP_SECS", "1".into())]).await,
    ));
    let started = Instant::now();
    let mut kills = 0;
    while started.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        cluster.lock().await.kill_and_restart_worker(kills % 2);
        kills += 1;
    }
    // Then let them finish.
    let expected = (people * each) as i64;
    let mut queued = 0;
    for _ in 0..100 {
        queued = sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM outbox WHERE payload->>'text' LIKE '⏰ Recordatorio:%'",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        let pending: i64 =
            sqlx::query_scalar("SELECT count(*) FROM fin_reminders WHERE status <> 'sent'")
                .fetch_one(&pool)
                .await
                .unwrap();
        if pending == 0 && queued >= expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let doubled: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT conversation_id, payload->>'text' FROM outbox
         WHERE payload->>'text' LIKE '⏰ Recordatorio:%' GROUP BY 1, 2 HAVING count(*) > 1) d",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    println!(
        "reminders: {expected} due, {queued} queued, {doubled} doubled, through {kills} worker kills"
    );
    assert!(kills > 0);
    assert_eq!(doubled, 0, "no reminder twice");
    assert_eq!(queued, expected, "every reminder once");
    drop(cluster);
    tendero::db::drop_scratch(&admin, pool, &scratch)
        .await
        .unwrap();
}

/// Messages of the takeover race not yet answered or skipped.
async fn unfinished_race_turns(observer: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM inbox i JOIN conversations c ON c.id = i.conversation_id
         JOIN contacts ct ON ct.id = c.contact_id
         WHERE ct.external_id LIKE 'u:race-%' AND i.status <> 'done'",
    )
    .fetch_one(observer)
    .await
    .unwrap()
}
