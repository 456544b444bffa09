//! Tracing setup (human-readable logs to stderr, filtered by `RUST_LOG`) and the
//! process's own live gauges: turns and LLM calls in flight. Those are per process
//! by nature; `/metrics` prints them beside the database-wide figures.

use std::sync::atomic::{AtomicI64, Ordering};

use tracing_subscriber::EnvFilter;

pub fn init() {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
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
