//! Exactly-once and one-turn-at-a-time, under replays and racing workers.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::StatusCode;
use sqlx::postgres::PgPoolOptions;
use tendero::proposal::ProposerError;
use tendero::shop::contract::{Proposal, ProposalInput};
use tendero::shop::proposer::{Proposer, RulesProposer, ShopContract};
use tendero::startup::{self, Proposers};

use crate::helpers::{spawn_app, spawn_app_with};

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_replayed_message_is_stored_and_processed_once(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.token("demo-shop", "dani").await;
    // Ten deliveries of the same message, five of them at once.
    let concurrent = futures::future::join_all(
        (0..5).map(|_| app.post_message("dani", "quiero 2 maracuyá", "m-1")),
    )
    .await;
    let mut ids = Vec::new();
    for response in concurrent {
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        ids.push(
            response.json::<serde_json::Value>().await.unwrap()["event_id"]
                .as_i64()
                .unwrap(),
        );
    }
    app.drain().await;
    for _ in 0..5 {
        let response = app.post_message("dani", "quiero 2 maracuyá", "m-1").await;
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["duplicate"], true);
        ids.push(body["event_id"].as_i64().unwrap());
    }
    app.drain().await;
    ids.dedup();
    assert_eq!(ids.len(), 1, "every delivery names the same stored event");
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 1);
    assert_eq!(
        app.count("SELECT count(*) FROM messages WHERE direction = 'in'")
            .await,
        1
    );
    assert_eq!(app.replies("dani").await.len(), 1);
    assert_eq!(app.cart("dani").await, vec![("maracuya".into(), 2)]);
}

/// The rules proposer, slowed down so turns overlap, reading each line of a burst
/// as its own request (so every queued message has an effect to count).
struct Slow;

#[async_trait]
impl Proposer<ShopContract> for Slow {
    fn name(&self) -> &'static str {
        "slow-rules"
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        tokio::time::sleep(Duration::from_millis(15)).await;
        let mut actions = Vec::new();
        for line in input.customer_message.lines() {
            let mut one = input.clone();
            one.customer_message = line.to_owned();
            actions.extend(
                Proposer::<ShopContract>::propose(&RulesProposer, &one)
                    .await?
                    .proposed_actions,
            );
        }
        Ok(Proposal::new(actions, ""))
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn two_workers_racing_over_one_conversation_keep_its_order_and_apply_nothing_twice(
    pool: sqlx::PgPool,
) {
    let app = spawn_app_with(pool.clone(), Proposers::shop(Arc::new(Slow))).await;
    for i in 1..=10 {
        let response = app
            .post_message("eva", "quiero 1 maracuyá", &format!("e-{i}"))
            .await;
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        app.post_message("fer", "quiero 1 matcha", &format!("f-{i}"))
            .await;
    }
    // Two workers as two processes would have them: separate pools, separate leases.
    let options = pool.connect_options();
    let mut handles = Vec::new();
    for _ in 0..2 {
        let own_pool = PgPoolOptions::new()
            .max_connections(4)
            .connect_with((*options).clone())
            .await
            .unwrap();
        let engine = startup::engine(&own_pool, &app.settings, &Proposers::shop(Arc::new(Slow)));
        handles.push(tokio::spawn(async move {
            engine.run_until_idle().await.unwrap()
        }));
    }
    for handle in handles {
        handle.await.unwrap();
    }
    app.engine.run_until_idle().await.unwrap();
    app.dispatcher.run_until_idle().await.unwrap();

    assert_eq!(app.cart("eva").await, vec![("maracuya".into(), 10)]);
    assert_eq!(app.cart("fer").await, vec![("matcha".into(), 10)]);
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE status = 'done'")
            .await,
        20
    );
    // Queued messages are answered in bursts of at most five, one reply each, in
    // arrival order: the running quantity grows through the replies.
    let replies = app.replies("eva").await;
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert!(replies[0].contains("5 × Maracuya"), "{}", replies[0]);
    assert!(
        replies[1].contains("Ahora tienes 10 × Maracuya"),
        "{}",
        replies[1]
    );
    // Outbox rows follow inbox order.
    let order: Vec<i64> = sqlx::query_scalar(
        "SELECT o.inbox_id FROM outbox o JOIN conversations c ON c.id = o.conversation_id
         JOIN contacts ct ON ct.id = c.contact_id WHERE ct.external_id = ANY($1) ORDER BY o.id",
    )
    .bind(app.session_ids("eva"))
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    let executed = app
        .count("SELECT count(*) FROM audit_log WHERE kind = 'action_executed' AND action = 'ADD_TO_CART'")
        .await;
    assert_eq!(executed, 20, "each add executed exactly once");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_worker_whose_lease_expired_cannot_commit_twice(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.post_message("gabi", "quiero 1 brownie", "g-1").await;
    // Simulate a crashed holder: a lease that has already expired.
    sqlx::query("UPDATE conversations SET lease_owner = gen_random_uuid(), lease_until = now() - interval '1 second'")
        .execute(&app.pool)
        .await
        .unwrap();
    app.drain().await;
    assert_eq!(app.cart("gabi").await, vec![("brownie".into(), 1)]);
    // A live lease held by someone else is respected: nothing is claimed.
    app.post_message("gabi", "quiero 1 brownie", "g-2").await;
    sqlx::query("UPDATE conversations SET lease_owner = gen_random_uuid(), lease_until = now() + interval '1 hour'")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(app.engine.run_until_idle().await.unwrap(), 0);
    assert_eq!(app.cart("gabi").await, vec![("brownie".into(), 1)]);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_worker_only_process_serves_what_a_web_only_process_stored(pool: sqlx::PgPool) {
    let app = spawn_app(pool.clone()).await;
    let mut settings = app.settings.clone();
    settings.poll_interval = Duration::from_millis(20);
    let worker = tendero::startup::Application::build(
        settings,
        pool,
        Proposers::rules(),
        tendero::config::Role::Worker,
    )
    .await
    .unwrap();
    let probe = format!(
        "http://{}",
        worker.local_addr().expect("a worker serves probes")
    );
    let cancel = tokio_util::sync::CancellationToken::new();
    let running = tokio::spawn(worker.run_until_stopped(cancel.clone()));
    // Probes and metrics only: nothing a customer or merchant calls.
    let health = app
        .client
        .get(format!("{probe}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let metrics = app
        .client
        .get(format!("{probe}/metrics"))
        .send()
        .await
        .unwrap();
    assert!(
        metrics
            .text()
            .await
            .unwrap()
            .contains("tendero_turns_in_flight")
    );
    let chat = app
        .client
        .post(format!("{probe}/webchat/demo-shop/messages"))
        .json(&serde_json::json!({"token": app.token("demo-shop", "zoe").await, "text": "hola"}))
        .send()
        .await
        .unwrap();
    assert_eq!(chat.status(), StatusCode::NOT_FOUND);
    app.post_message("zoe", "quiero 2 matcha", "z-1").await;
    let mut replies = Vec::new();
    for _ in 0..200 {
        replies = app.replies("zoe").await;
        if !replies.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(replies.len(), 1, "the worker process answered");
    assert!(replies[0].contains("Agregué 2 × Matcha"));
    cancel.cancel();
    running.await.unwrap().unwrap();
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_group_commit_stores_each_event_once_whatever_the_batch_holds(pool: sqlx::PgPool) {
    use tendero::channels::{ChannelKind, Inbound, MessagePayload};
    use tendero::inbox::{Ingested, ingest_many};
    let app = spawn_app(pool).await;
    let bot = tendero::bots::by_slug(&app.pool, "demo-shop")
        .await
        .unwrap()
        .unwrap();
    let message = |sender: &str, key: &str, text: &str| Inbound {
        channel: ChannelKind::Webchat,
        sender: sender.into(),
        display_name: None,
        external_id: key.into(),
        message: MessagePayload {
            text: text.into(),
            media: None,
        },
    };
    let earlier = message("ana", "k-0", "hola");
    let mut conn = app.pool.acquire().await.unwrap();
    let first = ingest_many(&mut conn, &[(bot.id, &earlier)]).await.unwrap();
    let Ingested::New {
        inbox_id: known, ..
    } = first[0]
    else {
        panic!("stored: {first:?}")
    };
    // One batch: a known event, two messages of one sender, a repeat within the
    // batch, and a second sender.
    let batch = [
        message("ana", "k-0", "hola"),
        message("ana", "k-1", "quiero 1 matcha"),
        message("ana", "k-2", "y 1 brownie"),
        message("ana", "k-1", "quiero 1 matcha"),
        message("beto", "k-3", "hola"),
    ];
    let items: Vec<_> = batch.iter().map(|m| (bot.id, m)).collect();
    let results = ingest_many(&mut conn, &items).await.unwrap();
    assert_eq!(results[0], Ingested::Duplicate { inbox_id: known });
    let Ingested::New {
        inbox_id: k1,
        conversation_id: ana,
    } = results[1]
    else {
        panic!("{results:?}")
    };
    assert!(matches!(results[2], Ingested::New { conversation_id, .. } if conversation_id == ana));
    assert_eq!(results[3], Ingested::Duplicate { inbox_id: k1 });
    assert!(matches!(results[4], Ingested::New { conversation_id, .. } if conversation_id != ana));
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 4);
    assert_eq!(app.count("SELECT count(*) FROM contacts").await, 2);
    assert_eq!(
        app.count("SELECT count(*) FROM messages WHERE direction = 'in'")
            .await,
        4
    );
    // Arrival order within a conversation is the batch's order.
    app.drain().await;
    assert_eq!(
        app.cart("ana").await,
        vec![("matcha".into(), 1), ("brownie".into(), 1)]
    );
}
