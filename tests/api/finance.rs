//! The finance profile end to end over web chat: confirmed writes, patch mode,
//! the balance-then-simulate path, tools with their sources, gating, learning,
//! takeovers and replays.

use std::sync::Arc;

use serde_json::json;
use sqlx::PgPool;
use tendero::finance::contract::{FinanceProposal, RawFinanceAction};
use tendero::finance::proposer::ScriptedProposer;
use tendero::startup::Proposers;

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

/// A finance bot whose users start with no history.
const PLAIN: &str = r#"{
  "merchant": { "slug": "demo", "name": "Tienda Demo" },
  "bot": { "slug": "finanzas", "name": "Finanzas", "profile": "finance", "currency": "MXN",
           "timezone": "America/Mexico_City" }
}"#;

pub async fn finance_app(pool: PgPool) -> TestApp {
    with_bots(spawn_app(pool).await).await
}

pub async fn with_bots(app: TestApp) -> TestApp {
    tendero::demo::load_shop(&app.pool, PLAIN).await.unwrap();
    tendero::demo::load_shop(&app.pool, tendero::demo::DEMO_FINANCE)
        .await
        .unwrap();
    app
}

pub async fn today(app: &TestApp) -> String {
    sqlx::query_scalar("SELECT ((now() AT TIME ZONE 'America/Mexico_City')::date)::text")
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

pub async fn rows(app: &TestApp, table: &str, session: &str) -> i64 {
    app.count(&format!(
        "SELECT count(*) FROM {table} t JOIN contacts c ON c.id = t.contact_id WHERE c.external_id IN ({})",
        app.session_ids(session)
            .iter()
            .map(|id| format!("'{id}'"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
    .await
}

pub fn joined(replies: &[String]) -> String {
    replies.join("\n---\n")
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_expense_is_written_only_after_an_exact_confirmation(pool: PgPool) {
    let app = finance_app(pool).await;
    let today = today(&app).await;
    let reply = joined(&app.say_to("finanzas", "ana", "gasté 250 en el súper").await);
    assert!(reply.contains("¿Registro este gasto?"), "{reply}");
    assert!(reply.contains("$250.00"), "{reply}");
    assert!(reply.contains("supermercado"), "{reply}");
    assert!(reply.contains(&format!("Fecha: {today}")), "{reply}");
    assert!(reply.contains("Responde: sí / no"), "{reply}");
    assert_eq!(app.state("ana").await, "AWAITING_CONFIRMATION");
    for near_miss in ["claro", "sii", "nop", "dale", "sí, pero"] {
        let reply = joined(&app.say_to("finanzas", "ana", near_miss).await);
        assert_eq!(reply, "Responde exactamente: sí / no", "{near_miss}");
        assert_eq!(
            rows(&app, "fin_transactions", "ana").await,
            0,
            "{near_miss}"
        );
    }
    let reply = joined(&app.say_to("finanzas", "ana", "Sí").await);
    assert!(
        reply.contains("Listo, registré tu gasto de $250.00"),
        "{reply}"
    );
    assert_eq!(rows(&app, "fin_transactions", "ana").await, 1);
    let (amount, category, date): (i64, String, String) =
        sqlx::query_as("SELECT amount_cents, category, occurred_on::text FROM fin_transactions")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        (amount, category.as_str(), date),
        (25_000, "supermercado", today)
    );
    assert_eq!(app.state("ana").await, "IDLE");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn at_a_confirmation_prompt_a_correction_patches_and_a_new_request_starts_anew(pool: PgPool) {
    let app = finance_app(pool).await;
    // A category named at the prompt replaces the draft's; nothing is written.
    app.say_to("finanzas", "eva", "gaste 600 en la farmacia")
        .await;
    let reply = joined(
        &app.say_to("finanzas", "eva", "no me equivoque era en el super")
            .await,
    );
    assert!(reply.contains("supermercado"), "{reply}");
    assert!(reply.contains("$600.00"), "{reply}");
    assert_eq!(app.state("eva").await, "AWAITING_CONFIRMATION");
    assert_eq!(rows(&app, "fin_transactions", "eva").await, 0);
    // A complete new request drops the old draft, says so, and asks the new one.
    let reply = joined(&app.say_to("finanzas", "eva", "pague 200 de gasolina").await);
    assert!(reply.contains("Dejé de lado"), "{reply}");
    assert!(
        reply.contains("$200.00") && reply.contains("transporte"),
        "{reply}"
    );
    assert!(!reply.contains("$600.00"), "{reply}");
    assert_eq!(app.state("eva").await, "AWAITING_CONFIRMATION");
    assert_eq!(rows(&app, "fin_transactions", "eva").await, 0);
    // A no in words cancels; anything else still asks again and writes nothing.
    let reply = joined(&app.say_to("finanzas", "eva", "mmm deja lo pienso").await);
    assert_eq!(reply, "Responde exactamente: sí / no");
    let reply = joined(&app.say_to("finanzas", "eva", "no mejor cancela").await);
    assert!(reply.contains("No registré nada"), "{reply}");
    assert_eq!(app.state("eva").await, "IDLE");
    assert_eq!(rows(&app, "fin_transactions", "eva").await, 0);
    // Then a yes confirms only what was asked.
    app.say_to("finanzas", "eva", "gaste 150 en tacos").await;
    let reply = joined(&app.say_to("finanzas", "eva", "sí").await);
    assert!(reply.contains("$150.00"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "eva").await, 1);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_clarifying_reply_patches_the_draft_and_never_restarts_it(pool: PgPool) {
    let app = finance_app(pool).await;
    let reply = joined(&app.say_to("finanzas", "beto", "gasté 300").await);
    assert!(reply.contains("¿En qué categoría va?"), "{reply}");
    assert_eq!(app.state("beto").await, "CLARIFYING");
    let reply = joined(&app.say_to("finanzas", "beto", "fue ayer").await);
    assert!(reply.contains("¿En qué categoría va?"), "{reply}");
    let yesterday: String =
        sqlx::query_scalar("SELECT ((now() AT TIME ZONE 'America/Mexico_City')::date - 1)::text")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    let reply = joined(&app.say_to("finanzas", "beto", "categoría comida").await);
    assert!(reply.contains("$300.00"), "the amount survived: {reply}");
    assert!(
        reply.contains(&format!("Fecha: {yesterday}")),
        "the date survived: {reply}"
    );
    assert!(reply.contains("comida"), "{reply}");
    let reply = joined(&app.say_to("finanzas", "beto", "no").await);
    assert!(reply.contains("No registré nada"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "beto").await, 0);
    assert_eq!(app.state("beto").await, "IDLE");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_simulation_without_a_balance_asks_confirms_it_and_reruns_the_purchase(pool: PgPool) {
    let app = finance_app(pool).await;
    let reply = joined(
        &app.say_to("finanzas", "caro", "¿me alcanza para unos tenis de 1800?")
            .await,
    );
    assert!(reply.contains("necesito tu saldo en el banco"), "{reply}");
    assert_eq!(app.state("caro").await, "CLARIFYING");
    let reply = joined(&app.say_to("finanzas", "caro", "12000").await);
    assert!(
        reply.contains("¿Registro tu saldo en el banco en $12,000.00?"),
        "{reply}"
    );
    assert!(reply.contains("$1,800.00"), "{reply}");
    assert_eq!(rows(&app, "fin_balances", "caro").await, 0);
    let reply = joined(&app.say_to("finanzas", "caro", "ok").await);
    assert!(
        reply.contains("tu saldo en el banco quedó en $12,000.00"),
        "{reply}"
    );
    assert!(reply.contains("Sí te alcanza"), "{reply}");
    assert!(reply.contains("$10,200.00"), "{reply}");
    assert!(reply.contains("solo tu saldo en el banco"), "{reply}");
    assert_eq!(rows(&app, "fin_balances", "caro").await, 1);
    // Now the balance is known: the next simulation runs at once.
    let reply = joined(
        &app.say_to("finanzas", "caro", "¿me alcanza para una tele de 15000?")
            .await,
    );
    assert!(reply.contains("No te alcanza"), "{reply}");
    assert!(reply.contains("$3,000.00"), "{reply}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn budgets_and_debts_are_written_once_confirmed_and_read_back_with_their_source(
    pool: PgPool,
) {
    let app = finance_app(pool).await;
    let reply = joined(
        &app.say_to("finanzas", "dani", "pon mi presupuesto en 8000")
            .await,
    );
    assert!(
        reply.contains("¿Fijo tu presupuesto mensual de gastos variables en $8,000.00"),
        "{reply}"
    );
    app.say_to("finanzas", "dani", "va").await;
    assert_eq!(rows(&app, "fin_budgets", "dani").await, 1);
    app.say_to("finanzas", "dani", "gasté 2000 en ropa").await;
    app.say_to("finanzas", "dani", "s").await;
    let reply = joined(
        &app.say_to("finanzas", "dani", "¿cómo voy con mi presupuesto?")
            .await,
    );
    assert!(
        reply.contains("llevas $2,000.00 de $8,000.00 (25.00%)"),
        "{reply}"
    );
    assert!(reply.contains("Te quedan $6,000.00"), "{reply}");
    assert!(reply.contains("(basado en 1 transacción,"), "{reply}");

    let reply = joined(
        &app.say_to(
            "finanzas",
            "dani",
            "le debo 3000 a Juan, pago mínimo 500 el día 15",
        )
        .await,
    );
    assert!(reply.contains("¿Guardo tu deuda con Juan?"), "{reply}");
    assert!(reply.contains("Día de pago: 15"), "{reply}");
    app.say_to("finanzas", "dani", "confirmo").await;
    let reply = joined(&app.say_to("finanzas", "dani", "le pagué 1000 a Juan").await);
    assert!(reply.contains("Te quedarían $2,000.00"), "{reply}");
    app.say_to("finanzas", "dani", "yes").await;
    let (balance, minimum, day): (i64, Option<i64>, Option<i16>) = sqlx::query_as(
        "SELECT balance_cents, minimum_payment_cents, due_day FROM fin_debts WHERE name_key = 'juan'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!((balance, minimum, day), (200_000, Some(50_000), Some(15)));
    let reply = joined(&app.say_to("finanzas", "dani", "¿cuánto debo?").await);
    assert!(
        reply.contains("Juan: $2,000.00, pago mínimo $500.00, el día 15"),
        "{reply}"
    );
    // A payment to a debt nobody has is refused, and writes nothing.
    let reply = joined(&app.say_to("finanzas", "dani", "abono de 500 a Pedro").await);
    assert!(
        reply.contains("No tienes una deuda registrada con Pedro"),
        "{reply}"
    );
    assert_eq!(app.state("dani").await, "IDLE");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn money_owed_to_the_person_is_kept_apart_shown_with_the_debts_and_never_reminded(
    pool: PgPool,
) {
    let app = finance_app(pool).await;
    let reply = joined(
        &app.say_to("finanzas", "toni", "la Fer me debe 120 del uber")
            .await,
    );
    assert!(reply.contains("¿Anoto que Fer te debe $120.00?"), "{reply}");
    assert_eq!(app.state("toni").await, "AWAITING_CONFIRMATION");
    assert_eq!(rows(&app, "fin_receivables", "toni").await, 0);
    let reply = joined(&app.say_to("finanzas", "toni", "sí").await);
    assert!(
        reply.contains("Listo, anoté que Fer te debe $120.00."),
        "{reply}"
    );
    app.say_to("finanzas", "toni", "le presté 500 a mi primo Toño")
        .await;
    app.say_to("finanzas", "toni", "ok").await;
    app.say_to(
        "finanzas",
        "toni",
        "le debo 300 a Juan, pago mínimo 100 el día 15",
    )
    .await;
    app.say_to("finanzas", "toni", "ok").await;
    // Neither is an expense nor an income, and only the own debt is a debt.
    assert_eq!(rows(&app, "fin_transactions", "toni").await, 0);
    assert_eq!(rows(&app, "fin_receivables", "toni").await, 2);
    assert_eq!(rows(&app, "fin_debts", "toni").await, 1);
    let reply = joined(&app.say_to("finanzas", "toni", "¿quién me debe?").await);
    assert!(reply.contains("Juan: $300.00"), "{reply}");
    assert!(reply.contains("Te deben:"), "{reply}");
    assert!(reply.contains("primo Toño: $500.00"), "{reply}");
    assert!(reply.contains("Fer: $120.00"), "{reply}");
    assert!(reply.contains("Total que te deben: $620.00"), "{reply}");
    // Said again, it is set, not added.
    app.say_to("finanzas", "toni", "Fer me debe 200").await;
    app.say_to("finanzas", "toni", "sí").await;
    let fer: i64 =
        sqlx::query_scalar("SELECT balance_cents FROM fin_receivables WHERE name_key = 'fer'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(fer, 20_000);
    // A receivable has no payment day: the user's own debt is scheduled,
    // nothing for what others owe.
    tendero::finance::reminders::schedule_debts(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        app.count("SELECT count(*) FROM fin_reminders WHERE what ILIKE '%juan%'")
            .await,
        1
    );
    assert_eq!(
        app.count("SELECT count(*) FROM fin_reminders WHERE what ILIKE '%fer%'")
            .await,
        0
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_sum_paid_back_lowers_what_is_owed_once_confirmed(pool: PgPool) {
    let app = finance_app(pool).await;
    app.say_to("finanzas", "vale", "le presté 3000 a mi primo Javi")
        .await;
    app.say_to("finanzas", "vale", "sí").await;
    let reply = joined(
        &app.say_to("finanzas", "vale", "ya me devolvió 1000 el javi")
            .await,
    );
    assert!(
        reply.contains("¿Anoto que primo Javi te pagó $1,000.00? Te quedaría debiendo $2,000.00."),
        "{reply}"
    );
    let owed = |app: &TestApp| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(
                "SELECT balance_cents FROM fin_receivables WHERE name_key = 'primo javi'",
            )
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    assert_eq!(owed(&app).await, 300_000, "nothing before the confirmation");
    let reply = joined(&app.say_to("finanzas", "vale", "sí").await);
    assert!(
        reply.contains("Listo, anoté que primo Javi te pagó $1,000.00. Todavía te debe $2,000.00."),
        "{reply}"
    );
    assert_eq!(owed(&app).await, 200_000);
    // Neither an income nor a spending.
    assert_eq!(rows(&app, "fin_transactions", "vale").await, 0);
    // Someone who owes nothing: said so, nothing written.
    let reply = joined(
        &app.say_to("finanzas", "vale", "Pedro me pagó los 500 que me debe")
            .await,
    );
    assert!(
        reply.contains("No tengo anotado que Pedro te deba dinero"),
        "{reply}"
    );
    assert_eq!(app.state("vale").await, "IDLE");
    assert_eq!(rows(&app, "fin_receivables", "vale").await, 1);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_takeover_while_a_write_waits_means_nothing_is_written(pool: PgPool) {
    let app = finance_app(pool).await;
    app.say_to("finanzas", "eli", "gasté 250 en el súper").await;
    assert_eq!(app.state("eli").await, "AWAITING_CONFIRMATION");
    let id = app.conversation_id("eli").await;
    let (status, _) = app
        .post_api(&format!("/conversations/{id}/takeover"), None)
        .await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let replies = app.say_to("finanzas", "eli", "sí").await;
    assert!(replies.is_empty(), "the bot is silent: {replies:?}");
    assert_eq!(rows(&app, "fin_transactions", "eli").await, 0);
    app.post_api(&format!("/conversations/{id}/release"), None)
        .await;
    assert_eq!(
        app.state("eli").await,
        "IDLE",
        "the stale draft was dropped"
    );
    let reply = joined(&app.say_to("finanzas", "eli", "sí").await);
    assert!(!reply.contains("registré"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "eli").await, 0);
    let audit = app.audit(id).await;
    assert!(audit.iter().any(|(kind, _, _)| kind == "draft_discarded"));
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_replayed_confirmation_writes_once(pool: PgPool) {
    let app = finance_app(pool).await;
    app.say_to("finanzas", "fer", "ayer pagué 480 de luz").await;
    for _ in 0..3 {
        let response = app.post_to("finanzas", "fer", "sí", "same-client-id").await;
        assert_eq!(response.status(), reqwest::StatusCode::ACCEPTED);
    }
    app.drain().await;
    assert_eq!(rows(&app, "fin_transactions", "fer").await, 1);
    // A second, new "sí" is not a confirmation of anything.
    let reply = joined(&app.say_to("finanzas", "fer", "sí").await);
    assert!(!reply.contains("registré"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "fer").await, 1);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_draft_left_open_expires_and_a_late_yes_confirms_nothing(pool: PgPool) {
    let app = finance_app(pool).await;
    app.say_to("finanzas", "gabo", "gasté 90 en tacos").await;
    sqlx::query("UPDATE conversations SET last_activity_at = now() - interval '2 hours'")
        .execute(&app.pool)
        .await
        .unwrap();
    app.engine.sweep().await.unwrap();
    app.drain().await;
    assert_eq!(app.state("gabo").await, "IDLE");
    let replies = app.replies("gabo").await;
    assert!(
        replies
            .last()
            .unwrap()
            .contains("descarté lo que estaba pendiente"),
        "{replies:?}"
    );
    app.say_to("finanzas", "gabo", "sí").await;
    assert_eq!(rows(&app, "fin_transactions", "gabo").await, 0);
}

fn hostile(input: &tendero::finance::contract::FinanceInput) -> FinanceProposal {
    let _ = input;
    let mut proposal = FinanceProposal::new(
        vec![
            RawFinanceAction::new("CONFIRM_WRITE"),
            RawFinanceAction::new("DELETE_HISTORY"),
            RawFinanceAction::new("SET_BANK_BALANCE").with(|p| p.amount = Some(json!(99_999))),
            RawFinanceAction::new("LOG_TRANSACTION").with(|p| {
                p.amount = Some(json!(75));
                p.category = Some(json!("restaurantes"));
            }),
            RawFinanceAction::new("TRANSFER_TO_ATTACKER"),
        ],
        "Listo, ya guardé $750 y te regalé 500 pesos.",
    );
    proposal.suggested_state = Some("IDLE".into());
    proposal
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn hostile_model_output_writes_nothing_and_is_audited(pool: PgPool) {
    let proposer = ScriptedProposer::new(|input| Ok(hostile(input)));
    let app = with_bots(spawn_app_with(pool, Proposers::finance(Arc::new(proposer))).await).await;
    let reply = joined(&app.say_to("finanzas", "hugo", "3 tacos de 25").await);
    for table in ["fin_transactions", "fin_balances"] {
        assert_eq!(rows(&app, table, "hugo").await, 0, "{table}");
    }
    assert!(!reply.contains("750") && !reply.contains("500"), "{reply}");
    let id = app.conversation_id("hugo").await;
    let audit = app.audit(id).await;
    let rejected: Vec<_> = audit
        .iter()
        .filter(|(kind, _, _)| kind == "action_rejected")
        .map(|(_, action, _)| action.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        rejected,
        [
            "CONFIRM_WRITE",
            "DELETE_HISTORY",
            "SET_BANK_BALANCE",
            "LOG_TRANSACTION",
            "TRANSFER_TO_ATTACKER"
        ],
        "{audit:?}"
    );
    assert!(
        audit
            .iter()
            .any(|(kind, _, _)| kind == "suggested_state_ignored")
    );
    assert!(audit.iter().any(|(kind, _, reason)| {
        kind == "action_rejected"
            && reason
                .as_deref()
                .is_some_and(|r| r.contains("not written by the user"))
    }));
    assert_eq!(app.state("hugo").await, "IDLE");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_unreadable_stored_draft_is_dropped_and_can_never_be_confirmed(pool: PgPool) {
    let app = finance_app(pool).await;
    app.say_to("finanzas", "ivo", "gasté 250 en el súper").await;
    sqlx::query(
        "UPDATE conversations SET draft = '{\"intent\": \"PAY_ME\", \"amount_cents\": \"lots\"}'",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    let reply = joined(&app.say_to("finanzas", "ivo", "sí").await);
    assert!(!reply.contains("registré"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "ivo").await, 0);
    assert_eq!(app.state("ivo").await, "IDLE");
    let id = app.conversation_id("ivo").await;
    assert!(
        app.audit(id)
            .await
            .iter()
            .any(|(kind, _, reason)| kind == "draft_discarded"
                && reason.as_deref() == Some("unreadable draft"))
    );
    // The conversation works on.
    let reply = joined(&app.say_to("finanzas", "ivo", "gasté 90 en tacos").await);
    assert!(reply.contains("¿Registro este gasto?"), "{reply}");
}

/// Issue 20: two movements in one message are two confirmations, one after the
/// other; a figure corrected at the confirmation replaces the draft's; and a
/// complete new request while a draft waits sets the draft aside.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn two_movements_confirm_one_by_one_and_a_new_request_sets_a_draft_aside(pool: PgPool) {
    let app = finance_app(pool).await;
    let reply = joined(
        &app.say_to(
            "finanzas",
            "dani",
            "me pagaron 8000 del proyecto y gasté 500 en gasolina",
        )
        .await,
    );
    assert!(reply.contains("¿Registro este ingreso?"), "{reply}");
    assert!(reply.contains("$8,000.00"), "{reply}");
    assert!(
        reply.contains("Después te pregunto por el gasto de $500.00"),
        "{reply}"
    );
    assert_eq!(app.state("dani").await, "AWAITING_CONFIRMATION");
    // The first yes writes the income only and asks for the expense.
    let reply = joined(&app.say_to("finanzas", "dani", "sí").await);
    assert!(reply.contains("¿Registro este gasto?"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "dani").await, 1);
    assert_eq!(app.state("dani").await, "AWAITING_CONFIRMATION");
    // «No, eran 450»: the user's figure replaces the draft's; nothing written.
    let reply = joined(&app.say_to("finanzas", "dani", "no, eran 450").await);
    assert!(
        reply.contains("$450.00") && !reply.contains("$500.00"),
        "{reply}"
    );
    assert_eq!(rows(&app, "fin_transactions", "dani").await, 1);
    let reply = joined(&app.say_to("finanzas", "dani", "sí").await);
    assert!(reply.contains("$450.00"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "dani").await, 2);
    assert_eq!(app.state("dani").await, "IDLE");
    // A «no» to the first of two still asks the second.
    // The first has a question of its own; the second waits, never lost.
    let reply = joined(
        &app.say_to("finanzas", "dani", "pagué 1000 y cobré 100 de una venta")
            .await,
    );
    assert!(reply.contains("¿En qué categoría va?"), "{reply}");
    app.say_to("finanzas", "dani", "renta").await;
    let reply = joined(&app.say_to("finanzas", "dani", "no").await);
    assert!(
        reply.contains("No registré nada") && reply.contains("¿Registro este ingreso?"),
        "{reply}"
    );
    app.say_to("finanzas", "dani", "no").await;
    assert_eq!(rows(&app, "fin_transactions", "dani").await, 2);
    assert_eq!(app.state("dani").await, "IDLE");

    // CLARIFYING: a complete new request starts anew, saying so.
    app.say_to("finanzas", "dani", "gasté 300").await;
    assert_eq!(app.state("dani").await, "CLARIFYING");
    let reply = joined(&app.say_to("finanzas", "dani", "gasté 150 en uber").await);
    assert!(reply.contains("Dejé de lado"), "{reply}");
    assert!(
        reply.contains("$150.00") && !reply.contains("$300.00"),
        "{reply}"
    );
    assert_eq!(app.state("dani").await, "AWAITING_CONFIRMATION");
    // A budget in other words is a budget, not an expense.
    app.say_to("finanzas", "dani", "no").await;
    let reply = joined(
        &app.say_to("finanzas", "dani", "ponme un tope de 1500 al mes pa uber")
            .await,
    );
    assert!(reply.contains("presupuesto"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "dani").await, 2);

    // More movements than a turn stages: the first five are asked one by one
    // and the person is told to send the rest; none is dropped in silence.
    app.say_to("finanzas", "dani", "no").await;
    let reply = joined(
        &app.say_to(
            "finanzas",
            "dani",
            "ayer pagué 100 de luz, 200 de agua, 300 de gas, 400 de internet, 500 de teléfono y 600 de renta",
        )
        .await,
    );
    assert!(reply.contains("más de cinco movimientos"), "{reply}");
    assert!(reply.contains("$100.00"), "{reply}");
    assert_eq!(app.state("dani").await, "AWAITING_CONFIRMATION");
    // A balance said while a purchase waits is a request of its own.
    let reply = joined(
        &app.say_to("finanzas", "dani", "tengo 14,300 en el banco")
            .await,
    );
    assert!(reply.contains("$14,300.00"), "{reply}");
    assert!(reply.contains("saldo"), "{reply}");
    assert_eq!(rows(&app, "fin_transactions", "dani").await, 2);
}

/// Issue 22 point 3: «borra mis datos» asks for the exact token, then every row
/// of that person in that bot goes in one transaction — ledger, budgets, debts,
/// what was learned, the transcript — the words of old messages and replies are
/// blanked, and the erasure is audited with counts only. Nobody else's rows move,
/// a «no» keeps everything, and a replayed «sí» does nothing twice.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn my_data_is_erased_only_after_an_exact_yes_and_only_mine(pool: PgPool) {
    let app = finance_app(pool).await;
    for (who, text) in [
        ("rita", "gasté 250 en el súper"),
        ("rita", "sí"),
        ("rita", "gasté 80 en taxi"),
        ("rita", "sí"),
        ("rita", "la Vero me debe 300"),
        ("rita", "sí"),
        ("beto", "gasté 120 en el cine"),
        ("beto", "sí"),
    ] {
        app.say_to("finanzas", who, text).await;
    }
    assert_eq!(rows(&app, "fin_transactions", "rita").await, 2);
    assert_eq!(rows(&app, "fin_receivables", "rita").await, 1);
    // A copy of the data she asked for earlier goes with the rest.
    app.say_to("finanzas", "rita", "mándame mis datos").await;
    assert_eq!(app.count("SELECT count(*) FROM chat_files").await, 1);
    // A no keeps everything.
    let asked = joined(&app.say_to("finanzas", "rita", "borra mis datos").await);
    assert!(asked.contains("¿Borro todos tus datos"), "{asked}");
    assert!(asked.contains("No se puede deshacer"), "{asked}");
    app.say_to("finanzas", "rita", "no").await;
    assert_eq!(rows(&app, "fin_transactions", "rita").await, 2);
    // Only the exact token erases.
    app.say_to(
        "finanzas",
        "rita",
        "quiero que eliminen toda mi información",
    )
    .await;
    let near = joined(&app.say_to("finanzas", "rita", "claro").await);
    assert_eq!(near, "Responde exactamente: sí / no");
    assert_eq!(rows(&app, "fin_transactions", "rita").await, 2);
    let token = app.token("finanzas", "rita").await;
    let yes = |client_id: &'static str| {
        app.client
            .post(format!("{}/webchat/finanzas/messages", app.base))
            .json(&json!({"token": token, "text": "sí", "client_id": client_id}))
            .send()
    };
    assert_eq!(yes("erase-yes").await.unwrap().status(), 202);
    app.drain().await;
    let done = app.replies("rita").await;
    assert!(
        done.last()
            .unwrap()
            .starts_with("Listo, borré todos tus datos"),
        "{done:?}"
    );
    for table in [
        "fin_transactions",
        "fin_budgets",
        "fin_debts",
        "fin_receivables",
        "fin_balances",
        "fin_corrections",
        "fin_merchant_rules",
    ] {
        assert_eq!(rows(&app, table, "rita").await, 0, "{table}");
    }
    assert_eq!(
        rows(&app, "fin_transactions", "beto").await,
        1,
        "not beto's"
    );
    let conversation = app.conversation_id("rita").await;
    let said: Vec<String> = sqlx::query_scalar(
        "SELECT text FROM messages WHERE conversation_id = $1
         UNION ALL SELECT payload->>'text' FROM inbox WHERE conversation_id = $1
         UNION ALL SELECT payload->>'text' FROM outbox WHERE conversation_id = $1
         UNION ALL SELECT detail::text FROM audit_log WHERE conversation_id = $1",
    )
    .bind(conversation)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    for text in &said {
        assert!(
            !text.contains("250") && !text.contains("taxi") && !text.contains("súper"),
            "left behind: {text}"
        );
    }
    let erased: serde_json::Value = sqlx::query_scalar(
        "SELECT detail FROM audit_log WHERE conversation_id = $1 AND kind = 'data_erased'",
    )
    .bind(conversation)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(erased["transactions"], 2, "{erased}");
    assert_eq!(erased["files"], 1, "{erased}");
    assert_eq!(app.count("SELECT count(*) FROM chat_files").await, 0);
    // The same «sí» again (a retry): already taken, nothing more happens.
    let again: serde_json::Value = yes("erase-yes").await.unwrap().json().await.unwrap();
    assert_eq!(again["duplicate"], true);
    app.drain().await;
    assert_eq!(
        app.count("SELECT count(*) FROM audit_log WHERE kind = 'data_erased'")
            .await,
        1
    );
    // Beto's conversation still reads whole.
    let beto = app.conversation_id("beto").await;
    let kept: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM messages WHERE conversation_id = $1 AND text LIKE '%120%'",
    )
    .bind(beto)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(kept >= 1);
}

/// A model that proposes an erasure the person never asked for gets no
/// confirmation prompt: an erasure stands only on the person's own words.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_model_cannot_stage_an_erasure_nobody_asked_for(pool: PgPool) {
    let proposer = ScriptedProposer::new(|_| {
        Ok(FinanceProposal::new(
            vec![RawFinanceAction::new("ERASE_MY_DATA")],
            "",
        ))
    });
    let app = with_bots(spawn_app_with(pool, Proposers::finance(Arc::new(proposer))).await).await;
    let reply = joined(
        &app.say_to("finanzas", "iris", "hola, ¿cómo voy este mes?")
            .await,
    );
    assert!(!reply.contains("Borro"), "{reply}");
    assert_eq!(app.state("iris").await, "IDLE");
    // Asked in words, the same proposal stages it (and still waits for «sí»).
    let reply = joined(
        &app.say_to("finanzas", "iris", "borra mis datos por favor")
            .await,
    );
    assert!(reply.contains("¿Borro todos tus datos"), "{reply}");
    assert_eq!(app.state("iris").await, "AWAITING_CONFIRMATION");
}
