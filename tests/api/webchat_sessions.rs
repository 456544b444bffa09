//! Web-chat sessions the server issues: a stranger cannot read or write another
//! customer's chat, signed-in users keep theirs across devices, old chats finish.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tendero::startup::Proposers;

use crate::helpers::{new_session, spawn_app, spawn_app_configured};

const REFUSAL: &str =
    "a valid web-chat session token is required; get one from POST /webchat/{bot}/sessions";

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_stranger_cannot_read_a_chat_with_a_guessed_or_forged_token(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let replies = app.say("ana", "quiero 2 matcha").await;
    assert!(replies[0].contains("2 × Matcha"), "{replies:?}");
    let ana = app.session_ids("ana")[0].clone();
    assert!(ana.starts_with("w:"), "{ana}");
    let token = app.token("demo-shop", "ana").await;
    let mut forged = token.clone().into_bytes();
    forged[4] = if forged[4] == b'f' { b'e' } else { b'f' };
    let forged = String::from_utf8(forged).unwrap();
    for query in [
        format!("session={ana}"),
        "session=ana".to_owned(),
        format!("token={forged}"),
        "token=".to_owned(),
        String::new(),
    ] {
        let response = app
            .client
            .get(format!("{}/webchat/demo-shop/events?{query}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{query}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body, json!({"error": REFUSAL}), "{query}: nothing revealed");
    }
    // Nor can it write as her: her cart is untouched.
    let posted = app
        .client
        .post(format!("{}/webchat/demo-shop/messages", app.base))
        .json(&json!({"session": ana, "text": "vacía el carrito"}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), StatusCode::UNAUTHORIZED);
    app.drain().await;
    assert_eq!(app.cart("ana").await, vec![("matcha".into(), 2)]);
    // Her own token reads her chat; the header works as well as the parameter.
    let mine = app
        .client
        .get(format!("{}/webchat/demo-shop/events", app.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(mine.status(), StatusCode::OK);
    let events = app.read_events("ana", None, 1).await;
    assert!(events[0]["text"].as_str().unwrap().contains("2 × Matcha"));
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_chat_of_the_old_form_goes_on_until_it_goes_quiet(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let bot = app.bot_id("demo-shop").await;
    sqlx::query(
        "WITH c AS (INSERT INTO contacts (bot_id, channel, external_id)
                    VALUES ($1, 'webchat', 'viejo') RETURNING id)
         INSERT INTO conversations (bot_id, contact_id, last_activity_at)
         SELECT $1, id, now() FROM c",
    )
    .bind(bot)
    .execute(&app.pool)
    .await
    .unwrap();
    let post = |text: &'static str| {
        let app = &app;
        async move {
            app.client
                .post(format!("{}/webchat/demo-shop/messages", app.base))
                .json(&json!({"session": "viejo", "text": text}))
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(post("quiero 1 brownie").await, StatusCode::ACCEPTED);
    app.drain().await;
    assert_eq!(app.cart("viejo").await, vec![("brownie".into(), 1)]);
    // Quiet past the bot's session timeout: the old form is refused from then on.
    sqlx::query("UPDATE conversations SET last_activity_at = now() - interval '2 days'")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(post("quiero 1 matcha").await, StatusCode::UNAUTHORIZED);
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 1);
}

/// HMAC-SHA256(secret, identifier) in hex, as a merchant's site computes it.
fn identity_hash(secret: &str, identifier: &str) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(identifier.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_signed_in_user_continues_on_another_device_and_a_wrong_hash_is_refused(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    let sessions = format!("{}/webchat/demo-shop/sessions", app.base);
    let ask = |body: Value| {
        let app = &app;
        let url = sessions.clone();
        async move {
            let response = app.client.post(url).json(&body).send().await.unwrap();
            let status = response.status();
            (status, response.json::<Value>().await.unwrap())
        }
    };
    // Not set up yet: said plainly.
    let (status, _) = ask(json!({"identifier": "u-42", "identifier_hash": "00"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = app
        .post_api("/bots/demo-shop/webchat/identity-secret", None)
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let secret = body["secret"].as_str().unwrap().to_owned();
    let stored: String =
        sqlx::query_scalar("SELECT webchat_identity_secret FROM bots WHERE slug = 'demo-shop'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(stored.starts_with("enc:v1:"), "sealed at rest");
    assert!(!stored.contains(&secret));

    let hash = identity_hash(&secret, "u-42");
    let (status, phone) = ask(json!({"identifier": "u-42", "identifier_hash": hash})).await;
    assert_eq!(status, StatusCode::CREATED, "{phone}");
    assert_eq!(phone["session"], "u:u-42");
    let phone_token = phone["token"].as_str().unwrap().to_owned();
    let posted = app
        .client
        .post(format!("{}/webchat/demo-shop/messages", app.base))
        .bearer_auth(&phone_token)
        .json(&json!({"text": "quiero 2 croissant"}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), StatusCode::ACCEPTED);
    app.drain().await;
    // The laptop: the same person, the same conversation.
    let (_, laptop) = ask(json!({"identifier": "u-42", "identifier_hash": hash})).await;
    let laptop_token = laptop["token"].as_str().unwrap();
    let url = format!("{}/webchat/demo-shop/events?token={laptop_token}", app.base);
    let events = crate::helpers::sse(app.client.clone(), url, None, 1).await;
    assert!(
        events[0].1["text"]
            .as_str()
            .unwrap()
            .contains("2 × Croissant")
    );

    for (identifier, hash) in [
        ("u-42", identity_hash(&secret, "u-43")),
        ("u-43", hash.clone()),
        ("u-42", "not hex".to_owned()),
    ] {
        let (status, _) = ask(json!({"identifier": identifier, "identifier_hash": hash})).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{identifier}");
    }
    let (status, _) = ask(json!({"identifier": "u-42"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a hash is required");
    // A new secret: the old one's hashes stop working at once.
    app.post_api("/bots/demo-shop/webchat/identity-secret", None)
        .await;
    let (status, _) = ask(json!({"identifier": "u-42", "identifier_hash": hash})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn new_sessions_are_rate_limited_per_address(pool: sqlx::PgPool) {
    let app = spawn_app_configured(pool, Proposers::rules(), |s| {
        s.webchat_sessions_per_second = 2;
    })
    .await;
    let mut statuses = Vec::new();
    for _ in 0..10 {
        let response = app
            .client
            .post(format!("{}/webchat/demo-shop/sessions", app.base))
            .send()
            .await
            .unwrap();
        statuses.push(response.status());
    }
    assert!(statuses.contains(&StatusCode::CREATED));
    assert!(
        statuses.contains(&StatusCode::TOO_MANY_REQUESTS),
        "{statuses:?}"
    );
    // The next second has room again.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (token, _) = new_session(&app.client, &app.base, "demo-shop").await;
    assert!(token.len() >= 64, "at least 128 bits and a signature");
    let unknown = app
        .client
        .post(format!("{}/webchat/no-such-bot/sessions", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn only_the_origins_a_bot_lists_may_call_its_web_chat_from_a_browser(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let (status, body) = app
        .patch_bot(
            "demo-shop",
            json!({"webchat_origins": ["https://tienda.example/", "javascript:alert(1)"]}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = app
        .patch_bot(
            "demo-shop",
            json!({"webchat_origins": ["https://Tienda.example/", "http://localhost:8000"]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["webchat_origins"],
        json!(["https://tienda.example", "http://localhost:8000"])
    );
    let preflight = |origin: &'static str| {
        let app = &app;
        async move {
            app.client
                .request(
                    reqwest::Method::OPTIONS,
                    format!("{}/webchat/demo-shop/messages", app.base),
                )
                .header("origin", origin)
                .header("access-control-request-method", "POST")
                .header("access-control-request-headers", "content-type")
                .send()
                .await
                .unwrap()
        }
    };
    let allowed = preflight("https://tienda.example").await;
    assert_eq!(allowed.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        allowed.headers()["access-control-allow-origin"],
        "https://tienda.example"
    );
    assert!(
        allowed.headers()["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );
    let denied = preflight("https://evil.example").await;
    assert_eq!(denied.status(), StatusCode::FORBIDDEN);
    assert!(
        denied
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );

    let create = |origin: &'static str| {
        let app = &app;
        async move {
            app.client
                .post(format!("{}/webchat/demo-shop/sessions", app.base))
                .header("origin", origin)
                .send()
                .await
                .unwrap()
        }
    };
    let mine = create("http://localhost:8000").await;
    assert_eq!(mine.status(), StatusCode::CREATED);
    assert_eq!(
        mine.headers()["access-control-allow-origin"],
        "http://localhost:8000"
    );
    let theirs = create("https://evil.example").await;
    assert!(
        theirs
            .headers()
            .get("access-control-allow-origin")
            .is_none(),
        "no CORS answer: a browser keeps the page from reading it"
    );
    // Other bots list nothing: nobody is allowed.
    let finance = app
        .client
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/webchat/demo-finanzas/messages", app.base),
        )
        .header("origin", "https://tienda.example")
        .send()
        .await
        .unwrap();
    assert_eq!(finance.status(), StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_web_chat_customer_may_give_a_name_the_inbox_shows(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let token = app.token("demo-shop", "nina").await;
    let post = |body: Value| {
        let app = &app;
        async move {
            app.client
                .post(format!("{}/webchat/demo-shop/messages", app.base))
                .json(&body)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    let long = "n".repeat(81);
    for bad in [
        json!({"token": token, "text": "hola", "name": long}),
        json!({"token": token, "text": "hola", "name": "Ana\u{7}"}),
    ] {
        assert_eq!(post(bad).await, StatusCode::BAD_REQUEST);
    }
    assert_eq!(
        app.count("SELECT count(*) FROM inbox").await,
        0,
        "nothing stored"
    );
    assert_eq!(
        post(json!({"token": token, "text": "hola", "name": "  Nina Quispe "})).await,
        StatusCode::ACCEPTED
    );
    let name: Option<String> = sqlx::query_scalar("SELECT display_name FROM contacts")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(name.as_deref(), Some("Nina Quispe"));
    let listed = app.get_json("/conversations").await;
    assert_eq!(listed["conversations"][0]["contact_name"], "Nina Quispe");
}
