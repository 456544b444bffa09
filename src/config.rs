//! Typed settings read from the environment, validated at start. Secrets are wrapped
//! so they never reach logs or `Debug` output.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use crate::secret::{KeyRing, Secret};

/// Which parts of Tendero this process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    /// HTTP server only (webhooks, web chat, merchant API).
    Web,
    /// Turn workers, the outbox dispatcher and the timeout sweeper only.
    Worker,
    /// Everything in one process.
    All,
}

impl Role {
    pub fn runs_web(self) -> bool {
        matches!(self, Role::Web | Role::All)
    }

    pub fn runs_workers(self) -> bool {
        matches!(self, Role::Worker | Role::All)
    }
}

#[derive(Debug, Clone)]
pub struct Settings {
    /// `DATABASE_URL`; when absent Tendero finds or starts a PostgreSQL itself.
    pub database_url: Option<Secret>,
    /// `REDIS_URL`: optional; early duplicate drop. Without it PostgreSQL does it all.
    pub redis_url: Option<Secret>,
    /// `TENDERO_REDIS_PREFIX`: namespace of every Redis key.
    pub redis_prefix: String,
    /// `TENDERO_LOCAL_PG`: where to look for a local PostgreSQL when no URL is set.
    pub local_pg: SocketAddr,
    /// `TENDERO_DATA_DIR`: home of the private PostgreSQL cluster, if one is needed.
    pub data_dir: PathBuf,
    /// `TENDERO_LISTEN`.
    pub listen: SocketAddr,
    /// `TENDERO_TURNS_IN_FLIGHT`: turns this process keeps running at once, each an
    /// async task. What bounds LLM calls is the LLM's own limit, not this.
    pub turns_in_flight: usize,
    /// `TENDERO_GATHER_MS`: when a customer writes again while the model reads
    /// their message, how long the burst must be quiet before it is answered whole
    /// (no message waits otherwise). Defaults to 800 ms when an LLM is configured
    /// and to 0 (never wait) with the offline rules.
    pub gather: Duration,
    /// `TENDERO_LEASE_SECS`: how long a worker owns a conversation without renewing.
    pub lease: Duration,
    /// `TENDERO_POLL_MS`: fallback polling when no wake-up arrives. Wake-ups come from
    /// PostgreSQL NOTIFY; this only bounds the delay when one is lost.
    pub poll_interval: Duration,
    /// `TENDERO_MAX_ATTEMPTS`: tries of one inbound event before it is parked.
    pub max_attempts: i32,
    /// `TENDERO_RETRY_BACKOFF_MS`: first delay before a failed event is retried.
    pub retry_backoff: Duration,
    /// `TENDERO_SEND_ATTEMPTS`: tries of one outbound message before it is dead-lettered.
    pub send_attempts: i32,
    /// `TENDERO_SWEEP_SECS`: how often session and payment timeouts are looked for.
    pub sweep_interval: Duration,
    /// `TENDERO_DEMO`: load the demo shop into an empty database.
    pub load_demo: bool,
    /// `TENDERO_SHUTDOWN_GRACE_SECS`: how long in-flight turns get to finish on SIGTERM.
    pub shutdown_grace: Duration,
    /// `TELEGRAM_API_URL`: the Bot API base (a fake in tests and staging).
    pub telegram_api_url: String,
    /// `WHATSAPP_API_URL`: the Graph API base.
    pub whatsapp_api_url: String,
    /// `WHATSAPP_API_VERSION`: the Graph API version in send URLs.
    pub whatsapp_api_version: String,
    /// `TENDERO_SEND_BACKOFF_MS`: first retry delay of a failed send, doubled per attempt.
    pub send_backoff: Duration,
    /// `TENDERO_SEND_TIMEOUT_MS`: longest a platform may take to answer one send
    /// before it is retried (default 20 s).
    pub send_timeout: Duration,
    /// `TENDERO_CONTACT_MESSAGES_PER_MINUTE`: messages one conversation may send in
    /// a minute before the excess is kept unanswered (with one "un momento").
    pub contact_messages_per_minute: u32,
    /// `TENDERO_WEBCHAT_STREAMS_PER_CLIENT` (default 50) and
    /// `TENDERO_WEBCHAT_STREAMS_MAX` (default 20,000): open web-chat event streams
    /// per client address and per process; `TENDERO_CLIENT_IP_HEADER`: a header a
    /// trusted proxy sets to the client's address (unset: the peer's address).
    pub streams: StreamBounds,
    /// `TENDERO_WEBCHAT_SESSIONS_PER_SECOND`: new web-chat sessions one client
    /// address may create per second (default 5).
    pub webchat_sessions_per_second: u32,
    /// The LLM proposer; `None` runs every bot on the offline rules.
    pub llm: Option<LlmConfig>,
    /// `TENDERO_SECRET_KEY`: keys sealing channel secrets at rest, newest first
    /// (`id=64 hex digits,...`). Unset: a key kept in `TENDERO_DATA_DIR/secret.key`.
    pub secret_keys: Option<KeyRing>,
    /// `TENDERO_PUBLIC_URL`: where merchants reach this server (e.g.
    /// `https://tienda.example.com`); notices to a merchant's chat link to the
    /// conversation under it. Unset: notices name the conversation without a link.
    pub public_url: Option<String>,
}

/// How the structured answer is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseMode {
    /// OpenAI structured outputs: `{"type":"json_schema", ...}`.
    JsonSchema,
    /// `{"type":"json_object"}` with the schema beside it (llama.cpp and others).
    JsonObject,
    /// Plain completion; the JSON object is extracted from the text.
    Text,
}

impl ResponseMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ResponseMode::JsonSchema => "json_schema",
            ResponseMode::JsonObject => "json_object",
            ResponseMode::Text => "text",
        }
    }
}

/// A response format name that is not one of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown LLM response format")]
pub struct UnknownResponseMode;

impl std::str::FromStr for ResponseMode {
    type Err = UnknownResponseMode;

    fn from_str(s: &str) -> Result<Self, UnknownResponseMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "json_schema" => Ok(ResponseMode::JsonSchema),
            "json_object" => Ok(ResponseMode::JsonObject),
            "text" => Ok(ResponseMode::Text),
            _ => Err(UnknownResponseMode),
        }
    }
}

/// Prices in US dollars per million tokens: (prompt, completion).
pub type PriceTable = HashMap<String, (f64, f64)>;

#[derive(Debug, Clone)]
pub struct LlmConfig {
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub model: String,
    pub mode: ResponseMode,
    /// Bound on the whole proposal, repair included.
    pub timeout: Duration,
    /// Products put in a prompt at most (the cart's are always among them).
    pub catalog_top_k: i64,
    /// Estimated tokens a prompt may hold; history and catalog shrink to fit.
    pub prompt_budget_tokens: usize,
    pub prices: PriceTable,
    /// Consecutive failures that open a bot's circuit.
    pub breaker_failures: u32,
    pub breaker_cooldown: Duration,
    pub history_len: usize,
    /// Calls in flight at once to this endpoint, from this process.
    pub max_in_flight: usize,
    /// Calls in flight at once for one bot, so one busy shop cannot starve the rest.
    pub max_in_flight_per_bot: usize,
    /// Completion tokens a call may produce (a proposal needs about 150).
    pub max_tokens: u32,
    /// Tokens (prompt and completion) one bot may spend per UTC day; past it the
    /// bot runs on the rules until the day ends.
    pub daily_tokens_per_bot: u64,
    /// Messages the rules read whole are answered without a call.
    pub rules_first: bool,
    /// The embeddings model asked at `/embeddings` for knowledge search (`None`:
    /// off). A server that does not offer them is noticed and left alone.
    pub embeddings_model: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {name}={value:?}: {reason}")]
pub struct ConfigError {
    pub name: &'static str,
    pub value: String,
    pub reason: &'static str,
}

impl Settings {
    pub fn from_env() -> Result<Settings, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads settings through `lookup`, so tests need not touch the process env.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Settings, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        fn parse<T: std::str::FromStr>(
            name: &'static str,
            value: Option<String>,
            default: T,
            reason: &'static str,
        ) -> Result<T, ConfigError> {
            match value {
                None => Ok(default),
                Some(v) => v.trim().parse().map_err(|_| ConfigError {
                    name,
                    value: v,
                    reason,
                }),
            }
        }
        let positive = |name: &'static str, default: u64| -> Result<u64, ConfigError> {
            let v = parse(name, get(name), default, "expected a positive whole number")?;
            if v == 0 {
                return Err(ConfigError {
                    name,
                    value: "0".into(),
                    reason: "must be greater than zero",
                });
            }
            Ok(v)
        };
        let database_url = get("DATABASE_URL").map(Secret::new);
        if let Some(url) = &database_url
            && !(url.expose().starts_with("postgres://")
                || url.expose().starts_with("postgresql://"))
        {
            return Err(ConfigError {
                name: "DATABASE_URL",
                value: "[redacted]".into(),
                reason: "expected a postgres:// URL",
            });
        }
        let load_demo = match get("TENDERO_DEMO")
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("1" | "true" | "yes" | "on") => true,
            Some("0" | "false" | "no" | "off") => false,
            Some(other) => {
                return Err(ConfigError {
                    name: "TENDERO_DEMO",
                    value: other.into(),
                    reason: "expected true or false",
                });
            }
        };
        let llm = llm_config(&get)?;
        let secret_keys = match get("TENDERO_SECRET_KEY") {
            None => None,
            Some(raw) => Some(KeyRing::parse(&raw).map_err(|_| ConfigError {
                name: "TENDERO_SECRET_KEY",
                value: "[redacted]".into(),
                reason: "expected id=KEY pairs, KEY being 64 hex digits, the newest first",
            })?),
        };
        let public_url = match get("TENDERO_PUBLIC_URL") {
            None => None,
            Some(url) if url.starts_with("https://") || url.starts_with("http://") => {
                Some(url.trim().trim_end_matches('/').to_owned())
            }
            Some(other) => {
                return Err(ConfigError {
                    name: "TENDERO_PUBLIC_URL",
                    value: other,
                    reason: "expected an http:// or https:// URL",
                });
            }
        };
        Ok(Settings {
            database_url,
            redis_url: get("REDIS_URL").map(Secret::new),
            redis_prefix: get("TENDERO_REDIS_PREFIX").unwrap_or_else(|| "tendero".into()),
            local_pg: parse(
                "TENDERO_LOCAL_PG",
                get("TENDERO_LOCAL_PG"),
                SocketAddr::from(([127, 0, 0, 1], 5432)),
                "expected HOST:PORT",
            )?,
            data_dir: get("TENDERO_DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(".tendero")),
            listen: parse(
                "TENDERO_LISTEN",
                get("TENDERO_LISTEN"),
                SocketAddr::from(([127, 0, 0, 1], 8080)),
                "expected HOST:PORT, e.g. 0.0.0.0:8080",
            )?,
            turns_in_flight: positive("TENDERO_TURNS_IN_FLIGHT", 256)?.min(100_000) as usize,
            gather: Duration::from_millis(parse(
                "TENDERO_GATHER_MS",
                get("TENDERO_GATHER_MS"),
                if llm.is_some() { 800 } else { 0 },
                "expected milliseconds",
            )?),
            lease: Duration::from_secs(positive("TENDERO_LEASE_SECS", 30)?),
            poll_interval: Duration::from_millis(positive("TENDERO_POLL_MS", 2000)?),
            max_attempts: positive("TENDERO_MAX_ATTEMPTS", 5)?.min(1000) as i32,
            retry_backoff: Duration::from_millis(parse(
                "TENDERO_RETRY_BACKOFF_MS",
                get("TENDERO_RETRY_BACKOFF_MS"),
                1000,
                "expected milliseconds",
            )?),
            send_attempts: positive("TENDERO_SEND_ATTEMPTS", 8)?.min(1000) as i32,
            sweep_interval: Duration::from_secs(positive("TENDERO_SWEEP_SECS", 15)?),
            load_demo,
            shutdown_grace: Duration::from_secs(positive("TENDERO_SHUTDOWN_GRACE_SECS", 20)?),
            telegram_api_url: get("TELEGRAM_API_URL")
                .unwrap_or_else(|| "https://api.telegram.org".into()),
            whatsapp_api_url: get("WHATSAPP_API_URL")
                .unwrap_or_else(|| "https://graph.facebook.com".into()),
            whatsapp_api_version: get("WHATSAPP_API_VERSION").unwrap_or_else(|| "v21.0".into()),
            send_backoff: Duration::from_millis(parse(
                "TENDERO_SEND_BACKOFF_MS",
                get("TENDERO_SEND_BACKOFF_MS"),
                500,
                "expected milliseconds",
            )?),
            send_timeout: Duration::from_millis(
                positive("TENDERO_SEND_TIMEOUT_MS", 20_000)?.min(600_000),
            ),
            contact_messages_per_minute: positive("TENDERO_CONTACT_MESSAGES_PER_MINUTE", 20)?
                .min(100_000) as u32,
            streams: StreamBounds {
                per_client: positive("TENDERO_WEBCHAT_STREAMS_PER_CLIENT", 50)?.min(1_000_000)
                    as usize,
                total: positive("TENDERO_WEBCHAT_STREAMS_MAX", 20_000)?.min(1_000_000) as usize,
                client_ip_header: match get("TENDERO_CLIENT_IP_HEADER") {
                    None => None,
                    Some(v) if v.trim().is_empty() => None,
                    Some(v) => Some(v.trim().parse().map_err(|_| ConfigError {
                        name: "TENDERO_CLIENT_IP_HEADER",
                        value: v,
                        reason: "expected a header name such as x-forwarded-for",
                    })?),
                },
            },
            webchat_sessions_per_second: positive("TENDERO_WEBCHAT_SESSIONS_PER_SECOND", 5)?
                .min(100_000) as u32,
            llm,
            secret_keys,
            public_url,
        })
    }

    /// Longest a turn waits for its proposer before asking the customer to rephrase.
    pub fn proposer_timeout(&self) -> Duration {
        self.llm.as_ref().map_or(Duration::from_secs(30), |llm| {
            llm.timeout + Duration::from_secs(5)
        })
    }

    /// Settings for tests: fast polling, no backoff, no demo.
    pub fn for_tests(database_url: &str) -> Settings {
        let mut settings = Settings::from_lookup(|_| None).expect("defaults are valid");
        settings.database_url = Some(Secret::new(database_url));
        settings.listen = SocketAddr::from(([127, 0, 0, 1], 0));
        settings.poll_interval = Duration::from_millis(50);
        settings.retry_backoff = Duration::ZERO;
        settings.max_attempts = 3;
        settings.send_attempts = 3;
        settings.send_backoff = Duration::ZERO;
        settings.load_demo = false;
        settings.gather = Duration::ZERO;
        // Tests script many messages a minute; the limit has its own tests.
        settings.contact_messages_per_minute = 1_000_000;
        // Tests open many sessions from one address; the limit has its own test.
        settings.webchat_sessions_per_second = 100_000;
        settings.secret_keys = Some(KeyRing::parse(TEST_SECRET_KEY).expect("the test key parses"));
        settings
    }
}

/// How many streams may be open, and how a client is told apart.
#[derive(Debug, Clone)]
pub struct StreamBounds {
    /// Streams one client address may hold open.
    pub per_client: usize,
    /// Streams this process holds open in all.
    pub total: usize,
    /// A header a trusted proxy sets to the client's address
    /// (`TENDERO_CLIENT_IP_HEADER`, e.g. `x-forwarded-for`); `None`: the peer's.
    pub client_ip_header: Option<axum::http::HeaderName>,
}

/// The key tests seal channel secrets with (never use it anywhere else).
pub const TEST_SECRET_KEY: &str =
    "test=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/// The LLM is on when an API key or a base URL is given.
fn llm_config(get: &dyn Fn(&str) -> Option<String>) -> Result<Option<LlmConfig>, ConfigError> {
    let api_key = get("OPENAI_API_KEY").map(Secret::new);
    let base_url = get("OPENAI_BASE_URL");
    if api_key.is_none() && base_url.is_none() {
        return Ok(None);
    }
    let number = |name: &'static str, default: u64| -> Result<u64, ConfigError> {
        match get(name) {
            None => Ok(default),
            Some(v) => v.trim().parse().ok().filter(|n| *n > 0).ok_or(ConfigError {
                name,
                value: v,
                reason: "expected a positive whole number",
            }),
        }
    };
    let flag = |name: &'static str, default: bool| -> Result<bool, ConfigError> {
        match get(name).map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(default),
            Some(v) => match v.as_str() {
                "1" | "true" | "yes" | "on" => Ok(true),
                "0" | "false" | "no" | "off" => Ok(false),
                _ => Err(ConfigError {
                    name,
                    value: v,
                    reason: "expected true or false",
                }),
            },
        }
    };
    let mode = match get("TENDERO_LLM_RESPONSE_FORMAT") {
        None => ResponseMode::JsonSchema,
        Some(v) => v.parse().map_err(|UnknownResponseMode| ConfigError {
            name: "TENDERO_LLM_RESPONSE_FORMAT",
            value: v,
            reason: "expected json_schema, json_object or text",
        })?,
    };
    Ok(Some(LlmConfig {
        base_url: base_url.unwrap_or_else(|| "https://api.openai.com/v1".into()),
        api_key,
        model: get("TENDERO_LLM_MODEL").unwrap_or_else(|| "gpt-4o-mini".into()),
        mode,
        timeout: Duration::from_millis(number("TENDERO_LLM_TIMEOUT_MS", 10_000)?),
        catalog_top_k: number("TENDERO_LLM_CATALOG_K", 20)?.min(200) as i64,
        prompt_budget_tokens: number("TENDERO_LLM_PROMPT_BUDGET", 3000)? as usize,
        prices: parse_prices(get("TENDERO_LLM_PRICES").as_deref())?,
        breaker_failures: number("TENDERO_LLM_BREAKER_FAILURES", 3)?.min(1000) as u32,
        breaker_cooldown: Duration::from_secs(number("TENDERO_LLM_BREAKER_COOLDOWN_SECS", 60)?),
        history_len: 10,
        max_in_flight: number("TENDERO_LLM_CONCURRENCY", 64)?.min(10_000) as usize,
        max_in_flight_per_bot: number("TENDERO_LLM_CONCURRENCY_PER_BOT", 64)?.min(10_000) as usize,
        max_tokens: number("TENDERO_LLM_MAX_TOKENS", 300)?.clamp(64, 8192) as u32,
        daily_tokens_per_bot: number("TENDERO_LLM_DAILY_TOKENS", 2_000_000)?,
        rules_first: flag("TENDERO_LLM_RULES_FIRST", true)?,
        embeddings_model: match get("TENDERO_LLM_EMBEDDINGS_MODEL") {
            None => Some("text-embedding-3-small".into()),
            Some(v) if v.trim().eq_ignore_ascii_case("off") || v.trim().is_empty() => None,
            Some(v) => Some(v.trim().to_owned()),
        },
    }))
}

/// `model=prompt/completion,...` in US dollars per million tokens.
fn parse_prices(raw: Option<&str>) -> Result<PriceTable, ConfigError> {
    let mut prices: PriceTable = [
        ("gpt-4o-mini".to_string(), (0.15, 0.60)),
        ("gpt-4o".to_string(), (2.5, 10.0)),
    ]
    .into_iter()
    .collect();
    let Some(raw) = raw else { return Ok(prices) };
    for entry in raw.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let parsed = entry.split_once('=').and_then(|(model, pair)| {
            let (input, output) = pair.split_once('/')?;
            Some((
                model.trim().to_string(),
                (input.trim().parse().ok()?, output.trim().parse().ok()?),
            ))
        });
        match parsed {
            Some((model, (input, output))) if input >= 0.0 && output >= 0.0 => {
                prices.insert(model, (input, output));
            }
            _ => {
                return Err(ConfigError {
                    name: "TENDERO_LLM_PRICES",
                    value: entry.into(),
                    reason: "expected model=prompt/completion dollars per million tokens",
                });
            }
        }
    }
    Ok(prices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_show_in_debug_output() {
        let settings = Settings::from_lookup(|name| {
            (name == "DATABASE_URL").then(|| "postgres://u:hunter2@db/x".to_string())
        })
        .unwrap();
        let printed = format!("{settings:?}");
        assert!(!printed.contains("hunter2"), "{printed}");
        assert!(printed.contains("redacted"));
    }

    #[test]
    fn bad_values_are_refused_with_their_name() {
        let err = Settings::from_lookup(|name| {
            (name == "TENDERO_TURNS_IN_FLIGHT").then(|| "zero".into())
        })
        .unwrap_err();
        assert_eq!(err.name, "TENDERO_TURNS_IN_FLIGHT");
        let err = Settings::from_lookup(|name| (name == "TENDERO_LISTEN").then(|| "8080".into()))
            .unwrap_err();
        assert_eq!(err.name, "TENDERO_LISTEN");
        let err =
            Settings::from_lookup(|name| (name == "DATABASE_URL").then(|| "mysql://x".into()))
                .unwrap_err();
        assert_eq!(err.name, "DATABASE_URL");
        assert!(!err.to_string().contains("mysql"), "the URL is not echoed");
    }

    #[test]
    fn the_llm_is_on_only_with_a_key_or_base_url() {
        assert!(Settings::from_lookup(|_| None).unwrap().llm.is_none());
        let settings = Settings::from_lookup(|name| match name {
            "OPENAI_BASE_URL" => Some("http://127.0.0.1:9/v1".into()),
            "TENDERO_LLM_RESPONSE_FORMAT" => Some("text".into()),
            "TENDERO_LLM_PRICES" => Some("local=0/0, big=1.5/3".into()),
            _ => None,
        })
        .unwrap();
        let llm = settings.llm.unwrap();
        assert_eq!(llm.mode, ResponseMode::Text);
        assert_eq!(llm.prices["big"], (1.5, 3.0));
        let err = Settings::from_lookup(|name| match name {
            "OPENAI_API_KEY" => Some("sk-secret".into()),
            "TENDERO_LLM_RESPONSE_FORMAT" => Some("yaml".into()),
            _ => None,
        })
        .unwrap_err();
        assert_eq!(err.name, "TENDERO_LLM_RESPONSE_FORMAT");
        let printed = format!(
            "{:?}",
            Settings::from_lookup(|n| (n == "OPENAI_API_KEY").then(|| "sk-secret".into())).unwrap()
        );
        assert!(!printed.contains("sk-secret"));
    }

    #[test]
    fn defaults_listen_on_loopback_8080() {
        let settings = Settings::from_lookup(|_| None).unwrap();
        assert_eq!(settings.listen.to_string(), "127.0.0.1:8080");
        assert!(settings.database_url.is_none());
    }
}
