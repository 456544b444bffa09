//! What an operator sees: JSON logs that tie every line of a turn to it and never
//! carry a secret, and latency histograms with bounded labels.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::fake_llm::{FakeLlm, Reply};

const LLM_KEY: &str = "sk-never-logged-0123456789";
const TG_TOKEN: &str = "424242:NEVER-LOGGED-TOKEN";
const TG_SECRET: &str = "never_logged_webhook_secret";
const WA_SECRET: &str = "never-logged-app-secret";

/// Kills the server if the test fails halfway, so no process outlives it.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn json_logs_tie_each_turn_line_to_its_turn_and_carry_no_secret() {
    tendero::startup::install_crypto_provider();
    let fake = FakeLlm::start().await;
    fake.push(Reply::Content(
        json!({"proposed_actions": [{"type": "SHOW_CATALOG"}], "response_text": "Con gusto."})
            .to_string(),
    ));
    let admin = sqlx::PgPool::connect(&std::env::var("DATABASE_URL").unwrap())
        .await
        .unwrap();
    let (pool, scratch) = tendero::db::create_scratch(&admin, "tendero_logs")
        .await
        .unwrap();
    let port = crate::helpers::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = Server(
        Command::new(env!("CARGO_BIN_EXE_tendero"))
            .arg("serve")
            .env("DATABASE_URL", crate::helpers::database_url(&scratch))
            .env("TENDERO_LISTEN", format!("127.0.0.1:{port}"))
            .env("TENDERO_SECRET_KEY", tendero::config::TEST_SECRET_KEY)
            .env("TENDERO_LOG_FORMAT", "json")
            .env("TENDERO_GATHER_MS", "0")
            .env(
                "RUST_LOG",
                "debug,sqlx=debug,hyper=info,h2=info,reqwest=info",
            )
            .env("OPENAI_BASE_URL", &fake.base_url)
            .env("OPENAI_API_KEY", LLM_KEY)
            // Every message goes to the model, so its call is logged.
            .env("TENDERO_LLM_RULES_FIRST", "false")
            .env("TELEGRAM_API_URL", "http://127.0.0.1:9")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let child = &mut server.0;
    let mut stderr = child.stderr.take().unwrap();
    let logs = std::thread::spawn(move || {
        let mut all = String::new();
        let _ = stderr.read_to_string(&mut all);
        all
    });
    let stdout = child.stdout.take().unwrap();
    let key = tokio::task::spawn_blocking(move || {
        // Read to the last line serve prints, so it never writes to a closed pipe.
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .take_while(|l| !l.starts_with("Chat with the demo shop"))
            .filter_map(|l| {
                l.strip_prefix("Merchant API key for `demo` (shown once): ")
                    .map(str::to_owned)
            })
            .last()
    })
    .await
    .unwrap();
    let Some(key) = key else {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "the demo's key was not printed; logs:\n{}",
            logs.join().unwrap()
        );
    };
    let client = reqwest::Client::new();
    for _ in 0..200 {
        if client.get(format!("{base}/readyz")).send().await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Secrets travel through the API, a webhook and the model call.
    let created = client
        .post(format!("{base}/api/v1/bots"))
        .bearer_auth(&key)
        .json(&json!({"slug": "logs", "name": "Logs", "currency": "BOB",
            "telegram": {"token": TG_TOKEN, "secret_token": TG_SECRET},
            "whatsapp": {"phone_number_id": "777", "access_token": "never-logged-access",
                         "app_secret": WA_SECRET, "verify_token": "never-logged-verify"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let update = json!({"update_id": 5, "message": {"message_id": 5, "date": 1, "text": "hola",
        "chat": {"id": 9, "type": "private"}, "from": {"id": 9, "is_bot": false, "first_name": "Eva"}}});
    let webhook = client
        .post(format!("{base}/webhooks/telegram/logs"))
        .header("X-Telegram-Bot-Api-Secret-Token", TG_SECRET)
        .json(&update)
        .send()
        .await
        .unwrap();
    assert_eq!(webhook.status(), 200);
    let posted = client
        .post(format!("{base}/webchat/demo-shop/messages"))
        .json(
            &json!({"token": crate::helpers::new_session(&client, &base, "demo-shop").await.0,
                      "text": "¿qué tienen?", "client_id": "1"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 202);
    let mut answered = false;
    for _ in 0..200 {
        let sent: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM outbox WHERE channel = 'webchat' AND status = 'sent'",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        if sent > 0 {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(answered, "the web-chat turn ran");
    assert!(!fake.requests().is_empty(), "the model was called");

    let metrics = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for series in [
        "tendero_turn_queue_wait_seconds_count{bot=\"demo-shop\",outcome=\"started\"}",
        "tendero_turn_proposer_seconds_count{bot=\"demo-shop\",outcome=\"propose\"}",
        "tendero_turn_commit_seconds_count{bot=\"demo-shop\",outcome=\"committed\"}",
        "tendero_llm_latency_seconds_count{bot=\"demo-shop\",outcome=\"ok\"}",
        "tendero_webhook_ack_seconds_count{channel=\"telegram\",status=\"200\"}",
        "tendero_webhook_ack_seconds_count{channel=\"webchat\",status=\"202\"}",
    ] {
        assert!(metrics.contains(series), "missing {series} in:\n{metrics}");
    }
    assert!(!metrics.contains("obs"), "no customer in a label");

    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    assert!(child.wait().unwrap().success());
    let logs = logs.join().unwrap();
    let lines: Vec<Value> = logs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert!(lines.len() > 20, "debug logs were written");
    // Every line emitted inside the web-chat turn names the turn, its conversation
    // and its inbox event.
    let turn_lines: Vec<&Value> = lines
        .iter()
        .filter(|l| {
            l["spans"]
                .as_array()
                .is_some_and(|s| s.iter().any(|s| s["name"] == "turn"))
        })
        .collect();
    assert!(turn_lines.len() >= 2, "{logs}");
    for line in &turn_lines {
        let turn = line["spans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "turn")
            .unwrap();
        for field in ["turn_id", "conversation_id", "inbox_id"] {
            assert!(!turn[field].is_null(), "{field} missing: {line}");
        }
    }
    for secret in [
        LLM_KEY,
        TG_TOKEN,
        TG_SECRET,
        WA_SECRET,
        "never-logged-access",
        "never-logged-verify",
        &key,
        tendero::config::TEST_SECRET_KEY.split_once('=').unwrap().1,
    ] {
        assert!(
            !logs.contains(secret),
            "a secret reached the logs: {secret}"
        );
    }
    tendero::db::drop_scratch(&admin, pool, &scratch)
        .await
        .unwrap();
}
