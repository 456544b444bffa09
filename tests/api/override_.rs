//! Human override means silence: before a turn, at its commit, and at dispatch.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::json;
use tendero::proposal::ProposerError;
use tendero::shop::contract::{Proposal, ProposalInput, ProposedAction};
use tendero::shop::proposer::{Proposer, ShopContract};
use tendero::startup::Proposers;
use tokio::sync::{Notify, mpsc};

use crate::helpers::{spawn_app, spawn_app_with};

/// Signals when it starts proposing, then waits for permission to answer.
struct Gate {
    started: mpsc::UnboundedSender<()>,
    release: Arc<Notify>,
}

#[async_trait]
impl Proposer<ShopContract> for Gate {
    fn name(&self) -> &'static str {
        "gate"
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        let _ = self.started.send(());
        self.release.notified().await;
        let id = input.product_catalog[0].product_id;
        Ok(Proposal::new(
            vec![ProposedAction::new("ADD_TO_CART").product(id).quantity(2)],
            "¡Listo!",
        ))
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_takeover_during_an_in_flight_proposal_means_the_bot_sends_nothing(pool: sqlx::PgPool) {
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let release = Arc::new(Notify::new());
    let app = spawn_app_with(
        pool,
        Proposers::shop(Arc::new(Gate {
            started: started_tx,
            release: release.clone(),
        })),
    )
    .await;
    app.post_message("hugo", "quiero 2 maracuyá", "h-1").await;
    let conversation_id = {
        // The conversation exists once the message is stored.
        app.conversation_id("hugo").await
    };
    let turn = {
        let engine_done = async { app.engine.run_once().await.unwrap() };
        let takeover = async {
            started.recv().await.unwrap();
            let (status, body) = app
                .post_api(&format!("/conversations/{conversation_id}/takeover"), None)
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            assert_eq!(body["human_override"], true);
            release.notify_one();
        };
        tokio::join!(engine_done, takeover).0
    };
    assert_eq!(turn, tendero::engine::ExecutionOutcome::Worked);
    app.dispatcher.run_until_idle().await.unwrap();

    assert!(app.replies("hugo").await.is_empty(), "the bot said nothing");
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);
    assert!(
        app.cart("hugo").await.is_empty(),
        "the proposal was discarded"
    );
    assert_eq!(app.state("hugo").await, "HUMAN_TAKEOVER");
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE status = 'done'")
            .await,
        1
    );
    let audit = app.audit(conversation_id).await;
    assert!(
        audit.iter().any(|(kind, _, _)| kind == "turn_skipped"),
        "{audit:?}"
    );
    assert!(
        audit
            .iter()
            .any(|(kind, _, reason)| kind == "override_changed"
                && reason.as_deref() == Some("merchant takeover"))
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn under_override_messages_reach_the_transcript_only_and_release_restores_the_state(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    let s = "ines";
    app.say(s, "quiero 2 maracuyá").await;
    let id = app.conversation_id(s).await;
    let (status, _) = app
        .post_api(&format!("/conversations/{id}/takeover"), None)
        .await;
    assert_eq!(status, StatusCode::OK);

    let silent = app.say(s, "hola? quiero 3 matcha").await;
    assert!(silent.is_empty(), "{silent:?}");
    assert_eq!(app.cart(s).await, vec![("maracuya".into(), 2)]);

    let (status, body) = app
        .post_api(
            &format!("/conversations/{id}/reply"),
            Some(json!({"text": "Hola Inés, soy Marta."})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    app.drain().await;
    assert_eq!(
        app.replies(s).await.last().unwrap(),
        "Hola Inés, soy Marta."
    );
    let detail = app.get_json(&format!("/conversations/{id}")).await;
    let transcript: Vec<&str> = detail["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert!(transcript.contains(&"hola? quiero 3 matcha"));

    let (status, body) = app
        .post_api(&format!("/conversations/{id}/release"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["state"], "CART_OPEN");
    let (status, _) = app
        .post_api(&format!("/conversations/{id}/release"), None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "releasing twice is refused");

    let back = app.say(s, "quiero 1 matcha").await;
    assert!(
        back[0].contains("Agregué 1 × Matcha"),
        "the bot speaks again: {back:?}"
    );

    // Release to IDLE on request.
    app.post_api(&format!("/conversations/{id}/takeover"), None)
        .await;
    let (_, body) = app
        .post_api(
            &format!("/conversations/{id}/release"),
            Some(json!({"to": "IDLE"})),
        )
        .await;
    assert_eq!(body["state"], "IDLE");
    let (status, _) = app
        .post_api(
            &format!("/conversations/{id}/release"),
            Some(json!({"to": "COMPLETED"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn asking_for_a_person_turns_the_override_on_and_the_notice_goes_out_once(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    let s = "jose";
    let notice = app.say(s, "quiero hablar con una persona").await;
    assert_eq!(notice.len(), 1);
    assert!(notice[0].contains("Te comunico con una persona"));
    assert_eq!(app.state(s).await, "HUMAN_TAKEOVER");
    assert!(app.say(s, "hola??").await.is_empty());
    assert!(
        app.say(s, "quiero hablar con una persona").await.is_empty(),
        "no second notice"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_dispatcher_never_sends_a_bot_message_to_a_conversation_under_override(
    pool: sqlx::PgPool,
) {
    // Telegram: the reply waits in the outbox for the dispatcher. (Web chat has no
    // wait: its reply is delivered by the commit, which checks the override itself.)
    let (app, fake) = crate::channels::channel_app(pool, |_| {}).await;
    crate::channels::post_telegram(
        &app,
        &crate::channels::tg_text(1, "quiero 1 croissant"),
        Some(crate::channels::TG_SECRET),
    )
    .await;
    app.engine.run_until_idle().await.unwrap();
    // The reply is queued; a person takes over before it goes out.
    let id = app.conversation_id("555000111").await;
    let (status, _) = app
        .post_api(&format!("/conversations/{id}/takeover"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    app.dispatcher.run_until_idle().await.unwrap();
    assert!(fake.calls("sendMessage").is_empty());
    let status: String = sqlx::query_scalar("SELECT status FROM outbox")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(status, "suppressed");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_web_chat_bot_message_queued_under_override_is_suppressed_at_once(pool: sqlx::PgPool) {
    // Web chat delivers at commit; a bot-authored row written while the override
    // is on (a parked event's apology, say) is recorded as suppressed, never sent.
    let app = spawn_app(pool).await;
    app.say("karla", "hola").await;
    let id = app.conversation_id("karla").await;
    app.post_api(&format!("/conversations/{id}/takeover"), None)
        .await;
    let mut tx = app.pool.begin().await.unwrap();
    tendero::outbox::enqueue(
        &mut tx,
        id,
        tendero::outbox::Author::Bot,
        &tendero::channels::OutPayload {
            template: None,
            text: "no debe salir".into(),
            choices: Vec::new(),
            file: None,
        },
        None,
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    assert!(
        !app.replies("karla")
            .await
            .iter()
            .any(|r| r == "no debe salir")
    );
    let status: String =
        sqlx::query_scalar("SELECT status FROM outbox WHERE payload->>'text' = 'no debe salir'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(status, "suppressed");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_forgotten_takeover_goes_back_to_the_bot_after_the_idle_time(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("rosa", "quiero 1 matcha").await;
    app.say("beto", "quiero 1 brownie").await;
    let (rosa, beto) = (
        app.conversation_id("rosa").await,
        app.conversation_id("beto").await,
    );
    for id in [rosa, beto] {
        let (status, _) = app
            .post_api(&format!("/conversations/{id}/takeover"), None)
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    // Rosa writes while nobody answers; the bot stays silent.
    assert!(app.say("rosa", "¿hola? ¿hay alguien?").await.is_empty());
    let (status, body) = app
        .patch_bot("demo-shop", serde_json::json!({"takeover_idle_secs": 30}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = app
        .patch_bot("demo-shop", serde_json::json!({"takeover_idle_secs": 600}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["takeover_idle_secs"], 600);
    sqlx::query("UPDATE bots SET merchant_chat_id = '777' WHERE slug = 'demo-shop'")
        .execute(&app.pool)
        .await
        .unwrap();
    // Not yet idle long enough: nothing happens.
    app.engine.sweep().await.unwrap();
    assert_eq!(app.state("rosa").await, "HUMAN_TAKEOVER");
    // Eleven minutes later; the merchant answered Beto a minute ago.
    sqlx::query("UPDATE conversations SET override_at = now() - interval '11 minutes'")
        .execute(&app.pool)
        .await
        .unwrap();
    let (status, _) = app
        .post_api(
            &format!("/conversations/{beto}/reply"),
            Some(serde_json::json!({"text": "Ya te atiendo"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let replies_before = app.replies("rosa").await.len();
    app.engine.sweep().await.unwrap();
    app.drain().await;
    assert_eq!(app.state("rosa").await, "CART_OPEN", "back where it was");
    assert_eq!(
        app.state("beto").await,
        "HUMAN_TAKEOVER",
        "the merchant is there"
    );
    assert_eq!(
        app.replies("rosa").await.len(),
        replies_before,
        "what she wrote meanwhile is not answered after the fact"
    );
    let audit = app.audit(rosa).await;
    assert!(
        audit
            .iter()
            .any(|(kind, _, reason)| kind == "override_changed"
                && reason
                    .as_deref()
                    .is_some_and(|r| r.contains("no message from the merchant for 10 minutes"))),
        "{audit:?}"
    );
    let notice: String = sqlx::query_scalar(
        "SELECT payload->>'text' FROM outbox WHERE audience = 'merchant' AND conversation_id = $1",
    )
    .bind(rosa)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(notice.contains("volvió al bot"), "{notice}");
    // A second sweep changes nothing more; the bot answers her again.
    app.engine.sweep().await.unwrap();
    let replies = app.say("rosa", "quiero 1 croissant").await;
    assert!(replies[0].contains("Croissant"), "{replies:?}");
    // 0 turns the release off.
    let (status, body) = app
        .patch_bot("demo-shop", serde_json::json!({"takeover_idle_secs": 0}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(body["takeover_idle_secs"].is_null(), "{body}");
}
