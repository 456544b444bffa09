//! Webhooks stay fast and exactly-once while workers are busy or Redis goes away.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::StatusCode;
use tendero::config::Secret;
use tendero::proposal::ProposerError;
use tendero::shop::contract::{Proposal, ProposalInput};
use tendero::shop::proposer::{Proposer, RulesProposer, ShopContract};
use tendero::startup::Proposers;
use tokio::sync::{Notify, mpsc};

use crate::channels::{TG_SECRET, channel_app, post_telegram, settle, tg_text};

/// Holds the first proposal until released; later ones pass straight through.
struct Gate {
    started: mpsc::UnboundedSender<()>,
    release: Arc<Notify>,
    first: std::sync::atomic::AtomicBool,
}

#[async_trait]
impl Proposer<ShopContract> for Gate {
    fn name(&self) -> &'static str {
        "gate"
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        if self.first.swap(false, std::sync::atomic::Ordering::SeqCst) {
            let _ = self.started.send(());
            self.release.notified().await;
        }
        Proposer::<ShopContract>::propose(&RulesProposer, input).await
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_webhook_answers_while_the_worker_is_busy(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool.clone(), |_| {}).await;
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let release = Arc::new(Notify::new());
    let gate = Arc::new(Gate {
        started: started_tx,
        release: release.clone(),
        first: true.into(),
    });
    let busy = tendero::startup::engine(&pool, &app.settings, &Proposers::shop(gate));
    assert_eq!(
        post_telegram(&app, &tg_text(1, "quiero 1 brownie"), Some(TG_SECRET)).await,
        StatusCode::OK
    );
    let turn = tokio::spawn(async move { busy.run_once().await.unwrap() });
    started.recv().await.unwrap();
    // A turn is stuck in its proposer; the platform's next deliveries are still
    // acknowledged promptly, stored, and queued behind it.
    let follow_ups = ["quiero 1 matcha", "quiero 1 croissant", "quiero 1 limonada"];
    for (id, text) in (2..=4).zip(follow_ups) {
        let answer = tokio::time::timeout(
            Duration::from_secs(5),
            post_telegram(&app, &tg_text(id, text), Some(TG_SECRET)),
        )
        .await
        .expect("the acknowledgement does not wait for the turn");
        assert_eq!(answer, StatusCode::OK);
    }
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE status = 'pending'")
            .await,
        4
    );
    release.notify_one();
    turn.await.unwrap();
    settle(&app).await;
    assert_eq!(
        app.cart("555000111").await,
        vec![
            ("brownie".into(), 1),
            ("matcha".into(), 1),
            ("croissant".into(), 1),
            ("limonada".into(), 1)
        ]
    );
    // What arrived during the busy turn was answered together, in one reply.
    assert_eq!(fake.calls("sendMessage").len(), 2);
}

/// A TCP proxy in front of the real Redis that the test can cut.
struct RedisProxy {
    port: u16,
    tasks: Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl RedisProxy {
    async fn start() -> RedisProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let tasks: Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>> = Arc::default();
        let registry = tasks.clone();
        let accept = tokio::spawn(async move {
            loop {
                let Ok((mut client, _)) = listener.accept().await else {
                    return;
                };
                let conn = tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect("127.0.0.1:6379").await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                registry.lock().unwrap().push(conn.abort_handle());
            }
        });
        tasks.lock().unwrap().push(accept.abort_handle());
        RedisProxy { port, tasks }
    }

    fn stop(&self) {
        for task in self.tasks.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn redis_stopping_mid_test_loses_and_doubles_nothing(pool: sqlx::PgPool) {
    let proxy = RedisProxy::start().await;
    let prefix = format!("test-{}", uuid::Uuid::new_v4().simple());
    let (app, fake) = channel_app(pool, |s| {
        s.redis_url = Some(Secret::new(format!("redis://127.0.0.1:{}", proxy.port)));
        s.redis_prefix = prefix.clone();
    })
    .await;
    let text = |id: u64| match id {
        1 => tg_text(1, "quiero 1 brownie"),
        2 => tg_text(2, "quiero 1 matcha"),
        _ => tg_text(id, "quiero 1 croissant"),
    };
    for id in 1..=2 {
        assert_eq!(
            post_telegram(&app, &text(id), Some(TG_SECRET)).await,
            StatusCode::OK
        );
    }
    proxy.stop();
    // Retries of what was stored, and a new message, while Redis is gone.
    let deliveries = [1, 2, 3, 1, 2, 3].map(text);
    let answers = futures::future::join_all(
        deliveries
            .iter()
            .map(|u| post_telegram(&app, u, Some(TG_SECRET))),
    )
    .await;
    assert!(answers.iter().all(|s| *s == StatusCode::OK), "{answers:?}");
    settle(&app).await;
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 3);
    assert_eq!(
        app.cart("555000111").await,
        vec![
            ("brownie".into(), 1),
            ("matcha".into(), 1),
            ("croissant".into(), 1)
        ],
        "every message applied once"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE status = 'done'")
            .await,
        3
    );
    let turns = app.count("SELECT count(*) FROM outbox").await;
    assert_eq!(
        fake.calls("sendMessage").len() as i64,
        turns,
        "one reply per turn, none twice"
    );
}
