//! The command line: parsing and dispatch. `serve` runs the server, `admin` the
//! merchant and bot commands, `chat` the terminal client of the web chat.

mod admin;
mod chat;
mod serve;

use anyhow::Context;
use clap::{Parser, Subcommand};

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
        /// A session token to go on with (defaults to a new session; the token
        /// is printed when the chat starts).
        #[arg(long)]
        token: Option<String>,
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
        /// Who proposes: the configured proposer, or the oracle (each line's expected
        /// actions, served as a model) with the rules first or alone. The oracle
        /// plays the shop scripts; finance scripts keep the configured proposer.
        #[arg(long, value_enum, default_value = "configured")]
        proposer: crate::eval::Proposing,
    },
    /// Manage bots and their channels.
    Bot {
        #[command(subcommand)]
        command: Box<BotCommand>,
    },
    /// Manage merchants and their API keys.
    Merchant {
        #[command(subcommand)]
        command: MerchantCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum BotCommand {
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
        /// `shop` or `finance`.
        #[arg(long, default_value = "shop")]
        profile: String,
        /// IANA time zone, e.g. America/La_Paz.
        #[arg(long, default_value = "America/Mexico_City")]
        timezone: String,
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
pub enum MerchantCommand {
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
        Command::Serve { role } => serve::serve(role).await,
        Command::Migrate => {
            telemetry::init();
            let settings = Settings::from_env()?;
            let database = db::connect(&settings).await?;
            db::migrate(&database.pool).await?;
            eprintln!("migrations applied to {}", database.origin);
            shutdown_cluster(database).await;
            Ok(())
        }
        Command::Chat { bot, url, token } => chat::chat(&url, &bot, token).await,
        Command::Healthcheck { url } => serve::healthcheck(url).await,
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
            proposer,
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
                crate::eval::run_files(&database.pool, &shop_json, &files, &settings, proposer)
                    .await;
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
            let result = admin::bot_command(&database.pool, *command).await;
            shutdown_cluster(database).await;
            result
        }
        Command::Merchant { command } => {
            telemetry::init();
            let settings = Settings::from_env()?;
            let database = db::connect(&settings).await?;
            db::migrate(&database.pool).await?;
            let result = admin::merchant_command(&database.pool, command).await;
            shutdown_cluster(database).await;
            result
        }
    }
}

pub(crate) async fn shutdown_cluster(database: db::Database) {
    database.pool.close().await;
    if let Some(cluster) = database.cluster {
        cluster.stop().await;
    }
}
