//! The merchant's own Telegram chat: linked with `/start <code>`, told about
//! escalations and payment proofs, and obeyed (`/tomar`, `/responder`, `/soltar`,
//! `/aprobar`, `/rechazar`), over the fake Telegram server.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::channels::{TG_SECRET, channel_app, fixture, post_telegram, settle, tg_text};
use crate::fake_platforms::FakePlatform;
use crate::helpers::TestApp;

const CUSTOMER: &str = "555000111";
const MERCHANT_CHAT: i64 = 777000222;
const PUBLIC_URL: &str = "https://tienda.example";

/// A text from the merchant's chat.
fn from_merchant(update_id: u64, text: &str) -> Value {
    let mut update = tg_text(update_id, text);
    update["message"]["chat"]["id"] = json!(MERCHANT_CHAT);
    update["message"]["from"]["id"] = json!(MERCHANT_CHAT);
    update["message"]["from"]["first_name"] = json!("Ana");
    update
}

/// Texts Telegram got for `chat`, waiting (bounded) until there are `at_least`.
async fn texts_to(fake: &FakePlatform, chat: i64, at_least: usize) -> Vec<String> {
    for _ in 0..100 {
        let texts: Vec<String> = fake
            .calls("sendMessage")
            .iter()
            .filter(|c| {
                c.body["chat_id"] == json!(chat) || c.body["chat_id"] == json!(chat.to_string())
            })
            .map(|c| c.body["text"].as_str().unwrap_or_default().to_owned())
            .collect();
        if texts.len() >= at_least {
            return texts;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("Telegram got fewer than {at_least} messages for chat {chat}");
}

/// The merchant asks for a code through the API and sends it from their chat.
async fn link(app: &TestApp, fake: &FakePlatform) {
    let (status, answer) = app.post_api("/bots/demo-shop/merchant-chat", None).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["linked"], false);
    let send = answer["send"].as_str().unwrap().to_owned();
    assert!(send.starts_with("/start "));
    assert_eq!(
        post_telegram(app, &from_merchant(900, &send), Some(TG_SECRET)).await,
        StatusCode::OK
    );
    let told = texts_to(fake, MERCHANT_CHAT, 1).await;
    assert!(
        told[0].contains("Este chat recibirá los avisos"),
        "{told:?}"
    );
}

async fn merchant_says(app: &TestApp, fake: &FakePlatform, update_id: u64, text: &str) -> String {
    let before = texts_to(fake, MERCHANT_CHAT, 0).await.len();
    assert_eq!(
        post_telegram(app, &from_merchant(update_id, text), Some(TG_SECRET)).await,
        StatusCode::OK
    );
    texts_to(fake, MERCHANT_CHAT, before + 1).await[before].clone()
}

async fn customer_says(app: &TestApp, update_id: u64, text: &str) {
    assert_eq!(
        post_telegram(app, &tg_text(update_id, text), Some(TG_SECRET)).await,
        StatusCode::OK
    );
    settle(app).await;
}

async fn customer_texts(fake: &FakePlatform) -> Vec<String> {
    texts_to(fake, CUSTOMER.parse().unwrap(), 0).await
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_wrong_code_links_nothing_and_the_right_one_links_the_chat_without_making_it_a_customer(
    pool: sqlx::PgPool,
) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    let (status, answer) = app.post_api("/bots/demo-shop/merchant-chat", None).await;
    assert_eq!(status, StatusCode::OK);
    let code = answer["code"].as_str().unwrap().to_owned();

    // Someone who does not have the code is a customer like any other.
    post_telegram(&app, &from_merchant(1, "/start ZZZZ2222"), Some(TG_SECRET)).await;
    settle(&app).await;
    let linked: Option<String> = sqlx::query_scalar("SELECT merchant_chat_id FROM bots")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(linked, None);
    assert_eq!(
        app.count("SELECT count(*) FROM contacts").await,
        1,
        "a customer"
    );

    post_telegram(
        &app,
        &from_merchant(2, &format!("/start {code}")),
        Some(TG_SECRET),
    )
    .await;
    let told = texts_to(&fake, MERCHANT_CHAT, 2).await;
    assert!(
        told.last()
            .unwrap()
            .contains("Este chat recibirá los avisos")
    );
    let linked: Option<String> = sqlx::query_scalar("SELECT merchant_chat_id FROM bots")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(linked.as_deref(), Some("777000222"));
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE external_id = 'tg:2'")
            .await,
        0,
        "the linking message is not a customer's"
    );
    // The code is spent: sending it again is just a customer's words.
    let bots = app.get_json("/bots").await;
    assert_eq!(bots["bots"][0]["merchant_chat_linked"], true, "{bots}");

    // Commands from the linked chat never reach the inbox either.
    let help = merchant_says(&app, &fake, 3, "hola").await;
    assert!(help.contains("/aprobar 12"), "{help}");
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE external_id = 'tg:3'")
            .await,
        0
    );

    // Unlinked, the chat is a customer again.
    let (status, _) = app
        .api(
            reqwest::Method::DELETE,
            "/bots/demo-shop/merchant-chat",
            &app.key,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    post_telegram(&app, &from_merchant(4, "hola"), Some(TG_SECRET)).await;
    settle(&app).await;
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE external_id = 'tg:4'")
            .await,
        1
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_escalation_reaches_the_merchant_who_answers_and_releases_from_telegram(
    pool: sqlx::PgPool,
) {
    let (app, fake) = channel_app(pool, |s| s.public_url = Some(PUBLIC_URL.into())).await;
    link(&app, &fake).await;
    customer_says(&app, 1, "quiero hablar con una persona").await;
    let conversation = app.conversation_id(CUSTOMER).await;
    let reference = &conversation.simple().to_string()[..6];

    let notices = texts_to(&fake, MERCHANT_CHAT, 2).await;
    let notice = &notices[1];
    assert!(notice.contains("pide hablar con una persona"), "{notice}");
    assert!(
        notice.contains("«quiero hablar con una persona»"),
        "{notice}"
    );
    assert!(notice.contains(&format!(
        "{PUBLIC_URL}/dashboard/conversations/{conversation}"
    )));
    let sent = fake.calls("sendMessage");
    let notice_call = sent
        .iter()
        .find(|c| {
            c.body["text"]
                .as_str()
                .unwrap_or_default()
                .contains("pide hablar")
        })
        .unwrap();
    let button = &notice_call.body["reply_markup"];
    assert_eq!(
        button["inline_keyboard"][0][0]["callback_data"],
        format!("/soltar {reference}")
    );
    assert!(
        customer_texts(&fake)
            .await
            .last()
            .unwrap()
            .contains("Te comunico con una persona"),
        "the customer is told too"
    );

    // The merchant answers from Telegram; Telegram delivering the update twice sends once.
    let update = from_merchant(
        50,
        &format!("/responder {reference} Hola, soy Ana. ¿En qué te ayudo?"),
    );
    for _ in 0..2 {
        assert_eq!(
            post_telegram(&app, &update, Some(TG_SECRET)).await,
            StatusCode::OK
        );
    }
    let acks = texts_to(&fake, MERCHANT_CHAT, 4).await;
    assert!(acks[2].contains("Mensaje enviado"), "{acks:?}");
    settle(&app).await;
    let to_customer = customer_texts(&fake).await;
    assert_eq!(
        to_customer.iter().filter(|t| t.contains("soy Ana")).count(),
        1,
        "{to_customer:?}"
    );

    // While a person has it, the bot stays silent.
    customer_says(&app, 2, "gracias").await;
    assert_eq!(customer_texts(&fake).await.len(), to_customer.len());

    // The button's press (a callback) releases it.
    let mut press = fixture("telegram/callback_query.json");
    press["update_id"] = json!(51);
    press["callback_query"]["from"]["id"] = json!(MERCHANT_CHAT);
    press["callback_query"]["message"]["chat"]["id"] = json!(MERCHANT_CHAT);
    press["callback_query"]["data"] = json!(format!("/soltar {reference}"));
    assert_eq!(
        post_telegram(&app, &press, Some(TG_SECRET)).await,
        StatusCode::OK
    );
    let released = texts_to(&fake, MERCHANT_CHAT, 5).await;
    assert!(
        released[4].contains("El bot vuelve a atender"),
        "{released:?}"
    );
    let human_override: bool =
        sqlx::query_scalar("SELECT human_override FROM conversations WHERE id = $1")
            .bind(conversation)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(!human_override);

    // Releasing again, or naming no conversation of this bot, is explained.
    let again = merchant_says(&app, &fake, 52, &format!("/soltar {reference}")).await;
    assert!(again.contains("no está tomada"), "{again}");
    let unknown = merchant_says(&app, &fake, 53, "/tomar ffffff").await;
    assert!(
        unknown.contains("No encontré la conversación ffffff"),
        "{unknown}"
    );
    // Another bot's conversation is not this chat's to touch.
    tendero::demo::load_shop(&app.pool, tendero::demo::DEMO_FINANCE)
        .await
        .unwrap();
    app.say_to("demo-finanzas", "ana", "hola").await;
    let theirs: uuid::Uuid = sqlx::query_scalar(
        "SELECT c.id FROM conversations c JOIN bots b ON b.id = c.bot_id WHERE b.slug = 'demo-finanzas'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let theirs = theirs.simple().to_string()[..6].to_owned();
    let foreign = merchant_says(&app, &fake, 56, &format!("/tomar {theirs}")).await;
    assert!(foreign.contains("No encontré la conversación"), "{foreign}");
    assert_eq!(
        app.count("SELECT count(*) FROM conversations WHERE human_override AND bot_id <> (SELECT id FROM bots WHERE slug = 'demo-shop')").await,
        0
    );
    let malformed = merchant_says(&app, &fake, 54, "/tomar la-de-lucia").await;
    assert!(
        malformed.contains("por ejemplo /tomar a1b2c3"),
        "{malformed}"
    );

    let taken = merchant_says(&app, &fake, 55, &format!("/tomar #{reference}")).await;
    assert!(taken.contains("Atiendes tú"), "{taken}");
    assert_eq!(app.state(CUSTOMER).await, "HUMAN_TAKEOVER");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_payment_proof_reaches_the_merchant_who_approves_it_from_telegram(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    link(&app, &fake).await;
    for (id, text) in [(1, "quiero 2 maracuyá"), (2, "listo"), (3, "sí")] {
        customer_says(&app, id, text).await;
    }
    assert_eq!(app.state(CUSTOMER).await, "AWAITING_PAYMENT");
    let mut photo = fixture("telegram/photo.json");
    photo["update_id"] = json!(4);
    post_telegram(&app, &photo, Some(TG_SECRET)).await;
    settle(&app).await;
    let notices = texts_to(&fake, MERCHANT_CHAT, 2).await;
    assert!(
        notices[1].contains("comprobante de pago del pedido #1 por Bs 60"),
        "{notices:?}"
    );
    assert!(
        !notices[1].contains("http"),
        "no public URL configured, no link"
    );

    let wrong = merchant_says(&app, &fake, 60, "/rechazar 1").await;
    assert!(wrong.contains("el motivo"), "{wrong}");
    let none = merchant_says(&app, &fake, 61, "/aprobar 99").await;
    assert!(none.contains("No encontré el pedido #99"), "{none}");
    let approved = merchant_says(&app, &fake, 62, "/aprobar 1").await;
    assert!(
        approved.contains("Pago del pedido #1 aprobado"),
        "{approved}"
    );
    settle(&app).await;
    assert_eq!(app.state(CUSTOMER).await, "COMPLETED");
    assert!(
        customer_texts(&fake)
            .await
            .last()
            .unwrap()
            .contains("¡Pago confirmado!")
    );
    let twice = merchant_says(&app, &fake, 63, "/aprobar 1").await;
    assert!(twice.contains("ya no espera pago"), "{twice}");

    // The paid order, followed to the door from the same chat.
    let sent = merchant_says(&app, &fake, 64, "/encamino #1").await;
    assert!(
        sent.contains("Pedido #1: en camino. Ya le avisamos"),
        "{sent}"
    );
    settle(&app).await;
    assert!(
        customer_texts(&fake)
            .await
            .last()
            .unwrap()
            .contains("¡Tu pedido #1 está en camino!")
    );
    let backwards = merchant_says(&app, &fake, 65, "/preparando 1").await;
    assert!(
        backwards
            .contains("No se pudo: el pedido está «en camino» y no puede pasar a «en preparación»"),
        "{backwards}"
    );
    let usage = merchant_says(&app, &fake, 66, "/cancelar 1").await;
    assert!(usage.contains("el motivo"), "{usage}");
    customer_says(&app, 5, "¿y mi pedido? ¿ya viene?").await;
    assert!(
        customer_texts(&fake)
            .await
            .last()
            .unwrap()
            .contains("Tu pedido #1 está en camino."),
        "answered from the order"
    );
    let delivered = merchant_says(&app, &fake, 67, "/entregado 1").await;
    assert!(delivered.contains("entregado"), "{delivered}");
    let late = merchant_says(&app, &fake, 68, "/cancelar 1 ya no hay").await;
    assert!(late.contains("ya está «entregado»"), "{late}");
    settle(&app).await;
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE status <> 'sent'")
            .await,
        0,
        "every notice and reply delivered"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_web_chat_customer_never_sees_the_merchant_notice(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    link(&app, &fake).await;
    let replies = app.say("web-1", "quiero hablar con una persona").await;
    assert!(replies[0].contains("Te comunico con una persona"));
    settle(&app).await;
    let notices = texts_to(&fake, MERCHANT_CHAT, 2).await;
    assert!(notices[1].contains("pide hablar con una persona"));
    let reference = app.conversation_id("web-1").await.simple().to_string()[..6].to_owned();
    let ack = merchant_says(
        &app,
        &fake,
        69,
        &format!("/responder {reference} Hola, soy Ana"),
    )
    .await;
    assert!(ack.contains("Mensaje enviado"), "{ack}");
    // What the customer's stream replays from the start: the bot's notice, then Ana.
    let seen: Vec<String> = app
        .read_events("web-1", None, 2)
        .await
        .iter()
        .map(|e| e["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen[0].contains("Te comunico con una persona"), "{seen:?}");
    assert_eq!(
        seen[1], "Hola, soy Ana",
        "the notice stays out of the customer's stream"
    );
    let rejected = merchant_says(&app, &fake, 70, "/rechazar 1 no se ve").await;
    assert!(rejected.contains("No encontré el pedido #1"), "{rejected}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_message_given_up_on_is_reported_to_the_merchant_as_the_apology_promises(
    pool: sqlx::PgPool,
) {
    let (app, fake) = crate::channels::channel_app_with(pool, |_, _| {
        tendero::startup::Proposers::shop(std::sync::Arc::new(
            tendero::shop::proposer::ScriptedProposer::new(|input| {
                if input.customer_message.contains("boom") {
                    panic!("proposer exploded");
                }
                Ok(tendero::shop::rules::propose(input))
            }),
        ))
    })
    .await;
    link(&app, &fake).await;
    customer_says(&app, 1, "boom").await;
    assert!(
        customer_texts(&fake)
            .await
            .last()
            .unwrap()
            .contains("Ya avisé al equipo"),
        "the customer got the apology"
    );
    let notices = texts_to(&fake, MERCHANT_CHAT, 2).await;
    let reference = &app.conversation_id(CUSTOMER).await.simple().to_string()[..6];
    assert!(
        notices[1].contains("No pude procesar un mensaje"),
        "{notices:?}"
    );
    assert!(notices[1].contains("«boom»"), "{notices:?}");
    assert!(notices[1].contains(&format!("/tomar {reference}")));
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn without_a_linked_chat_a_handoff_queues_nothing_for_the_merchant(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    customer_says(&app, 1, "quiero hablar con una persona").await;
    assert!(
        customer_texts(&fake)
            .await
            .last()
            .unwrap()
            .contains("Te comunico")
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE audience = 'merchant'")
            .await,
        0
    );
}
