//! Latency histograms and counters for `/metrics`, in the Prometheus text format.
//! Labels are bounded by construction: a bot, a channel, an outcome or a status —
//! never a customer or a conversation. Per process, like the gauges in telemetry.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds, in seconds: from a fast commit to a slow model.
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The histograms Tendero keeps, each with its help text and label names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// From a message's arrival to its turn's start.
    TurnQueueWait,
    /// The proposer's time within a turn.
    TurnProposer,
    /// The turn's commit transaction.
    TurnCommit,
    /// One LLM proposal, repair included.
    LlmLatency,
    /// A webhook or web-chat post, from request to answer.
    WebhookAck,
    /// One outbound send to a platform.
    OutboxSend,
}

impl Metric {
    pub const ALL: [Metric; 6] = [
        Metric::TurnQueueWait,
        Metric::TurnProposer,
        Metric::TurnCommit,
        Metric::LlmLatency,
        Metric::WebhookAck,
        Metric::OutboxSend,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Metric::TurnQueueWait => "tendero_turn_queue_wait_seconds",
            Metric::TurnProposer => "tendero_turn_proposer_seconds",
            Metric::TurnCommit => "tendero_turn_commit_seconds",
            Metric::LlmLatency => "tendero_llm_latency_seconds",
            Metric::WebhookAck => "tendero_webhook_ack_seconds",
            Metric::OutboxSend => "tendero_outbox_send_seconds",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Metric::TurnQueueWait => "Time from a message's arrival to the start of its turn.",
            Metric::TurnProposer => "Time a turn spent in its proposer (rules or LLM).",
            Metric::TurnCommit => "Time of a turn's commit transaction.",
            Metric::LlmLatency => "Time of one LLM proposal, repair included.",
            Metric::WebhookAck => "Time to answer a webhook or web-chat post.",
            Metric::OutboxSend => "Time of one send to a platform.",
        }
    }

    fn label_names(self) -> [&'static str; 2] {
        match self {
            Metric::WebhookAck => ["channel", "status"],
            Metric::OutboxSend => ["channel", "outcome"],
            _ => ["bot", "outcome"],
        }
    }
}

#[derive(Debug, Default, Clone)]
struct Series {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

type Key = (Metric, [String; 2]);

static SERIES: Mutex<BTreeMap<Key, Series>> = Mutex::new(BTreeMap::new());

/// Records one observation with its two label values.
pub fn observe(metric: Metric, labels: [&str; 2], took: Duration) {
    let seconds = took.as_secs_f64();
    let mut series = SERIES.lock().expect("histogram lock");
    let entry = series
        .entry((metric, labels.map(str::to_owned)))
        .or_default();
    for (bound, count) in BUCKETS.iter().zip(entry.counts.iter_mut()) {
        if seconds <= *bound {
            *count += 1;
        }
    }
    entry.count += 1;
    entry.sum += seconds;
}

/// Label values are ours (slugs, fixed words), but quote-safe all the same.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Appends every histogram in the Prometheus text format.
pub fn render(out: &mut String) {
    let series = SERIES.lock().expect("histogram lock").clone();
    let mut last: Option<Metric> = None;
    for ((metric, labels), s) in &series {
        let name = metric.name();
        if last != Some(*metric) {
            let _ = writeln!(
                out,
                "# HELP {name} {}\n# TYPE {name} histogram",
                metric.help()
            );
            last = Some(*metric);
        }
        let [a, b] = metric.label_names();
        let base = format!(
            "{a}=\"{}\",{b}=\"{}\"",
            escape(&labels[0]),
            escape(&labels[1])
        );
        for (bound, count) in BUCKETS.iter().zip(s.counts) {
            let _ = writeln!(out, "{name}_bucket{{{base},le=\"{bound}\"}} {count}");
        }
        let _ = writeln!(out, "{name}_bucket{{{base},le=\"+Inf\"}} {}", s.count);
        let _ = writeln!(out, "{name}_sum{{{base}}} {}", s.sum);
        let _ = writeln!(out, "{name}_count{{{base}}} {}", s.count);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_cumulative_buckets() {
        observe(
            Metric::OutboxSend,
            ["unit-test", "sent"],
            Duration::from_millis(3),
        );
        observe(
            Metric::OutboxSend,
            ["unit-test", "sent"],
            Duration::from_secs(2),
        );
        let mut out = String::new();
        render(&mut out);
        let line = |le: &str| {
            format!(
                "tendero_outbox_send_seconds_bucket{{channel=\"unit-test\",outcome=\"sent\",le=\"{le}\"}}"
            )
        };
        let value = |le: &str| -> u64 {
            let prefix = line(le);
            out.lines()
                .find_map(|l| l.strip_prefix(&prefix))
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        };
        assert_eq!(value("0.001"), 0);
        assert_eq!(value("0.005"), 1);
        assert_eq!(value("2.5"), 2);
        assert_eq!(value("+Inf"), 2);
        assert!(out.contains("# TYPE tendero_outbox_send_seconds histogram"));
    }
}
