//! Tracing setup (logs to stderr, text or JSON, filtered by `RUST_LOG`) and the
//! process's own live gauges: turns and LLM calls in flight. Those are per process
//! by nature; `/metrics` prints them beside the database-wide figures.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use tracing::{Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Logs to stderr. With `TENDERO_COUNT_STATEMENTS=1`, every SQL statement this
/// process runs is also counted (`tendero_db_statements_total` in `/metrics`); off
/// by default, since it makes the database driver describe each statement.
pub fn init() {
    let filter = || {
        EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"))
    };
    // `TENDERO_LOG_FORMAT=json`: one JSON object per line, with the fields of every
    // enclosing span (a turn's `turn_id`, `conversation_id`, `inbox_id`).
    let json = std::env::var("TENDERO_LOG_FORMAT").is_ok_and(|v| v.eq_ignore_ascii_case("json"));
    let text_logs = (!json).then(|| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_filter(filter())
    });
    let json_logs = json.then(|| {
        tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(false)
            .with_span_list(true)
            .with_writer(std::io::stderr)
            .with_filter(filter())
    });
    let counting = std::env::var("TENDERO_COUNT_STATEMENTS").is_ok_and(|v| v == "1");
    let counter = counting.then(|| {
        STATEMENTS_COUNTED.store(true, Ordering::Relaxed);
        StatementCounter.with_filter(Targets::new().with_target("sqlx::query", Level::TRACE))
    });
    let _ = tracing_subscriber::registry()
        .with(text_logs)
        .with(json_logs)
        .with(counter)
        .try_init();
}

/// Statements executed by this process, when counting is on.
pub static DB_STATEMENTS: AtomicU64 = AtomicU64::new(0);
static STATEMENTS_COUNTED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Whether `DB_STATEMENTS` is being counted.
pub fn statements_counted() -> bool {
    STATEMENTS_COUNTED.load(Ordering::Relaxed)
}

/// Counts the driver's one event per executed statement.
struct StatementCounter;

impl<S: Subscriber> Layer<S> for StatementCounter {
    fn on_event(&self, _event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        DB_STATEMENTS.fetch_add(1, Ordering::Relaxed);
    }
}

/// A gauge with its high-water mark.
pub struct Gauge {
    now: AtomicI64,
    peak: AtomicI64,
}

impl Gauge {
    const fn new() -> Self {
        Gauge {
            now: AtomicI64::new(0),
            peak: AtomicI64::new(0),
        }
    }

    pub fn current(&self) -> i64 {
        self.now.load(Ordering::Relaxed)
    }

    pub fn peak(&self) -> i64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Counts one in until the guard drops.
    pub fn enter(&'static self) -> GaugeGuard {
        let now = self.now.fetch_add(1, Ordering::Relaxed) + 1;
        self.peak.fetch_max(now, Ordering::Relaxed);
        GaugeGuard(self)
    }
}

pub struct GaugeGuard(&'static Gauge);

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        self.0.now.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Turns running in this process.
pub static TURNS_IN_FLIGHT: Gauge = Gauge::new();
/// LLM requests waiting for their answer in this process.
pub static LLM_IN_FLIGHT: Gauge = Gauge::new();
/// Model-bound turns set aside because the customer was still writing.
pub static TURNS_GATHERED: AtomicU64 = AtomicU64::new(0);
