//! The command-line clients: `tendero chat` and `tendero merchant create-key`.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::helpers::spawn_app;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn tendero_chat_sends_lines_and_prints_the_replies(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tendero"))
        .env("TENDERO_SECRET_KEY", tendero::config::TEST_SECRET_KEY)
        .args([
            "chat",
            "demo-shop",
            "--url",
            &app.base,
            "--token",
            &app.token("demo-shop", "terminal-1").await,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all("hola\nquiero 2 maracuyá\n".as_bytes())
        .unwrap();
    // Serve the turns while the client waits for its replies (bounded).
    let output = tokio::task::spawn_blocking(move || child.wait_with_output());
    let worker = async {
        for _ in 0..100 {
            app.drain().await;
            if app.replies("terminal-1").await.len() >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let (output, ()) = tokio::join!(output, worker);
    let output = output.unwrap().unwrap();
    assert!(output.status.success());
    let printed = String::from_utf8(output.stdout).unwrap();
    assert!(
        printed.contains("bot> ¡Hola! Bienvenido a Café Demo."),
        "{printed}"
    );
    assert!(printed.contains("Agregué 2 × Maracuya"), "{printed}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn create_key_prints_a_working_key_alone_on_stdout(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let url = app.database_url();
    let run = move |merchant: &str| {
        Command::new(env!("CARGO_BIN_EXE_tendero"))
            .env("TENDERO_SECRET_KEY", tendero::config::TEST_SECRET_KEY)
            .args(["merchant", "create-key", merchant])
            .env("DATABASE_URL", &url)
            .env("RUST_LOG", "error")
            .output()
            .unwrap()
    };
    let output = tokio::task::spawn_blocking(move || (run("demo"), run("nobody")))
        .await
        .unwrap();
    let (ok, missing) = output;
    assert!(ok.status.success());
    let stdout = String::from_utf8(ok.stdout).unwrap();
    let key = stdout.trim_end();
    assert!(
        key.starts_with("tdr_") && !key.contains(char::is_whitespace),
        "{stdout:?}"
    );
    let (status, _) = app
        .api(reqwest::Method::GET, "/conversations", key, None)
        .await;
    assert_eq!(status, reqwest::StatusCode::OK);

    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no merchant `nobody`"));
    assert!(missing.stdout.is_empty());
}
