//! Wiring: building and running the application — the proposers and profiles,
//! the front doors' states and the router they make together, the turn engine,
//! the outbox dispatcher and the timeout sweeper, stopped together by one token.
//! Nothing else in the crate assembles these.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::cache::Redis;
use crate::channels::Channel;
use crate::channels::telegram::TelegramChannel;
use crate::channels::webchat::WebChat;
use crate::channels::whatsapp::WhatsAppChannel;
use crate::config::{Role, Settings};
use crate::engine::{Engine, EngineSettings, Profiles};
use crate::http;
use crate::notify::{Notifier, Wake};
use crate::outbox::{Dispatcher, Outcome};
use crate::ratelimit::RateLimiter;

pub fn engine_settings(settings: &Settings) -> EngineSettings {
    EngineSettings {
        lease: settings.lease,
        max_attempts: settings.max_attempts,
        retry_backoff: settings.retry_backoff,
        proposer_timeout: settings.proposer_timeout(),
        history_len: 12,
        gather: settings.gather,
        turns_in_flight: settings.turns_in_flight,
        poll: settings.poll_interval,
        shutdown_grace: settings.shutdown_grace,
        contact_messages_per_minute: settings.contact_messages_per_minute,
        console_url: settings.public_url.clone(),
    }
}

/// What each profile asks to read a message: the LLM when one is configured
/// (with the rules first and as its fallback), else the offline rules.
#[derive(Clone)]
pub struct Proposers {
    pub shop: Arc<crate::shop::ShopProposer>,
    pub finance: Arc<crate::finance::FinanceProposer>,
    /// The model that writes knowledge answers and embeds, when one is configured.
    pub knowledge: Option<Arc<crate::shop::knowledge::model::Model>>,
}

impl Proposers {
    /// The offline rules for every profile.
    pub fn rules() -> Self {
        Proposers {
            shop: Arc::new(crate::proposers::Rules),
            finance: Arc::new(crate::proposers::Rules),
            knowledge: None,
        }
    }

    /// `shop` for shop turns, the rules for the rest.
    pub fn shop(shop: Arc<crate::shop::ShopProposer>) -> Self {
        Proposers {
            shop,
            ..Proposers::rules()
        }
    }

    /// `finance` for finance turns, the rules for the rest.
    pub fn finance(finance: Arc<crate::finance::FinanceProposer>) -> Self {
        Proposers {
            finance,
            ..Proposers::rules()
        }
    }

    /// The LLM for every profile (with the rules first and as its fallback).
    pub fn llm(client: Arc<crate::llm::Client>) -> Self {
        Proposers {
            shop: Arc::new(crate::proposers::Llm::new(client.clone())),
            finance: Arc::new(crate::proposers::Llm::new(client.clone())),
            knowledge: Some(Arc::new(crate::shop::knowledge::model::Model::new(client))),
        }
    }

    /// As configured. `redis` keeps the LLM budgets' running counts across
    /// replicas.
    pub fn configured(
        settings: &Settings,
        pool: &PgPool,
        redis: Option<Redis>,
    ) -> anyhow::Result<Self> {
        match &settings.llm {
            Some(llm) => {
                tracing::info!(model = %llm.model, format = llm.mode.as_str(), rules_first = llm.rules_first, "proposals come from the LLM, with the rules as fallback");
                let client = Arc::new(
                    crate::llm::Client::new(llm.clone())?
                        .with_redis(redis)
                        .with_progress(progress(settings, pool)),
                );
                Ok(Proposers::llm(client))
            }
            None => {
                tracing::warn!(
                    "no LLM configured (OPENAI_API_KEY / OPENAI_BASE_URL): proposals come from the offline Spanish rules"
                );
                Ok(Proposers::rules())
            }
        }
    }
}

/// The profiles this process runs. A new profile is one more line here.
pub fn profiles(pool: &PgPool, proposers: &Proposers) -> Profiles {
    Profiles::new()
        .with(Arc::new(
            crate::shop::Shop::new(pool.clone(), proposers.shop.clone())
                .with_model(proposers.knowledge.clone()),
        ))
        .with(Arc::new(crate::finance::Finance::new(
            pool.clone(),
            proposers.finance.clone(),
        )))
}

/// The turn engine over every profile.
pub fn engine(pool: &PgPool, settings: &Settings, proposers: &Proposers) -> Engine {
    Engine::new(
        pool.clone(),
        profiles(pool, proposers),
        engine_settings(settings),
    )
}

/// Progress signals to every channel ("typing", tools running).
pub fn progress(settings: &Settings, pool: &PgPool) -> Arc<dyn crate::progress::Progress> {
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("HTTP client builds");
    Arc::new(crate::progress::ChannelProgress::new(
        pool.clone(),
        Arc::new(TelegramChannel::new(
            http.clone(),
            &settings.telegram_api_url,
            pool.clone(),
        )),
        Arc::new(WhatsAppChannel::new(
            http,
            &settings.whatsapp_api_url,
            &settings.whatsapp_api_version,
            pool.clone(),
        )),
    ))
}

/// Installs the process-wide TLS crypto provider (ring); idempotent. Called once at
/// the top of `main` (and by test and bench harnesses, which have no `main` of ours):
/// two providers are linked, and building an HTTP client before this panics.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Installs the keys that seal channel secrets: `TENDERO_SECRET_KEY`, or else a key
/// kept in the data directory (created on first run, readable by this user only).
pub fn install_secret_keys(settings: &Settings) -> anyhow::Result<()> {
    use anyhow::Context;
    let keys = match &settings.secret_keys {
        Some(keys) => keys.clone(),
        None => {
            let path = settings.data_dir.join("secret.key");
            let raw = match std::fs::read_to_string(&path) {
                Ok(raw) => raw,
                Err(_) => {
                    std::fs::create_dir_all(&settings.data_dir).with_context(|| {
                        format!("cannot create {}", settings.data_dir.display())
                    })?;
                    let raw = crate::secret::KeyRing::generate("local");
                    write_private(&path, &raw)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    tracing::warn!(path = %path.display(), "no TENDERO_SECRET_KEY: channel secrets are sealed with a key kept in this file; set TENDERO_SECRET_KEY in production");
                    raw
                }
            };
            crate::secret::KeyRing::parse(raw.trim())
                .with_context(|| format!("{} holds no valid key", path.display()))?
        }
    };
    crate::secret::install(keys);
    Ok(())
}

fn write_private(path: &std::path::Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(contents.as_bytes())
}

/// Every outbound channel, sharing one HTTP client.
pub fn channels(pool: &PgPool, settings: &Settings) -> Vec<Arc<dyn Channel>> {
    let http = reqwest::Client::builder()
        .timeout(settings.send_timeout)
        .build()
        .expect("HTTP client builds");
    vec![
        Arc::new(WebChat),
        Arc::new(TelegramChannel::new(
            http.clone(),
            &settings.telegram_api_url,
            pool.clone(),
        )),
        Arc::new(WhatsAppChannel::new(
            http,
            &settings.whatsapp_api_url,
            &settings.whatsapp_api_version,
            pool.clone(),
        )),
    ]
}

pub fn dispatcher(pool: PgPool, settings: &Settings, redis: Option<Redis>) -> Dispatcher {
    let channels = channels(&pool, settings);
    Dispatcher::new(
        pool,
        channels,
        settings.send_attempts,
        settings.send_backoff,
        RateLimiter::new(redis),
    )
}

/// Connects to Redis if configured; a Redis that does not answer is logged and
/// left out (PostgreSQL and in-process limits take over).
pub async fn redis(settings: &Settings) -> Option<Redis> {
    let url = settings.redis_url.as_ref()?;
    match Redis::connect(url.expose(), &settings.redis_prefix).await {
        Ok(redis) => Some(redis),
        Err(err) => {
            tracing::warn!(error = %format!("{err:#}"), "Redis unavailable; PostgreSQL and in-process limits take over");
            None
        }
    }
}

pub struct Application {
    listener: Option<TcpListener>,
    pool: PgPool,
    settings: Settings,
    proposers: Proposers,
    role: Role,
    notifier: Notifier,
    redis: Option<Redis>,
}

impl Application {
    pub async fn build(
        settings: Settings,
        pool: PgPool,
        proposers: Proposers,
        role: Role,
    ) -> anyhow::Result<Self> {
        // Every role listens: a worker-only process serves its probes and metrics.
        let listener = Some(TcpListener::bind(settings.listen).await.map_err(|e| {
            anyhow::anyhow!("cannot listen on {} (TENDERO_LISTEN): {e}", settings.listen)
        })?);
        let redis = redis(&settings).await;
        Ok(Application {
            redis,
            listener,
            pool,
            settings,
            proposers,
            role,
            notifier: Notifier::new(),
        })
    }

    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.listener.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// Runs until `cancel` fires, then lets in-flight turns finish (up to the grace
    /// period) and returns.
    pub async fn run_until_stopped(self, cancel: CancellationToken) -> anyhow::Result<()> {
        let mut tasks = tokio::task::JoinSet::new();
        let listener_task = self.notifier.spawn(self.pool.clone(), cancel.clone());

        if let Some(listener) = self.listener {
            let router = router(
                &self.settings,
                &self.pool,
                &self.notifier,
                self.redis.clone(),
                &cancel,
                self.role,
            );
            let shutdown = cancel.clone();
            tasks.spawn(async move {
                let router = router.into_make_service_with_connect_info::<SocketAddr>();
                let served = axum::serve(listener, router)
                    .with_graceful_shutdown(async move { shutdown.cancelled().await })
                    .await;
                if let Err(err) = served {
                    tracing::error!(%err, "HTTP server failed");
                }
            });
        }

        if self.role.runs_workers() {
            let progress = progress(&self.settings, &self.pool);
            let engine = Arc::new(
                engine(&self.pool, &self.settings, &self.proposers).with_progress(progress),
            );
            tasks.spawn(run_sweeper(
                engine.clone(),
                self.pool.clone(),
                self.settings.sweep_interval,
                cancel.clone(),
            ));
            tasks.spawn(engine.run(self.notifier.clone(), cancel.clone()));
            let dispatcher = dispatcher(self.pool.clone(), &self.settings, self.redis.clone());
            tasks.spawn(run_dispatcher(
                dispatcher,
                self.notifier.clone(),
                self.settings.poll_interval,
                cancel.clone(),
            ));
        }

        cancel.cancelled().await;
        tracing::info!("shutting down: no new work; finishing in-flight turns");
        // The engine bounds its own turns by the grace period; this is a backstop.
        let drained = tokio::time::timeout(
            self.settings.shutdown_grace + Duration::from_secs(2),
            async { while tasks.join_next().await.is_some() {} },
        )
        .await;
        if drained.is_err() {
            tracing::warn!("grace period over; abandoning unfinished work (it will be retried)");
            tasks.abort_all();
        }
        listener_task.abort();
        Ok(())
    }
}

/// The front doors' states, and the one router they make: webhooks, web chat, the
/// merchant API and the console (only health and metrics for a worker-only
/// process).
fn router(
    settings: &Settings,
    pool: &PgPool,
    notifier: &Notifier,
    redis: Option<Redis>,
    cancel: &CancellationToken,
    role: Role,
) -> axum::Router {
    let directory = Arc::new(crate::directory::BotDirectory::new(pool.clone()));
    let telegram = Arc::new(TelegramChannel::new(
        reqwest::Client::new(),
        &settings.telegram_api_url,
        pool.clone(),
    ));
    let office = crate::merchant::Office {
        pool: pool.clone(),
        directory: directory.clone(),
        llm_daily_tokens: settings.llm.as_ref().map(|l| l.daily_tokens_per_bot),
        telegram: telegram.clone(),
        whatsapp: Arc::new(WhatsAppChannel::new(
            reqwest::Client::new(),
            &settings.whatsapp_api_url,
            &settings.whatsapp_api_version,
            pool.clone(),
        )),
    };
    let web = http::Web {
        pool: pool.clone(),
        notifier: notifier.clone(),
        ingest: crate::ingest::IngestQueue::start(pool.clone(), redis.clone()),
        redis: redis.clone(),
        shutdown: cancel.clone(),
        bots: directory,
        telegram,
        office: office.clone(),
        streams: http::streams::StreamLimits::new(settings.streams.clone()),
        limiter: Arc::new(crate::ratelimit::RateLimiter::new(redis.clone())),
        sessions_per_second: settings.webchat_sessions_per_second,
    };
    let router = if role.runs_web() {
        let console = crate::dashboard::Console {
            pool: pool.clone(),
            notifier: notifier.clone(),
            shutdown: cancel.clone(),
            office,
            public_url: settings.public_url.clone(),
        };
        http::router(web).merge(crate::dashboard::router(console))
    } else {
        http::health_router(web)
    };
    router
        .fallback(not_found)
        .layer(axum::middleware::from_fn(http::refuse_nul_in_uri))
        .layer(tower_http::trace::TraceLayer::new_for_http())
}

/// No such route: a Spanish page under the console, the API's JSON elsewhere.
async fn not_found(uri: axum::http::Uri) -> axum::response::Response {
    use axum::response::IntoResponse;
    if uri.path() == "/dashboard" || uri.path().starts_with("/dashboard/") {
        crate::dashboard::not_found()
    } else {
        http::not_found().await.into_response()
    }
}

async fn run_dispatcher(
    dispatcher: Dispatcher,
    notifier: Notifier,
    poll: Duration,
    cancel: CancellationToken,
) {
    let mut wakes = notifier.subscribe();
    loop {
        match dispatcher.run_once().await {
            Ok(Outcome::Delivered(_)) if !cancel.is_cancelled() => continue,
            Ok(_) => {}
            Err(err) => tracing::error!(error = %format!("{err:#}"), "dispatcher pass failed"),
        }
        if cancel.is_cancelled() {
            return;
        }
        // New rows come with a notification and retries this process scheduled wake
        // it when due, so polling is only a backstop.
        let backstop = tokio::time::Instant::now() + poll * 5;
        let wake_at = dispatcher
            .take_next_retry()
            .map_or(backstop, |due| due.min(backstop));
        tokio::select! {
            _ = cancel.cancelled() => {
                // Flush what the last turns queued before leaving.
                let _ = dispatcher.run_until_idle().await;
                return;
            }
            _ = tokio::time::sleep_until(wake_at) => {}
            _ = async {
                loop {
                    match wakes.recv().await {
                        Ok(Wake::OutboxPending(_) | Wake::Resync) | Err(_) => break,
                        Ok(_) => continue,
                    }
                }
            } => {}
        }
    }
}

async fn run_sweeper(
    engine: Arc<Engine>,
    pool: PgPool,
    every: Duration,
    cancel: CancellationToken,
) {
    const KEEP_IDEMPOTENCY_KEYS: Duration = Duration::from_secs(24 * 3600);
    let mut last_purge: Option<std::time::Instant> = None;
    loop {
        match engine.sweep().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(queued = n, "queued timeout events"),
            Err(err) => tracing::error!(error = %format!("{err:#}"), "timeout sweep failed"),
        }
        if last_purge.is_none_or(|at| at.elapsed() >= Duration::from_secs(3600)) {
            last_purge = Some(std::time::Instant::now());
            if let Err(err) = crate::idempotency::purge(&pool, KEEP_IDEMPOTENCY_KEYS).await {
                tracing::warn!(%err, "could not purge old idempotency keys");
            }
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
    }
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
