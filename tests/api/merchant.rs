//! A key sees and changes only its own merchant's conversations and orders.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::spawn_app;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn merchant_b_cannot_read_or_change_merchant_a_conversation(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    for text in ["quiero 1 matcha", "cuánto es", "sí"] {
        app.say("quique", text).await;
    }
    let id = app.conversation_id("quique").await;
    let order_id: uuid::Uuid = sqlx::query_scalar("SELECT id FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();

    let other = tendero::merchants::create(&app.pool, "otra-tienda", "Otra tienda")
        .await
        .unwrap();
    let key_b = tendero::api_keys::create(&app.pool, other).await.unwrap();

    let (status, body) = app.api(Method::GET, "/conversations", &key_b, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["conversations"], json!([]));
    let attempts = [
        (Method::GET, format!("/conversations/{id}"), None),
        (Method::POST, format!("/conversations/{id}/takeover"), None),
        (Method::POST, format!("/conversations/{id}/release"), None),
        (
            Method::POST,
            format!("/conversations/{id}/reply"),
            Some(json!({"text": "hola"})),
        ),
        (
            Method::POST,
            format!("/orders/{order_id}/approve-payment"),
            None,
        ),
        (
            Method::POST,
            format!("/orders/{order_id}/reject-payment"),
            Some(json!({"reason": "no"})),
        ),
    ];
    for (method, path, body) in attempts {
        let (status, answer) = app.api(method.clone(), &path, &key_b, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}: {answer}");
    }
    assert_eq!(app.state("quique").await, "AWAITING_PAYMENT");
    let status: String = sqlx::query_scalar("SELECT status FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(status, "awaiting_payment");
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE author = 'human'")
            .await,
        0
    );

    // Merchant A, with its own key, sees it.
    let (status, body) = app
        .api(
            Method::GET,
            "/conversations?bot=demo-shop&state=AWAITING_PAYMENT",
            &app.key,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["conversations"][0]["id"], id.to_string());
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn only_the_hash_of_a_key_is_stored(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let stored: Vec<Vec<u8>> = sqlx::query_scalar("SELECT key_hash FROM api_keys")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert!(
        !stored[0]
            .windows(app.key.len())
            .any(|w| w == app.key.as_bytes())
    );
    assert_eq!(stored[0].len(), 32);
}
