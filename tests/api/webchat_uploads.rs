//! Files from a web chat: a payment proof sent through `POST /webchat/{bot}/uploads`
//! is kept by Tendero, taken as the order's proof exactly like a Telegram photo,
//! shown to the merchant through the console, and stored once however often the
//! widget retries. Anything else (no token, a type it does not take, bytes that
//! are not what they claim, too large) is refused and changes nothing.

use reqwest::StatusCode;
use serde_json::Value;

use crate::dashboard::Browser;
use crate::helpers::{TestApp, spawn_app};

/// The smallest PNG header: enough for the type check, not a picture anyone needs.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";

async fn upload(
    app: &TestApp,
    token: Option<&str>,
    content_type: &str,
    bytes: Vec<u8>,
    client_id: &str,
) -> reqwest::Response {
    let mut request = app
        .client
        .post(format!(
            "{}/webchat/demo-shop/uploads?client_id={client_id}&caption=mi%20pago",
            app.base
        ))
        .header("content-type", content_type)
        .body(bytes);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

async fn to_payment(app: &TestApp, who: &str) {
    for text in ["quiero 2 matcha", "eso es todo", "sí"] {
        app.say(who, text).await;
    }
    assert_eq!(app.state(who).await, "AWAITING_PAYMENT");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_proof_sent_from_the_web_chat_reaches_the_merchant_once(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    to_payment(&app, "eva").await;
    let token = app.token("demo-shop", "eva").await;
    let first = upload(&app, Some(&token), "image/png", PNG.to_vec(), "proof-1").await;
    assert_eq!(first.status(), StatusCode::ACCEPTED);
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["duplicate"], false);
    // The widget retries after a dropped answer: stored once, answered once.
    let again = upload(&app, Some(&token), "image/png", PNG.to_vec(), "proof-1").await;
    assert_eq!(again.status(), StatusCode::ACCEPTED);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["event_id"], first["event_id"]);
    app.drain().await;
    assert_eq!(app.count("SELECT count(*) FROM webchat_uploads").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM payment_proofs").await, 1);
    assert_eq!(app.state("eva").await, "AWAITING_PAYMENT");
    let replies = app.replies("eva").await;
    assert!(
        replies
            .last()
            .unwrap()
            .starts_with("¡Gracias! Recibimos tu comprobante"),
        "{replies:?}"
    );

    // The merchant sees it in the console, served by Tendero, byte for byte.
    let browser = Browser::sign_in(&app, &app.key).await;
    let id = app.conversation_id("eva").await;
    let (src, image) = browser.proof_image(id).await;
    assert_eq!(image.status(), StatusCode::OK);
    assert_eq!(image.headers()["content-type"], "image/png");
    assert_eq!(image.bytes().await.unwrap().to_vec(), PNG.to_vec());
    // Not without a console session.
    let stranger = app
        .client
        .get(format!("{}{src}", app.base))
        .send()
        .await
        .unwrap();
    let shown = stranger.bytes().await.unwrap();
    assert!(
        !shown.windows(PNG.len()).any(|w| w == PNG),
        "the file is not shown without a session"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_file_without_a_session_of_a_foreign_type_or_too_large_changes_nothing(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    to_payment(&app, "leo").await;
    let token = app.token("demo-shop", "leo").await;
    let inbox_before = app.count("SELECT count(*) FROM inbox").await;
    let mut forged = token.clone().into_bytes();
    forged[5] = if forged[5] == b'a' { b'b' } else { b'a' };
    let forged = String::from_utf8(forged).unwrap();
    let html = b"<html><script>alert(1)</script></html>".to_vec();
    let cases: Vec<(Option<&str>, &str, Vec<u8>, StatusCode)> = vec![
        (None, "image/png", PNG.to_vec(), StatusCode::UNAUTHORIZED),
        (
            Some(&forged),
            "image/png",
            PNG.to_vec(),
            StatusCode::UNAUTHORIZED,
        ),
        (
            Some(&token),
            "text/html",
            html.clone(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            Some(&token),
            "image/png",
            html,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            Some(&token),
            "image/svg+xml",
            b"<svg/>".to_vec(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            Some(&token),
            "image/png",
            Vec::new(),
            StatusCode::BAD_REQUEST,
        ),
        (
            Some(&token),
            "image/png",
            [PNG, &vec![0u8; 6 * 1024 * 1024][..]].concat(),
            StatusCode::PAYLOAD_TOO_LARGE,
        ),
    ];
    for (n, (token, content_type, bytes, expected)) in cases.into_iter().enumerate() {
        let response = upload(&app, token, content_type, bytes, &format!("bad-{n}")).await;
        assert_eq!(response.status(), expected, "case {n} ({content_type})");
        let body: Value = response.json().await.unwrap();
        assert!(body["error"].is_string(), "case {n}: {body}");
    }
    // Another bot's session cannot send to this one.
    let (created, body) = app
        .api(
            reqwest::Method::POST,
            "/bots",
            &app.key,
            Some(serde_json::json!({"slug": "heladeria", "name": "Heladería", "currency": "BOB"})),
        )
        .await;
    assert_eq!(created, StatusCode::CREATED, "{body}");
    let foreign = app.token("heladeria", "leo").await;
    let response = upload(&app, Some(&foreign), "image/png", PNG.to_vec(), "x").await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    app.drain().await;
    assert_eq!(app.count("SELECT count(*) FROM webchat_uploads").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, inbox_before);
    assert_eq!(app.count("SELECT count(*) FROM payment_proofs").await, 0);
    assert_eq!(app.state("leo").await, "AWAITING_PAYMENT");
}
