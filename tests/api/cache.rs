//! Redis as an early duplicate filter: faster when up, harmless when flushed or down.

use redis::AsyncCommands;
use tendero::config::Secret;
use tendero::startup::Proposers;

use crate::helpers::spawn_app_configured;

const REDIS: &str = "redis://127.0.0.1:6379";

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn redis_remembers_stored_events_and_a_flush_still_gives_exactly_once(pool: sqlx::PgPool) {
    let prefix = format!("test-{}", uuid::Uuid::new_v4().simple());
    let app = spawn_app_configured(pool, Proposers::rules(), |s| {
        s.redis_url = Some(Secret::new(REDIS));
        s.redis_prefix = prefix.clone();
    })
    .await;
    let first: serde_json::Value = app
        .post_message("xime", "quiero 1 limonada", "x-1")
        .await
        .json()
        .await
        .unwrap();
    let mut conn = redis::Client::open(REDIS)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let keys: Vec<String> = conn.keys(format!("{prefix}:seen:*")).await.unwrap();
    assert_eq!(
        keys.len(),
        1,
        "the stored event is remembered under the test's prefix"
    );
    let remembered: i64 = conn.get(&keys[0]).await.unwrap();
    assert_eq!(remembered, first["event_id"].as_i64().unwrap());

    let replay: serde_json::Value = app
        .post_message("xime", "quiero 1 limonada", "x-1")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(replay["duplicate"], true);
    assert_eq!(replay["event_id"], first["event_id"]);

    // Redis forgets (flush, eviction, restart): PostgreSQL still refuses the repeat.
    let _: () = conn.del(&keys).await.unwrap();
    let again: serde_json::Value = app
        .post_message("xime", "quiero 1 limonada", "x-1")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again["duplicate"], true);
    app.drain().await;
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 1);
    assert_eq!(app.cart("xime").await, vec![("limonada".into(), 1)]);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn with_redis_unreachable_messages_are_stored_once_all_the_same(pool: sqlx::PgPool) {
    let app = spawn_app_configured(pool, Proposers::rules(), |s| {
        // Nothing listens on port 1.
        s.redis_url = Some(Secret::new("redis://127.0.0.1:1"));
    })
    .await;
    for _ in 0..3 {
        let response = app.post_message("yago", "quiero 1 brownie", "y-1").await;
        assert_eq!(response.status(), reqwest::StatusCode::ACCEPTED);
    }
    app.drain().await;
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 1);
    assert_eq!(app.replies("yago").await.len(), 1);
}
