//! Web-chat event streams: bounded per client address and in total, and a stream
//! opened before its session wrote learns its conversation without looking.

use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use tendero::startup::Proposers;

use crate::helpers::spawn_app_configured;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn streams_are_bounded_per_address_and_in_total_and_places_come_back(pool: sqlx::PgPool) {
    let app = spawn_app_configured(pool, Proposers::rules(), |s| {
        s.streams.per_client = 2;
        s.streams.total = 3;
        s.streams.client_ip_header = Some("x-forwarded-for".parse().unwrap());
    })
    .await;
    let open = |address: &'static str, session: &'static str| {
        let app = &app;
        async move {
            app.client
                .get(app.events_url("demo-shop", session).await)
                .header("x-forwarded-for", address)
                .send()
                .await
                .unwrap()
        }
    };
    let first = open("10.0.0.1", "a1").await;
    assert_eq!(first.status(), StatusCode::OK);
    let second = open("10.0.0.1", "a2").await;
    assert_eq!(second.status(), StatusCode::OK);
    let refused = open("10.0.0.1", "a3").await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.headers()["retry-after"], "30");
    let body: serde_json::Value = refused.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("at most 2 event streams"),
        "{body}"
    );
    let third = open("10.0.0.2", "b1").await;
    assert_eq!(
        third.status(),
        StatusCode::OK,
        "another address has its own"
    );
    let full = open("10.0.0.3", "c1").await;
    assert_eq!(
        full.status(),
        StatusCode::SERVICE_UNAVAILABLE,
        "the process holds no more"
    );
    drop(first);
    // The server notices the closed connection at its next write (a keep-alive)
    // or at once; either way the place comes back.
    let mut again = open("10.0.0.1", "a4").await;
    for _ in 0..100 {
        if again.status() == StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        again = open("10.0.0.1", "a4").await;
    }
    assert_eq!(
        again.status(),
        StatusCode::OK,
        "a closed stream gave its place back"
    );
    drop((second, third));
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_stream_opened_before_the_first_message_gets_the_reply(pool: sqlx::PgPool) {
    let app = spawn_app_configured(pool, Proposers::rules(), |_| {}).await;
    let response = app
        .client
        .get(app.events_url("demo-shop", "nueva").await)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.bytes_stream();
    let replies = app.say("nueva", "quiero 2 matcha").await;
    assert!(replies[0].contains("2 × Matcha"), "{replies:?}");
    let mut seen = String::new();
    let read = async {
        while !seen.contains("2 × Matcha") {
            let Some(Ok(chunk)) = stream.next().await else {
                break;
            };
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(10), read).await;
    assert!(
        seen.contains("2 × Matcha"),
        "the open stream got the reply: {seen}"
    );
    assert!(seen.contains("id:"), "{seen}");
}
