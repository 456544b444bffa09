//! Webhook ingest benchmark: Telegram and WhatsApp webhooks on loopback against the
//! bare inbox INSERT issued directly to PostgreSQL at the same concurrency, measured
//! in the same run. Prints throughput and p50/p99 acknowledgement latency, and each
//! webhook's figures as a ratio of the baseline.
//!
//!     cargo bench --bench ingest
//!
//! Environment: `DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/postgres;
//! a scratch database is created and dropped), `BENCH_REQUESTS` (default 2000),
//! `BENCH_CONCURRENCY` (default 16).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tendero::channels::ChannelKind;
use tendero::channels::credentials::{self, TelegramSetup, WhatsAppSetup};
use tendero::config::{Role, Settings};
use tokio_util::sync::CancellationToken;

struct Figures {
    name: &'static str,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Figures {
    fn throughput(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64()
    }

    fn quantile(&self, q: f64) -> f64 {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        sorted[((sorted.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0
    }
}

/// Runs `total` operations with `concurrency` workers, timing each one.
async fn measure<F, Fut>(name: &'static str, total: usize, concurrency: usize, op: F) -> Figures
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let op = Arc::new(op);
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..concurrency {
        let (op, next) = (op.clone(), next.clone());
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= total {
                    return latencies;
                }
                let t = Instant::now();
                op(i).await;
                latencies.push(t.elapsed());
            }
        }));
    }
    let mut latencies = Vec::with_capacity(total);
    for worker in workers {
        latencies.extend(worker.await.unwrap());
    }
    Figures {
        name,
        elapsed: started.elapsed(),
        latencies,
    }
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tendero::startup::install_crypto_provider();
    tendero::secret::install(tendero::secret::KeyRing::parse(
        tendero::config::TEST_SECRET_KEY,
    )?);
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let total = env_number("BENCH_REQUESTS", 2000);
    let concurrency = env_number("BENCH_CONCURRENCY", 16);
    let base = sqlx::PgPool::connect(&url).await?;
    let (pool, scratch) = tendero::db::create_scratch(&base, "tendero_bench").await?;
    tendero::db::migrate(&pool).await?;
    let shop = tendero::demo::load_shop(&pool, tendero::demo::DEMO_SHOP).await?;
    credentials::set_telegram(
        &pool,
        shop.bot_id,
        &TelegramSetup {
            token: "1:bench".into(),
            secret_token: "bench_secret".into(),
        },
    )
    .await?;
    credentials::set_whatsapp(
        &pool,
        shop.bot_id,
        &WhatsAppSetup {
            phone_number_id: "106540352242922".into(),
            access_token: "bench".into(),
            app_secret: "bench-app-secret".into(),
            verify_token: "bench".into(),
        },
    )
    .await?;

    let mut settings = Settings::for_tests(&url);
    settings.listen = "127.0.0.1:0".parse()?;
    let app = tendero::startup::Application::build(
        settings,
        pool.clone(),
        tendero::startup::Proposers::rules(),
        Role::Web,
    )
    .await?;
    let base_url = format!("http://{}", app.local_addr().expect("web role listens"));
    let cancel = CancellationToken::new();
    let server = tokio::spawn(app.run_until_stopped(cancel.clone()));
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()?;

    // Baseline: the inbox INSERT alone, straight to PostgreSQL.
    let conversation = {
        let mut conn = pool.acquire().await?;
        tendero::conversations::ensure_conversation(
            &mut conn,
            shop.bot_id,
            ChannelKind::Telegram,
            "baseline",
        )
        .await?
    };
    let baseline_pool = pool.clone();
    let bot_id = shop.bot_id;
    let baseline = measure("direct INSERT (baseline)", total, concurrency, move |i| {
        let pool = baseline_pool.clone();
        async move {
            sqlx::query(
                "INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload)
                 VALUES ($1, $2, $3, 'message', $4) ON CONFLICT (bot_id, external_id) DO NOTHING",
            )
            .bind(bot_id)
            .bind(conversation)
            .bind(format!("baseline:{i}"))
            .bind(json!({"text": "quiero 2 maracuyá"}))
            .execute(&pool)
            .await
            .expect("baseline insert");
        }
    })
    .await;

    let (tg_client, tg_url) = (
        client.clone(),
        format!("{base_url}/webhooks/telegram/demo-shop"),
    );
    let telegram = measure("Telegram webhook", total, concurrency, move |i| {
        let (client, url) = (tg_client.clone(), tg_url.clone());
        async move {
            let update = json!({"update_id": 1_000_000 + i, "message": {
                "message_id": i, "date": 1795000000, "text": "quiero 2 maracuyá",
                "from": {"id": 9000 + (i % 500), "is_bot": false, "first_name": "Cliente"},
                "chat": {"id": 9000 + (i % 500), "type": "private", "first_name": "Cliente"}}});
            let status = client
                .post(&url)
                .header("X-Telegram-Bot-Api-Secret-Token", "bench_secret")
                .json(&update)
                .send()
                .await
                .expect("webhook answers")
                .status();
            assert!(status.is_success(), "{status}");
        }
    })
    .await;

    let (wa_client, wa_url) = (
        client.clone(),
        format!("{base_url}/webhooks/whatsapp/demo-shop"),
    );
    let whatsapp = measure("WhatsApp webhook", total, concurrency, move |i| {
        let (client, url) = (wa_client.clone(), wa_url.clone());
        async move {
            let payload = json!({"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [{
                "field": "messages", "value": {"messaging_product": "whatsapp",
                "metadata": {"display_phone_number": "15550783881", "phone_number_id": "106540352242922"},
                "contacts": [{"profile": {"name": "Cliente"}, "wa_id": format!("591700{}", i % 500)}],
                "messages": [{"from": format!("591700{}", i % 500), "id": format!("wamid.BENCH{i}"),
                              "timestamp": "1795000000", "type": "text", "text": {"body": "quiero 2 maracuyá"}}]}}]}]});
            let body = serde_json::to_vec(&payload).unwrap();
            let signature = tendero::channels::whatsapp::sign(&body, "bench-app-secret");
            let status = client
                .post(&url)
                .header("content-type", "application/json")
                .header("X-Hub-Signature-256", signature)
                .body(body)
                .send()
                .await
                .expect("webhook answers")
                .status();
            assert!(status.is_success(), "{status}");
        }
    })
    .await;

    println!("webhook ingest, {total} requests at concurrency {concurrency} (loopback, same run)");
    println!(
        "{:<26} {:>10} {:>9} {:>9} {:>14} {:>12}",
        "scenario", "req/s", "p50 ms", "p99 ms", "throughput x", "p50 x"
    );
    for figures in [&baseline, &telegram, &whatsapp] {
        println!(
            "{:<26} {:>10.0} {:>9.2} {:>9.2} {:>14.2} {:>12.2}",
            figures.name,
            figures.throughput(),
            figures.quantile(0.5),
            figures.quantile(0.99),
            figures.throughput() / baseline.throughput(),
            figures.quantile(0.5) / baseline.quantile(0.5),
        );
    }
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM inbox")
        .fetch_one(&pool)
        .await?;
    println!("inbox rows stored: {stored} (expected {})", 3 * total);

    cancel.cancel();
    let _ = server.await;
    tendero::db::drop_scratch(&base, pool, &scratch).await?;
    Ok(())
}
