//! `tendero eval`: plays scripted conversations against a proposer, through the real
//! turn engine and matrix, and scores what came out.
//!
//! A script is JSON Lines, one customer message per line:
//! `{"conversation": "c1", "message": "quiero 2 maracuyá",
//!   "expect": {"actions": [{"type": "ADD_TO_CART", "sku": "maracuya", "quantity": 2}],
//!              "state": "CART_OPEN", "cart": {"maracuya": 2}}}`.
//! Scripts whose file name starts with `finanzas` play against the finance bot:
//! `{"conversation": "ana", "message": "gasté 250 en el súper",
//!   "expect": {"actions": [{"type": "LOG_TRANSACTION", "amount": 250, "category": "supermercado"}],
//!              "state": "AWAITING_CONFIRMATION", "written": null, "reply": ["{today}"]}}`;
//! `"history": "sample"` on a conversation's first line gives its user the demo
//! history. Every `expect` field is optional; a turn is fully correct when all
//! given ones hold.

mod finance;
mod shop;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use serde::Deserialize;
use sqlx::PgPool;

use crate::finance::contract::{FinanceInput, FinanceProposal};
use crate::proposal::ProposerError;
use crate::shop::contract::{Proposal, ProposalInput};

pub use finance::{load_bot as finance_bot, run as run_finance};
pub use shop::run;

#[derive(Debug, Clone, Deserialize)]
pub struct ScriptTurn {
    pub conversation: String,
    pub message: String,
    /// Finance: `"sample"` seeds the demo history for this user first.
    #[serde(default)]
    pub history: Option<String>,
    #[serde(default)]
    pub expect: Expect,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Expect {
    pub actions: Option<Vec<ExpectedAction>>,
    pub state: Option<String>,
    pub cart: Option<BTreeMap<String, i64>>,
    /// Finance: the write this turn made (`null`: none).
    #[serde(default, deserialize_with = "present")]
    pub written: Option<Option<String>>,
    /// Finance: texts the reply contains (`{today}`, `{yesterday}` are replaced).
    pub reply: Option<Vec<String>>,
    /// Finance: tools that ran, in order.
    pub tools: Option<Vec<String>>,
}

/// Tells `"written": null` (checked: nothing written) from an absent field.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Ok(Some(Option::deserialize(d)?))
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExpectedAction {
    #[serde(rename = "type")]
    pub kind: String,
    pub sku: Option<String>,
    pub quantity: Option<i64>,
    /// Finance: the amount in pesos.
    pub amount: Option<f64>,
    /// Finance: a category key.
    pub category: Option<String>,
}

/// What a run measured.
#[derive(Debug, Default)]
pub struct Report {
    pub turns: usize,
    pub fully_correct: usize,
    pub proposals: usize,
    pub proposals_valid: usize,
    pub rejections_by_reason: BTreeMap<String, usize>,
    pub forbidden_executed: usize,
    pub replies_replaced: usize,
    /// Finance: rows written in a turn whose message was not a confirmation token.
    pub writes_without_confirmation: usize,
    /// Finance: numbers in replies that no tool, draft, write or user message of
    /// the conversation accounts for.
    pub numbers_not_from_tools: usize,
    /// Shop: turns that changed the cart or an order in a way the script does not
    /// expect (worse than asking back, which is only a miss).
    pub wrong_effects: usize,
    /// Cart or order changes on turns that began off the script (after an earlier
    /// miss): what was right there is unknown, so they are counted, not judged.
    pub effects_off_script: usize,
    /// Shop: by intent (the first action expected or proposed), the turns where
    /// both agreed, where only the proposer said it, where only the script did.
    pub intents: BTreeMap<String, [usize; 3]>,
    pub latencies: Vec<Duration>,
    pub tokens: i64,
    /// One line per turn that was not fully correct.
    pub misses: Vec<String>,
}

impl Report {
    pub fn correct_ratio(&self) -> f64 {
        if self.turns == 0 {
            0.0
        } else {
            self.fully_correct as f64 / self.turns as f64
        }
    }

    fn latency_ms(&self, quantile: f64) -> f64 {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        if sorted.is_empty() {
            return 0.0;
        }
        let index = ((sorted.len() as f64 - 1.0) * quantile).round() as usize;
        sorted[index].as_secs_f64() * 1000.0
    }

    /// Whether the run broke a guarantee (whatever its accuracy).
    pub fn violations(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.forbidden_executed > 0 {
            out.push(format!(
                "{} forbidden actions executed",
                self.forbidden_executed
            ));
        }
        if self.writes_without_confirmation > 0 {
            out.push(format!(
                "{} writes without confirmation",
                self.writes_without_confirmation
            ));
        }
        if self.wrong_effects > 0 {
            out.push(format!("{} wrong effects", self.wrong_effects));
        }
        if self.numbers_not_from_tools > 0 {
            out.push(format!(
                "{} numbers not from tools",
                self.numbers_not_from_tools
            ));
        }
        out
    }

    pub fn render(&self) -> String {
        let mean = if self.latencies.is_empty() {
            0.0
        } else {
            self.latencies
                .iter()
                .map(Duration::as_secs_f64)
                .sum::<f64>()
                * 1000.0
                / self.latencies.len() as f64
        };
        let mut out = String::new();
        out.push_str(&format!(
            "turns fully correct:        {}/{} ({:.1}%)\n",
            self.fully_correct,
            self.turns,
            self.correct_ratio() * 100.0
        ));
        out.push_str(&format!(
            "proposals fully valid:      {}/{}\n",
            self.proposals_valid, self.proposals
        ));
        out.push_str(&format!(
            "forbidden actions executed: {}\n",
            self.forbidden_executed
        ));
        out.push_str(&format!(
            "writes without confirmation: {}\n",
            self.writes_without_confirmation
        ));
        out.push_str(&format!(
            "numbers not from tools:     {}\n",
            self.numbers_not_from_tools
        ));
        out.push_str(&format!(
            "wrong effects:              {}\n",
            self.wrong_effects
        ));
        if self.effects_off_script > 0 {
            out.push_str(&format!(
                "effects after a miss:       {} (not judged)\n",
                self.effects_off_script
            ));
        }
        out.push_str(&format!(
            "replies replaced by guard:  {}\n",
            self.replies_replaced
        ));
        out.push_str(&format!(
            "proposer latency:           mean {mean:.2} ms, p95 {:.2} ms\n",
            self.latency_ms(0.95)
        ));
        let per_turn = if self.turns == 0 {
            0.0
        } else {
            self.tokens as f64 / self.turns as f64
        };
        out.push_str(&format!("tokens per turn:            {per_turn:.1}\n"));
        out.push_str("rejections by reason:\n");
        if self.rejections_by_reason.is_empty() {
            out.push_str("  (none)\n");
        }
        for (reason, count) in &self.rejections_by_reason {
            out.push_str(&format!("  {reason}: {count}\n"));
        }
        if !self.intents.is_empty() {
            out.push_str("intent                 precision      recall\n");
        }
        for (intent, [both, proposed_only, expected_only]) in &self.intents {
            let ratio = |hits: usize, misses: usize| {
                if hits + misses == 0 {
                    "   -  ".to_string()
                } else {
                    format!("{:5.1}%", hits as f64 * 100.0 / (hits + misses) as f64)
                }
            };
            out.push_str(&format!(
                "  {intent:<20} {} ({:>3})  {} ({:>3})\n",
                ratio(*both, *proposed_only),
                both + proposed_only,
                ratio(*both, *expected_only),
                both + expected_only
            ));
        }
        for miss in &self.misses {
            out.push_str(&format!("miss: {miss}\n"));
        }
        out
    }

    /// Counts one turn's intent: what the script expected and what was proposed.
    fn intent(&mut self, expected: &str, proposed: &str) {
        if expected == proposed {
            self.intents.entry(expected.to_owned()).or_default()[0] += 1;
        } else {
            self.intents.entry(proposed.to_owned()).or_default()[1] += 1;
            self.intents.entry(expected.to_owned()).or_default()[2] += 1;
        }
    }
}

impl Report {
    /// Counts what the audit says of a turn: rejections by reason, forbidden
    /// actions that reached `executed` (the profile's execution row), replaced
    /// replies. True when anything was rejected.
    fn tally(&mut self, audit: &[AuditRow], executed: &str, forbidden: &[&str]) -> bool {
        let mut rejected = false;
        for row in audit {
            match row.kind.as_str() {
                "action_rejected" => {
                    rejected = true;
                    let code = row.code.clone().unwrap_or_else(|| "unknown".into());
                    *self.rejections_by_reason.entry(code).or_default() += 1;
                }
                "reply_replaced" => self.replies_replaced += 1,
                kind if kind == executed
                    && row
                        .action
                        .as_deref()
                        .is_some_and(|a| forbidden.contains(&a)) =>
                {
                    self.forbidden_executed += 1
                }
                _ => {}
            }
        }
        rejected
    }

    /// Counts a proposal the recording saw.
    fn proposed(&mut self, latency: Duration, valid: bool) {
        self.proposals += 1;
        self.latencies.push(latency);
        if valid {
            self.proposals_valid += 1;
        }
    }

    /// Counts a scored turn: fully correct, or a miss saying what went wrong.
    fn score(
        &mut self,
        script: &str,
        index: usize,
        turn: &ScriptTurn,
        problems: &[String],
        reply: Option<&str>,
    ) {
        if problems.is_empty() {
            self.fully_correct += 1;
            return;
        }
        let mut miss = format!(
            "{script} #{} {:?}: {}",
            index + 1,
            turn.message,
            problems.join("; ")
        );
        if let Some(reply) = reply {
            miss.push_str(&format!(
                " — reply: {:?}",
                reply.chars().take(160).collect::<String>()
            ));
        }
        self.misses.push(miss);
    }
}

/// One audit row of a turn, as the eval reads it.
struct AuditRow {
    kind: String,
    action: Option<String>,
    /// A rejection's code.
    code: Option<String>,
    detail: serde_json::Value,
}

/// The audit rows of one inbox event, oldest first.
async fn audit_of(pool: &PgPool, inbox_id: i64) -> sqlx::Result<Vec<AuditRow>> {
    let rows: Vec<(String, Option<String>, Option<String>, serde_json::Value)> = sqlx::query_as(
        "SELECT kind, action, detail->>'code', detail FROM audit_log WHERE inbox_id = $1 ORDER BY id",
    )
    .bind(inbox_id)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(kind, action, code, detail)| AuditRow {
            kind,
            action,
            code,
            detail,
        })
        .collect())
}

/// Tokens the LLM spent on one inbox event.
async fn tokens_of(pool: &PgPool, inbox_id: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT coalesce(sum(prompt_tokens + completion_tokens), 0)::bigint FROM llm_calls WHERE inbox_id = $1",
    )
    .bind(inbox_id)
    .fetch_one(pool)
    .await
}

/// Stores one script turn as a web-chat message from the script's conversation.
async fn ingest(
    pool: &PgPool,
    bot: &crate::bots::Bot,
    script: &str,
    index: usize,
    turn: &ScriptTurn,
) -> sqlx::Result<i64> {
    use crate::channels::{ChannelKind, Inbound, MessagePayload};
    let sender = format!("eval:{script}:{}", turn.conversation);
    let inbound = Inbound {
        channel: ChannelKind::Webchat,
        sender: sender.chars().take(128).collect(),
        display_name: None,
        external_id: format!("eval:{script}:{index}"),
        message: MessagePayload {
            text: turn.message.clone(),
            media: None,
        },
    };
    Ok(crate::inbox::ingest(pool, bot, &inbound).await?.inbox_id())
}

/// A state expectation, checked.
fn check_state(expected: Option<&String>, state: &str, problems: &mut Vec<String>) {
    if let Some(expected) = expected
        && !expected.eq_ignore_ascii_case(state)
    {
        problems.push(format!("state {state}, expected {expected}"));
    }
}

/// Wraps a proposer under test to see what it proposed and how long it took,
/// by the inbox event the turn was for.
struct Recording<P: ?Sized, T> {
    inner: Arc<P>,
    seen: Mutex<HashMap<i64, (T, Duration)>>,
}

impl<P: ?Sized, T> Recording<P, T> {
    fn new(inner: Arc<P>) -> Self {
        Recording {
            inner,
            seen: Mutex::new(HashMap::new()),
        }
    }

    fn take(&self, inbox_id: i64) -> Option<(T, Duration)> {
        self.seen.lock().expect("recording lock").remove(&inbox_id)
    }

    fn note(&self, inbox_id: i64, value: T, took: Duration) {
        self.seen
            .lock()
            .expect("recording lock")
            .insert(inbox_id, (value, took));
    }
}

#[async_trait]
impl crate::shop::Proposer for Recording<dyn crate::shop::Proposer, Proposal> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        let started = Instant::now();
        let result = self.inner.propose(input).await;
        if let Ok(proposal) = &result {
            self.note(input.context.inbox_id, proposal.clone(), started.elapsed());
        }
        result
    }
}

#[async_trait]
impl crate::finance::Proposer for Recording<dyn crate::finance::Proposer, FinanceProposal> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    async fn propose(&self, input: &FinanceInput) -> Result<FinanceProposal, ProposerError> {
        let started = Instant::now();
        let result = self.inner.propose(input).await;
        if let Ok(proposal) = &result {
            self.note(input.context.inbox_id, proposal.clone(), started.elapsed());
        }
        result
    }
}

/// Loads the shop (and the finance bot, for `finanzas*` scripts) into a scratch
/// database, plays the scripts and drops the database. One report per profile.
pub async fn run_files(
    base: &PgPool,
    shop_json: &str,
    files: &[std::path::PathBuf],
    settings: &crate::config::Settings,
) -> anyhow::Result<Vec<(&'static str, Report)>> {
    let mut shop_scripts = Vec::new();
    let mut finance_scripts = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let name = file.file_stem().map_or_else(
            || file.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let script = (name.clone(), parse_script(&name, &text)?);
        if name.starts_with("finanzas") {
            finance_scripts.push(script);
        } else {
            shop_scripts.push(script);
        }
    }
    let (pool, name) = crate::db::create_scratch(base, "tendero_eval").await?;
    let result = async {
        crate::db::migrate(&pool).await?;
        let proposers = crate::startup::Proposers::configured(settings, &pool, None)?;
        let mut engine = crate::startup::engine_settings(settings);
        // Scripts play a conversation faster than any customer types, one turn per
        // message: no rate limit, no gather window (it would only delay each turn).
        engine.contact_messages_per_minute = u32::MAX;
        engine.gather = std::time::Duration::ZERO;
        let mut reports = Vec::new();
        if !shop_scripts.is_empty() {
            let shop = crate::demo::load_shop(&pool, shop_json).await?;
            let report = run(
                &pool,
                shop.bot_id,
                &shop_scripts,
                proposers.shop.clone(),
                engine.clone(),
            )
            .await?;
            reports.push(("tienda", report));
        }
        if !finance_scripts.is_empty() {
            let bot = finance_bot(&pool).await?;
            let report =
                run_finance(&pool, bot, &finance_scripts, proposers.finance, engine).await?;
            reports.push(("finanzas", report));
        }
        Ok(reports)
    }
    .await;
    crate::db::drop_scratch(base, pool, &name).await?;
    result
}

/// Parses JSON Lines scripts; blank lines and `#` comments are skipped.
pub fn parse_script(name: &str, text: &str) -> anyhow::Result<Vec<ScriptTurn>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(i, line)| {
            serde_json::from_str(line)
                .with_context(|| format!("{name}:{}: not a script turn", i + 1))
        })
        .collect()
}
