//! Understanding customers end to end: rules first and the LLM for the rest, the
//! daily LLM budget across replicas, the per-contact rate limit, "typing" on
//! every channel while the model thinks, and the conversation safeguards
//! (small talk, off-topic, abuse, ambiguity, loop protection).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use redis::AsyncCommands;
use serde_json::{Value, json};
use sqlx::PgPool;
use tendero::cache::Redis;
use tendero::config::{LlmConfig, ResponseMode, Settings};
use tendero::llm::Client as LlmClient;
use tendero::shop::messages;
use tendero::shop::prompt::proposal_schema;
use tendero::shop::proposer::ScriptedProposer;
use tendero::shop::rules;
use tendero::startup::{self, Proposers};

use crate::channels::{channel_app_with, post_telegram, post_whatsapp, settle, tg_text, wa_text};
use crate::fake_llm::FakeLlm;
use crate::helpers::{TestApp, spawn_app_configured, spawn_app_with, sse};
use crate::llm::config;

const REDIS: &str = "redis://127.0.0.1:6379";

async fn outcomes(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("SELECT outcome FROM llm_calls ORDER BY id")
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

async fn metrics(app: &TestApp) -> String {
    app.client
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// The LLM, whose "typing" goes to the channels `settings` points at.
fn llm_with_progress(config: LlmConfig, settings: &Settings, pool: &PgPool) -> Proposers {
    Proposers::llm(Arc::new(
        LlmClient::new(config)
            .unwrap()
            .with_progress(startup::progress(settings, pool)),
    ))
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_llm_is_asked_only_what_the_rules_cannot_read(pool: PgPool) {
    let fake = FakeLlm::start().await;
    let mut llm = config(&fake, ResponseMode::JsonSchema);
    llm.rules_first = true;
    let proposer = Proposers::llm(Arc::new(LlmClient::new(llm).unwrap()));
    let app = spawn_app_with(pool, proposer).await;

    app.say("rita", "quiero 2 maracuyá").await;
    app.say("rita", "ponle 3 matchitas").await;
    assert_eq!(
        app.cart("rita").await,
        vec![("maracuya".into(), 2), ("matcha".into(), 3)]
    );
    assert!(
        fake.requests().is_empty(),
        "the rules read both messages whole: no call"
    );

    let reply = app
        .say("rita", "quiero algo parecido a lo de ayer pero menos dulce")
        .await;
    assert_eq!(
        fake.requests().len(),
        1,
        "what the rules cannot read goes to the model: {reply:?} {:?}",
        outcomes(&app).await
    );
    assert!(reply[0].contains("¿Me repites?"), "{reply:?}");
    let request = &fake.requests()[0];
    assert_eq!(request["max_tokens"], 300, "completion length is capped");
    assert_eq!(
        request["response_format"]["json_schema"]["schema"],
        proposal_schema(),
        "the schema goes along, for servers that constrain decoding"
    );

    assert_eq!(outcomes(&app).await, ["rules", "rules", "ok"]);
    let metrics = metrics(&app).await;
    assert!(
        metrics.contains("tendero_llm_calls{outcome=\"rules\"} 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains("tendero_llm_calls{outcome=\"ok\"} 1"),
        "{metrics}"
    );
    let usage = app.get_json("/bots/demo-shop/llm-usage").await;
    let rules_row = usage["by_outcome"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["outcome"] == "rules")
        .unwrap();
    assert_eq!(rules_row["calls"], 2);
    assert_eq!(rules_row["prompt_tokens"], 0);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_bot_past_its_daily_token_budget_runs_on_the_rules_on_every_replica(pool: PgPool) {
    let fake = FakeLlm::start().await;
    let prefix = format!("test-{}", uuid::Uuid::new_v4().simple());
    let redis = Redis::connect(REDIS, &prefix).await.unwrap();
    let mut llm = config(&fake, ResponseMode::JsonSchema);
    // Each fake answer costs 462 tokens: two calls fit, the third does not.
    llm.daily_tokens_per_bot = 900;
    let replica = |redis: Option<Redis>| {
        Proposers::llm(Arc::new(
            LlmClient::new(llm.clone()).unwrap().with_redis(redis),
        ))
    };
    let (a, b) = (replica(Some(redis.clone())), replica(Some(redis.clone())));
    let app = spawn_app_configured(pool.clone(), a, |s| s.llm = Some(llm.clone())).await;
    let on = |proposers: Proposers| startup::engine(&app.pool, &app.settings, &proposers);
    let engine_b = on(b);

    app.say("uno", "¿qué me recomiendas?").await;
    app.post_message("dos", "¿y cuál es el más rico?", "b-1")
        .await;
    engine_b.run_until_idle().await.unwrap();
    assert_eq!(fake.requests().len(), 2);
    let reply = app.say("tres", "quiero 1 limonada").await;
    assert_eq!(
        fake.requests().len(),
        2,
        "the budget is spent: no third call"
    );
    assert_eq!(
        app.cart("tres").await,
        vec![("limonada".into(), 1)],
        "{reply:?}"
    );
    assert_eq!(outcomes(&app).await, ["ok", "ok", "over_budget"]);

    let mut conn = redis::Client::open(REDIS)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let keys: Vec<String> = conn.keys(format!("{prefix}:count:*")).await.unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    let counted: u64 = conn.get(&keys[0]).await.unwrap();
    assert_eq!(counted, 924, "both replicas' calls in one count");

    // Redis forgets: the count comes back from PostgreSQL's daily row. Redis away:
    // that row decides.
    let _: () = conn.del(&keys).await.unwrap();
    app.say("cuatro", "¿y qué más me recomiendas?").await;
    let counted: u64 = conn.get(&keys[0]).await.unwrap();
    assert_eq!(counted, 924, "seeded again from PostgreSQL");
    app.post_message("cinco", "¿cuál es el más popular?", "c-1")
        .await;
    on(replica(None)).run_until_idle().await.unwrap();
    assert_eq!(fake.requests().len(), 2, "no replica calls past the budget");

    let usage = app.get_json("/bots/demo-shop/llm-usage").await;
    assert_eq!(usage["today"]["tokens"], 924);
    assert_eq!(usage["today"]["daily_budget_tokens"], 900);
    assert_eq!(usage["today"]["over_budget"], true);
    assert_eq!(usage["today"]["turns_on_rules_over_budget"], 3);
    let metrics = metrics(&app).await;
    assert!(
        metrics.contains("tendero_llm_tokens_today{bot=\"demo-shop\"} 924"),
        "{metrics}"
    );
    assert!(
        metrics.contains("tendero_llm_over_budget_today{bot=\"demo-shop\"} 3"),
        "{metrics}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_contact_over_the_rate_limit_gets_one_un_momento_and_nothing_is_lost(pool: PgPool) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let proposer = ScriptedProposer::new(move |input| {
        counted.fetch_add(1, Ordering::SeqCst);
        Ok(rules::propose(input))
    });
    let app = spawn_app_configured(pool, Proposers::shop(Arc::new(proposer)), |s| {
        s.contact_messages_per_minute = 3;
    })
    .await;
    app.say("pepe", "hola").await;
    app.say("pepe", "quiero 1 limonada").await;
    app.say("pepe", "quiero 1 brownie").await;
    let proposed = calls.load(Ordering::SeqCst);

    let held = app.say("pepe", "quiero 1 matcha").await;
    assert_eq!(
        held,
        [tendero::engine::messages::SLOW_DOWN],
        "one polite «un momento»"
    );
    let again = app.say("pepe", "quiero 1 croissant").await;
    assert!(
        again.is_empty(),
        "said once, not for every message: {again:?}"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        proposed,
        "held messages are not proposed"
    );
    assert_eq!(
        app.cart("pepe").await,
        vec![("limonada".into(), 1), ("brownie".into(), 1)]
    );
    let conversation = app.conversation_id("pepe").await;
    let kept = app
        .count(&format!(
            "SELECT count(*) FROM messages WHERE conversation_id = '{conversation}' AND direction = 'in'"
        ))
        .await;
    assert_eq!(kept, 5, "every message is kept for the merchant");
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE status <> 'done'")
            .await,
        0
    );
    let limited = app
        .audit(conversation)
        .await
        .into_iter()
        .filter(|(kind, _, _)| kind == "rate_limited")
        .count();
    assert_eq!(limited, 2);

    let other = app.say("otra", "hola").await;
    assert!(other[0].contains("Esto es lo que tenemos"), "{other:?}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn web_chat_streams_typing_while_the_model_thinks(pool: PgPool) {
    let fake = FakeLlm::start().await;
    fake.set_delay(Duration::from_millis(300));
    let settings = Settings::for_tests("postgres://unused");
    let proposer = llm_with_progress(config(&fake, ResponseMode::JsonSchema), &settings, &pool);
    let app = spawn_app_with(pool, proposer).await;
    // The first message creates the session's conversation.
    app.say("vera", "hola").await;
    let url = app.events_url("demo-shop", "vera").await;
    let listening = tokio::spawn(sse(app.client.clone(), url, None, 3));
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.post_message("vera", "¿qué me recomiendas?", "v-2")
        .await;
    app.drain().await;
    let events = listening.await.unwrap();
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["message", "typing", "message"], "{events:?}");
    assert_eq!(events[2].1["author"], "bot");

    // A stream opened before its session has a conversation hears the first turn's
    // typing through PostgreSQL's notification, and later ones in process.
    let url = app.events_url("demo-shop", "nuevo").await;
    let listening = tokio::spawn(sse(app.client.clone(), url, None, 4));
    tokio::time::sleep(Duration::from_millis(300)).await;
    for (text, id) in [
        ("¿qué me recomiendas?", "n-1"),
        ("¿y cuál es el más rico?", "n-2"),
    ] {
        app.post_message("nuevo", text, id).await;
        app.drain().await;
    }
    let events = listening.await.unwrap();
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        ["typing", "message", "typing", "message"],
        "{events:?}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn telegram_keeps_typing_through_a_long_model_wait(pool: PgPool) {
    let fake = FakeLlm::start().await;
    // Longer than Telegram's five-second "typing…": it must be said again.
    fake.set_delay(Duration::from_secs(6));
    let mut llm = config(&fake, ResponseMode::JsonSchema);
    llm.timeout = Duration::from_secs(15);
    let (app, platform) = channel_app_with(pool, |settings, pool| {
        llm_with_progress(llm, settings, pool)
    })
    .await;
    post_telegram(
        &app,
        &tg_text(901, "¿qué me recomiendas?"),
        Some(crate::channels::TG_SECRET),
    )
    .await;
    settle(&app).await;
    let typing = platform.calls("sendChatAction");
    assert!(
        typing.len() >= 2,
        "typing refreshed during the wait: {typing:?}"
    );
    assert!(typing.iter().all(|c| c.body["action"] == "typing"));
    let reply = platform.calls("sendMessage");
    assert_eq!(reply.len(), 1);
    assert!(typing.iter().all(|c| c.at <= reply[0].at));
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn whatsapp_shows_its_typing_indicator_on_the_message_being_answered(pool: PgPool) {
    let fake = FakeLlm::start().await;
    fake.set_delay(Duration::from_millis(200));
    let llm = config(&fake, ResponseMode::JsonSchema);
    let (app, platform) = channel_app_with(pool, |settings, pool| {
        llm_with_progress(llm, settings, pool)
    })
    .await;
    post_whatsapp(&app, &wa_text("wamid.TYPING1", "¿qué me recomiendas?")).await;
    settle(&app).await;
    let calls = platform.calls("messages");
    let indicator: Vec<&Value> = calls
        .iter()
        .map(|c| &c.body)
        .filter(|b| b.get("typing_indicator").is_some())
        .collect();
    assert_eq!(
        indicator,
        [&json!({"messaging_product": "whatsapp", "status": "read",
                 "message_id": "wamid.TYPING1", "typing_indicator": {"type": "text"}})]
    );
    let last = calls.last().unwrap();
    assert!(
        last.body.get("typing_indicator").is_none(),
        "the reply comes after"
    );
    assert!(
        platform
            .texts("messages")
            .last()
            .unwrap()
            .contains("¿Me repites?")
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn small_talk_off_topic_and_abuse_are_answered_without_a_proposer(pool: PgPool) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let proposer = ScriptedProposer::new(move |input| {
        counted.fetch_add(1, Ordering::SeqCst);
        Ok(rules::propose(input))
    });
    let app = spawn_app_with(pool, Proposers::shop(Arc::new(proposer))).await;
    let social = app.say("lalo", "¿cómo estás?").await;
    assert!(
        social[0].starts_with("¡Muy bien, gracias por preguntar!"),
        "{social:?}"
    );
    let off_topic = app
        .say("lalo", "¿quién ganó el partido de fútbol ayer?")
        .await;
    assert!(
        off_topic[0].starts_with("Con eso no te puedo ayudar"),
        "{off_topic:?}"
    );
    let limit = app.say("lalo", "eres un idiota").await;
    assert_eq!(limit, [messages::ABUSE_LIMIT]);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "no proposer for any of them"
    );
    assert_eq!(app.state("lalo").await, "IDLE");

    let handoff = app.say("lalo", "inútil, no sirves para nada").await;
    assert_eq!(handoff, [messages::ABUSE_HANDOFF]);
    assert_eq!(app.state("lalo").await, "HUMAN_TAKEOVER");
    let after = app.say("lalo", "quiero 1 limonada").await;
    assert!(after.is_empty(), "a person has it now: {after:?}");
    let classes: Vec<Option<String>> = app
        .audit(app.conversation_id("lalo").await)
        .await
        .into_iter()
        .filter(|(kind, _, _)| kind == "message_classified")
        .map(|(_, _, reason)| reason)
        .collect();
    assert_eq!(
        classes,
        [
            Some("social".into()),
            Some("off_topic".into()),
            Some("abusive".into()),
            Some("abusive".into())
        ]
    );
}

/// The demo shop with a second chocolate, so "un chocolate" could be either.
async fn two_chocolates(app: &TestApp) {
    let mut shop: Value = serde_json::from_str(tendero::demo::DEMO_SHOP).unwrap();
    shop["merchant"]["slug"] = json!("teteria");
    shop["bot"]["slug"] = json!("teteria");
    shop["products"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sku": "choco-blanco", "name": "Chocolate blanco", "description": "Chocolate blanco con leche.", "price_minor": 2200}));
    tendero::demo::load_shop(&app.pool, &shop.to_string())
        .await
        .unwrap();
}

async fn last_choices(app: &TestApp, session: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT o.payload->'choices' FROM outbox o JOIN conversations c ON c.id = o.conversation_id
         JOIN contacts ct ON ct.id = c.contact_id WHERE ct.external_id = ANY($1) ORDER BY o.id DESC LIMIT 1",
    )
    .bind(app.session_ids(session))
    .fetch_one(&app.pool)
    .await
    .map(|v: Value| serde_json::from_value(v).unwrap_or_default())
    .unwrap()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_ambiguous_name_asks_which_with_choices_and_a_number_picks(pool: PgPool) {
    let app = spawn_app_with(pool, Proposers::rules()).await;
    two_chocolates(&app).await;
    let ask = app.say_to("teteria", "nico", "quiero un chocolate").await;
    assert!(ask[0].contains(messages::WHICH_ONE), "{ask:?}");
    assert_eq!(app.cart("nico").await, vec![], "nothing guessed");
    let choices = last_choices(&app, "nico").await;
    assert_eq!(
        choices.len(),
        2,
        "buttons for the channels that have them: {choices:?}"
    );
    // Web chat shows numbered lines; "2" picks the second.
    let second = ask[0]
        .lines()
        .find(|l| l.starts_with("2. "))
        .unwrap_or_else(|| panic!("numbered lines: {ask:?}"));
    let sku = if second.contains("blanco") {
        "choco-blanco"
    } else {
        "chocolate"
    };
    app.say_to("teteria", "nico", "2").await;
    assert_eq!(app.cart("nico").await, vec![(sku.into(), 1)]);

    // A button press sends the choice's own text.
    app.say_to("teteria", "nina", "dame dos chocolates").await;
    let choices = last_choices(&app, "nina").await;
    app.say_to("teteria", "nina", &choices[0]).await;
    let cart = app.cart("nina").await;
    assert_eq!(cart.len(), 1, "{choices:?} {cart:?}");
    assert_eq!(cart[0].1, 2, "the quantity asked with the name is kept");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn three_clarifications_in_a_row_offer_a_person_and_yes_takes_it(pool: PgPool) {
    let app = spawn_app_with(pool, Proposers::rules()).await;
    app.say("memo", "asdf qwerty").await;
    app.say("memo", "zzz").await;
    let third = app.say("memo", "mmm").await;
    assert!(third[0].contains(messages::OFFER_PERSON), "{third:?}");
    assert_eq!(app.state("memo").await, "IDLE");
    let yes = app.say("memo", "sí").await;
    assert_eq!(yes, [messages::ESCALATED]);
    assert_eq!(app.state("memo").await, "HUMAN_TAKEOVER");
}

/// «si pido 3 brownies y 2 limonadas, ¿cuánto me saldría?»: each priced with
/// its count and the sum said, the cart untouched; a yes to the offer orders
/// just that.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_quote_is_priced_whole_and_a_yes_orders_it(pool: PgPool) {
    let app = spawn_app_with(pool, Proposers::rules()).await;
    let quote = app
        .say(
            "quique",
            "si pido 3 brownies y 2 limonadas cuánto me saldría?",
        )
        .await
        .join("\n");
    assert!(quote.contains("3 × Brownie = Bs 48"), "{quote}");
    assert!(quote.contains("2 × Limonada = Bs 36"), "{quote}");
    assert!(quote.contains("Todo eso sumaría Bs 84"), "{quote}");
    assert!(quote.contains(messages::QUOTE_OFFER), "{quote}");
    assert_eq!(app.cart("quique").await, vec![], "a quote changes nothing");
    app.say("quique", "sí").await;
    let mut cart = app.cart("quique").await;
    cart.sort();
    assert_eq!(cart, vec![("brownie".into(), 3), ("limonada".into(), 2)]);
}
