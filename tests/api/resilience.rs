//! A failing turn never takes down the worker, and its event is never lost or spun on.

use std::sync::Arc;

use tendero::shop::proposer::ScriptedProposer;
use tendero::startup::Proposers;

use crate::helpers::spawn_app_with;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_panic_inside_one_turn_is_retried_then_parked_and_other_conversations_go_on(
    pool: sqlx::PgPool,
) {
    let proposer = ScriptedProposer::new(|input| {
        if input.customer_message.contains("boom") {
            panic!("proposer exploded");
        }
        Ok(tendero::shop::rules::propose(input))
    });
    let app = spawn_app_with(pool, Proposers::shop(Arc::new(proposer))).await;
    app.post_message("rosa", "boom", "r-1").await;
    app.post_message("rosa", "quiero 1 brownie", "r-2").await;
    app.post_message("sara", "quiero 2 matcha", "s-1").await;
    app.drain().await;

    // The other conversation was served.
    assert_eq!(app.cart("sara").await, vec![("matcha".into(), 2)]);
    // The failing event was tried the configured number of times, then parked with its error.
    let (status, attempts, error): (String, i32, String) = sqlx::query_as(
        "SELECT status, attempts, last_error FROM inbox WHERE external_id LIKE '%r-1'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(status, "parked");
    assert_eq!(
        attempts,
        app.settings.max_attempts + 1,
        "tries, then the parking pass"
    );
    assert!(error.contains("proposer exploded"), "{error}");
    // The poison message was first read together with the one behind it, then
    // isolated on its retry: the customer was told, and the next message still
    // ran, in order.
    let replies = app.replies("rosa").await;
    assert!(replies[0].contains("tuve un problema"), "{replies:?}");
    assert!(replies[1].contains("Agregué 1 × Brownie"));
    let parked = app
        .count("SELECT count(*) FROM audit_log WHERE kind = 'event_parked'")
        .await;
    assert_eq!(parked, 1);
    // Nothing is left spinning.
    assert_eq!(app.engine.run_until_idle().await.unwrap(), 0);
    // And an operator sees it on /metrics.
    let metrics = app
        .client
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("tendero_inbox_events{status=\"parked\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("tendero_conversations{state=\"CART_OPEN\"} 2"),
        "{metrics}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_failing_proposer_gets_the_customer_a_clarifying_question(pool: sqlx::PgPool) {
    let proposer = ScriptedProposer::new(|_| {
        Err(tendero::proposal::ProposerError::Failed(
            "server down".into(),
        ))
    });
    let app = spawn_app_with(pool, Proposers::shop(Arc::new(proposer))).await;
    let reply = app.say("tito", "quiero 2 maracuyá").await;
    assert!(
        reply[0].contains("No estoy seguro de haber entendido"),
        "{reply:?}"
    );
    assert!(app.cart("tito").await.is_empty());
}
