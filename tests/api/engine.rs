//! The turn engine as it runs in production: one claim loop, a task per turn,
//! the LLM's own concurrency limit, bursts answered once, caches that follow edits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;
use tendero::config::ResponseMode;
use tendero::engine::{Engine, EngineSettings};
use tendero::llm::Client as LlmClient;
use tendero::notify::Notifier;
use tendero::startup;
use tendero::startup::Proposers;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::fake_llm::{FakeLlm, Reply};
use crate::helpers::{TestApp, spawn_app, spawn_app_with};
use crate::llm::{config, id, proposal};

/// Runs the real claim loop (with its own LISTEN connection) until dropped.
fn run_engine(
    app: &TestApp,
    proposers: Proposers,
    configure: impl FnOnce(&mut EngineSettings),
) -> DropGuard {
    let mut settings = startup::engine_settings(&app.settings);
    configure(&mut settings);
    let cancel = CancellationToken::new();
    let notifier = Notifier::new();
    notifier.spawn(app.pool.clone(), cancel.clone());
    let engine = Arc::new(Engine::new(
        app.pool.clone(),
        startup::profiles(&app.pool, &proposers),
        settings,
    ));
    tokio::spawn(engine.run(notifier, cancel.clone()));
    cancel.drop_guard()
}

/// The customer message a request to the model carried.
fn customer_message(request: &serde_json::Value) -> String {
    let user = request["messages"][1]["content"].as_str().unwrap();
    let input: serde_json::Value = serde_json::from_str(user).unwrap();
    input["customer_message"].as_str().unwrap().to_owned()
}

/// The transcript lines a request to the model carried, oldest first.
fn history_of(request: &serde_json::Value) -> Vec<String> {
    let user = request["messages"][1]["content"].as_str().unwrap();
    let input: serde_json::Value = serde_json::from_str(user).unwrap();
    input["recent_history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line.to_string())
        .collect()
}

/// Waits (bounded) until `session` has `count` replies, and returns them.
async fn replies_eventually(app: &TestApp, session: &str, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let replies = app.replies(session).await;
        if replies.len() >= count || Instant::now() > deadline {
            return replies;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_burst_typed_while_the_model_thinks_is_one_reply_from_at_most_two_calls(
    pool: sqlx::PgPool,
) {
    let fake = FakeLlm::start().await;
    let llm = Proposers::llm(Arc::new(
        LlmClient::new(config(&fake, ResponseMode::JsonSchema)).unwrap(),
    ));
    let app = spawn_app_with(pool, llm.clone()).await;
    let matcha = id(&app, "matcha").await;
    for _ in 0..2 {
        // A model that thinks longer than the customer takes to type the rest.
        fake.push(Reply::Slow(
            Duration::from_millis(400),
            proposal(
                json!([{"type": "ADD_TO_CART", "params": {"product_id": matcha, "quantity": 2}}]),
                "¡Listo!",
            ),
        ));
    }
    let _engine = run_engine(&app, llm, |s| s.gather = Duration::from_millis(800));
    // (A lone greeting would be answered at once, before any proposer.)
    for (i, text) in ["mira", "quiero", "2 matcha"].into_iter().enumerate() {
        let response = app.post_message("ines", text, &format!("i-{i}")).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let replies = replies_eventually(&app, "ines", 1).await;
    // Give a second turn every chance to (wrongly) happen.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(app.replies("ines").await.len(), 1, "{replies:?}");
    assert!(replies[0].contains("2 × Matcha"), "{replies:?}");
    let requests = fake.requests();
    assert_eq!(
        requests.len(),
        2,
        "the first call read half the burst and was dropped; the second read it whole"
    );
    assert_eq!(customer_message(&requests[0]), "mira");
    assert_eq!(
        customer_message(&requests[1]),
        "mira\nquiero\n2 matcha",
        "the proposer read the burst as one message"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE status = 'done'")
            .await,
        3,
        "every message of the burst marked processed"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE gathered AND attempts = 1")
            .await,
        1,
        "the head waited once, and the wait was not counted as a failed attempt"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM llm_calls").await,
        2,
        "the dropped call is still on record (it was paid for)"
    );
    assert_eq!(app.cart("ines").await, vec![("matcha".into(), 2)]);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_lone_message_for_the_model_does_not_wait_for_a_burst(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let llm = Proposers::llm(Arc::new(
        LlmClient::new(config(&fake, ResponseMode::JsonSchema)).unwrap(),
    ));
    let app = spawn_app_with(pool, llm.clone()).await;
    fake.push(Reply::Content(proposal(
        json!([{"type": "REPLY", "params": {}}]),
        "Claro.",
    )));
    // A window far longer than the wait below: a reply within it was not held.
    let _engine = run_engine(&app, llm, |s| s.gather = Duration::from_secs(60));
    let posted = Instant::now();
    app.post_message("lia", "¿qué me recomiendas?", "l-1").await;
    let replies = replies_eventually(&app, "lia", 1).await;
    assert_eq!(replies.len(), 1, "answered without waiting out the window");
    assert!(posted.elapsed() < Duration::from_secs(20));
    assert_eq!(fake.requests().len(), 1);
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE gathered").await,
        0
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_customer_who_keeps_writing_is_still_answered_after_one_wait(pool: sqlx::PgPool) {
    let mut fake = FakeLlm::start().await;
    let llm = Proposers::llm(Arc::new(
        LlmClient::new(config(&fake, ResponseMode::JsonSchema)).unwrap(),
    ));
    let app = spawn_app_with(pool, llm.clone()).await;
    for text in ["Uno.", "Dos."] {
        fake.push(Reply::Gate(proposal(
            json!([{"type": "REPLY", "params": {}}]),
            text,
        )));
    }
    fake.push(Reply::Content(proposal(
        json!([{"type": "REPLY", "params": {}}]),
        "Tres.",
    )));
    let _engine = run_engine(&app, llm, |s| s.gather = Duration::from_millis(200));
    app.post_message("teo", "mira", "t-1").await;
    fake.arrived.recv().await.unwrap();
    app.post_message("teo", "quiero", "t-2").await;
    fake.release.notify_one();
    // The burst's second call: the customer writes again while it runs.
    fake.arrived.recv().await.unwrap();
    app.post_message("teo", "y algo más", "t-3").await;
    fake.release.notify_one();
    let replies = replies_eventually(&app, "teo", 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        app.replies("teo").await.len(),
        2,
        "no second wait: the burst is answered, then the rest: {replies:?}"
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(customer_message(&requests[1]), "mira\nquiero");
    assert_eq!(customer_message(&requests[2]), "y algo más");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn messages_sent_while_a_turn_runs_are_answered_together_in_the_next(pool: sqlx::PgPool) {
    let mut fake = FakeLlm::start().await;
    let llm = Proposers::llm(Arc::new(
        LlmClient::new(config(&fake, ResponseMode::JsonSchema)).unwrap(),
    ));
    let app = spawn_app_with(pool, llm.clone()).await;
    let (brownie, matcha, croissant) = (
        id(&app, "brownie").await,
        id(&app, "matcha").await,
        id(&app, "croissant").await,
    );
    fake.push(Reply::Gate(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": brownie, "quantity": 1}}]),
        "",
    )));
    fake.push(Reply::Content(proposal(
        json!([
            {"type": "ADD_TO_CART", "params": {"product_id": matcha, "quantity": 1}},
            {"type": "ADD_TO_CART", "params": {"product_id": croissant, "quantity": 1}}
        ]),
        "",
    )));
    let _engine = run_engine(&app, llm, |_| {});
    app.post_message("olga", "quiero 1 brownie", "o-1").await;
    fake.arrived.recv().await.unwrap();
    // The first turn is waiting on the model; two more messages arrive.
    app.post_message("olga", "y 1 matcha", "o-2").await;
    app.post_message("olga", "y 1 croissant", "o-3").await;
    fake.release.notify_one();
    let replies = replies_eventually(&app, "olga", 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(app.replies("olga").await.len(), 2, "{replies:?}");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(customer_message(&requests[1]), "y 1 matcha\ny 1 croissant");
    // What came before the burst, the bot's answer to the first turn included
    // (it was written after the burst's messages arrived), and not the burst itself.
    let history = history_of(&requests[1]);
    assert_eq!(history.len(), 2, "{history:?}");
    assert!(history[0].contains("quiero 1 brownie"), "{history:?}");
    assert!(history[1].contains("Brownie"), "{history:?}");
    assert_eq!(
        app.cart("olga").await,
        vec![
            ("brownie".into(), 1),
            ("matcha".into(), 1),
            ("croissant".into(), 1)
        ]
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn many_turns_wait_on_a_slow_llm_at_once_but_never_past_its_limit(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    fake.set_delay(Duration::from_millis(300));
    let mut llm_config = config(&fake, ResponseMode::JsonSchema);
    llm_config.max_in_flight = 6;
    llm_config.max_in_flight_per_bot = 32;
    let llm = Proposers::llm(Arc::new(LlmClient::new(llm_config).unwrap()));
    let app = spawn_app_with(pool, llm.clone()).await;
    let _engine = run_engine(&app, llm, |s| s.turns_in_flight = 256);
    let customers = 30;
    let posts = (0..customers).map(|i| {
        let app = &app;
        async move {
            app.post_message(&format!("c{i}"), "hola, ¿qué me recomiendas?", "1")
                .await
        }
    });
    for response in futures::future::join_all(posts).await {
        assert_eq!(response.status(), StatusCode::ACCEPTED);
    }
    for i in 0..customers {
        assert_eq!(replies_eventually(&app, &format!("c{i}"), 1).await.len(), 1);
    }
    assert_eq!(fake.requests().len(), customers);
    assert_eq!(
        fake.peak_in_flight(),
        6,
        "thirty turns in flight kept the model exactly at its limit"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_catalog_or_bot_edit_is_seen_by_the_very_next_turn(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let first = app.say("paz", "quiero 1 matcha").await;
    assert!(first[0].contains("1 × Matcha"), "{first:?}");
    // Another replica or a tool renames and reprices the product: this process's
    // cached catalog must not be used for the next turn.
    sqlx::query(
        "UPDATE products SET name = 'Matcha latte', price_minor = 3100 WHERE sku = 'matcha'",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    let second = app.say("paz", "quiero otro matcha").await.join("\n");
    assert!(second.contains("Matcha latte"), "{second}");
    assert!(second.contains("62"), "the new price is used: {second}");
    // A bot setting changed through the merchant API reaches the next turn too.
    let (status, body) = app
        .api(
            reqwest::Method::PATCH,
            "/bots/demo-shop",
            &app.key,
            Some(json!({"payment_instructions": "Paga por QR al 7000-1111."})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    app.say("paz", "eso es todo").await;
    let confirmed = app.say("paz", "sí").await.join("\n");
    assert!(
        confirmed.contains("Paga por QR al 7000-1111."),
        "{confirmed}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_open_stream_receives_replies_as_they_commit_long_ones_included(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    // The stream is open before anything is said: replies must reach it live.
    let reader = {
        let url = app.events_url("demo-shop", "vera").await;
        let client = app.client.clone();
        tokio::spawn(async move {
            let response = client.get(url).send().await.unwrap();
            let mut stream = futures::StreamExt::boxed(response.bytes_stream());
            // Bytes, not text: a chunk may end inside a multi-byte character.
            let (mut buffer, mut events) = (Vec::<u8>::new(), Vec::<serde_json::Value>::new());
            while events.len() < 2 {
                let Some(Ok(chunk)) = futures::StreamExt::next(&mut stream).await else {
                    break;
                };
                buffer.extend_from_slice(&chunk);
                while let Some(pos) = buffer.windows(2).position(|w| w == b"\n\n") {
                    let block: Vec<u8> = buffer.drain(..pos + 2).collect();
                    for line in String::from_utf8(block).unwrap().lines() {
                        if let Some(data) = line.strip_prefix("data:") {
                            events.push(serde_json::from_str(data.trim()).unwrap());
                        }
                    }
                }
            }
            events
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    app.say("vera", "quiero 1 matcha").await;
    // A merchant's long answer: over 8 kB of UTF-8, too big to ride in a
    // notification, so the stream reads it from the table.
    let id = app.conversation_id("vera").await;
    let long = format!("Con gusto te explico {} ", "🙂".repeat(15)).repeat(100);
    let (status, body) = app
        .post_api(
            &format!("/conversations/{id}/reply"),
            Some(json!({"text": long.trim()})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let events = tokio::time::timeout(Duration::from_secs(10), reader)
        .await
        .expect("events arrive live")
        .unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events[0]["text"].as_str().unwrap().contains("1 × Matcha"));
    assert_eq!(events[0]["author"], "bot");
    assert_eq!(events[1]["text"].as_str().unwrap(), long.trim());
    assert_eq!(events[1]["author"], "human");
    let ids: Vec<i64> = events.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
}
