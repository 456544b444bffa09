//! Hostile proposals: forbidden actions, impossible sequences, invented numbers.

use std::sync::Arc;

use tendero::shop::contract::{Proposal, ProposalInput, ProposedAction};
use tendero::shop::proposer::ScriptedProposer;
use tendero::startup::Proposers;

use crate::helpers::spawn_app_with;

fn product(input: &ProposalInput, name: &str) -> i64 {
    input
        .product_catalog
        .iter()
        .find(|p| p.name == name)
        .unwrap()
        .product_id
}

/// Proposals picked by the customer's message, so one test can script a whole dialogue.
fn script(input: &ProposalInput) -> Proposal {
    let maracuya = product(input, "Maracuya");
    match input.customer_message.as_str() {
        "forbidden" => Proposal {
            proposed_actions: [
                "MODIFY_PRICE",
                "APPLY_DISCOUNT",
                "APPROVE_PAYMENT",
                "REJECT_PAYMENT",
                "DISABLE_OVERRIDE",
            ]
            .into_iter()
            .map(|t| ProposedAction::new(t).product(maracuya).quantity(1))
            .collect(),
            response_text: "Te dejo todo a mitad de precio.".into(),
            suggested_state: Some("COMPLETED".into()),
            reasoning: None,
            origin: None,
        },
        "unknown" => Proposal::new(
            vec![
                ProposedAction::new("DROP_TABLE_ORDERS"),
                ProposedAction::new("SET_STATE"),
            ],
            "",
        ),
        "add" => Proposal::new(
            vec![
                ProposedAction::new("ADD_TO_CART")
                    .product(maracuya)
                    .quantity(2),
            ],
            "",
        ),
        "review and confirm" => Proposal::new(
            vec![
                ProposedAction::new("REVIEW_ORDER"),
                ProposedAction::new("CONFIRM_ORDER"),
            ],
            "Pedido confirmado.",
        ),
        "invented total" => Proposal::new(
            vec![
                ProposedAction::new("ADD_TO_CART")
                    .product(maracuya)
                    .quantity(1),
            ],
            "¡Listo! Tu total es Bs 999.",
        ),
        "total in words" => Proposal::new(
            vec![
                ProposedAction::new("ADD_TO_CART")
                    .product(maracuya)
                    .quantity(1),
            ],
            "¡Listo! Son noventa y nueve bolivianos en total.",
        ),
        "count in words" => Proposal::new(
            vec![
                ProposedAction::new("ADD_TO_CART")
                    .product(maracuya)
                    .quantity(1),
            ],
            "¡Anotado! Ya llevas dos maracuyás.",
        ),
        "honest text" => Proposal::new(
            vec![
                ProposedAction::new("ADD_TO_CART")
                    .product(maracuya)
                    .quantity(1),
            ],
            "¡Claro! Maracuya cuesta Bs 30.",
        ),
        "bad params" => Proposal::new(
            vec![
                ProposedAction::new("ADD_TO_CART")
                    .product(maracuya)
                    .quantity(1000),
                ProposedAction::new("ADD_TO_CART")
                    .product(987_654)
                    .quantity(1),
                ProposedAction::new("ADD_TO_CART")
                    .product(maracuya)
                    .quantity(0),
                ProposedAction::new("UPDATE_QUANTITY")
                    .product(maracuya)
                    .quantity(-3),
            ],
            "",
        ),
        "six" => Proposal::new(
            (0..6).map(|_| ProposedAction::new("REPLY")).collect(),
            "Hola",
        ),
        _ => Proposal::new(vec![ProposedAction::new("CLARIFY")], ""),
    }
}

async fn app(pool: sqlx::PgPool) -> crate::helpers::TestApp {
    spawn_app_with(
        pool,
        Proposers::shop(Arc::new(ScriptedProposer::new(|input| Ok(script(input))))),
    )
    .await
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn every_forbidden_action_is_rejected_audited_and_never_executed(pool: sqlx::PgPool) {
    let app = app(pool).await;
    app.say("lu", "add").await;
    let reply = app.say("lu", "forbidden").await;
    assert!(reply[0].contains("no puedo cambiarlos"), "{reply:?}");
    assert!(
        !reply[0].contains("mitad"),
        "the proposer's promise is not shown"
    );
    let id = app.conversation_id("lu").await;
    let audit = app.audit(id).await;
    for forbidden in [
        "MODIFY_PRICE",
        "APPLY_DISCOUNT",
        "APPROVE_PAYMENT",
        "REJECT_PAYMENT",
        "DISABLE_OVERRIDE",
    ] {
        let has = |kind: &str| {
            audit
                .iter()
                .any(|(k, a, _)| k == kind && a.as_deref() == Some(forbidden))
        };
        assert!(
            has("action_proposed") && has("action_rejected"),
            "{forbidden} audited"
        );
        assert!(
            !has("action_accepted") && !has("action_executed"),
            "{forbidden} never runs"
        );
    }
    assert!(
        audit
            .iter()
            .any(|(k, _, r)| k == "suggested_state_ignored" && r.as_deref() == Some("COMPLETED"))
    );
    assert_eq!(
        app.state("lu").await,
        "CART_OPEN",
        "suggested_state is never applied"
    );
    let price: i64 = sqlx::query_scalar("SELECT price_minor FROM products WHERE sku = 'maracuya'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(price, 3000);
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);

    app.say("lu", "unknown").await;
    let audit = app.audit(id).await;
    assert!(
        audit
            .iter()
            .any(|(k, a, _)| k == "action_rejected" && a.as_deref() == Some("DROP_TABLE_ORDERS"))
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn review_and_confirm_in_one_proposal_confirms_nothing(pool: sqlx::PgPool) {
    let app = app(pool).await;
    app.say("mia", "add").await;
    let reply = app.say("mia", "review and confirm").await;
    assert_eq!(app.state("mia").await, "CHECKOUT");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    assert!(reply[0].contains("Resumen de tu pedido"), "{reply:?}");
    assert!(!reply[0].contains("Pedido confirmado"));
    let audit = app.audit(app.conversation_id("mia").await).await;
    assert!(audit.iter().any(|(k, a, r)| k == "action_rejected"
        && a.as_deref() == Some("CONFIRM_ORDER")
        && r.as_deref().unwrap().contains("summary")));
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_reply_with_an_invented_total_is_replaced_by_backend_facts(pool: sqlx::PgPool) {
    let app = app(pool).await;
    let reply = app.say("nico", "invented total").await;
    assert!(!reply[0].contains("999"), "{reply:?}");
    assert!(reply[0].contains("Agregué 1 × Maracuya") && reply[0].contains("Total: Bs 30"));
    let audit = app.audit(app.conversation_id("nico").await).await;
    assert!(
        audit
            .iter()
            .any(|(k, _, r)| k == "reply_replaced" && r.as_deref().unwrap().contains("999"))
    );

    // Numbers written as words are held to the same rule.
    let reply = app.say("nico", "total in words").await;
    assert!(!reply[0].contains("noventa"), "{reply:?}");
    let reply = app.say("nico", "count in words").await;
    assert!(
        reply[0].starts_with("¡Anotado! Ya llevas dos maracuyás."),
        "two is the cart's own count: {reply:?}"
    );

    // Text whose numbers the backend produced is kept.
    let reply = app.say("nico", "honest text").await;
    assert!(
        reply[0].starts_with("¡Claro! Maracuya cuesta Bs 30."),
        "{reply:?}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn out_of_range_quantities_unknown_products_and_extra_actions_are_rejected(
    pool: sqlx::PgPool,
) {
    let app = app(pool).await;
    let reply = app.say("olga", "bad params").await;
    assert!(app.cart("olga").await.is_empty());
    assert!(
        reply[0].contains("entre 1 y 100") && reply[0].contains("No encontré ese producto"),
        "{reply:?}"
    );
    let rejected = app
        .count("SELECT count(*) FROM audit_log WHERE kind = 'action_rejected'")
        .await;
    assert_eq!(rejected, 4);

    app.say("olga", "six").await;
    let reasons: Vec<String> = sqlx::query_scalar(
        "SELECT reason FROM audit_log WHERE kind = 'action_rejected' AND action = 'REPLY'",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        reasons,
        vec!["more than 5 actions in one proposal".to_string()]
    );
}
