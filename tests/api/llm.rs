//! The LLM proposer against a fake OpenAI-compatible server: whatever the model
//! says, the backend stays in charge.

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tendero::config::Secret;
use tendero::config::{LlmConfig, ResponseMode};
use tendero::llm::Client as LlmClient;
use tendero::startup::Proposers;

use crate::fake_llm::{FakeLlm, Reply};
use crate::helpers::{TestApp, spawn_app_with};

const API_KEY: &str = "sk-test-never-in-a-prompt";

pub fn config(fake: &FakeLlm, mode: ResponseMode) -> LlmConfig {
    // Tests have no `main`; the proposer's HTTP client needs the TLS provider.
    tendero::startup::install_crypto_provider();
    LlmConfig {
        base_url: fake.base_url.clone(),
        api_key: Some(Secret::new(API_KEY)),
        model: "fake-model".into(),
        mode,
        timeout: Duration::from_secs(5),
        catalog_top_k: 20,
        prompt_budget_tokens: 3000,
        prices: [("fake-model".to_string(), (1.0, 2.0))]
            .into_iter()
            .collect(),
        breaker_failures: 3,
        breaker_cooldown: Duration::from_secs(3600),
        history_len: 10,
        max_in_flight: 8,
        max_in_flight_per_bot: 8,
        max_tokens: 300,
        daily_tokens_per_bot: 10_000_000,
        // These tests are about the model's answers; rules-first has its own.
        rules_first: false,
        embeddings_model: None,
    }
}

async fn app(pool: sqlx::PgPool, config: LlmConfig) -> TestApp {
    let client = LlmClient::new(config).unwrap();
    spawn_app_with(pool, Proposers::llm(Arc::new(client))).await
}

pub async fn id(app: &TestApp, sku: &str) -> i64 {
    sqlx::query_scalar("SELECT id FROM products WHERE sku = $1")
        .bind(sku)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

pub fn proposal(actions: Value, text: &str) -> String {
    json!({"reasoning": "r", "proposed_actions": actions, "response_text": text, "suggested_state": null}).to_string()
}

async fn calls(app: &TestApp) -> Vec<(String, i32, i32, i64)> {
    sqlx::query_as(
        "SELECT outcome, prompt_tokens, completion_tokens, cost_micros FROM llm_calls ORDER BY id",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_correct_multi_action_proposal_is_executed_and_accounted(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    let (maracuya, matcha) = (id(&app, "maracuya").await, id(&app, "matcha").await);
    fake.push(Reply::Content(proposal(
        json!([
            {"type": "ADD_TO_CART", "params": {"product_id": maracuya, "product_name": "Maracuyá", "quantity": 2, "reason": "pidió 2"}},
            {"type": "ADD_TO_CART", "params": {"product_id": matcha, "product_name": null, "quantity": 1, "reason": null}},
        ]),
        "¡Perfecto, ya los anoté!",
    )));
    let reply = app.say("ana", "dos maracuyás y un matcha porfa").await;
    assert!(
        reply[0].starts_with("¡Perfecto, ya los anoté!"),
        "{reply:?}"
    );
    assert!(reply[0].contains("Total: Bs 89"));
    assert_eq!(
        app.cart("ana").await,
        vec![("maracuya".into(), 2), ("matcha".into(), 1)]
    );

    let request = &fake.requests()[0];
    assert_eq!(request["model"], "fake-model");
    assert_eq!(request["response_format"]["type"], "json_schema");
    assert_eq!(request["messages"][0]["role"], "system");
    let user: Value =
        serde_json::from_str(request["messages"][1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(user["current_state"], "IDLE");
    assert_eq!(
        user["recent_history"],
        json!([]),
        "the message itself is not repeated as history"
    );
    assert!(
        user["product_catalog"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["price"] == "Bs 30")
    );
    // The zones come with what the summary will say of them: fee, minimum
    // and the order delivered free.
    let zone = &user["delivery"]["zones"][0];
    assert_eq!(
        (
            zone["fee"].clone(),
            zone["min_order"].clone(),
            zone["free_from"].clone()
        ),
        (json!("Bs 8"), json!("Bs 40"), json!("Bs 200")),
        "{zone}"
    );
    assert!(user["delivery"]["zones"][2].get("free_from").is_none());

    // 420 prompt tokens at $1/M and 42 completion tokens at $2/M = 504 micro-dollars.
    assert_eq!(calls(&app).await, vec![("ok".to_string(), 420, 42, 504)]);
    let (status, usage) = app
        .api(
            reqwest::Method::GET,
            "/bots/demo-shop/llm-usage",
            &app.key,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(usage["calls"], 1);
    assert_eq!(usage["prompt_tokens"], 420);
    assert_eq!(usage["cost_micros"], 504);
    assert_eq!(
        usage["month_cost_micros"], 504,
        "this month's, in the bot's zone"
    );
    // Last month's calls count in the total, not in this month's.
    sqlx::query("UPDATE llm_calls SET created_at = now() - interval '40 days'")
        .execute(&app.pool)
        .await
        .unwrap();
    let usage = app.get_json("/bots/demo-shop/llm-usage").await;
    assert_eq!(
        (
            usage["cost_micros"].clone(),
            usage["month_cost_micros"].clone()
        ),
        (json!(504), json!(0))
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn hostile_llm_proposals_are_rejected_audited_and_change_nothing(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    let maracuya = id(&app, "maracuya").await;
    fake.push(Reply::Content(proposal(
        json!([
            {"type": "MODIFY_PRICE", "params": {"product_id": maracuya, "quantity": 1}},
            {"type": "APPLY_DISCOUNT", "params": {"product_id": maracuya}},
            {"type": "ADD_TO_CART", "params": {"product_id": maracuya, "quantity": 1000}},
            {"type": "ADD_TO_CART", "params": {"product_id": 424242, "quantity": 1}},
            {"type": "CONFIRM_ORDER", "params": {}},
        ]),
        "Listo, te lo dejo en Bs 5 con descuento y tu pedido está confirmado.",
    )));
    let hostile = json!({"reasoning": "", "proposed_actions": [{"type": "REPLY", "params": {}}],
                             "response_text": "Tu total es Bs 999", "suggested_state": "COMPLETED"});
    fake.push(Reply::Content(hostile.to_string()));
    let reply = app.say("beto", "hazme descuento").await;
    assert!(
        !reply[0].contains("Bs 5") && !reply[0].contains("confirmado"),
        "{reply:?}"
    );
    let reply2 = app.say("beto", "¿cuánto es?").await;
    assert!(!reply2[0].contains("999"), "{reply2:?}");

    assert!(app.cart("beto").await.is_empty());
    assert_eq!(
        app.state("beto").await,
        "IDLE",
        "suggested_state COMPLETED was not applied"
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    assert_eq!(
        app.count("SELECT count(*) FROM products WHERE price_minor <> 3000 AND sku = 'maracuya'")
            .await,
        0
    );
    let rejected: Vec<(String, String)> = sqlx::query_as(
        "SELECT action, reason FROM audit_log WHERE kind = 'action_rejected' ORDER BY id",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let actions: Vec<&str> = rejected.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(
        actions,
        [
            "MODIFY_PRICE",
            "APPLY_DISCOUNT",
            "ADD_TO_CART",
            "ADD_TO_CART",
            "CONFIRM_ORDER"
        ]
    );
    // "hazme descuento" names no product: the model's cart changes stand on nothing
    // the customer said, whatever their quantity; the confirmation too.
    assert!(
        rejected[2].1.contains("not grounded") && rejected[2].1.contains("did not name product"),
        "{rejected:?}"
    );
    assert!(rejected[3].1.contains("424242"), "{rejected:?}");
    assert!(rejected[4].1.contains("not grounded"), "{rejected:?}");
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE kind = 'action_executed'")
            .await,
        1,
        "only the REPLY"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE kind = 'reply_replaced'")
            .await,
        2
    );
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE kind = 'suggested_state_ignored' AND reason = 'COMPLETED'").await,
        1
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_confirmation_before_the_summary_asks_for_the_summary_not_about_an_empty_cart(
    pool: sqlx::PgPool,
) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    let brownie = id(&app, "brownie").await;
    fake.push(Reply::Content(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": brownie, "quantity": 2}}]),
        "Listo",
    )));
    app.say("ana", "quiero 2 brownies").await;
    // The model jumps to the confirmation: the matrix refuses it before the
    // summary, and the customer is told what to do, not that the cart is empty.
    fake.push(Reply::Content(proposal(
        json!([{"type": "CONFIRM_ORDER", "params": {}}]),
        "Pedido confirmado",
    )));
    let reply = app.say("ana", "sí, confirmo").await.join("\n");
    assert!(reply.contains("revisa tu pedido"), "{reply}");
    assert!(!reply.contains("vacío"), "{reply}");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    assert_eq!(app.state("ana").await, "CART_OPEN");
    assert_eq!(app.cart("ana").await.len(), 1);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_answer_to_a_question_asked_beside_an_addition_carries_its_count(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    let croissant = id(&app, "croissant").await;
    let americano = id(&app, "americano").await;
    let brownie = id(&app, "brownie").await;
    fake.push(Reply::Content(proposal(
        json!([
            {"type": "ADD_TO_CART", "params": {"product_id": croissant, "quantity": 2}},
            {"type": "CLARIFY", "params": {"question": "¿Qué café?"}}
        ]),
        "",
    )));
    app.say("leo", "hola, 2 cafés y 2 croissants").await;
    // «americanos» answers the question the bot asked beside the croissants:
    // the two said before are its count.
    fake.push(Reply::Content(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": americano, "quantity": 2}}]),
        "",
    )));
    app.say("leo", "americanos").await;
    assert_eq!(
        app.cart("leo").await,
        [("croissant".to_string(), 2), ("americano".to_string(), 2)]
    );
    // What neither message said still stands on nothing.
    fake.push(Reply::Content(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": brownie, "quantity": 2}}]),
        "",
    )));
    app.say("leo", "gracias").await;
    assert_eq!(app.cart("leo").await.len(), 2);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_follow_up_reaches_the_model_in_the_customers_words_beside_the_rules_reading(
    pool: sqlx::PgPool,
) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    let capuchino = id(&app, "capuchino").await;
    let croissant = id(&app, "croissant").await;
    fake.push(Reply::Content(proposal(
        json!([
            {"type": "ADD_TO_CART", "params": {"product_id": capuchino, "quantity": 1}},
            {"type": "ADD_TO_CART", "params": {"product_id": croissant, "quantity": 1}}
        ]),
        "",
    )));
    app.say("eva", "un capuchino con un croissant").await;
    fake.push(Reply::Content(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": capuchino, "quantity": 1}}]),
        "",
    )));
    app.say("eva", "otro capuchino").await;
    // The rules read «y el otro también, que sean dos» as being about the last
    // line they touched; the model reads the words and the cart, and its change
    // stands on the words as written.
    fake.push(Reply::Content(proposal(
        json!([{"type": "UPDATE_QUANTITY", "params": {"product_id": croissant, "quantity": 2}}]),
        "",
    )));
    app.say("eva", "y el otro también, que sean dos").await;
    let user: Value = serde_json::from_str(
        fake.requests()[2]["messages"][1]["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(user["customer_message"], "y el otro también, que sean dos");
    assert_eq!(user["rules_reading"], "cambia Capuchino a 2", "{user}");
    assert_eq!(
        app.cart("eva").await,
        [("capuchino".to_string(), 2), ("croissant".to_string(), 2)]
    );
    // A message read as it stands carries no reading beside it.
    let first: Value = serde_json::from_str(
        fake.requests()[0]["messages"][1]["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert!(first.get("rules_reading").is_none(), "{first}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn malformed_output_is_repaired_once_then_falls_back_to_the_rules(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    let brownie = id(&app, "brownie").await;
    // First turn: broken, then repaired.
    fake.push(Reply::Content(
        "{\"proposed_actions\": [ {\"type\": ".into(),
    ));
    fake.push(Reply::Content(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": brownie, "quantity": 1}}]),
        "",
    )));
    app.say("caro", "un brownie").await;
    assert_eq!(app.cart("caro").await, vec![("brownie".into(), 1)]);
    let repair = &fake.requests()[1];
    let last = repair["messages"].as_array().unwrap().last().unwrap();
    assert!(
        last["content"].as_str().unwrap().contains("no es válida"),
        "{last}"
    );

    // Second turn: broken twice; the rules proposer reads the message instead.
    fake.push(Reply::Content("lo siento, no sé".into()));
    fake.push(Reply::Content("{\"proposed_actions\": []}".into()));
    let reply = app.say("caro", "quiero 2 maracuyá").await;
    assert!(reply[0].contains("Agregué 2 × Maracuya"), "{reply:?}");
    let outcomes: Vec<String> = calls(&app).await.into_iter().map(|c| c.0).collect();
    assert_eq!(outcomes, ["repaired", "fallback"]);
    let origin: String = sqlx::query_scalar(
        "SELECT detail->>'proposer' FROM audit_log WHERE kind = 'action_proposed' ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(origin, "rules (LLM output invalid)");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_slow_llm_times_out_and_the_turn_still_answers(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let mut config = config(&fake, ResponseMode::JsonSchema);
    config.timeout = Duration::from_millis(300);
    let app = app(pool, config).await;
    fake.push(Reply::Slow(
        Duration::from_secs(30),
        proposal(json!([{"type": "REPLY"}]), "tarde"),
    ));
    let started = std::time::Instant::now();
    let reply = app.say("dani", "quiero 1 limonada").await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the turn did not wait for the model"
    );
    assert!(reply[0].contains("Agregué 1 × Limonada"), "{reply:?}");
    let outcomes: Vec<String> = calls(&app).await.into_iter().map(|c| c.0).collect();
    assert_eq!(outcomes, ["timeout"]);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_takeover_while_the_model_thinks_means_silence(pool: sqlx::PgPool) {
    let mut fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    let maracuya = id(&app, "maracuya").await;
    fake.push(Reply::Gate(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": maracuya, "quantity": 3}}]),
        "¡Listo!",
    )));
    app.post_message("eli", "tres maracuyás", "e-1").await;
    let conversation = app.conversation_id("eli").await;
    let turn = async { app.engine.run_once().await.unwrap() };
    let takeover = async {
        fake.arrived.recv().await.unwrap();
        let (status, _) = app
            .post_api(&format!("/conversations/{conversation}/takeover"), None)
            .await;
        assert_eq!(status, StatusCode::OK);
        fake.release.notify_one();
    };
    tokio::join!(turn, takeover);
    app.dispatcher.run_until_idle().await.unwrap();
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);
    assert!(app.cart("eli").await.is_empty());
    assert_eq!(app.state("eli").await, "HUMAN_TAKEOVER");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn personal_data_and_secrets_never_reach_the_model(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    app.say(
        "fio",
        "mi correo es fio.rios@mail.com, mi cel +591 71234567 y mi tarjeta 4111 1111 1111 1111",
    )
    .await;
    app.say("fio", "quiero 1 brownie").await;
    for request in fake.requests() {
        let body = request.to_string();
        for secret in ["fio.rios@mail.com", "71234567", "4111 1111", API_KEY] {
            assert!(!body.contains(secret), "{secret} leaked: {body}");
        }
    }
    // The last request (the order) carries the first message in its history.
    let second = fake.requests().last().unwrap().to_string();
    assert!(
        second.contains("[correo]")
            && second.contains("[tarjeta]")
            && second.contains("[teléfono]"),
        "history is masked too"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn json_object_and_text_modes_parse(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let object_app = app(pool.clone(), config(&fake, ResponseMode::JsonObject)).await;
    let croissant = id(&object_app, "croissant").await;
    fake.push(Reply::Content(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": croissant, "quantity": 2}}]),
        "",
    )));
    object_app.say("gus", "dos croissants").await;
    assert_eq!(object_app.cart("gus").await, vec![("croissant".into(), 2)]);
    let format = &fake.requests()[0]["response_format"];
    assert_eq!(format["type"], "json_object");
    assert!(format["schema"]["properties"]["proposed_actions"].is_object());

    let text_fake = FakeLlm::start().await;
    let client = LlmClient::new(config(&text_fake, ResponseMode::Text)).unwrap();
    let text_app = TestAppSwap::swap(object_app, Proposers::llm(Arc::new(client)));
    text_fake.push(Reply::Content(format!(
        "Claro, aquí está mi propuesta:\n```json\n{}\n```\nSaludos.",
        proposal(json!([{"type": "UPDATE_QUANTITY", "params": {"product_id": croissant, "quantity": 5}}]), "")
    )));
    text_app.say("gus", "mejor cinco").await;
    assert_eq!(text_app.cart("gus").await, vec![("croissant".into(), 5)]);
    assert!(text_fake.requests()[0].get("response_format").is_none());
}

/// Rebuilds a test app's worker around another proposer, same database.
struct TestAppSwap;

impl TestAppSwap {
    fn swap(mut app: TestApp, proposers: Proposers) -> TestApp {
        app.engine = tendero::startup::engine(&app.pool, &app.settings, &proposers);
        app
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_breaker_opens_after_repeated_failures_and_the_bot_switch_turns_the_llm_off(
    pool: sqlx::PgPool,
) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    for _ in 0..3 {
        fake.push(Reply::Status(500));
    }
    for text in [
        "quiero 1 brownie",
        "quiero 1 brownie",
        "quiero 1 brownie",
        "quiero 1 brownie",
    ] {
        app.say("hilda", text).await;
    }
    // Every turn answered (by the rules); after 3 failures the server is left alone.
    assert_eq!(app.cart("hilda").await, vec![("brownie".into(), 4)]);
    assert_eq!(fake.requests().len(), 3);
    let outcomes: Vec<String> = calls(&app).await.into_iter().map(|c| c.0).collect();
    assert_eq!(outcomes, ["error", "error", "error"]);

    let (status, body) = app
        .api(
            reqwest::Method::PATCH,
            "/bots/demo-shop",
            &app.key,
            Some(json!({"agent_enabled": false})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _) = app
        .api(
            reqwest::Method::PATCH,
            "/bots/demo-shop",
            &app.key,
            Some(json!({"prices": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn with_the_llm_switched_off_the_bot_runs_on_the_rules(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    app.api(
        reqwest::Method::PATCH,
        "/bots/demo-shop",
        &app.key,
        Some(json!({"agent_enabled": false})),
    )
    .await;
    let reply = app.say("ivo", "quiero 2 capuchinos").await;
    assert!(reply[0].contains("Agregué 2 × Capuchino"), "{reply:?}");
    assert!(fake.requests().is_empty());
    assert!(calls(&app).await.is_empty());
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_circuit_closes_again_after_its_cool_down(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let mut config = config(&fake, ResponseMode::JsonSchema);
    config.breaker_failures = 1;
    // The cool-down is far longer than a turn, even on a loaded CI machine, so the
    // second turn surely falls inside it; the wait then surely outlasts it.
    let cooldown = Duration::from_secs(4);
    config.breaker_cooldown = cooldown;
    let app = app(pool, config).await;
    fake.push(Reply::Status(503));
    // (Timed from before the failing turn: the breaker opens inside it.)
    let opened = std::time::Instant::now();
    app.say("juan", "quiero 1 brownie").await;
    app.say("juan", "quiero 1 brownie").await;
    assert!(
        opened.elapsed() < cooldown,
        "the second turn took longer than the cool-down; the test cannot tell"
    );
    assert_eq!(
        fake.requests().len(),
        1,
        "open: the second turn skipped the model"
    );
    tokio::time::sleep(cooldown + Duration::from_millis(300)).await;
    app.say("juan", "quiero 1 brownie").await;
    assert_eq!(fake.requests().len(), 2, "closed again after the cool-down");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_five_thousand_product_catalog_keeps_the_prompt_under_budget(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    sqlx::query(
        "INSERT INTO products (bot_id, sku, name, description, price_minor, currency)
         SELECT b.id, 'p' || g, 'Producto de prueba ' || g, 'Una descripción bastante larga del producto ' || g, 1000 + g, 'BOB'
         FROM bots b, generate_series(1, 5000) g",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    app.say("kike", "¿tienen producto de prueba 4321? y maracuyá")
        .await;
    let request = &fake.requests()[0];
    let total_chars: usize = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().chars().count())
        .sum();
    assert!(
        total_chars <= 3000 * 4,
        "prompt of {total_chars} characters"
    );
    let user: Value =
        serde_json::from_str(request["messages"][1]["content"].as_str().unwrap()).unwrap();
    let names: Vec<&str> = user["product_catalog"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.len() <= 20, "{}", names.len());
    assert!(names.contains(&"Producto de prueba 4321"), "{names:?}");
    let (chars, items): (i32, i32) =
        sqlx::query_as("SELECT prompt_chars, catalog_items FROM llm_calls")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(chars as usize, total_chars);
    assert_eq!(items as usize, names.len());
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn model_actions_the_customer_never_asked_for_change_nothing(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    let (maracuya, matcha, brownie) = (
        id(&app, "maracuya").await,
        id(&app, "matcha").await,
        id(&app, "brownie").await,
    );
    // What a 270M model proposed: a scatter of effects on unnamed products.
    fake.push(Reply::Content(proposal(
        json!([
            {"type": "CLEAR_CART", "params": {}},
            {"type": "ADD_TO_CART", "params": {"product_id": matcha, "quantity": 3}},
            {"type": "UPDATE_QUANTITY", "params": {"product_id": maracuya, "quantity": 9}},
        ]),
        "Listo.",
    )));
    app.say("eva", "quiero 2 brownies").await;
    // None of it stood on the words: the rules' reading took the turn.
    assert_eq!(app.cart("eva").await, vec![("brownie".into(), 2)]);
    let refused = app
        .count("SELECT count(*) FROM audit_log WHERE kind = 'action_rejected' AND detail->>'code' = 'not_grounded'")
        .await;
    assert_eq!(refused, 3);

    // Part of a proposal standing on the words goes through; the rest is refused,
    // and a question about a product never puts it in the cart.
    fake.push(Reply::Content(proposal(
        json!([
            {"type": "UPDATE_QUANTITY", "params": {"product_id": brownie, "quantity": 3}},
            {"type": "CANCEL_ORDER", "params": {}},
        ]),
        "Hecho.",
    )));
    app.say("eva", "mejor que sean 3 brownies").await;
    assert_eq!(app.cart("eva").await, vec![("brownie".into(), 3)]);
    assert_eq!(app.state("eva").await, "CART_OPEN");
    fake.push(Reply::Content(proposal(
        json!([{"type": "ADD_TO_CART", "params": {"product_id": maracuya, "quantity": 1}}]),
        "Agregado.",
    )));
    let reply = app.say("eva", "¿la maracuyá es de fruta natural?").await;
    assert_eq!(app.cart("eva").await, vec![("brownie".into(), 3)]);
    assert!(!reply[0].contains("Agregado"), "{reply:?}");
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE kind = 'action_rejected' AND detail->>'code' = 'not_grounded'")
            .await,
        5
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_model_call_is_recorded_even_when_its_turn_fails_and_is_retried(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, config(&fake, ResponseMode::JsonSchema)).await;
    // The first turn's transaction fails at its reply, after the model answered: a
    // fault injected once (a sequence is not rolled back with the transaction).
    sqlx::raw_sql(
        "CREATE SEQUENCE fault;
         CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
             IF nextval('fault') = 1 THEN RAISE EXCEPTION 'injected fault'; END IF;
             RETURN NEW;
         END $$;
         CREATE TRIGGER fail_once BEFORE INSERT ON outbox
             FOR EACH ROW EXECUTE FUNCTION fail_once();",
    )
    .execute(&app.pool)
    .await
    .unwrap();

    let reply = app.say("eva", "¿qué me recomiendas?").await;
    assert_eq!(reply, ["¿Me repites?"], "answered once, by the retry");
    assert_eq!(
        fake.requests().len(),
        2,
        "the failed turn asked the model, and so did its retry"
    );
    let attempts: i32 = sqlx::query_scalar("SELECT attempts FROM inbox")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(attempts, 2);
    assert_eq!(
        calls(&app).await,
        [
            ("ok".to_owned(), 420, 42, 504),
            ("ok".to_owned(), 420, 42, 504)
        ],
        "the failed turn's call was made and paid for: recorded with its deferral"
    );
    let tokens: i64 = sqlx::query_scalar("SELECT tokens FROM llm_usage_daily")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(tokens, 2 * 462, "both calls count against the day's budget");
}
