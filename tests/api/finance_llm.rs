//! The finance contract through the LLM proposer, against a fake
//! OpenAI-compatible server: the model proposes, the finance matrix decides.

use std::sync::Arc;

use serde_json::{Value, json};
use tendero::config::ResponseMode;
use tendero::llm::Client as LlmClient;
use tendero::startup::Proposers;

use crate::fake_llm::{FakeLlm, Reply};
use crate::finance::{joined, rows, with_bots};
use crate::helpers::{TestApp, spawn_app_with};
use crate::llm::{config, proposal};

async fn app(pool: sqlx::PgPool, fake: &FakeLlm) -> TestApp {
    let client = LlmClient::new(config(fake, ResponseMode::JsonSchema)).unwrap();
    with_bots(spawn_app_with(pool, Proposers::llm(Arc::new(client))).await).await
}

fn user_content(request: &Value) -> Value {
    serde_json::from_str(request["messages"][1]["content"].as_str().unwrap()).unwrap()
}

async fn outcomes(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("SELECT outcome FROM llm_calls ORDER BY id")
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_model_proposal_is_held_to_the_finance_contract_and_accounted(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, &fake).await;
    fake.push(Reply::Content(proposal(
        json!([{"type": "LOG_TRANSACTION", "params": {"amount": 250, "category": "supermercado",
                 "description": "súper", "merchant": null, "kind": "expense"}}]),
        "Anotado.",
    )));
    let reply = joined(&app.say_to("finanzas", "ana", "gasté 250 en el súper").await);
    assert!(
        reply.starts_with("¿Registro este gasto?"),
        "the backend speaks: {reply}"
    );
    assert!(
        reply.contains("$250.00") && reply.contains("supermercado"),
        "{reply}"
    );
    assert_eq!(rows(&app, "fin_transactions", "ana").await, 0);
    let request = &fake.requests()[0];
    assert_eq!(request["response_format"]["type"], "json_schema");
    let schema = &request["response_format"]["json_schema"]["schema"];
    let types = schema["properties"]["proposed_actions"]["items"]["properties"]["type"]["enum"]
        .as_array()
        .unwrap();
    assert!(types.contains(&json!("PATCH_DRAFT")));
    assert!(!types.contains(&json!("CONFIRM_WRITE")));
    let user = user_content(request);
    assert_eq!(user["current_state"], "IDLE");
    assert!(
        user["categories"]
            .as_array()
            .unwrap()
            .contains(&json!("comida"))
    );
    // The confirmation itself never reaches the model.
    app.say_to("finanzas", "ana", "sí").await;
    assert_eq!(fake.requests().len(), 1);
    assert_eq!(rows(&app, "fin_transactions", "ana").await, 1);
    assert_eq!(outcomes(&app).await, ["ok"]);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_models_own_arithmetic_is_refused(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, &fake).await;
    fake.push(Reply::Content(proposal(
        json!([{"type": "LOG_TRANSACTION", "params": {"amount": 75, "category": "restaurantes"}}]),
        "Son 75 pesos en total.",
    )));
    let reply = joined(&app.say_to("finanzas", "beto", "3 tacos de 25").await);
    assert!(reply.contains("Dime el monto exacto con número"), "{reply}");
    assert!(!reply.contains("75"), "{reply}");
    assert_eq!(app.state("beto").await, "IDLE");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn broken_output_is_repaired_once_then_the_rules_answer(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, &fake).await;
    fake.push(Reply::Content("claro que sí".into()));
    fake.push(Reply::Content("{\"proposed_actions\": []}".into()));
    let reply = joined(
        &app.say_to("finanzas", "caro", "pon mi presupuesto en 8000")
            .await,
    );
    assert!(reply.contains("$8,000.00"), "the rules read it: {reply}");
    assert_eq!(outcomes(&app).await, ["fallback"]);
    let repair = &fake.requests()[1];
    let last = repair["messages"].as_array().unwrap().last().unwrap();
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .starts_with("Tu respuesta no es válida")
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn personal_data_is_masked_and_past_corrections_are_shown_as_examples(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = app(pool, &fake).await;
    // A logged expense, then its correction, both proposed by the model.
    for (text, answer) in [
        (
            "gasté 150 en oxxo",
            json!([{"type": "LOG_TRANSACTION", "params": {"amount": 150, "category": "supermercado", "merchant": "oxxo", "description": "oxxo"}}]),
        ),
        (
            "eso era comida",
            json!([{"type": "CORRECT_CATEGORY", "params": {"category": "comida"}}]),
        ),
    ] {
        fake.push(Reply::Content(proposal(answer, "")));
        app.say_to("finanzas", "dani", text).await;
        app.say_to("finanzas", "dani", "sí").await;
    }
    fake.push(Reply::Content(proposal(
        json!([{"type": "REPLY", "params": {}}]),
        "¡Claro!",
    )));
    app.say_to(
        "finanzas",
        "dani",
        "mi correo es dani@example.com y mi cel 55 1234 5678",
    )
    .await;
    let request = fake.requests().last().unwrap().clone();
    let body = request.to_string();
    assert!(
        !body.contains("dani@example.com") && !body.contains("1234 5678"),
        "{body}"
    );
    let user = user_content(&request);
    assert_eq!(
        user["correcciones_recientes"][0],
        json!({"concepto": "oxxo", "comercio": "oxxo", "categoria_correcta": "comida", "no_era": "supermercado"})
    );
}
