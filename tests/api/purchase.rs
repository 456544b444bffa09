//! A whole purchase through the web-chat endpoints, with the rules proposer and the
//! merchant's approval.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::spawn_app;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_customer_buys_through_web_chat_and_the_merchant_approves_the_payment(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    let s = "ana";

    let hello = app.say(s, "Hola, ¿qué tienen?").await;
    assert_eq!(hello.len(), 1);
    assert!(hello[0].contains("Bienvenido a Café Demo"), "{hello:?}");
    assert!(hello[0].contains("Maracuya — Bs 30") && hello[0].contains("Matcha — Bs 29"));
    assert_eq!(app.state(s).await, "BROWSING");

    let added = app.say(s, "quiero 2 maracuyá").await;
    assert!(added[0].contains("Agregué 2 × Maracuya"), "{added:?}");
    assert!(added[0].contains("Total: Bs 60"));
    assert_eq!(app.state(s).await, "CART_OPEN");

    let more = app.say(s, "agrégame tres de matcha").await;
    assert!(more[0].contains("Total: Bs 147"), "{more:?}");
    assert_eq!(
        app.cart(s).await,
        vec![("maracuya".into(), 2), ("matcha".into(), 3)]
    );

    let review = app.say(s, "cuánto es").await;
    assert!(
        review[0].contains("Resumen de tu pedido") && review[0].contains("Total: Bs 147"),
        "{review:?}"
    );
    assert_eq!(app.state(s).await, "CHECKOUT");

    let confirmed = app.say(s, "sí").await;
    assert!(
        confirmed[0].contains("Tu pedido #1 por Bs 147 quedó registrado"),
        "{confirmed:?}"
    );
    assert_eq!(app.state(s).await, "AWAITING_PAYMENT");
    assert!(app.cart(s).await.is_empty(), "the cart became the order");

    let proof = app.say(s, "Ya pagué, te envié el comprobante").await;
    assert!(
        proof[0].contains("Recibimos tu comprobante del pedido #1"),
        "{proof:?}"
    );

    let conversation_id = app.conversation_id(s).await;
    let detail = app
        .get_json(&format!("/conversations/{conversation_id}"))
        .await;
    let order = &detail["order"]["order"];
    assert_eq!(order["status"], "proof_received");
    assert_eq!(order["total_minor"], 14700);
    assert_eq!(detail["order"]["items"][1]["name"], "Matcha");
    assert_eq!(detail["order"]["items"][1]["unit_price_minor"], 2900);

    let order_id = order["id"].as_str().unwrap().to_owned();
    let (status, body) = app
        .post_api(&format!("/orders/{order_id}/approve-payment"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    app.drain().await;
    assert_eq!(app.state(s).await, "COMPLETED");
    let replies = app.replies(s).await;
    assert!(
        replies
            .last()
            .unwrap()
            .contains("¡Pago confirmado! Tu pedido #1 por Bs 147")
    );

    // Approving twice is refused and changes nothing.
    let (status, _) = app
        .post_api(&format!("/orders/{order_id}/approve-payment"), None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT);

    // The customer read every reply over server-sent events, in order.
    let events = app.read_events(s, None, replies.len()).await;
    let texts: Vec<&str> = events.iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        replies.iter().map(String::as_str).collect::<Vec<_>>()
    );
    // ...and a reconnect resumes after the last one it saw.
    let first_id = events[0]["id"].as_i64().unwrap();
    let resumed = app.read_events(s, Some(first_id), replies.len() - 1).await;
    assert_eq!(resumed.len(), replies.len() - 1);
    assert_eq!(resumed[0]["text"], events[1]["text"]);

    // The next message after a completed purchase starts afresh.
    app.say(s, "hola").await;
    assert_eq!(app.state(s).await, "BROWSING");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_rejected_payment_asks_for_the_proof_again_and_cancel_ends_the_order(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let s = "beto";
    for text in ["quiero 1 brownie", "cuánto es", "confirmo"] {
        app.say(s, text).await;
    }
    assert_eq!(app.state(s).await, "AWAITING_PAYMENT");
    let conversation_id = app.conversation_id(s).await;
    let detail = app
        .get_json(&format!("/conversations/{conversation_id}"))
        .await;
    let order_id = detail["order"]["order"]["id"].as_str().unwrap().to_owned();

    let (status, _) = app
        .post_api(
            &format!("/orders/{order_id}/reject-payment"),
            Some(json!({"reason": "el monto no coincide"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    app.drain().await;
    assert_eq!(app.state(s).await, "AWAITING_PAYMENT");
    assert!(
        app.replies(s)
            .await
            .last()
            .unwrap()
            .contains("el monto no coincide")
    );

    let cancelled = app.say(s, "cancelar").await;
    assert!(
        cancelled[0].contains("Cancelé tu pedido #1"),
        "{cancelled:?}"
    );
    assert_eq!(app.state(s).await, "IDLE");
    let status: String = sqlx::query_scalar("SELECT status FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(status, "cancelled");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_change_at_the_summary_reopens_the_cart_and_needs_a_new_summary(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let s = "carla";
    app.say(s, "quiero 2 limonadas").await;
    app.say(s, "cuánto es").await;
    assert_eq!(app.state(s).await, "CHECKOUT");
    let reopened = app.say(s, "todavía no, agrega un brownie").await;
    assert!(reopened[0].contains("Brownie"), "{reopened:?}");
    assert_eq!(
        app.cart(s).await,
        vec![("limonada".into(), 2), ("brownie".into(), 1)]
    );
    assert_eq!(app.state(s).await, "CART_OPEN");
    // A yes now shows the new summary; it does not confirm an order the
    // customer has not seen.
    let summary = app.say(s, "sí").await;
    assert!(summary.join("\n").contains("Resumen"), "{summary:?}");
    assert_eq!(app.state(s).await, "CHECKOUT");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    // A yes mixed with a change is the change, not a confirmation.
    app.say(s, "sí pero sin el brownie").await;
    assert_eq!(app.state(s).await, "CART_OPEN");
    assert_eq!(app.cart(s).await, vec![("limonada".into(), 2)]);
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    app.say(s, "eso es todo").await;
    app.say(s, "sí").await;
    assert_eq!(app.state(s).await, "AWAITING_PAYMENT");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 1);
}
