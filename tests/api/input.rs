//! Bad input gets a clear answer and changes nothing.

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::spawn_app;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn malformed_and_oversized_messages_are_refused_and_nothing_is_stored(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let url = format!("{}/webchat/demo-shop/messages", app.base);
    let cases: Vec<(&str, String, StatusCode)> = vec![
        ("not json", "{bad".into(), StatusCode::BAD_REQUEST),
        (
            "missing text",
            r#"{"session":"a"}"#.into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            "empty text",
            r#"{"session":"a","text":"   "}"#.into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            "wrong type",
            r#"{"session":"a","text":5}"#.into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            "bad session",
            r#"{"session":"a b/../c","text":"hola"}"#.into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            "bad client id",
            r#"{"session":"a","text":"hola","client_id":""}"#.into(),
            StatusCode::BAD_REQUEST,
        ),
        (
            "text too long",
            format!(r#"{{"session":"a","text":"{}"}}"#, "a".repeat(4097)),
            StatusCode::BAD_REQUEST,
        ),
        (
            "body too large",
            format!(r#"{{"session":"a","text":"{}"}}"#, "a".repeat(70_000)),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
    ];
    for (name, body, expected) in cases {
        let response = app
            .client
            .post(&url)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), expected, "{name}");
        let error: Value = response.json().await.unwrap();
        assert!(
            error["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{name}: {error}"
        );
    }
    let unknown = app
        .client
        .post(format!("{}/webchat/no-such-bot/messages", app.base))
        .body(r#"{"session":"a","text":"hola"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    for table in ["inbox", "contacts", "conversations", "messages", "outbox"] {
        assert_eq!(
            app.count(&format!("SELECT count(*) FROM {table}")).await,
            0,
            "{table}"
        );
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_merchant_api_answers_bad_requests_with_json_errors(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("pia", "quiero 1 brownie").await;
    let id = app.conversation_id("pia").await;
    let (status, body) = app
        .post_api(
            &format!("/conversations/{id}/reply"),
            Some(serde_json::json!({"text": ""})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let raw = app
        .client
        .post(format!("{}/api/v1/conversations/{id}/reply", app.base))
        .bearer_auth(&app.key)
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), StatusCode::BAD_REQUEST);
    let (status, _) = app
        .api(
            reqwest::Method::GET,
            "/conversations/not-a-uuid",
            &app.key,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app
        .api(
            reqwest::Method::GET,
            "/conversations?state=SHIPPED",
            &app.key,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = app
        .api(reqwest::Method::GET, "/conversations", "tdr_wrong", None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"], "missing or invalid API key");
    let missing = app
        .client
        .get(format!("{}/api/v1/conversations", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(app.state("pia").await, "CART_OPEN");
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE author = 'human'")
            .await,
        0
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn when_the_database_cannot_commit_the_webhook_answers_5xx_so_the_platform_retries(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    // Warm the bot cache first, so the failure is the commit itself.
    assert_eq!(
        app.post_message("ruth", "hola", "r-1").await.status(),
        StatusCode::ACCEPTED
    );
    app.pool.close().await;
    let response = app.post_message("ruth", "quiero 1 brownie", "r-2").await;
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["error"], "an internal error occurred",
        "no internals leak"
    );
    let ready = app
        .client
        .get(format!("{}/readyz", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
}
