//! Free-form questions through the validated query plan (`queryTransactions`):
//! over web chat against the demo finance bot's sample history, every figure
//! checked against the rows themselves; follow-ups, relaxed retries, no data,
//! another person's rows; and a model's plan held to the whitelist.

use std::sync::Arc;

use serde_json::json;
use sqlx::PgPool;
use tendero::config::ResponseMode;
use tendero::llm::Client as LlmClient;
use tendero::startup::Proposers;

use crate::fake_llm::{FakeLlm, Reply};
use crate::finance::{finance_app, joined, with_bots};
use crate::helpers::{TestApp, spawn_app_with};
use crate::llm::{config, proposal};

const BOT: &str = "demo-finanzas";

/// Pesos as the replies write them: "$1,234.00".
fn pesos(cents: i64) -> String {
    tendero::finance::core::amount::pesos(cents)
}

/// The sum and count of `session`'s expenses whose description holds `like`,
/// over `[from, to]`, straight from the table.
async fn expenses(app: &TestApp, session: &str, like: &str, from: &str, to: &str) -> (i64, i64) {
    sqlx::query_as(
        "SELECT coalesce(sum(t.amount_cents), 0)::bigint, count(*) FROM fin_transactions t
         JOIN contacts c ON c.id = t.contact_id
         WHERE c.external_id = ANY($1) AND t.kind = 'expense' AND t.description ILIKE $2
           AND t.occurred_on BETWEEN $3::date AND $4::date",
    )
    .bind(app.session_ids(session))
    .bind(format!("%{like}%"))
    .bind(from)
    .bind(to)
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

/// The first and last day of last month, in the bot's time zone.
async fn last_month(app: &TestApp) -> (String, String) {
    sqlx::query_as(
        "SELECT (date_trunc('month', (now() AT TIME ZONE 'America/Mexico_City')::date) - interval '1 month')::date::text,
                (date_trunc('month', (now() AT TIME ZONE 'America/Mexico_City')::date) - interval '1 day')::date::text",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

/// The plans `queryTransactions` ran for `session`, oldest first.
async fn plans(app: &TestApp) -> Vec<serde_json::Value> {
    sqlx::query_scalar(
        "SELECT detail->'request'->'plan' FROM audit_log
         WHERE kind = 'tool_executed' AND action = 'queryTransactions' ORDER BY id",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn free_form_questions_are_answered_from_the_persons_own_rows(pool: PgPool) {
    let app = finance_app(pool).await;
    let (from, to) = last_month(&app).await;
    // Someone else's Uber never counts in Ana's answers.
    app.say_to(BOT, "beto", "hola").await;
    app.say_to(BOT, "beto", "gasté 9999 en uber").await;
    app.say_to(BOT, "beto", "sí").await;

    let reply = joined(
        &app.say_to(BOT, "ana", "¿cuánto le he metido a Uber el mes pasado?")
            .await,
    );
    let (uber, rides) = expenses(&app, "ana", "uber", &from, &to).await;
    assert!(uber > 0, "the sample history has rides");
    assert!(
        reply.contains(&pesos(uber)) && reply.contains(&format!("{rides} movimientos")),
        "{reply}"
    );
    assert!(
        reply.contains(&format!("{from} a {to}")),
        "the source: {reply}"
    );
    assert!(!reply.contains("$9,999.00"), "{reply}");

    // A follow-up keeps the period and changes the place.
    let reply = joined(&app.say_to(BOT, "ana", "¿y en didi?").await);
    let (didi, _) = expenses(&app, "ana", "didi", &from, &to).await;
    assert!(reply.contains(&pesos(didi)), "{reply}");

    // A misspelled place is read as the one among her own it resembles.
    let reply = joined(
        &app.say_to(BOT, "ana", "cuanto gaste en starbuks el mes pasado")
            .await,
    );
    let (coffee, _) = expenses(&app, "ana", "starbucks", &from, &to).await;
    assert!(
        reply.contains("«starbucks»") && (coffee == 0 || reply.contains(&pesos(coffee))),
        "{reply}"
    );

    // Nothing invented for what is not there.
    let reply = joined(
        &app.say_to(BOT, "ana", "¿cuánto he gastado en Amazon?")
            .await,
    );
    assert!(reply.contains("No encontré"), "{reply}");
    assert!(
        !reply.contains('$'),
        "no figure for what is not there: {reply}"
    );

    // The largest expenses of last month are the rows themselves.
    let reply = joined(
        &app.say_to(BOT, "ana", "mis 3 gastos más caros del mes pasado")
            .await,
    );
    let top: Vec<i64> = sqlx::query_scalar(
        "SELECT t.amount_cents FROM fin_transactions t JOIN contacts c ON c.id = t.contact_id
         WHERE c.external_id = ANY($1) AND t.kind = 'expense' AND t.occurred_on BETWEEN $2::date AND $3::date
         ORDER BY t.amount_cents DESC LIMIT 3",
    )
    .bind(app.session_ids("ana"))
    .bind(&from)
    .bind(&to)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    for amount in &top {
        assert!(reply.contains(&pesos(*amount)), "{reply}");
    }

    let plans = plans(&app).await;
    assert_eq!(plans.len(), 5, "{plans:?}");
    assert_eq!(plans[0]["text"], "uber");
    assert_eq!(plans[0]["span"], "last_month");
    assert_eq!(plans[1]["text"], "didi", "the follow-up refined the plan");
    assert_eq!(plans[1]["span"], "last_month");
    assert_eq!(plans[2]["text"], "starbucks");
    assert_eq!(plans[4]["measure"], "list");
    assert_eq!(plans[4]["limit"], 3);
    // Questions write nothing: Beto's confirmed expense is the only chat row.
    assert_eq!(
        app.count("SELECT count(*) FROM fin_transactions WHERE source = 'chat'")
            .await,
        1
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_period_with_nothing_widens_and_says_so(pool: PgPool) {
    let app = finance_app(pool).await;
    // Liverpool is in the sample history once, seventy days back: never this week.
    let reply = joined(
        &app.say_to(BOT, "ana", "¿cuánto gasté en Liverpool esta semana?")
            .await,
    );
    assert!(
        reply.contains(
            "No encontré gastos de «liverpool» esta semana; busqué en todo tu historial."
        ),
        "{reply}"
    );
    assert!(reply.contains("$1,299.00"), "{reply}");
}

async fn llm_app(pool: PgPool, fake: &FakeLlm) -> TestApp {
    let client = LlmClient::new(config(fake, ResponseMode::JsonSchema)).unwrap();
    with_bots(spawn_app_with(pool, Proposers::llm(Arc::new(client))).await).await
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_models_plan_runs_only_inside_the_whitelist(pool: PgPool) {
    let fake = FakeLlm::start().await;
    let app = llm_app(pool, &fake).await;
    // A plan outside the whitelist: a grouping by a column, SQL in the text.
    fake.push(Reply::Content(proposal(
        json!([{"type": "QUERY_DATA", "params": {"tools": [
            {"name": "queryTransactions", "measure": "sum", "group_by": "contact_id",
             "text": "x' OR 1=1 --", "period": null}
        ]}}]),
        "",
    )));
    let reply = joined(&app.say_to(BOT, "ana", "¿cuánto gasta todo el mundo?").await);
    assert!(!reply.contains('$'), "nothing was measured: {reply}");
    let refused: i64 = app
        .count("SELECT count(*) FROM audit_log WHERE kind = 'action_rejected' AND action = 'QUERY_DATA'")
        .await;
    assert_eq!(refused, 1);
    assert_eq!(plans(&app).await.len(), 0);
    assert_eq!(
        app.count("SELECT count(*) FROM fin_transactions WHERE source = 'chat'")
            .await,
        0
    );

    // A plan inside it runs; the figure is the backend's, the model's words
    // carry none.
    fake.push(Reply::Content(proposal(
        json!([{"type": "QUERY_DATA", "params": {"tools": [
            {"name": "queryTransactions", "measure": "count", "text": "cinépolis",
             "period": "last_90_days", "group_by": null, "limit": 50}
        ]}}]),
        "Te digo cuántas veces fuiste al cine.",
    )));
    let reply = joined(&app.say_to(BOT, "ana", "¿cuántas veces fui al cine?").await);
    let visits: i64 = app
        .count(
            "SELECT count(*) FROM fin_transactions t JOIN contacts c ON c.id = t.contact_id
             WHERE t.description = 'Cinépolis'
               AND t.occurred_on > (now() AT TIME ZONE 'America/Mexico_City')::date - 90",
        )
        .await;
    assert!(visits > 0);
    assert!(reply.contains(&format!("{visits} movimientos")), "{reply}");
    let plans = plans(&app).await;
    assert_eq!(plans.len(), 1);
    assert_eq!(plans[0]["text"], "cinepolis", "kept as plain words");
    // The follow-up's prompt carries the plan just answered.
    fake.push(Reply::Content(proposal(
        json!([{"type": "REPLY", "params": {}}]),
        "¿Algo más?",
    )));
    app.say_to(BOT, "ana", "¿y el mes pasado?").await;
    let requests = fake.requests();
    let user: serde_json::Value = serde_json::from_str(
        requests.last().unwrap()["messages"][1]["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(user["last_query"]["text"], "cinepolis");
    assert_eq!(user["last_query"]["measure"], "count");
}
