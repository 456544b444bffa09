//! `tendero eval`: plays scripted conversations against a proposer, through the real
//! turn engine and matrix, and scores what came out.
//!
//! A script is JSON Lines, one customer message per line:
//! `{"conversation": "c1", "message": "quiero 2 maracuyá",
//!   "expect": {"actions": [{"type": "ADD_TO_CART", "sku": "maracuya", "quantity": 2}],
//!              "state": "CART_OPEN", "cart": {"maracuya": 2}}}`.
//! Every `expect` field is optional; a turn is fully correct when all given ones hold.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use serde::Deserialize;
use sqlx::PgPool;

use crate::agent::{Proposal, ProposalInput, Proposer, ProposerError};
use crate::conversation::ForbiddenKind;
use crate::engine::{Engine, EngineSettings};
use crate::inbox::{self, ChannelKind, Inbound, MessagePayload};

#[derive(Debug, Clone, Deserialize)]
pub struct ScriptTurn {
    pub conversation: String,
    pub message: String,
    #[serde(default)]
    pub expect: Expect,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Expect {
    pub actions: Option<Vec<ExpectedAction>>,
    pub state: Option<String>,
    pub cart: Option<BTreeMap<String, i64>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExpectedAction {
    #[serde(rename = "type")]
    pub kind: String,
    pub sku: Option<String>,
    pub quantity: Option<i64>,
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
        for miss in &self.misses {
            out.push_str(&format!("miss: {miss}\n"));
        }
        out
    }
}

/// Wraps the proposer under test to see what it proposed and how long it took.
struct Recording {
    inner: Arc<dyn Proposer>,
    seen: Mutex<HashMap<i64, (Proposal, Duration)>>,
}

#[async_trait]
impl Proposer for Recording {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        let started = Instant::now();
        let result = self.inner.propose(input).await;
        if let Ok(proposal) = &result {
            self.seen.lock().expect("recording lock").insert(
                input.context.inbox_id,
                (proposal.clone(), started.elapsed()),
            );
        }
        result
    }

    async fn propose_finance(
        &self,
        input: &crate::agent::FinanceInput,
    ) -> Result<crate::agent::FinanceProposal, ProposerError> {
        self.inner.propose_finance(input).await
    }
}

/// Loads the shop into a scratch database, plays the scripts, prints the report and
/// drops the database. Returns the report.
pub async fn run_files(
    base: &PgPool,
    shop_json: &str,
    files: &[std::path::PathBuf],
    settings: &crate::config::Settings,
) -> anyhow::Result<Report> {
    let mut scripts = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let name = file.file_stem().map_or_else(
            || file.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        scripts.push((name.clone(), parse_script(&name, &text)?));
    }
    let (pool, name) = crate::db::create_scratch(base, "tendero_eval").await?;
    let result = async {
        crate::db::migrate(&pool).await?;
        let shop = crate::demo::load_shop(&pool, shop_json).await?;
        let proposer = crate::startup::proposer(settings, &pool)?;
        run(
            &pool,
            shop.bot_id,
            &scripts,
            proposer,
            crate::startup::engine_settings(settings),
        )
        .await
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

/// Plays `scripts` (name, turns) against `proposer` on `pool`, which must hold the
/// shop's bot and nothing else of these conversations.
pub async fn run(
    pool: &PgPool,
    bot_id: uuid::Uuid,
    scripts: &[(String, Vec<ScriptTurn>)],
    proposer: Arc<dyn Proposer>,
    settings: EngineSettings,
) -> anyhow::Result<Report> {
    let bot = crate::merchant::bot_by_id(pool, bot_id).await?;
    let recording = Arc::new(Recording {
        inner: proposer,
        seen: Mutex::new(HashMap::new()),
    });
    let engine = Engine::new(pool.clone(), recording.clone(), settings);
    let skus: HashMap<i64, String> =
        sqlx::query_as("SELECT id, sku FROM products WHERE bot_id = $1")
            .bind(bot.id)
            .fetch_all(pool)
            .await?
            .into_iter()
            .collect();
    let forbidden: Vec<&str> = ForbiddenKind::ALL.iter().map(|k| k.as_str()).collect();
    let mut report = Report::default();
    for (script_name, turns) in scripts {
        for (index, turn) in turns.iter().enumerate() {
            let sender = format!("eval:{script_name}:{}", turn.conversation);
            let inbound = Inbound {
                channel: ChannelKind::Webchat,
                sender: sender.chars().take(128).collect(),
                display_name: None,
                external_id: format!("eval:{script_name}:{index}"),
                message: MessagePayload {
                    text: turn.message.clone(),
                    media: None,
                },
            };
            let inbox_id = inbox::ingest(pool, &bot, &inbound).await?.inbox_id();
            engine.run_until_idle().await?;
            report.turns += 1;

            let proposal = recording
                .seen
                .lock()
                .expect("recording lock")
                .remove(&inbox_id);
            let (conversation_id, state): (uuid::Uuid, String) =
                sqlx::query_as("SELECT c.id, c.fsm_state FROM conversations c JOIN inbox i ON i.conversation_id = c.id WHERE i.id = $1")
                    .bind(inbox_id)
                    .fetch_one(pool)
                    .await?;
            let cart: BTreeMap<String, i64> = sqlx::query_as::<_, (String, i32)>(
                "SELECT p.sku, ci.quantity FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.conversation_id = $1",
            )
            .bind(conversation_id)
            .fetch_all(pool)
            .await?
            .into_iter()
            .map(|(sku, q)| (sku, i64::from(q)))
            .collect();
            let audit: Vec<(String, Option<String>, Option<String>)> = sqlx::query_as(
                "SELECT kind, action, detail->>'code' FROM audit_log WHERE inbox_id = $1",
            )
            .bind(inbox_id)
            .fetch_all(pool)
            .await?;
            let rejected: Vec<String> = audit
                .iter()
                .filter(|(kind, _, _)| kind == "action_rejected")
                .map(|(_, _, code)| code.clone().unwrap_or_else(|| "unknown".into()))
                .collect();
            for code in &rejected {
                *report.rejections_by_reason.entry(code.clone()).or_default() += 1;
            }
            report.forbidden_executed += audit
                .iter()
                .filter(|(kind, action, _)| {
                    kind == "action_executed"
                        && action.as_deref().is_some_and(|a| forbidden.contains(&a))
                })
                .count();
            report.replies_replaced += audit
                .iter()
                .filter(|(kind, _, _)| kind == "reply_replaced")
                .count();
            let tokens: i64 = sqlx::query_scalar(
                "SELECT coalesce(sum(prompt_tokens + completion_tokens), 0)::bigint FROM llm_calls WHERE inbox_id = $1",
            )
            .bind(inbox_id)
            .fetch_one(pool)
            .await?;
            report.tokens += tokens;

            let mut problems = Vec::new();
            let proposed: Vec<(String, Option<String>, Option<i64>)> = match &proposal {
                Some((proposal, latency)) => {
                    report.proposals += 1;
                    report.latencies.push(*latency);
                    if rejected.is_empty() {
                        report.proposals_valid += 1;
                    }
                    proposal
                        .actions()
                        .iter()
                        .map(|a| {
                            (
                                a.kind.name().to_owned(),
                                a.product_id.given().and_then(|id| skus.get(id).cloned()),
                                a.quantity.given().copied(),
                            )
                        })
                        .collect()
                }
                None => Vec::new(),
            };
            if let Some(expected) = &turn.expect.actions {
                let matches = expected.len() == proposed.len()
                    && expected
                        .iter()
                        .zip(&proposed)
                        .all(|(e, (kind, sku, quantity))| {
                            e.kind.eq_ignore_ascii_case(kind)
                                && e.sku.as_ref().is_none_or(|s| Some(s) == sku.as_ref())
                                && e.quantity.is_none_or(|q| Some(q) == *quantity)
                        });
                if !matches {
                    problems.push(format!("actions {proposed:?}"));
                }
            }
            if let Some(expected) = &turn.expect.state
                && !expected.eq_ignore_ascii_case(&state)
            {
                problems.push(format!("state {state}, expected {expected}"));
            }
            if let Some(expected) = &turn.expect.cart
                && expected != &cart
            {
                problems.push(format!("cart {cart:?}, expected {expected:?}"));
            }
            if problems.is_empty() {
                report.fully_correct += 1;
            } else {
                report.misses.push(format!(
                    "{script_name} #{} {:?}: {}",
                    index + 1,
                    turn.message,
                    problems.join("; ")
                ));
            }
        }
    }
    Ok(report)
}
