//! Bad input gets a clear answer and changes nothing.

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::spawn_app;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn malformed_and_oversized_messages_are_refused_and_nothing_is_stored(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let url = format!("{}/webchat/demo-shop/messages", app.base);
    let token = app.token("demo-shop", "a").await;
    // Signed by this server, for another bot.
    let (foreign, _) = tendero::channels::webchat::session::issue(
        tendero::secret::keyring().unwrap(),
        uuid::Uuid::new_v4(),
    );
    let expired = tendero::channels::webchat::session::issue_anonymous_at(
        tendero::secret::keyring().unwrap(),
        app.bot_id("demo-shop").await,
        chrono::Utc::now() - chrono::Duration::days(31),
    );
    let mut forged = token.clone().into_bytes();
    forged[20] = if forged[20] == b'a' { b'b' } else { b'a' };
    let forged = String::from_utf8(forged).unwrap();
    let with = |token: &str, rest: &str| format!(r#"{{"token":"{token}"{rest}}}"#);
    let cases: Vec<(&str, String, StatusCode)> = vec![
        ("not json", "{bad".into(), StatusCode::BAD_REQUEST),
        ("missing text", with(&token, ""), StatusCode::BAD_REQUEST),
        (
            "empty text",
            with(&token, r#","text":"   ""#),
            StatusCode::BAD_REQUEST,
        ),
        (
            "wrong type",
            with(&token, r#","text":5"#),
            StatusCode::BAD_REQUEST,
        ),
        (
            "bad session",
            r#"{"session":"a b/../c","text":"hola"}"#.into(),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "a session the client chose",
            r#"{"session":"a","text":"hola"}"#.into(),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "no token",
            r#"{"text":"hola"}"#.into(),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "forged token",
            with(&forged, r#","text":"hola""#),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "another bot's token",
            with(&foreign, r#","text":"hola""#),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "expired token",
            with(&expired, r#","text":"hola""#),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "a token that is no token",
            with("w:0123", r#","text":"hola""#),
            StatusCode::UNAUTHORIZED,
        ),
        (
            "bad client id",
            with(&token, r#","text":"hola","client_id":"""#),
            StatusCode::BAD_REQUEST,
        ),
        (
            "text too long",
            with(&token, &format!(r#","text":"{}""#, "a".repeat(4097))),
            StatusCode::BAD_REQUEST,
        ),
        (
            "body too large",
            with(&token, &format!(r#","text":"{}""#, "a".repeat(70_000))),
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
        if expected == StatusCode::UNAUTHORIZED {
            assert_eq!(
                error,
                serde_json::json!({"error": "a valid web-chat session token is required; get one from POST /webchat/{bot}/sessions"}),
                "{name}: the same bare answer, revealing nothing"
            );
        }
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
