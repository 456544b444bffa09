//! Telegram and WhatsApp end to end, against fake platform servers.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tendero::channels::credentials::{self, TelegramSetup, WhatsAppSetup};
use tendero::channels::whatsapp::sign;
use tendero::startup::Proposers;

use crate::fake_platforms::FakePlatform;
use crate::helpers::{TestApp, spawn_app_configured};

pub const TG_SECRET: &str = "tg-secret_123";
pub const WA_SECRET: &str = "wa-app-secret";
const WA_VERIFY: &str = "wa-verify-token";
const PHONE_ID: &str = "106540352242922";
const TG_CHAT: &str = "555000111";
const WA_USER: &str = "59171234567";

pub async fn channel_app(
    pool: sqlx::PgPool,
    configure: impl FnOnce(&mut tendero::config::Settings),
) -> (TestApp, FakePlatform) {
    channel_setup(pool, |_, _| Proposers::rules(), configure).await
}

/// The demo shop on both fake platforms, proposing with what `proposer` builds
/// (given the settings that point at the fakes).
pub async fn channel_app_with(
    pool: sqlx::PgPool,
    proposer: impl FnOnce(&tendero::config::Settings, &sqlx::PgPool) -> Proposers,
) -> (TestApp, FakePlatform) {
    channel_setup(pool, proposer, |_| {}).await
}

async fn channel_setup(
    pool: sqlx::PgPool,
    proposer: impl FnOnce(&tendero::config::Settings, &sqlx::PgPool) -> Proposers,
    configure: impl FnOnce(&mut tendero::config::Settings),
) -> (TestApp, FakePlatform) {
    let fake = FakePlatform::start().await;
    let base = fake.base_url.clone();
    let point = |s: &mut tendero::config::Settings| {
        s.telegram_api_url = base.clone();
        s.whatsapp_api_url = base.clone();
    };
    let mut settings = tendero::config::Settings::for_tests("postgres://unused");
    point(&mut settings);
    let proposer = proposer(&settings, &pool);
    let app = spawn_app_configured(pool, proposer, |s| {
        point(s);
        configure(s);
    })
    .await;
    let bot = tendero::bots::by_slug(&app.pool, "demo-shop")
        .await
        .unwrap()
        .unwrap();
    let telegram = TelegramSetup {
        token: "123456:ABC-test".into(),
        secret_token: TG_SECRET.into(),
    };
    credentials::set_telegram(&app.pool, bot.id, &telegram)
        .await
        .unwrap();
    let whatsapp = WhatsAppSetup {
        phone_number_id: PHONE_ID.into(),
        access_token: "wa-access-token".into(),
        app_secret: WA_SECRET.into(),
        verify_token: WA_VERIFY.into(),
    };
    credentials::set_whatsapp(&app.pool, bot.id, &whatsapp)
        .await
        .unwrap();
    (app, fake)
}

pub fn fixture(path: &str) -> Value {
    let full = format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(full).unwrap()).unwrap()
}

pub fn tg_text(update_id: u64, text: &str) -> Value {
    let mut update = fixture("telegram/text.json");
    update["update_id"] = json!(update_id);
    update["message"]["text"] = json!(text);
    update
}

pub fn wa_text(wamid: &str, text: &str) -> Value {
    let mut payload = fixture("whatsapp/text.json");
    let message = &mut payload["entry"][0]["changes"][0]["value"]["messages"][0];
    message["id"] = json!(wamid);
    message["text"]["body"] = json!(text);
    payload
}

pub async fn post_telegram(app: &TestApp, update: &Value, secret: Option<&str>) -> StatusCode {
    let mut request = app
        .client
        .post(format!("{}/webhooks/telegram/demo-shop", app.base))
        .json(update);
    if let Some(secret) = secret {
        request = request.header("X-Telegram-Bot-Api-Secret-Token", secret);
    }
    request.send().await.unwrap().status()
}

pub async fn post_whatsapp_raw(
    app: &TestApp,
    body: Vec<u8>,
    signature: Option<String>,
) -> StatusCode {
    let mut request = app
        .client
        .post(format!("{}/webhooks/whatsapp/demo-shop", app.base))
        .header("content-type", "application/json")
        .body(body);
    if let Some(signature) = signature {
        request = request.header("X-Hub-Signature-256", signature);
    }
    request.send().await.unwrap().status()
}

pub async fn post_whatsapp(app: &TestApp, payload: &Value) -> StatusCode {
    let body = serde_json::to_vec(payload).unwrap();
    let signature = sign(&body, WA_SECRET);
    post_whatsapp_raw(app, body, Some(signature)).await
}

/// Runs workers and dispatcher until nothing is pending, waiting out rate-limit
/// windows and retry delays (bounded).
pub async fn settle(app: &TestApp) {
    for _ in 0..200 {
        app.drain().await;
        let pending = app
            .count("SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')")
            .await
            + app
                .count("SELECT count(*) FROM inbox WHERE status = 'pending'")
                .await;
        if pending == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("work still pending after 20 s");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_whole_purchase_over_telegram_with_a_photo_as_payment_proof(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    for (id, text) in [(1, "hola"), (2, "quiero 2 maracuyá"), (3, "cuánto es")] {
        assert_eq!(
            post_telegram(&app, &tg_text(id, text), Some(TG_SECRET)).await,
            StatusCode::OK
        );
        settle(&app).await;
    }
    let sent = fake.calls("sendMessage");
    assert_eq!(sent.len(), 3);
    assert!(sent.iter().all(|c| c.body["chat_id"] == json!(555000111)));
    assert!(
        sent[0].body["text"]
            .as_str()
            .unwrap()
            .contains("Bienvenido a Café Demo")
    );
    let keyboard = &sent[2].body["reply_markup"]["inline_keyboard"][0];
    assert_eq!(
        keyboard[0]["callback_data"], "Sí",
        "the summary offers buttons"
    );

    // The customer presses «Sí».
    let mut press = fixture("telegram/callback_query.json");
    press["update_id"] = json!(4);
    assert_eq!(
        post_telegram(&app, &press, Some(TG_SECRET)).await,
        StatusCode::OK
    );
    settle(&app).await;
    assert_eq!(app.state(TG_CHAT).await, "AWAITING_PAYMENT");
    assert!(
        fake.texts("sendMessage")
            .last()
            .unwrap()
            .contains("Tu pedido #1 por Bs 60")
    );
    for _ in 0..50 {
        if !fake.calls("answerCallbackQuery").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        fake.calls("answerCallbackQuery")[0].body["callback_query_id"],
        "4382bfdwdsb323b2d9"
    );

    let mut photo = fixture("telegram/photo.json");
    photo["update_id"] = json!(5);
    assert_eq!(
        post_telegram(&app, &photo, Some(TG_SECRET)).await,
        StatusCode::OK
    );
    settle(&app).await;
    assert!(
        fake.texts("sendMessage")
            .last()
            .unwrap()
            .contains("Recibimos tu comprobante del pedido #1")
    );
    let media: Value = sqlx::query_scalar("SELECT media FROM payment_proofs")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        media["id"], "AgACAgEAAxkBAAMMlarge",
        "the largest photo is kept"
    );

    let order_id: uuid::Uuid = sqlx::query_scalar("SELECT id FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let (status, _) = app
        .post_api(&format!("/orders/{order_id}/approve-payment"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    settle(&app).await;
    assert_eq!(app.state(TG_CHAT).await, "COMPLETED");
    assert!(
        fake.texts("sendMessage")
            .last()
            .unwrap()
            .contains("¡Pago confirmado!")
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE status <> 'sent'")
            .await,
        0
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_whole_purchase_over_whatsapp_with_an_image_as_payment_proof(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    for (wamid, text) in [
        ("wamid.A1", "hola"),
        ("wamid.A2", "quiero 3 matcha"),
        ("wamid.A3", "cuánto es"),
    ] {
        assert_eq!(
            post_whatsapp(&app, &wa_text(wamid, text)).await,
            StatusCode::OK
        );
        settle(&app).await;
    }
    let sent = fake.calls("messages");
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent[0].authorization.as_deref(),
        Some("Bearer wa-access-token")
    );
    assert_eq!(sent[0].body["to"], WA_USER);
    assert_eq!(sent[2].body["type"], "interactive");
    assert_eq!(
        sent[2].body["interactive"]["action"]["buttons"][0]["reply"]["id"],
        "Sí"
    );

    assert_eq!(
        post_whatsapp(&app, &fixture("whatsapp/interactive_button_reply.json")).await,
        StatusCode::OK
    );
    settle(&app).await;
    assert_eq!(app.state(WA_USER).await, "AWAITING_PAYMENT");
    assert_eq!(
        post_whatsapp(&app, &fixture("whatsapp/image.json")).await,
        StatusCode::OK
    );
    settle(&app).await;
    assert!(
        fake.texts("messages")
            .last()
            .unwrap()
            .contains("Recibimos tu comprobante del pedido #1 por Bs 87")
    );
    let media: Value = sqlx::query_scalar("SELECT media FROM payment_proofs")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(media["id"], "1003383421387256");
    let provider: Option<String> =
        sqlx::query_scalar("SELECT provider_message_id FROM outbox ORDER BY id DESC LIMIT 1")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(
        provider.unwrap().starts_with("wamid.OUT"),
        "sent ids are kept for status updates"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn bad_secrets_and_signatures_get_401_and_store_nothing(pool: sqlx::PgPool) {
    let (app, _fake) = channel_app(pool, |_| {}).await;
    assert_eq!(
        post_telegram(&app, &tg_text(1, "hola"), Some("wrong")).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        post_telegram(&app, &tg_text(1, "hola"), None).await,
        StatusCode::UNAUTHORIZED
    );
    let body = serde_json::to_vec(&wa_text("wamid.X", "hola")).unwrap();
    let forged = sign(&body, "not-the-secret");
    assert_eq!(
        post_whatsapp_raw(&app, body.clone(), Some(forged)).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        post_whatsapp_raw(&app, body.clone(), None).await,
        StatusCode::UNAUTHORIZED
    );
    // Signed over different bytes (re-serialized JSON) is not the same signature.
    let tampered = String::from_utf8(body.clone())
        .unwrap()
        .replace("hola", "hola ");
    assert_eq!(
        post_whatsapp_raw(&app, tampered.into_bytes(), Some(sign(&body, WA_SECRET))).await,
        StatusCode::UNAUTHORIZED
    );
    // Malformed but correctly signed: 400. Unknown bot: 404.
    let junk = b"{not json".to_vec();
    assert_eq!(
        post_whatsapp_raw(&app, junk.clone(), Some(sign(&junk, WA_SECRET))).await,
        StatusCode::BAD_REQUEST
    );
    let status = app
        .client
        .post(format!("{}/webhooks/telegram/nope", app.base))
        .header("X-Telegram-Bot-Api-Secret-Token", TG_SECRET)
        .json(&tg_text(1, "hola"))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::NOT_FOUND);
    for table in ["inbox", "contacts", "messages"] {
        assert_eq!(
            app.count(&format!("SELECT count(*) FROM {table}")).await,
            0,
            "{table}"
        );
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_same_update_delivered_ten_times_at_once_makes_one_turn_and_one_reply(
    pool: sqlx::PgPool,
) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    let update = tg_text(77, "quiero 2 maracuyá");
    let statuses =
        futures::future::join_all((0..10).map(|_| post_telegram(&app, &update, Some(TG_SECRET))))
            .await;
    assert!(
        statuses.iter().all(|s| *s == StatusCode::OK),
        "{statuses:?}"
    );
    let payload = wa_text("wamid.SAME", "quiero 1 brownie");
    let statuses = futures::future::join_all((0..10).map(|_| post_whatsapp(&app, &payload))).await;
    assert!(
        statuses.iter().all(|s| *s == StatusCode::OK),
        "{statuses:?}"
    );
    settle(&app).await;
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 2);
    assert_eq!(fake.calls("sendMessage").len(), 1);
    assert_eq!(fake.calls("messages").len(), 1);
    assert_eq!(app.cart(TG_CHAT).await, vec![("maracuya".into(), 2)]);
    assert_eq!(app.cart(WA_USER).await, vec![("brownie".into(), 1)]);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_telegram_429_waits_the_retry_after_it_names(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    fake.fail_next(
        "sendMessage",
        429,
        json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 2", "parameters": {"retry_after": 2}}),
    );
    post_telegram(&app, &tg_text(1, "hola"), Some(TG_SECRET)).await;
    settle(&app).await;
    let calls = fake.calls("sendMessage");
    assert_eq!(calls.len(), 2);
    assert!(
        calls[1].at - calls[0].at >= Duration::from_secs(2),
        "retried after {:?}",
        calls[1].at - calls[0].at
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE status = 'sent'")
            .await,
        1
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_platform_500_is_retried_until_it_recovers_then_delivered_once(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |s| s.send_attempts = 5).await;
    for _ in 0..3 {
        fake.fail_next(
            "messages",
            500,
            json!({"error": {"message": "Service temporarily unavailable", "code": 2}}),
        );
    }
    post_whatsapp(&app, &wa_text("wamid.R1", "quiero 1 limonada")).await;
    settle(&app).await;
    assert_eq!(fake.calls("messages").len(), 4);
    let (status, attempts): (String, i32) = sqlx::query_as("SELECT status, attempts FROM outbox")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!((status.as_str(), attempts), ("sent", 3));

    // A platform that never recovers: dead-lettered, visible, not retried forever.
    for _ in 0..5 {
        fake.fail_next(
            "messages",
            503,
            json!({"error": {"message": "down", "code": 2}}),
        );
    }
    post_whatsapp(&app, &wa_text("wamid.R2", "quiero 1 brownie")).await;
    settle(&app).await;
    let conversation = app.conversation_id(WA_USER).await;
    let detail = app
        .get_json(&format!("/conversations/{conversation}"))
        .await;
    let last = detail["transcript"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["delivery"], "dead");
    assert!(last["delivery_error"].as_str().unwrap().contains("503"));
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_user_who_blocked_the_bot_gets_no_further_sends(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    fake.fail_next("sendMessage", 403, json!({"ok": false, "error_code": 403, "description": "Forbidden: bot was blocked by the user"}));
    post_telegram(&app, &tg_text(1, "hola"), Some(TG_SECRET)).await;
    settle(&app).await;
    post_telegram(&app, &tg_text(2, "quiero 1 brownie"), Some(TG_SECRET)).await;
    // Blocked again before the reply goes out (my_chat_member "kicked").
    let mut kicked = fixture("telegram/my_chat_member_kicked.json");
    kicked["update_id"] = json!(3);
    assert_eq!(
        post_telegram(&app, &kicked, Some(TG_SECRET)).await,
        StatusCode::OK
    );
    settle(&app).await;
    assert_eq!(
        fake.calls("sendMessage").len(),
        1,
        "only the first, refused, attempt"
    );
    let blocked: bool = sqlx::query_scalar("SELECT blocked FROM contacts")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(blocked);
    let failed = app
        .count(
            "SELECT count(*) FROM outbox WHERE status = 'failed' AND last_error LIKE '%blocked%'",
        )
        .await;
    assert_eq!(failed, 2);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_status_beside_messages_never_drops_a_message(pool: sqlx::PgPool) {
    let (app, _fake) = channel_app(pool, |_| {}).await;
    assert_eq!(
        post_whatsapp(&app, &fixture("whatsapp/status_and_message.json")).await,
        StatusCode::OK
    );
    settle(&app).await;
    assert_eq!(app.cart(WA_USER).await, vec![("maracuya".into(), 2)]);
    assert_eq!(
        app.state("59176543210").await,
        "BROWSING",
        "the second entry's message ran too"
    );

    // A failed status marks the sent message, with the reason, for the merchant.
    sqlx::query("UPDATE outbox SET provider_message_id = 'wamid.SENT0002' WHERE id = (SELECT min(id) FROM outbox)")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        post_whatsapp(&app, &fixture("whatsapp/status_failed.json")).await,
        StatusCode::OK
    );
    let (status, delivery, error): (String, String, String) =
        sqlx::query_as("SELECT status, delivery_status, last_error FROM outbox WHERE provider_message_id = 'wamid.SENT0002'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!((status.as_str(), delivery.as_str()), ("failed", "failed"));
    assert_eq!(error, "outside the 24-hour window");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn outside_the_24_hour_window_a_reply_is_recorded_as_failed_not_sent(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    post_whatsapp(&app, &wa_text("wamid.W1", "quiero 1 brownie")).await;
    app.engine.run_until_idle().await.unwrap();
    sqlx::query("UPDATE conversations SET last_customer_at = now() - interval '25 hours'")
        .execute(&app.pool)
        .await
        .unwrap();
    settle(&app).await;
    assert!(fake.calls("messages").is_empty());
    let error: String = sqlx::query_scalar("SELECT last_error FROM outbox")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(error, "outside the 24-hour window");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_three_megabyte_payload_is_accepted_and_a_larger_one_refused(pool: sqlx::PgPool) {
    let (app, _fake) = channel_app(pool, |_| {}).await;
    let mut big = wa_text("wamid.BIG", "quiero 1 brownie");
    big["entry"][0]["changes"][0]["value"]["padding"] = json!("x".repeat(3 * 1024 * 1024));
    assert_eq!(post_whatsapp(&app, &big).await, StatusCode::OK);
    let mut huge = wa_text("wamid.HUGE", "hola");
    huge["entry"][0]["changes"][0]["value"]["padding"] = json!("x".repeat(5 * 1024 * 1024));
    assert_eq!(
        post_whatsapp(&app, &huge).await,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 1);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn whatsapp_verification_echoes_the_challenge_only_with_the_right_token(pool: sqlx::PgPool) {
    let (app, _fake) = channel_app(pool, |_| {}).await;
    let verify = |token: &str, mode: &str| {
        app.client
            .get(format!(
                "{}/webhooks/whatsapp/demo-shop?hub.mode={mode}&hub.verify_token={token}&hub.challenge=1158201444",
                app.base
            ))
            .send()
    };
    let ok = verify(WA_VERIFY, "subscribe").await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(ok.text().await.unwrap(), "1158201444");
    assert_eq!(
        verify("wrong", "subscribe").await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        verify(WA_VERIFY, "unsubscribe").await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn edits_unsupported_messages_and_phone_replies_are_handled_as_a_person_expects(
    pool: sqlx::PgPool,
) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    post_telegram(&app, &tg_text(1, "quiero 2 maracuyá"), Some(TG_SECRET)).await;
    let mut edited = fixture("telegram/edited_message.json");
    edited["update_id"] = json!(2);
    assert_eq!(
        post_telegram(&app, &edited, Some(TG_SECRET)).await,
        StatusCode::OK
    );
    let mut poll = fixture("telegram/poll.json");
    poll["update_id"] = json!(3);
    assert_eq!(
        post_telegram(&app, &poll, Some(TG_SECRET)).await,
        StatusCode::OK
    );
    settle(&app).await;
    assert_eq!(
        app.cart(TG_CHAT).await,
        vec![("maracuya".into(), 2)],
        "an edit never starts a second turn"
    );
    let mut sticker = fixture("telegram/sticker.json");
    sticker["update_id"] = json!(4);
    assert_eq!(
        post_telegram(&app, &sticker, Some(TG_SECRET)).await,
        StatusCode::OK
    );
    settle(&app).await;
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 2);
    assert!(
        fake.texts("sendMessage")
            .last()
            .unwrap()
            .contains("solo puedo leer texto e imágenes")
    );

    post_whatsapp(&app, &fixture("whatsapp/audio.json")).await;
    settle(&app).await;
    assert!(
        fake.texts("messages")
            .last()
            .unwrap()
            .contains("solo puedo leer texto e imágenes")
    );

    // The merchant answers from the WhatsApp Business app: the bot goes silent.
    assert_eq!(
        post_whatsapp(&app, &fixture("whatsapp/smb_message_echoes.json")).await,
        StatusCode::OK
    );
    assert_eq!(app.state(WA_USER).await, "HUMAN_TAKEOVER");
    let before = fake.calls("messages").len();
    post_whatsapp(&app, &wa_text("wamid.AFTER", "quiero 2 brownies")).await;
    settle(&app).await;
    assert_eq!(fake.calls("messages").len(), before, "the bot said nothing");
    let transcript: Vec<String> =
        sqlx::query_scalar("SELECT text FROM messages WHERE author = 'human'")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        transcript,
        vec!["Hola Mateo, te atiendo yo. ¿Para cuándo lo necesitas?".to_string()]
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn per_chat_send_rates_hold(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    for id in 1..=3 {
        post_telegram(&app, &tg_text(id, "quiero 1 brownie"), Some(TG_SECRET)).await;
        // Each message its own turn, so three replies queue up at once.
        app.engine.run_until_idle().await.unwrap();
    }
    settle(&app).await;
    let calls = fake.calls("sendMessage");
    assert_eq!(calls.len(), 3);
    // About one message per second to one chat: three sends span at least a second.
    assert!(
        calls[2].at - calls[0].at >= Duration::from_millis(900),
        "{:?}",
        calls[2].at - calls[0].at
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_nul_character_is_stored_as_a_replacement_on_webhooks_and_refused_from_merchants(
    pool: sqlx::PgPool,
) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    // PostgreSQL stores no NUL: a platform's update is kept (a refusal would be
    // retried for days) with U+FFFD in its place.
    let update = r#"{"update_id": 31, "message": {"message_id": 31, "date": 1, "text": "hola\u0000 quiero 1 limonada",
        "chat": {"id": 555000111, "type": "private"}, "from": {"id": 555000111, "is_bot": false, "first_name": "Nul"}}}"#;
    let status = app
        .client
        .post(format!("{}/webhooks/telegram/demo-shop", app.base))
        .header("X-Telegram-Bot-Api-Secret-Token", TG_SECRET)
        .header("content-type", "application/json")
        .body(update)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::OK);
    let mut wa = wa_text("wamid.NUL", "x");
    wa["entry"][0]["changes"][0]["value"]["messages"][0]["text"]["body"] =
        json!("quiero\u{0} 1 brownie");
    assert_eq!(post_whatsapp(&app, &wa).await, StatusCode::OK);
    settle(&app).await;
    let stored: Vec<String> =
        sqlx::query_scalar("SELECT text FROM messages WHERE direction = 'in' ORDER BY id")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        stored,
        ["hola\u{fffd} quiero 1 limonada", "quiero\u{fffd} 1 brownie"]
    );
    assert_eq!(
        fake.calls("sendMessage").len(),
        1,
        "the customer is answered"
    );

    // Merchants and web chat get a 400, and nothing is stored.
    let (status, _) = app
        .post_api(
            "/bots/demo-shop/products",
            Some(json!({"sku": "n", "name": "a\u{0}b", "price_minor": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let chat = app.post_message("nul", "hola\u{0}", "n-1").await;
    assert_eq!(chat.status(), StatusCode::BAD_REQUEST);
    let search = app
        .client
        .get(format!("{}/api/v1/conversations?q=%00", app.base))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap();
    assert_eq!(search.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        app.count("SELECT count(*) FROM products WHERE sku = 'n'")
            .await,
        0
    );
}
