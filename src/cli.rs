//! The command line: `serve`, `migrate`, `chat`, `merchant`.

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use futures::StreamExt;
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::config::{Role, Settings};
use crate::{db, demo, startup, telemetry};

#[derive(Debug, Parser)]
#[command(
    name = "tendero",
    version,
    about = "Chat-commerce bot worker for Telegram, WhatsApp and web chat"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP server, turn workers and outbox dispatcher (applies migrations first).
    Serve {
        /// Which parts to run in this process.
        #[arg(long, value_enum, default_value = "all")]
        role: Role,
    },
    /// Apply database migrations and exit.
    Migrate,
    /// Re-seal every stored channel secret under the newest `TENDERO_SECRET_KEY` key
    /// (after adding a key, before dropping the old one).
    RotateSecrets,
    /// Exit 0 if the `tendero serve` on this machine answers its liveness probe
    /// (for container health checks; it reads `TENDERO_LISTEN` like the server).
    Healthcheck {
        /// Base URL to probe instead of the one `TENDERO_LISTEN` names.
        #[arg(long)]
        url: Option<String>,
    },
    /// Talk to a bot through its web-chat channel from the terminal.
    Chat {
        /// The bot's slug, e.g. demo-shop.
        bot: String,
        /// Base URL of a running `tendero serve`.
        #[arg(long, env = "TENDERO_URL", default_value = "http://127.0.0.1:8080")]
        url: String,
        /// Web-chat session id (defaults to a new one).
        #[arg(long)]
        session: Option<String>,
    },
    /// Play scripted conversations (JSON Lines) against the configured proposer and score them.
    Eval {
        /// Script files, e.g. fixtures/eval/*.jsonl.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// Shop fixture to play against (defaults to the demo shop).
        #[arg(long)]
        shop: Option<std::path::PathBuf>,
        /// Fail when fewer turns than this fraction are fully correct.
        #[arg(long, default_value_t = 0.9)]
        min_correct: f64,
    },
    /// Manage bots and their channels.
    Bot {
        #[command(subcommand)]
        command: BotCommand,
    },
    /// Manage merchants and their API keys.
    Merchant {
        #[command(subcommand)]
        command: MerchantCommand,
    },
}

#[derive(Debug, Subcommand)]
enum BotCommand {
    /// Create a bot for MERCHANT, optionally connecting Telegram and WhatsApp.
    /// Secrets may come from the environment instead of the command line.
    Add {
        slug: String,
        #[arg(long)]
        merchant: String,
        #[arg(long)]
        name: String,
        #[arg(long, default_value = "BOB")]
        currency: String,
        #[arg(long, env = "TENDERO_TELEGRAM_TOKEN", hide_env_values = true)]
        telegram_token: Option<String>,
        #[arg(long, env = "TENDERO_TELEGRAM_SECRET_TOKEN", hide_env_values = true)]
        telegram_secret_token: Option<String>,
        #[arg(long, env = "TENDERO_WHATSAPP_PHONE_NUMBER_ID")]
        whatsapp_phone_number_id: Option<String>,
        #[arg(long, env = "TENDERO_WHATSAPP_ACCESS_TOKEN", hide_env_values = true)]
        whatsapp_access_token: Option<String>,
        #[arg(long, env = "TENDERO_WHATSAPP_APP_SECRET", hide_env_values = true)]
        whatsapp_app_secret: Option<String>,
        #[arg(long, env = "TENDERO_WHATSAPP_VERIFY_TOKEN", hide_env_values = true)]
        whatsapp_verify_token: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum MerchantCommand {
    /// Create a merchant.
    Add {
        slug: String,
        #[arg(long)]
        name: String,
    },
    /// Create an API key for MERCHANT and print it alone on stdout (shown only once).
    CreateKey { merchant: String },
}

pub async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve { role } => serve(role).await,
        Command::Migrate => {
            telemetry::init();
            let settings = Settings::from_env()?;
            let database = db::connect(&settings).await?;
            db::migrate(&database.pool).await?;
            eprintln!("migrations applied to {}", database.origin);
            shutdown_cluster(database).await;
            Ok(())
        }
        Command::Chat { bot, url, session } => chat(&url, &bot, session).await,
        Command::Healthcheck { url } => healthcheck(url).await,
        Command::RotateSecrets => {
            telemetry::init();
            let settings = Settings::from_env()?;
            startup::install_secret_keys(&settings)?;
            let database = db::connect(&settings).await?;
            db::migrate(&database.pool).await?;
            let changed = crate::channels::credentials::rotate(&database.pool).await;
            shutdown_cluster(database).await;
            let keys = crate::secret::keyring()?;
            eprintln!(
                "re-sealed {} channel(s) under key `{}`",
                changed?,
                keys.active_id()
            );
            Ok(())
        }
        Command::Eval {
            files,
            shop,
            min_correct,
        } => {
            telemetry::init();
            let settings = Settings::from_env()?;
            let shop_json = match shop {
                Some(path) => std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
                None => demo::DEMO_SHOP.to_owned(),
            };
            let database = db::connect(&settings).await?;
            let reports =
                crate::eval::run_files(&database.pool, &shop_json, &files, &settings).await;
            shutdown_cluster(database).await;
            let mut failures = Vec::new();
            for (profile, report) in reports? {
                println!("== {profile} ==");
                print!("{}", report.render());
                failures.extend(
                    report
                        .violations()
                        .into_iter()
                        .map(|v| format!("{profile}: {v}")),
                );
                if report.correct_ratio() < min_correct {
                    failures.push(format!(
                        "{profile}: {:.1}% of turns fully correct, below the {:.1}% required",
                        report.correct_ratio() * 100.0,
                        min_correct * 100.0
                    ));
                }
            }
            if !failures.is_empty() {
                anyhow::bail!(failures.join("; "));
            }
            Ok(())
        }
        Command::Bot { command } => {
            telemetry::init();
            let settings = Settings::from_env()?;
            startup::install_secret_keys(&settings)?;
            let database = db::connect(&settings).await?;
            db::migrate(&database.pool).await?;
            let result = bot_command(&database.pool, command).await;
            shutdown_cluster(database).await;
            result
        }
        Command::Merchant { command } => {
            telemetry::init();
            let settings = Settings::from_env()?;
            let database = db::connect(&settings).await?;
            db::migrate(&database.pool).await?;
            let result = merchant_command(&database.pool, command).await;
            shutdown_cluster(database).await;
            result
        }
    }
}

async fn shutdown_cluster(database: db::Database) {
    database.pool.close().await;
    if let Some(cluster) = database.cluster {
        cluster.stop().await;
    }
}

async fn merchant_command(pool: &sqlx::PgPool, command: MerchantCommand) -> anyhow::Result<()> {
    match command {
        MerchantCommand::Add { slug, name } => {
            let id = crate::merchants::create(pool, &slug, &name).await.context(
                "could not create the merchant (slugs are lowercase letters, digits and dashes)",
            )?;
            eprintln!("merchant `{slug}` is {id}");
        }
        MerchantCommand::CreateKey { merchant: slug } => {
            let id = crate::merchants::by_slug(pool, &slug)
                .await?
                .with_context(|| format!("no merchant `{slug}`; create it with `tendero merchant add {slug} --name ...`"))?;
            let key = crate::api_keys::create(pool, id).await?;
            println!("{key}");
        }
    }
    Ok(())
}

async fn bot_command(pool: &sqlx::PgPool, command: BotCommand) -> anyhow::Result<()> {
    use crate::channels::credentials::{TelegramSetup, WhatsAppSetup};
    let BotCommand::Add {
        slug,
        merchant: merchant_slug,
        name,
        currency,
        telegram_token,
        telegram_secret_token,
        whatsapp_phone_number_id,
        whatsapp_access_token,
        whatsapp_app_secret,
        whatsapp_verify_token,
    } = command;
    let merchant_id = crate::merchants::by_slug(pool, &merchant_slug)
        .await?
        .with_context(|| {
            format!("no merchant `{merchant_slug}`; create it with `tendero merchant add`")
        })?;
    let telegram = match (telegram_token, telegram_secret_token) {
        (Some(token), Some(secret_token)) => Some(TelegramSetup {
            token,
            secret_token,
        }),
        (None, None) => None,
        _ => anyhow::bail!("Telegram needs both --telegram-token and --telegram-secret-token"),
    };
    let whatsapp = match (
        whatsapp_phone_number_id,
        whatsapp_access_token,
        whatsapp_app_secret,
        whatsapp_verify_token,
    ) {
        (Some(phone_number_id), Some(access_token), Some(app_secret), Some(verify_token)) => {
            Some(WhatsAppSetup {
                phone_number_id,
                access_token,
                app_secret,
                verify_token,
            })
        }
        (None, None, None, None) => None,
        _ => anyhow::bail!(
            "WhatsApp needs a phone number id, access token, app secret and verify token"
        ),
    };
    let new = crate::merchant::bots::NewBot {
        slug: slug.clone(),
        name,
        currency,
        payment_instructions: None,
        telegram,
        whatsapp,
    };
    crate::merchant::bots::create(pool, merchant_id, &new).await?;
    eprintln!(
        "bot `{slug}` created; webhooks: /webhooks/telegram/{slug}, /webhooks/whatsapp/{slug}, web chat: /webchat/{slug}/messages"
    );
    Ok(())
}

async fn serve(role: Role) -> anyhow::Result<()> {
    telemetry::init();
    let settings = Settings::from_env()?;
    startup::install_secret_keys(&settings)?;
    let database = db::connect(&settings).await?;
    tracing::info!(origin = %database.origin, "connected to PostgreSQL");
    db::migrate(&database.pool).await?;
    if settings.load_demo
        && let Some(shop) = demo::load_demo_if_empty(&database.pool).await?
    {
        let key = crate::api_keys::create(&database.pool, shop.merchant_id).await?;
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "Loaded the demo shop `demo-shop` and the finance assistant `demo-finanzas` (merchant `demo`)."
        )?;
        writeln!(out, "Merchant API key for `demo` (shown once): {key}")?;
    }
    let redis = startup::redis(&settings).await;
    let proposers = startup::Proposers::configured(&settings, &database.pool, redis)?;
    let app = startup::Application::build(settings.clone(), database.pool.clone(), proposers, role)
        .await?;
    if let Some(addr) = app.local_addr() {
        println!("Tendero is listening on http://{addr}");
        if role.runs_web() {
            // The last line serve prints (tests read up to it).
            println!(
                "Chat with the demo shop: tendero chat demo-shop --url http://{addr} \
                 (the finance assistant: tendero chat demo-finanzas --url http://{addr})"
            );
        }
    }
    let cancel = CancellationToken::new();
    let signal = cancel.clone();
    tokio::spawn(async move {
        startup::shutdown_signal().await;
        signal.cancel();
    });
    app.run_until_stopped(cancel).await?;
    shutdown_cluster(database).await;
    tracing::info!("stopped");
    Ok(())
}

/// Probes `GET /healthz` of the local server.
async fn healthcheck(url: Option<String>) -> anyhow::Result<()> {
    let base = match url {
        Some(url) => url,
        None => {
            let mut addr = Settings::from_env()?.listen;
            if addr.ip().is_unspecified() {
                addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
            }
            format!("http://{addr}")
        }
    };
    let response = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(3))
        .build()?
        .get(format!("{}/healthz", base.trim_end_matches('/')))
        .send()
        .await
        .with_context(|| format!("no answer from {base}"))?;
    anyhow::ensure!(
        response.status().is_success(),
        "{base}/healthz answered {}",
        response.status()
    );
    Ok(())
}

/// A terminal client of the web-chat channel: lines in, replies out.
async fn chat(url: &str, bot: &str, session: Option<String>) -> anyhow::Result<()> {
    let base = url.trim_end_matches('/').to_owned();
    let session = session.unwrap_or_else(|| format!("cli-{}", uuid::Uuid::new_v4().simple()));
    let client = reqwest::Client::new();
    let events = client
        // Sessions are letters, digits and `_ - . :` (the server checks), so no escaping.
        .get(format!("{base}/webchat/{bot}/events?session={session}"))
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
                    let _ = std::io::stdout().flush();
                    let _ = seen_tx.send(());
                    data.clear();
                }
            }
        }
    });
    eprintln!("Conectado a `{bot}` (sesión {session}). Escribe tu mensaje; Ctrl-D para salir.");
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let response = client
            .post(format!("{base}/webchat/{bot}/messages"))
            .json(&serde_json::json!({
                "session": session,
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
