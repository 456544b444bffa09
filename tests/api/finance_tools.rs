//! Finance analysis end to end: figures that match the database, their sources,
//! history gating, the per-turn tool limits, cross-category search, duplicate
//! flags, the learning loop, error classes and progress signals.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sqlx::PgPool;
use tendero::channels::credentials::{self, TelegramSetup};
use tendero::finance::contract::{FinanceProposal, RawFinanceAction};
use tendero::finance::core::amount::pesos;
use tendero::finance::proposer::ScriptedProposer;
use tendero::startup::Proposers;

use crate::fake_platforms::FakePlatform;
use crate::finance::{finance_app, joined, with_bots};
use crate::helpers::{TestApp, spawn_app_configured, spawn_app_with, sse};

/// Spending of the demo user in `categories` this month, summed independently.
async fn spent(app: &TestApp, session: &str, categories: &[&str]) -> i64 {
    sqlx::query_scalar(
        "SELECT coalesce(sum(t.amount_cents), 0)::bigint FROM fin_transactions t
         JOIN contacts c ON c.id = t.contact_id
         WHERE c.external_id = ANY($1) AND t.kind = 'expense' AND t.category = ANY($2)
           AND t.occurred_on >= date_trunc('month', now() AT TIME ZONE 'America/Mexico_City')",
    )
    .bind(app.session_ids(session))
    .bind(categories)
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn totals_come_from_the_database_with_their_source_and_no_disclaimer_for_a_rich_history(
    pool: PgPool,
) {
    let app = finance_app(pool).await;
    let reply = joined(
        &app.say_to("demo-finanzas", "demo", "¿cuánto llevo en comida este mes?")
            .await,
    );
    let food = spent(&app, "demo", &["comida", "supermercado", "restaurantes"]).await;
    assert!(food > 0);
    assert!(reply.contains(&pesos(food)), "{} in {reply}", pesos(food));
    let count: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM fin_transactions t JOIN contacts c ON c.id = t.contact_id
         WHERE c.external_id = ANY($1) AND t.category IN ('comida', 'supermercado', 'restaurantes')
           AND t.occurred_on >= date_trunc('month', now() AT TIME ZONE 'America/Mexico_City')",
    )
    .bind(app.session_ids("demo"))
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(
        reply.contains(&format!("(basado en {count} transacciones, ")),
        "{reply}"
    );
    assert!(
        !reply.contains("Nota:"),
        "120 days and 200 movements: no disclaimer"
    );
    let id = app.conversation_id("demo").await;
    let audit = app.audit(id).await;
    assert!(audit.iter().any(|(kind, action, _)| kind == "tool_executed"
        && action.as_deref() == Some("analyzeSpendingPattern")));
    assert!(
        audit
            .iter()
            .any(|(kind, _, _)| kind == "sample_history_seeded")
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_new_user_is_refused_history_tools_honestly_and_told_why(pool: PgPool) {
    let app = finance_app(pool).await;
    app.say_to("finanzas", "nuevo", "gasté 250 en el súper")
        .await;
    app.say_to("finanzas", "nuevo", "sí").await;
    let reply = joined(
        &app.say_to("finanzas", "nuevo", "¿tengo gastos raros?")
            .await,
    );
    assert!(
        reply.contains("Para detectar gastos inusuales necesito al menos 30 días de historial, y por ahora tengo 1."),
        "{reply}"
    );
    assert!(
        reply.contains("Nota: aún tengo poco historial tuyo (1 días, 1 movimientos)"),
        "{reply}"
    );
    let reply = joined(
        &app.say_to("finanzas", "nuevo", "¿cuánto llevo este mes?")
            .await,
    );
    assert!(reply.contains("$250.00"), "{reply}");
    assert!(reply.contains("Nota: aún tengo poco historial"), "{reply}");
    let id = app.conversation_id("nuevo").await;
    assert!(
        app.audit(id)
            .await
            .iter()
            .any(|(kind, action, _)| kind == "tool_dropped"
                && action.as_deref() == Some("detectAnomalies"))
    );
}

fn five_tools(_: &tendero::finance::contract::FinanceInput) -> FinanceProposal {
    let tools = vec![
        json!("getSpendingTrends"),
        json!("predictMonthlySpending"),
        json!({"name": "searchExpenses", "query": "uber"}),
        json!("getDebts"),
        json!("getBankBalance"),
        json!("dropDatabase"),
    ];
    FinanceProposal::new(
        vec![RawFinanceAction::new("QUERY_DATA").with(|p| p.tools = Some(tools))],
        "",
    )
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn at_most_three_tools_run_with_the_redundant_pair_reduced_and_the_companion_added(
    pool: PgPool,
) {
    let proposer = ScriptedProposer::new(|input| Ok(five_tools(input)));
    let app = with_bots(spawn_app_with(pool, Proposers::finance(Arc::new(proposer))).await).await;
    let reply = joined(&app.say_to("demo-finanzas", "tools", "todo").await);
    let id = app.conversation_id("tools").await;
    let audit = app.audit(id).await;
    let of = |kind: &str| -> Vec<String> {
        audit
            .iter()
            .filter(|(k, _, _)| k == kind)
            .map(|(_, action, _)| action.clone().unwrap())
            .collect()
    };
    assert_eq!(
        of("tool_executed"),
        [
            "predictMonthlySpending",
            "getBudgetStatus",
            "searchExpenses"
        ]
    );
    assert_eq!(of("tool_added"), ["getBudgetStatus"]);
    let mut dropped = of("tool_dropped");
    dropped.sort();
    assert_eq!(dropped, ["getBankBalance", "getDebts", "getSpendingTrends"]);
    assert!(reply.contains("cerrarías"), "{reply}");
    assert!(reply.contains("Presupuesto de gastos variables"), "{reply}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_search_for_food_finds_the_supermarket_and_the_restaurant(pool: PgPool) {
    let app = finance_app(pool).await;
    let reply = joined(
        &app.say_to("demo-finanzas", "demo", "busca mis gastos de comida")
            .await,
    );
    assert!(reply.contains("[supermercado]"), "{reply}");
    assert!(reply.contains("[restaurantes]"), "{reply}");
    assert!(
        reply.contains("busqué en comida, supermercado, restaurantes"),
        "{reply}"
    );
    let reply = joined(
        &app.say_to("demo-finanzas", "demo", "¿tengo gastos raros?")
            .await,
    );
    assert!(reply.contains("Cena aniversario"), "{reply}");
    assert!(reply.contains("$2,600.00"), "{reply}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_repeat_within_a_day_is_flagged_in_the_confirmation(pool: PgPool) {
    let app = finance_app(pool).await;
    app.say_to("finanzas", "rep", "gasté 250 en el súper").await;
    app.say_to("finanzas", "rep", "sí").await;
    let reply = joined(&app.say_to("finanzas", "rep", "gasté 250 en el super").await);
    assert!(reply.contains("Ojo: ya registraste $250.00"), "{reply}");
    let reply = joined(&app.say_to("finanzas", "rep", "gasté 99 en uber").await);
    assert!(!reply.contains("Ojo"), "{reply}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn corrections_teach_a_merchant_rule_used_next_time_and_reported_in_metrics(pool: PgPool) {
    let app = finance_app(pool).await;
    for amount in ["150", "80"] {
        let reply = joined(
            &app.say_to("finanzas", "lu", &format!("gasté {amount} en oxxo"))
                .await,
        );
        assert!(reply.contains("supermercado"), "{reply}");
        app.say_to("finanzas", "lu", "sí").await;
        let reply = joined(
            &app.say_to("finanzas", "lu", "eso era comida, no supermercado")
                .await,
        );
        assert!(reply.contains("de supermercado a comida"), "{reply}");
        let reply = joined(&app.say_to("finanzas", "lu", "sí").await);
        assert!(reply.contains("Listo, lo cambié a comida."), "{reply}");
        if amount == "80" {
            assert!(reply.contains("Aprendí que «oxxo» va en comida"), "{reply}");
        }
    }
    let reply = joined(&app.say_to("finanzas", "lu", "gasté 60 en oxxo").await);
    assert!(reply.contains("Categoría: comida"), "{reply}");
    assert!(reply.contains("aprendí de tus correcciones"), "{reply}");
    app.say_to("finanzas", "lu", "sí").await;
    let categories: Vec<String> =
        sqlx::query_scalar("SELECT category FROM fin_transactions ORDER BY id")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(categories, ["comida", "comida", "comida"]);
    let body = app.get_json("/bots/finanzas/learning").await;
    let learning = &body["learning"];
    assert_eq!(learning["corrections"], 2);
    assert_eq!(learning["rules_learned"], 1);
    assert_eq!(learning["rules_applied"], 1);
    assert_eq!(
        learning["top_misclassified"][0],
        json!({"from_category": "supermercado", "to_category": "comida", "count": 2})
    );
    // The shop has no learning loop; another merchant sees nothing.
    let (status, _) = app
        .api(
            reqwest::Method::GET,
            "/bots/demo-shop/learning",
            &app.key,
            None,
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::CONFLICT);
    let other = tendero::merchants::create(&app.pool, "otra", "Otra")
        .await
        .unwrap();
    let key = tendero::api_keys::create(&app.pool, other).await.unwrap();
    let (status, _) = app
        .api(reqwest::Method::GET, "/bots/finanzas/learning", &key, None)
        .await;
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_failing_tool_is_a_database_error_in_plain_spanish_not_invented_data(pool: PgPool) {
    let app = finance_app(pool).await;
    app.say_to("demo-finanzas", "demo", "hola").await;
    // The search tool's similarity function is gone: its query fails.
    sqlx::query("DROP EXTENSION pg_trgm CASCADE")
        .execute(&app.pool)
        .await
        .unwrap();
    let reply = joined(
        &app.say_to("demo-finanzas", "demo", "busca mis gastos de comida")
            .await,
    );
    assert!(
        reply.contains("No pude acceder a tu información en este momento. Inténtalo de nuevo."),
        "{reply}"
    );
    assert!(!reply.contains('$'), "no figures without a result: {reply}");
    let id = app.conversation_id("demo").await;
    assert!(app.audit(id).await.iter().any(|(kind, _, reason)| kind == "tool_failed"
        && reason.as_deref() == Some("database")));
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_turn_with_tools_streams_typing_then_the_tools_then_the_reply(pool: PgPool) {
    let proposer = ScriptedProposer::new(|_| {
        Ok(FinanceProposal::new(
            vec![RawFinanceAction::new("QUERY_DATA").with(|p| {
                p.tools = Some(vec![
                    json!({"name": "analyzeSpendingPattern", "category": "comida"}),
                ])
            })],
            "",
        ))
    });
    let proposers = Proposers::finance(Arc::new(proposer));
    let app = with_bots(spawn_app_with(pool, proposers.clone()).await).await;
    // The first message creates the session's conversation; its reply is skipped.
    app.say_to("demo-finanzas", "live", "hola").await;
    let engine = tendero::startup::engine(&app.pool, &app.settings, &proposers)
        .with_progress(tendero::startup::progress(&app.settings, &app.pool));
    let url = app.events_url("demo-finanzas", "live").await;
    // The first turn's answer is two messages: the figures, then their chart.
    let listening = tokio::spawn(sse(app.client.clone(), url, None, 6));
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.post_to("demo-finanzas", "live", "¿cuánto llevo en comida?", "c-2")
        .await;
    engine.run_until_idle().await.unwrap();
    let events = listening.await.unwrap();
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "message", "message", "typing", "tools", "message", "message"
        ],
        "{events:?}"
    );
    assert_eq!(events[3].1["tools"], json!(["analyzeSpendingPattern"]));
    assert!(events[4].1["text"].as_str().unwrap().contains("basado en"));
    assert_eq!(events[5].1["file"]["content_type"], "image/png");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn telegram_shows_typing_while_a_finance_turn_runs_its_tools(pool: PgPool) {
    let fake = FakePlatform::start().await;
    let base = fake.base_url.clone();
    let app = spawn_app_configured(pool, Proposers::rules(), |s| {
        s.telegram_api_url = base.clone();
    })
    .await;
    let app = with_bots(app).await;
    let bot = tendero::bots::by_slug(&app.pool, "demo-finanzas")
        .await
        .unwrap()
        .unwrap();
    let setup = TelegramSetup {
        token: "123456:FIN-test".into(),
        secret_token: "fin-secret".into(),
    };
    credentials::set_telegram(&app.pool, bot.id, &setup)
        .await
        .unwrap();
    let mut update = crate::channels::fixture("telegram/text.json");
    update["update_id"] = json!(77);
    update["message"]["text"] = json!("¿cuánto llevo en comida este mes?");
    let status = app
        .client
        .post(format!("{}/webhooks/telegram/demo-finanzas", app.base))
        .header("X-Telegram-Bot-Api-Secret-Token", "fin-secret")
        .json(&update)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, reqwest::StatusCode::OK);
    let engine = tendero::startup::engine(&app.pool, &app.settings, &Proposers::rules())
        .with_progress(tendero::startup::progress(&app.settings, &app.pool));
    engine.run_until_idle().await.unwrap();
    app.dispatcher.run_until_idle().await.unwrap();
    let typing = fake.calls("sendChatAction");
    assert_eq!(typing.len(), 1, "one signal for the tools step");
    assert_eq!(typing[0].body["action"], "typing");
    let sent = fake.texts("sendMessage");
    assert!(sent.last().unwrap().contains("basado en"), "{sent:?}");
    assert!(typing[0].at <= fake.calls("sendMessage").last().unwrap().at);
}
