//! A paid order followed to the door by the merchant (preparing, ready or on
//! its way, delivered), each step told to the customer — on WhatsApp after 24
//! hours only as the bot's approved template — and an order cancelled by the
//! merchant.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::channels::{channel_app, post_whatsapp, settle, wa_text};
use crate::helpers::{TestApp, spawn_app};

async fn paid_order(app: &TestApp, session: &str) -> String {
    for text in ["quiero 2 maracuyá", "cuánto es", "sí", "ya pagué"] {
        app.say(session, text).await;
    }
    let order = app.order_of(session).await;
    let (status, body) = app
        .post_api(&format!("/orders/{order}/approve-payment"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    app.drain().await;
    order
}

/// Moves the order on and checks what the customer of `session` read last.
async fn step(app: &TestApp, order: &str, status: &str, session: &str, told: &str) {
    let (code, body) = follow(app, order, status).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(body["status"], status);
    assert_eq!(body["customer_told"], true);
    app.drain().await;
    let last = app.replies(session).await.pop().unwrap();
    assert!(last.contains(told), "{last}");
}

async fn follow(app: &TestApp, order: &str, status: &str) -> (StatusCode, Value) {
    app.post_api(
        &format!("/orders/{order}/status"),
        Some(json!({ "status": status })),
    )
    .await
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_paid_order_is_followed_to_the_door_and_the_customer_hears_each_step(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let order = paid_order(&app, "ana").await;

    step(
        &app,
        &order,
        "preparing",
        "ana",
        "Estamos preparando tu pedido #1",
    )
    .await;

    let asked = app.say("ana", "¿cuánto falta?").await;
    assert!(
        asked[0].contains("Tu pedido #1 está en preparación"),
        "{asked:?}"
    );

    step(
        &app,
        &order,
        "on_the_way",
        "ana",
        "¡Tu pedido #1 está en camino!",
    )
    .await;

    // Forward only.
    let (status, body) = follow(&app, &order, "preparing").await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("on_the_way"),
        "{body}"
    );

    step(&app, &order, "delivered", "ana", "fue entregado").await;
    let (status, _) = app
        .post_api(
            &format!("/orders/{order}/cancel"),
            Some(json!({"reason": "x"})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a delivered order is not cancelled"
    );

    let listed = app.get_json("/orders?status=delivered").await;
    assert_eq!(listed["orders"].as_array().unwrap().len(), 1);
    let conversation_id = app.conversation_id("ana").await;
    let steps: Vec<String> = sqlx::query_scalar(
        "SELECT action FROM audit_log WHERE conversation_id = $1 AND kind = 'order_status_changed' ORDER BY id",
    )
    .bind(conversation_id)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(steps, ["preparing", "on_the_way", "delivered"]);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn order_changes_that_cannot_be_are_refused_and_change_nothing(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    for text in ["quiero 1 brownie", "cuánto es", "sí"] {
        app.say("beto", text).await;
    }
    let unpaid = app.order_of("beto").await;
    let (status, _) = follow(&app, &unpaid, "on_the_way").await;
    assert_eq!(status, StatusCode::CONFLICT, "not before it is paid");
    let (status, body) = follow(&app, &unpaid, "shipped").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("unknown order status"),
        "{body}"
    );
    let (status, _) = follow(&app, &uuid::Uuid::new_v4().to_string(), "ready").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = follow(&app, "no-es-un-id", "ready").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no such order");
    for body in [
        json!({}),
        json!({"status": "ready", "extra": 1}),
        json!({"reason": ""}),
    ] {
        let (status, _) = app
            .api(
                Method::POST,
                &format!("/orders/{unpaid}/status"),
                &app.key,
                Some(body.clone()),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    }
    let (status, _) = app
        .post_api(
            &format!("/orders/{unpaid}/cancel"),
            Some(json!({"reason": "   "})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a reason the customer can read"
    );
    let (status, _) = app
        .api(
            Method::POST,
            &format!("/orders/{unpaid}/cancel"),
            "tnd_wrong",
            Some(json!({"reason": "x"})),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let state: String = sqlx::query_scalar("SELECT status FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(state, "awaiting_payment", "nothing moved");
    assert_eq!(app.state("beto").await, "AWAITING_PAYMENT");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_merchant_cancels_an_unpaid_order_and_the_customer_starts_afresh(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    for text in ["quiero 1 brownie", "cuánto es", "sí"] {
        app.say("caro", text).await;
    }
    let order = app.order_of("caro").await;
    let (status, body) = app
        .post_api(
            &format!("/orders/{order}/cancel"),
            Some(json!({"reason": "no tenemos quien entregue hoy"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "cancelled");
    app.drain().await;
    let told = app.replies("caro").await.pop().unwrap();
    assert!(
        told.contains("el comercio canceló tu pedido #1. Motivo: no tenemos quien entregue hoy."),
        "{told}"
    );
    assert!(!told.contains("devolverte"), "nothing was paid");
    assert_eq!(app.state("caro").await, "IDLE");
    let asked = app.say("caro", "¿qué pasó con mi pedido?").await;
    assert!(asked[0].contains("Tu pedido #1 fue cancelado"), "{asked:?}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn on_whatsapp_a_day_later_only_the_approved_template_goes(pool: sqlx::PgPool) {
    const WA_USER: &str = "59171234567";
    let (app, fake) = channel_app(pool, |_| {}).await;
    for (wamid, text) in [
        ("wamid.B1", "quiero 1 brownie"),
        ("wamid.B2", "cuánto es"),
        ("wamid.B3", "sí"),
    ] {
        post_whatsapp(&app, &wa_text(wamid, text)).await;
        settle(&app).await;
    }
    assert_eq!(app.state(WA_USER).await, "AWAITING_PAYMENT");
    let order: String = sqlx::query_scalar("SELECT id::text FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let (status, _) = app
        .post_api(&format!("/orders/{order}/approve-payment"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    settle(&app).await;

    // Within the window: free text.
    let (_, body) = follow(&app, &order, "preparing").await;
    assert_eq!(body["customer_told"], true);
    settle(&app).await;
    let last = fake.calls("messages").pop().unwrap();
    assert_eq!(last.body["type"], "text", "{}", last.body);
    assert!(
        last.body["text"]["body"]
            .as_str()
            .unwrap()
            .contains("Estamos preparando")
    );

    // A day later, no template: the customer cannot be told, and the API says so.
    sqlx::query("UPDATE conversations SET last_customer_at = now() - interval '25 hours'")
        .execute(&app.pool)
        .await
        .unwrap();
    let sent_before = fake.calls("messages").len();
    let (status, body) = follow(&app, &order, "ready").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["customer_told"], false, "{body}");
    settle(&app).await;
    assert_eq!(
        fake.calls("messages").len(),
        sent_before,
        "no free text outside the window"
    );

    // With an approved template, that goes instead.
    let (status, body) = app
        .patch_bot(
            "demo-shop",
            json!({"whatsapp_order_template": "estado_pedido", "whatsapp_template_language": "es_MX"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = app
        .patch_bot(
            "demo-shop",
            json!({"whatsapp_order_template": "Estado Pedido!"}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a template name as Meta writes it"
    );
    let (_, body) = follow(&app, &order, "delivered").await;
    assert_eq!(body["customer_told"], true);
    settle(&app).await;
    let last = fake.calls("messages").pop().unwrap();
    assert_eq!(last.body["type"], "template", "{}", last.body);
    assert_eq!(last.body["template"]["name"], "estado_pedido");
    assert_eq!(last.body["template"]["language"]["code"], "es_MX");
    assert_eq!(
        last.body["template"]["components"][0]["parameters"],
        json!([{"type": "text", "text": "#1"}, {"type": "text", "text": "entregado"}])
    );
    let status: String = sqlx::query_scalar("SELECT status FROM outbox ORDER BY id DESC LIMIT 1")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(status, "sent");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_order_paid_in_cash_is_marked_paid_without_a_proof_with_a_note(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    for text in ["quiero 1 brownie", "cuánto es", "sí"] {
        app.say("eli", text).await;
    }
    let order = app.order_of("eli").await;
    let (status, _) = app
        .post_api(
            &format!("/orders/{order}/approve-payment"),
            Some(json!({"note": "x".repeat(301)})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a note fits in 300 characters"
    );
    let (status, _) = app
        .post_api(
            &format!("/orders/{order}/approve-payment"),
            Some(json!({"nota": "efectivo"})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "unknown fields are refused"
    );
    assert_eq!(app.state("eli").await, "AWAITING_PAYMENT", "nothing moved");
    let (status, body) = app
        .post_api(
            &format!("/orders/{order}/approve-payment"),
            Some(json!({"note": "efectivo al entregar"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    app.drain().await;
    assert_eq!(app.state("eli").await, "COMPLETED");
    assert!(
        app.replies("eli")
            .await
            .last()
            .unwrap()
            .starts_with("¡Pago confirmado!")
    );
    let (reason, without): (Option<String>, bool) = sqlx::query_as(
        "SELECT reason, (detail->>'without_proof')::boolean FROM audit_log
         WHERE kind = 'event_detected' AND action = 'PAYMENT_APPROVED'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(reason.as_deref(), Some("efectivo al entregar"));
    assert!(without);
}
