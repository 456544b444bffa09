//! Session-inactivity and payment timeouts run as ordinary, exactly-once turns.

use crate::helpers::spawn_app;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_inactive_cart_returns_to_idle_and_an_unpaid_order_expires(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("uma", "quiero 2 limonadas").await;
    for text in ["quiero 1 cheesecake", "cuánto es", "sí"] {
        app.say("vero", text).await;
    }
    assert_eq!(app.engine.sweep().await.unwrap(), 0, "nothing is due yet");

    // Time passes: the cart goes idle and the payment window closes.
    sqlx::query("UPDATE conversations SET last_activity_at = now() - interval '2 hours'")
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE orders SET payment_due_at = now() - interval '1 minute'")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(app.engine.sweep().await.unwrap(), 2);
    assert_eq!(app.engine.sweep().await.unwrap(), 0, "queued once");
    let before = app.replies("uma").await.len();
    app.drain().await;

    assert_eq!(app.state("uma").await, "IDLE");
    assert!(app.cart("uma").await.is_empty());
    assert_eq!(
        app.replies("uma").await.len(),
        before,
        "an expired cart is silent"
    );

    assert_eq!(app.state("vero").await, "IDLE");
    let status: String = sqlx::query_scalar("SELECT status FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(status, "expired");
    assert!(
        app.replies("vero")
            .await
            .last()
            .unwrap()
            .contains("no recibimos el pago a tiempo")
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_timeout_that_lost_the_race_to_a_new_message_does_nothing(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("wen", "quiero 1 capuchino").await;
    sqlx::query("UPDATE conversations SET last_activity_at = now() - interval '2 hours'")
        .execute(&app.pool)
        .await
        .unwrap();
    app.engine.sweep().await.unwrap();
    // The customer writes before the timeout event runs; it was queued first, so it
    // runs first — and finds the customer gone idle, which is the truth at that point.
    // A message after it starts from IDLE with an empty cart.
    app.say("wen", "quiero 1 capuchino").await;
    assert_eq!(app.cart("wen").await, vec![("capuchino".into(), 1)]);
    let skipped_or_done = app
        .count("SELECT count(*) FROM inbox WHERE kind = 'session_timeout' AND status = 'done'")
        .await;
    assert_eq!(skipped_or_done, 1);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_merchant_sets_the_timeouts_of_a_bot(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let patch = serde_json::json!({"session_timeout_secs": 600, "payment_timeout_secs": 7200,
                                   "payment_instructions": "QR en la caja."});
    let (status, body) = app
        .api(
            reqwest::Method::PATCH,
            "/bots/demo-shop",
            &app.key,
            Some(patch),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    assert_eq!(body["session_timeout_secs"], 600);
    assert_eq!(body["agent_enabled"], true, "fields not given are kept");
    let too_short = serde_json::json!({"session_timeout_secs": 5});
    let (status, _) = app
        .api(
            reqwest::Method::PATCH,
            "/bots/demo-shop",
            &app.key,
            Some(too_short),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::BAD_REQUEST);

    // The new payment window applies to the next order, and its instructions show.
    for text in ["quiero 1 brownie", "cuánto es"] {
        app.say("sol", text).await;
    }
    let confirmed = app.say("sol", "sí").await;
    assert!(confirmed[0].contains("QR en la caja."), "{confirmed:?}");
    let window: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM payment_due_at - created_at)::float8 FROM orders",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!((window - 7200.0).abs() < 5.0, "{window}");
}
