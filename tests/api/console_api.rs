//! The merchant API behind the console: keys, orders, undelivered messages,
//! conversation search and "needs me", the audit query, and replies that a retry
//! never sends twice.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::channels::{TG_SECRET, channel_app, post_telegram, settle, tg_text};
use crate::helpers::{TestApp, spawn_app};

async fn other_merchant_key(app: &TestApp) -> String {
    let other = tendero::merchants::create(&app.pool, "otra", "Otra")
        .await
        .unwrap();
    tendero::api_keys::create(&app.pool, other).await.unwrap()
}

async fn buy(app: &TestApp, session: &str) {
    for text in ["hola", "quiero 2 maracuyá", "cuánto es", "sí"] {
        app.say(session, text).await;
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn keys_are_created_shown_once_listed_by_prefix_and_revoked(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let listed = app.get_json("/keys").await;
    assert_eq!(listed["keys"].as_array().unwrap().len(), 1);
    assert_eq!(listed["keys"][0]["prefix"], app.key[..8]);
    assert!(
        !listed.to_string().contains(&app.key),
        "never the key itself"
    );

    let (status, created) = app
        .post_api("/keys", Some(json!({"label": "caja del local"})))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let new_key = created["key"].as_str().unwrap().to_owned();
    let (status, _) = app.api(Method::GET, "/keys", &new_key, None).await;
    assert_eq!(status, StatusCode::OK, "the new key works at once");
    let listed = app.get_json("/keys").await;
    assert_eq!(listed["keys"][1]["label"], "caja del local");
    assert!(!listed.to_string().contains(&new_key));

    let id = created["id"].as_str().unwrap();
    let (status, revoked) = app
        .api(Method::DELETE, &format!("/keys/{id}"), &app.key, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(revoked["revoked_at"].is_string());
    let (status, _) = app.api(Method::GET, "/keys", &new_key, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "revoked at once");

    let first = listed["keys"][0]["id"].as_str().unwrap();
    let (status, body) = app
        .api(Method::DELETE, &format!("/keys/{first}"), &app.key, None)
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "never the last active key: {body}"
    );
    let other = other_merchant_key(&app).await;
    for path in [
        format!("/keys/{first}"),
        "/keys/not-a-uuid".into(),
        format!("/keys/{}", uuid::Uuid::new_v4()),
    ] {
        let (status, _) = app.api(Method::DELETE, &path, &other, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    let (status, _) = app.api(Method::GET, "/keys", &app.key, None).await;
    assert_eq!(status, StatusCode::OK, "the merchant still gets in");
    for body in [
        json!({"label": "x".repeat(101)}),
        json!({"label": 5}),
        json!({"scope": "all"}),
    ] {
        assert_eq!(
            app.post_api("/keys", Some(body.clone())).await.0,
            StatusCode::BAD_REQUEST,
            "{body}"
        );
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn orders_are_listed_by_bot_and_status(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    buy(&app, "olga").await;
    let orders = app.get_json("/orders").await;
    assert_eq!(orders["orders"].as_array().unwrap().len(), 1);
    assert_eq!(orders["orders"][0]["status"], "awaiting_payment");
    assert_eq!(orders["orders"][0]["total"], "Bs 60");
    assert_eq!(orders["orders"][0]["bot"], "demo-shop");
    let waiting = app
        .get_json("/orders?status=awaiting_payment&bot=demo-shop")
        .await;
    assert_eq!(waiting["orders"].as_array().unwrap().len(), 1);
    let paid = app.get_json("/orders?status=paid").await;
    assert_eq!(paid["orders"], json!([]));
    let (status, _) = app
        .api(Method::GET, "/orders?status=robado", &app.key, None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let other = other_merchant_key(&app).await;
    let (status, theirs) = app.api(Method::GET, "/orders", &other, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(theirs["orders"], json!([]), "another merchant sees none");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn undelivered_messages_are_listed_flagged_retried_or_discarded(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    let refuse =
        json!({"ok": false, "error_code": 400, "description": "Bad Request: chat not found"});
    fake.fail_next("sendMessage", 400, refuse.clone());
    fake.fail_next("sendMessage", 400, refuse);
    post_telegram(&app, &tg_text(1, "hola"), Some(TG_SECRET)).await;
    settle(&app).await;
    post_telegram(&app, &tg_text(2, "quiero 1 limonada"), Some(TG_SECRET)).await;
    settle(&app).await;

    let letters = app.get_json("/dead-letters").await["dead_letters"].clone();
    let letters = letters.as_array().unwrap();
    assert_eq!(letters.len(), 2, "{letters:?}");
    assert_eq!(letters[0]["status"], "failed");
    assert!(
        letters[0]["last_error"]
            .as_str()
            .unwrap()
            .contains("chat not found")
    );
    let needs = app.get_json("/conversations?needs=me").await["conversations"].clone();
    assert_eq!(needs.as_array().unwrap().len(), 1);
    assert_eq!(needs[0]["undelivered"], true);

    let (newest, oldest) = (letters[0]["id"].clone(), letters[1]["id"].clone());
    let other = other_merchant_key(&app).await;
    let (status, _) = app
        .api(
            Method::POST,
            &format!("/dead-letters/{oldest}/retry"),
            &other,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = app
        .post_api(&format!("/dead-letters/{oldest}/retry"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    settle(&app).await;
    let sent = fake.texts("sendMessage");
    assert!(
        sent.last().unwrap().contains("Bienvenido"),
        "the greeting went out: {sent:?}"
    );
    let (status, _) = app
        .post_api(&format!("/dead-letters/{newest}/discard"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        app.get_json("/dead-letters").await["dead_letters"],
        json!([])
    );
    let (status, _) = app
        .post_api(&format!("/dead-letters/{newest}/retry"), None)
        .await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a discarded message stays dropped"
    );
    let needs = app.get_json("/conversations?needs=me").await["conversations"].clone();
    assert_eq!(needs, json!([]));
    let conversation = app.conversation_id("555000111").await;
    let kinds: Vec<String> = app
        .audit(conversation)
        .await
        .into_iter()
        .map(|(kind, _, _)| kind)
        .collect();
    assert!(kinds.contains(&"outbound_retried".to_string()));
    assert!(kinds.contains(&"outbound_discarded".to_string()));
}

async fn reply(
    app: &TestApp,
    id: uuid::Uuid,
    text: &str,
    key: Option<&str>,
) -> (StatusCode, Value) {
    let mut request = app
        .client
        .post(format!("{}/api/v1/conversations/{id}/reply", app.base))
        .bearer_auth(&app.key)
        .json(&json!({ "text": text }));
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_retried_reply_with_an_idempotency_key_is_sent_once(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("rosa", "hola").await;
    let id = app.conversation_id("rosa").await;
    let count_sql =
        format!("SELECT count(*) FROM outbox WHERE conversation_id = '{id}' AND author = 'human'");
    let human_rows = || app.count(&count_sql);

    let (status, first) = reply(&app, id, "¡Hola Rosa! Te atiendo yo.", Some("r-1")).await;
    assert_eq!(status, StatusCode::OK);
    let (status, again) = reply(&app, id, "¡Hola Rosa! Te atiendo yo.", Some("r-1")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again, first, "the first answer, again");
    assert_eq!(human_rows().await, 1);

    // Ten retries at once: one send.
    let racing =
        futures::future::join_all((0..10).map(|_| reply(&app, id, "¿Algo más?", Some("r-2"))))
            .await;
    assert!(
        racing.iter().all(|(s, _)| *s == StatusCode::OK),
        "{racing:?}"
    );
    assert!(racing.windows(2).all(|w| w[0].1 == w[1].1));
    assert_eq!(human_rows().await, 2);

    let (status, body) = reply(&app, id, "otro texto", Some("r-1")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    for bad in ["", &"k".repeat(201), "con espacio"] {
        let (status, _) = reply(&app, id, "hola", Some(bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad:?}");
    }
    assert_eq!(human_rows().await, 2, "refused requests sent nothing");
    // Without a key, every request is a new message.
    reply(&app, id, "sin llave", None).await;
    reply(&app, id, "sin llave", None).await;
    assert_eq!(human_rows().await, 4);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn conversations_are_searched_and_flagged_and_their_audit_queried(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    buy(&app, "pago").await;
    app.say("pago", "ya pagué, te envié el comprobante").await;
    app.say("ayuda", "quiero hablar con una persona").await;
    app.say("tranquilo", "quiero 1 brownie").await;

    let found = app.get_json("/conversations?q=comprobante").await["conversations"].clone();
    assert_eq!(found.as_array().unwrap().len(), 1);
    let nothing = app.get_json("/conversations?q=%25").await["conversations"].clone();
    assert_eq!(nothing, json!([]), "a % is looked for, not a wildcard");
    let needs = app.get_json("/conversations?needs=me").await["conversations"].clone();
    let flagged: Vec<(bool, bool)> = needs
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["escalated"].as_bool().unwrap(),
                c["proof_waiting"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(flagged.len(), 2, "{needs}");
    assert!(flagged.contains(&(true, false)) && flagged.contains(&(false, true)));
    let (status, _) = app
        .api(Method::GET, "/conversations?needs=todo", &app.key, None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let id = app.conversation_id("pago").await;
    let changes = app
        .get_json(&format!(
            "/conversations/{id}/audit?kind=state_changed&limit=2"
        ))
        .await["audit"]
        .clone();
    let changes = changes.as_array().unwrap();
    assert_eq!(changes.len(), 2);
    assert!(changes.iter().all(|r| r["kind"] == "state_changed"));
    assert!(
        changes[0]["id"].as_i64() > changes[1]["id"].as_i64(),
        "newest first"
    );
    let before = changes[1]["id"].as_i64().unwrap();
    let older = app
        .get_json(&format!(
            "/conversations/{id}/audit?kind=state_changed&before={before}"
        ))
        .await["audit"]
        .clone();
    assert!(
        older
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["id"].as_i64().unwrap() < before)
    );
    let other = other_merchant_key(&app).await;
    let (status, _) = app
        .api(
            Method::GET,
            &format!("/conversations/{id}/audit"),
            &other,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
