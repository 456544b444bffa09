//! The binary and the database bootstrap, as an operator meets them.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use tendero::config::Settings;

use crate::helpers::free_port;

/// Kills the server if the test fails before it is stopped, so a failed run
/// leaves no `tendero serve` behind to load the machine.
struct KillOnDrop(u32, bool);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if !self.1 {
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(self.0.to_string())
                .status();
        }
    }
}

#[tokio::test]
async fn serve_loads_the_demo_answers_and_stops_cleanly_on_sigterm() {
    tendero::startup::install_crypto_provider();
    // A database of its own, empty: the binary must migrate and load the demo itself.
    let admin_url = std::env::var("DATABASE_URL").expect("DATABASE_URL names the test server");
    let admin = sqlx::PgPool::connect(&admin_url).await.unwrap();
    let database = format!("tendero_serve_{}", uuid::Uuid::new_v4().simple());
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {database}")))
        .execute(&admin)
        .await
        .unwrap();
    let url = crate::helpers::database_url(&database);
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tendero"))
        .env("TENDERO_SECRET_KEY", tendero::config::TEST_SECRET_KEY)
        .arg("serve")
        .env("DATABASE_URL", &url)
        .env("TENDERO_LISTEN", format!("127.0.0.1:{port}"))
        .env("TENDERO_POLL_MS", "50")
        .env("TENDERO_SHUTDOWN_GRACE_SECS", "30")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut guard = KillOnDrop(child.id(), false);
    let stdout = child.stdout.take().unwrap();
    let lines = tokio::task::spawn_blocking(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .take_while(|l| !l.starts_with("Chat with the demo shop"))
            .collect::<Vec<_>>()
    });
    let lines = tokio::time::timeout(Duration::from_secs(60), lines)
        .await
        .unwrap()
        .unwrap();
    let printed = lines.join("\n");
    assert!(
        printed
            .contains("Loaded the demo shop `demo-shop` and the finance assistant `demo-finanzas`"),
        "{printed}"
    );
    assert!(printed.contains("Merchant API key for `demo`"), "{printed}");
    assert!(
        printed.contains(&format!("listening on http://127.0.0.1:{port}")),
        "{printed}"
    );

    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let (op, _) = crate::helpers::new_session(&client, &base, "demo-shop").await;
    let response = client
        .post(format!(
            "http://127.0.0.1:{port}/webchat/demo-shop/messages"
        ))
        .json(&serde_json::json!({"token": op, "text": "quiero 2 maracuyá", "client_id": "1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    // The running workers answer on their own; wait (bounded) for the delivery.
    let mut sent: i64 = 0;
    for _ in 0..200 {
        sent = sqlx::query_scalar("SELECT count(*) FROM outbox WHERE status = 'sent'")
            .fetch_one(&pool)
            .await
            .unwrap();
        if sent > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(sent, 1);
    // The finance assistant answers a new user from the sample history at once.
    let response = client
        .post(format!(
            "http://127.0.0.1:{port}/webchat/demo-finanzas/messages"
        ))
        .json(&serde_json::json!({"token": crate::helpers::new_session(&client, &base, "demo-finanzas").await.0,
                                  "text": "¿cuánto llevo en comida este mes?", "client_id": "1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    let mut answer: Option<String> = None;
    for _ in 0..200 {
        answer = sqlx::query_scalar(
            "SELECT o.payload->>'text' FROM outbox o JOIN bots b ON b.id = o.bot_id
             WHERE b.slug = 'demo-finanzas' AND o.status = 'sent'",
        )
        .fetch_optional(&pool)
        .await
        .unwrap();
        if answer.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answer = answer.expect("the finance bot answered");
    assert!(answer.contains("basado en"), "{answer}");
    let health = client
        .get(format!("http://127.0.0.1:{port}/readyz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);

    // Two customers keep their event streams open, idle, as browsers do.
    let mut streams = Vec::new();
    let someone_else = crate::helpers::new_session(&client, &base, "demo-shop")
        .await
        .0;
    for token in [op.clone(), someone_else] {
        let response = client
            .get(format!(
                "http://127.0.0.1:{port}/webchat/demo-shop/events?token={token}"
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        streams.push(tokio::spawn(async move { response.bytes().await.is_ok() }));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;

    let signalled = std::time::Instant::now();
    Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    guard.1 = true;
    let took = signalled.elapsed();
    assert!(
        status.success(),
        "SIGTERM ends the process cleanly: {status}"
    );
    // Nothing was in flight, so it must not sit out the 30 s grace period; the
    // streams were closed by the server, so clients reconnect elsewhere.
    println!("exit after SIGTERM with two idle event streams open: {took:?}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    for stream in streams {
        tokio::time::timeout(Duration::from_secs(5), stream)
            .await
            .expect("the event stream was closed by the server")
            .unwrap();
    }
    pool.close().await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE {database} WITH (FORCE)"
    )))
    .execute(&admin)
    .await
    .unwrap();
}

#[tokio::test]
async fn without_a_database_url_or_server_a_private_cluster_is_started() {
    let dir = std::env::temp_dir().join(format!("tendero-test-{}", uuid::Uuid::new_v4()));
    let mut settings = Settings::from_lookup(|_| None).unwrap();
    settings.local_pg = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    settings.data_dir = dir.clone();
    let database = tendero::db::connect(&settings)
        .await
        .expect("private cluster starts");
    assert!(
        database.origin.contains("private PostgreSQL cluster"),
        "{}",
        database.origin
    );
    tendero::db::migrate(&database.pool).await.unwrap();
    let tables: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'inbox'",
    )
    .fetch_one(&database.pool)
    .await
    .unwrap();
    assert_eq!(tables, 1);
    database.pool.close().await;
    database
        .cluster
        .expect("a cluster was started")
        .stop()
        .await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn with_no_postgres_anywhere_the_error_says_what_to_install_or_set() {
    let mut settings = Settings::from_lookup(|_| None).unwrap();
    settings.local_pg = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    settings.data_dir = std::env::temp_dir().join("tendero-never-created");
    let err = tendero::db::connect_searching(&settings, "/nonexistent".into())
        .await
        .err()
        .unwrap();
    let message = format!("{err:#}");
    assert!(
        message.contains("DATABASE_URL") && message.contains("initdb"),
        "{message}"
    );
    assert!(!settings.data_dir.exists());
}
