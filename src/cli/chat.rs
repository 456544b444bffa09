//! `tendero chat BOT`: a terminal client of the web-chat channel.

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use futures::StreamExt;
use tokio::io::AsyncBufReadExt;

/// A terminal client of the web-chat channel: lines in, replies out.
pub async fn chat(url: &str, bot: &str, token: Option<String>) -> anyhow::Result<()> {
    let base = url.trim_end_matches('/').to_owned();
    let client = reqwest::Client::new();
    let token = match token {
        Some(token) => token,
        None => new_session(&client, &base, bot).await?,
    };
    let events = client
        // A token is hex digits, so no escaping.
        .get(format!("{base}/webchat/{bot}/events?token={token}"))
        .send()
        .await
        .with_context(|| format!("cannot reach Tendero at {base}; is `tendero serve` running?"))?;
    if !events.status().is_success() {
        anyhow::bail!(
            "{}: {}",
            events.status(),
            events.text().await.unwrap_or_default()
        );
    }
    let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let files_base = base.clone();
    let reader = tokio::spawn(async move {
        let mut stream = events.bytes_stream();
        // Bytes until a whole line is in: a chunk may end inside a character.
        let mut buffer: Vec<u8> = Vec::new();
        let mut data = String::new();
        while let Some(Ok(chunk)) = stream.next().await {
            buffer.extend_from_slice(&chunk);
            while let Some(pos) = buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=pos).collect();
                let line = String::from_utf8_lossy(&line)
                    .trim_end_matches(['\n', '\r'])
                    .to_owned();
                if let Some(rest) = line.strip_prefix("data:") {
                    data.push_str(rest.trim_start());
                } else if line.is_empty() && !data.is_empty() {
                    let parsed: serde_json::Value = serde_json::from_str(&data).unwrap_or_default();
                    let who = if parsed["author"] == "human" {
                        "persona"
                    } else {
                        "bot"
                    };
                    let text = parsed["text"].as_str().unwrap_or(&data);
                    // Continuation lines line up under the first.
                    println!(
                        "{who}> {}",
                        text.replace('\n', &format!("\n{}", " ".repeat(who.len() + 2)))
                    );
                    let choices: Vec<&str> = parsed["choices"]
                        .as_array()
                        .map(|c| c.iter().filter_map(|v| v.as_str()).collect())
                        .unwrap_or_default();
                    if !choices.is_empty() {
                        println!("{}[{}]", " ".repeat(who.len() + 2), choices.join("] ["));
                    }
                    if let Some(url) = parsed["file"]["url"].as_str() {
                        let what = if parsed["file"]["content_type"]
                            .as_str()
                            .is_some_and(|t| t.starts_with("image/"))
                        {
                            "gráfica"
                        } else {
                            "archivo"
                        };
                        println!("{}{what}: {files_base}{url}", " ".repeat(who.len() + 2));
                    }
                    let _ = std::io::stdout().flush();
                    let _ = seen_tx.send(());
                    data.clear();
                }
            }
        }
    });
    eprintln!(
        "Conectado a `{bot}`. Escribe tu mensaje; Ctrl-D para salir. Para seguir esta conversación después: --token {token}"
    );
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let response = client
            .post(format!("{base}/webchat/{bot}/messages"))
            .json(&serde_json::json!({
                "token": token,
                "text": text,
                "client_id": uuid::Uuid::new_v4().to_string(),
            }))
            .send()
            .await
            .context("could not send the message")?;
        if !response.status().is_success() {
            eprintln!(
                "error {}: {}",
                response.status(),
                response.text().await.unwrap_or_default()
            );
        }
    }
    // Input ended: show replies still on their way, until the bot goes quiet.
    while let Ok(Some(())) = tokio::time::timeout(Duration::from_secs(3), seen_rx.recv()).await {}
    reader.abort();
    Ok(())
}

/// A new session from the server: its token.
async fn new_session(client: &reqwest::Client, base: &str, bot: &str) -> anyhow::Result<String> {
    let response = client
        .post(format!("{base}/webchat/{bot}/sessions"))
        .send()
        .await
        .with_context(|| format!("cannot reach Tendero at {base}; is `tendero serve` running?"))?;
    if !response.status().is_success() {
        anyhow::bail!(
            "{}: {}",
            response.status(),
            response.text().await.unwrap_or_default()
        );
    }
    let body: serde_json::Value = response.json().await?;
    body["token"]
        .as_str()
        .map(str::to_owned)
        .context("the server answered no session token")
}
