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
//! history. Knowledge questions to the shop expect `"sources": ["Horario"]` (an
//! entry's title or `producto:<sku>`, the first must be cited) or `"gray": true`,
//! and `"reply"` substrings. Every `expect` field is optional; a turn is fully correct when all
//! given ones hold. A finance turn's actions may be written as the rules name them or as what
//! the turn did: a write missing a required field that left the draft asking is a `CLARIFY`,
//! and a `PATCH_DRAFT` that completed a draft is the draft's intent with its amount.

mod figures;
mod finance;
pub mod oracle;
mod report;
mod shop;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use serde::Deserialize;
use sqlx::PgPool;

use crate::proposal::{ProposalOf, ProposerError};
use crate::proposers::{Contract, Proposer};

pub use finance::{load_bot as finance_bot, run as run_finance};
pub use report::Report;
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
    /// Shop: how the shop is set up from this line to the end of its script
    /// (stock counted, delivery zones); each script starts from the demo shop.
    #[serde(default)]
    pub setup: Option<Setup>,
}

/// A shop set up for a script.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Units on hand by sku; other products are not counted.
    #[serde(default)]
    pub stock: BTreeMap<String, i32>,
    /// Pickup, delivery and the zones.
    #[serde(default)]
    pub delivery: Option<SetupDelivery>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupDelivery {
    pub pickup: bool,
    pub delivery: bool,
    #[serde(default)]
    pub zones: Vec<crate::shop::delivery::ZoneInput>,
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
    /// Shop knowledge: the sources an answer must cite (an entry's title, or
    /// `producto:<sku>`); the first is the one that must be among them.
    pub sources: Option<Vec<String>>,
    /// Shop knowledge: the question is one the knowledge cannot answer.
    pub gray: Option<bool>,
    /// Finance: figures the reply shows, computed from the sample history.
    pub figures: Option<Vec<figures::FigureSpec>>,
    /// Finance: the question has no answer in the person's rows.
    pub no_data: Option<bool>,
    /// Finance: the answer comes from a relaxed retry (what `figures` checks).
    pub relaxed: Option<bool>,
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
    /// Shop: the products a CLARIFY offers as numbered choices, by SKU (what the
    /// oracle proposes; not scored).
    pub candidates: Option<Vec<String>>,
    /// Shop, SET_FULFILMENT: `pickup` or `delivery`, the zone by name and the
    /// address (what the oracle proposes; not scored).
    pub mode: Option<String>,
    pub zone: Option<String>,
    pub address: Option<String>,
}

/// One audit row of a turn, as the eval reads it.
struct AuditRow {
    kind: crate::audit::Kind,
    action: Option<String>,
    /// A rejection's code.
    code: Option<String>,
    detail: serde_json::Value,
}

/// The audit rows of one inbox event, oldest first.
async fn audit_of(pool: &PgPool, inbox_id: i64) -> sqlx::Result<Vec<AuditRow>> {
    let rows: Vec<(crate::audit::Kind, Option<String>, Option<String>, serde_json::Value)> =
        sqlx::query_as(
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

/// What the bot said to one inbox event, its messages joined by newlines.
async fn reply_of(pool: &PgPool, inbox_id: i64) -> sqlx::Result<String> {
    let replies: Vec<String> =
        sqlx::query_scalar("SELECT payload->>'text' FROM outbox WHERE inbox_id = $1 ORDER BY id")
            .bind(inbox_id)
            .fetch_all(pool)
            .await?;
    Ok(replies.join("\n"))
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

/// A lone `REPLY` is talk, no action: a script may write it as `[]` or as
/// `[{"type": "REPLY"}]`, and a proposer may propose either. The list with a lone
/// `REPLY` left out.
fn without_talk<T>(items: &[T], kind: impl Fn(&T) -> &str) -> &[T] {
    match items {
        [only] if kind(only).eq_ignore_ascii_case("REPLY") => &[],
        _ => items,
    }
}

/// The list with a SET_FULFILMENT said right after a CONFIRM_ORDER put before
/// it: «sí, confirmo, paso a recoger» says both, and the way must be set
/// before the order is made (a script writes them in the customer's order).
fn way_first<T: Clone>(items: &[T], kind: impl Fn(&T) -> &str) -> Vec<T> {
    let mut out = items.to_vec();
    for i in 1..out.len() {
        if kind(&out[i]).eq_ignore_ascii_case("SET_FULFILMENT")
            && kind(&out[i - 1]).eq_ignore_ascii_case("CONFIRM_ORDER")
        {
            out.swap(i - 1, i);
        }
    }
    out
}

/// The list with its questions back (CLARIFY) put last: a question changes
/// nothing, and whether a script writes «no vendemos salteñas» before or after
/// the items it keeps says nothing about the turn.
fn questions_last<T: Clone>(items: &[T], kind: impl Fn(&T) -> &str) -> Vec<T> {
    let (questions, rest): (Vec<T>, Vec<T>) = items
        .iter()
        .cloned()
        .partition(|item| kind(item).eq_ignore_ascii_case("CLARIFY"));
    rest.into_iter().chain(questions).collect()
}

/// A state expectation, checked.
fn check_state(expected: Option<&String>, state: &str, problems: &mut Vec<String>) {
    if let Some(expected) = expected
        && !expected.eq_ignore_ascii_case(state)
    {
        problems.push(format!("state {state}, expected {expected}"));
    }
}

/// A proposal and how long it took.
type Seen<C> = (ProposalOf<<C as Contract>::Action>, Duration);

/// Wraps a proposer under test to see what it proposed and how long it took,
/// by the inbox event the turn was for.
struct Recording<C: Contract> {
    inner: Arc<dyn Proposer<C>>,
    seen: Mutex<HashMap<i64, Seen<C>>>,
}

impl<C: Contract> Recording<C> {
    fn new(inner: Arc<dyn Proposer<C>>) -> Self {
        Recording {
            inner,
            seen: Mutex::new(HashMap::new()),
        }
    }

    fn take(&self, inbox_id: i64) -> Option<Seen<C>> {
        self.seen.lock().expect("recording lock").remove(&inbox_id)
    }
}

#[async_trait]
impl<C: Contract> Proposer<C> for Recording<C> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    async fn propose(&self, input: &C::Input) -> Result<ProposalOf<C::Action>, ProposerError> {
        let started = Instant::now();
        let result = self.inner.propose(input).await;
        if let Ok(proposal) = &result {
            let inbox_id = C::context(input).inbox_id;
            self.seen
                .lock()
                .expect("recording lock")
                .insert(inbox_id, (proposal.clone(), started.elapsed()));
        }
        result
    }
}

/// Loads the shop (and the finance bot, for `finanzas*` scripts) into a scratch
/// database, plays the scripts and drops the database. One report per profile.
/// Who proposes in a run: the configured proposer, or the oracle (the script's
/// own expectations, served as a model) with or without the rules first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Proposing {
    Configured,
    OracleRulesFirst,
    OracleOnly,
}

pub async fn run_files(
    base: &PgPool,
    shop_json: &str,
    files: &[std::path::PathBuf],
    settings: &crate::config::Settings,
    proposing: Proposing,
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
        let configured = crate::startup::Proposers::configured(settings, &pool, None)?;
        let oracle = match proposing {
            Proposing::Configured => None,
            Proposing::OracleRulesFirst => Some(oracle::Oracle::start(true).await?),
            Proposing::OracleOnly => Some(oracle::Oracle::start(false).await?),
        };
        let shop_proposer = match &oracle {
            Some((_, config)) => {
                let client = crate::llm::Client::new(config.clone())?;
                crate::startup::Proposers::llm(Arc::new(client)).shop
            }
            None => configured.shop.clone(),
        };
        let mut engine = crate::startup::engine_settings(settings);
        // Scripts play a conversation faster than any customer types, one turn per
        // message: no rate limit, no burst wait (it would only delay each turn).
        engine.contact_messages_per_minute = u32::MAX;
        engine.gather = std::time::Duration::ZERO;
        let mut reports = Vec::new();
        if !shop_scripts.is_empty() {
            let shop = crate::demo::load_shop(&pool, shop_json).await?;
            let report = run(
                &pool,
                shop.bot_id,
                &shop_scripts,
                shop_proposer,
                engine.clone(),
                oracle.as_ref().map(|(oracle, _)| oracle),
            )
            .await?;
            if let Some((oracle, _)) = &oracle {
                eprintln!("the oracle answered {} model calls", oracle.calls());
            }
            reports.push(("tienda", report));
        }
        if !finance_scripts.is_empty() {
            let bot = finance_bot(&pool).await?;
            let report =
                run_finance(&pool, bot, &finance_scripts, configured.finance, engine).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_back_has_no_place_in_the_order_of_actions() {
        fn kind(k: &String) -> &str {
            k
        }
        let list = |kinds: &[&str]| kinds.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        assert_eq!(
            questions_last(&list(&["CLARIFY", "ADD_TO_CART", "ADD_TO_CART"]), kind),
            list(&["ADD_TO_CART", "ADD_TO_CART", "CLARIFY"])
        );
        // Effects keep their order; the way still goes before the confirmation.
        let confirmed = way_first(&list(&["CONFIRM_ORDER", "SET_FULFILMENT"]), kind);
        assert_eq!(
            questions_last(&confirmed, kind),
            list(&["SET_FULFILMENT", "CONFIRM_ORDER"])
        );
    }
}
