//! The finance half of `tendero eval`: turns against a finance bot, scored on the
//! actions proposed, the state reached, the write made, the tools run and the
//! reply; and checked for the guarantees: no row written without the user's
//! confirmation token, no number in a reply that no tool, draft, write or user
//! message of the conversation accounts for.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use super::{Recording, Report, ScriptTurn, audit_of, check_state, ingest, reply_of, tokens_of};
use crate::engine::{Engine, EngineSettings};
use crate::finance::core::FinanceForbidden;
use crate::finance::core::confirm::{self, Answer};
use crate::finance::ledger::UserScope;
use crate::finance::{context, demo, messages};
use crate::text::numbers_in_hundredths;

/// The demo finance bot, without sample history (scripts ask for it per user).
pub async fn load_bot(pool: &PgPool) -> anyhow::Result<Uuid> {
    let mut fixture: Value = serde_json::from_str(crate::demo::DEMO_FINANCE)?;
    fixture["bot"]["sample_history"] = Value::Bool(false);
    Ok(crate::demo::load_shop(pool, &fixture.to_string())
        .await?
        .bot_id)
}

/// Everything a user has in the finance tables, summarized: any write changes it.
async fn fingerprint(pool: &PgPool, contact_id: Uuid) -> sqlx::Result<String> {
    sqlx::query_scalar(
        "SELECT concat_ws('/',
            (SELECT count(*) || ':' || coalesce(sum(amount_cents), 0) || ':' || coalesce(string_agg(category, ',' ORDER BY id), '')
             FROM fin_transactions WHERE contact_id = $1),
            (SELECT count(*) || ':' || coalesce(sum(cap_cents), 0) FROM fin_budgets WHERE contact_id = $1),
            (SELECT count(*) || ':' || coalesce(sum(balance_cents), 0) || ':' || coalesce(sum(minimum_payment_cents), 0)
                    || ':' || coalesce(sum(due_day), 0) FROM fin_debts WHERE contact_id = $1),
            (SELECT count(*) || ':' || coalesce(sum(balance_cents), 0) FROM fin_receivables WHERE contact_id = $1),
            (SELECT count(*) FROM fin_balances WHERE contact_id = $1),
            (SELECT count(*) FROM fin_corrections WHERE contact_id = $1))",
    )
    .bind(contact_id)
    .fetch_one(pool)
    .await
}

/// The user a turn's message came from.
async fn contact_of(pool: &PgPool, inbox_id: i64) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(
        "SELECT c.contact_id FROM inbox i JOIN conversations c ON c.id = i.conversation_id WHERE i.id = $1",
    )
    .bind(inbox_id)
    .fetch_one(pool)
    .await
}

/// Every number a JSON value holds, as the reply could show it: an integer both
/// as cents and as a plain count, a string by the numbers written in it.
fn numbers_of(value: &Value, into: &mut BTreeSet<i64>) {
    match value {
        Value::Number(n) => {
            if let Some(n) = n.as_i64() {
                // A reply writes the sign apart ("-1.65%", "bajó 1.65%"): the
                // digits it shows are the magnitude.
                let n = n.saturating_abs();
                into.insert(n);
                into.insert(n.saturating_mul(100));
            }
        }
        Value::String(s) => into.extend(numbers_in_hundredths(s)),
        Value::Array(items) => items.iter().for_each(|v| numbers_of(v, into)),
        Value::Object(map) => map.values().for_each(|v| numbers_of(v, into)),
        _ => {}
    }
}

pub async fn run(
    pool: &PgPool,
    bot_id: Uuid,
    scripts: &[(String, Vec<ScriptTurn>)],
    proposer: Arc<crate::finance::FinanceProposer>,
    settings: EngineSettings,
) -> anyhow::Result<Report> {
    let bot = crate::bots::by_id(pool, bot_id).await?;
    let recording: Arc<Recording<crate::finance::proposer::FinanceContract>> =
        Arc::new(Recording::new(proposer));
    let proposers = crate::startup::Proposers::finance(recording.clone());
    let engine = Engine::new(
        pool.clone(),
        crate::startup::profiles(pool, &proposers),
        settings,
    );
    let today = context::today(pool, &bot.timezone).await?;
    let yesterday = today.pred_opt().unwrap_or(today);
    let fill = |text: &str| {
        let text = text
            .replace("{today}", &today.to_string())
            .replace("{yesterday}", &yesterday.to_string());
        super::figures::fill_months(&text, today)
    };
    let mut fixed = BTreeSet::new();
    for text in messages::fixed_texts() {
        fixed.extend(numbers_in_hundredths(&text));
    }
    let forbidden: Vec<&str> = FinanceForbidden::ALL.iter().map(|k| k.as_str()).collect();
    let mut report = Report::default();
    for (script_name, turns) in scripts {
        for (index, turn) in turns.iter().enumerate() {
            let mut filled = turn.clone();
            filled.message = fill(&turn.message);
            let turn = &filled;
            let inbox_id = ingest(pool, &bot, script_name, index, turn).await?;
            let contact_id = contact_of(pool, inbox_id).await?;
            if turn.history.as_deref() == Some("sample") {
                let user = UserScope { bot_id, contact_id };
                demo::seed_if_new(pool, user, &bot.currency, today).await?;
            }
            let before = fingerprint(pool, contact_id).await?;
            engine.run_until_idle().await?;
            let after = fingerprint(pool, contact_id).await?;
            report.turns += 1;
            let mut problems = Vec::new();

            if before != after && confirm::answer(&turn.message) != Answer::Confirm {
                report.writes_without_confirmation += 1;
                problems.push("wrote without a confirmation token".to_owned());
            }
            let (conversation_id, state, draft): (Uuid, String, Option<Value>) = sqlx::query_as(
                "SELECT c.id, c.fsm_state, c.draft FROM conversations c JOIN inbox i ON i.conversation_id = c.id WHERE i.id = $1",
            )
            .bind(inbox_id)
            .fetch_one(pool)
            .await?;
            let audit = audit_of(pool, inbox_id).await?;
            let rejected = report.tally(&audit, crate::audit::Kind::ActionAccepted, &forbidden);
            report.tokens += tokens_of(pool, inbox_id).await?;
            let reply = reply_of(pool, inbox_id).await?;

            // Every number the user reads has a source.
            let mut known = fixed.clone();
            for row in &audit {
                numbers_of(&row.detail, &mut known);
            }
            if let Some(draft) = &draft {
                numbers_of(draft, &mut known);
            }
            let said: Vec<String> = sqlx::query_scalar(
                "SELECT text FROM messages WHERE conversation_id = $1 AND direction = 'in'",
            )
            .bind(conversation_id)
            .fetch_all(pool)
            .await?;
            for text in &said {
                known.extend(crate::finance::core::amount::stated(text));
                known.extend(numbers_in_hundredths(text));
            }
            for n in numbers_in_hundredths(&reply) {
                if !known.contains(&n) {
                    report.numbers_not_from_tools += 1;
                    problems.push(format!(
                        "number {} in the reply has no source",
                        n as f64 / 100.0
                    ));
                }
            }

            let proposal = recording.take(inbox_id);
            let proposed: Vec<Proposed> = match &proposal {
                Some((proposal, latency)) => {
                    report.proposed(*latency, !rejected);
                    proposal
                        .actions()
                        .iter()
                        .map(|a| {
                            (
                                a.kind.name().to_owned(),
                                a.params
                                    .amount
                                    .given()
                                    .copied()
                                    .or(a.params.debt_balance.given().copied())
                                    .or(a.params.debt_payment.given().copied()),
                                a.params.category.given().map(|c| c.key.to_owned()),
                            )
                        })
                        .collect()
                }
                None => Vec::new(),
            };
            let e = &turn.expect;
            if let Some(expected) = &e.actions {
                // «no, fueron 280» at a confirmation is patched without a
                // proposer: the patch, with the amount it set.
                let patched_here = audit
                    .iter()
                    .find(|row| row.kind == crate::audit::Kind::DraftPatched)
                    .filter(|_| proposed.is_empty());
                // «no», «cancela» at a confirmation drop the write without a
                // proposer: a CANCEL.
                let cancelled_here = proposed.is_empty()
                    && audit
                        .iter()
                        .any(|row| row.kind == crate::audit::Kind::WriteCancelled);
                let seen = match patched_here {
                    Some(row) => vec![(
                        "PATCH_DRAFT".to_owned(),
                        row.detail.get("amount_cents").and_then(Value::as_i64),
                        None,
                    )],
                    None if cancelled_here => vec![("CANCEL".to_owned(), None, None)],
                    None => proposed.clone(),
                };
                let effective = effective_actions(&seen, &state, draft.as_ref());
                let expected = super::without_talk(expected, |x| x.kind.as_str());
                let matches = |proposed: &[Proposed]| {
                    let proposed = super::without_talk(proposed, |(kind, ..)| kind.as_str());
                    expected.len() == proposed.len()
                        && expected
                            .iter()
                            .zip(proposed)
                            .all(|(x, (kind, amount, category))| {
                                (x.kind.eq_ignore_ascii_case(kind)
                                    || same_patch(
                                        &x.kind,
                                        kind,
                                        x.amount,
                                        *amount,
                                        category.as_ref(),
                                    ))
                                    && x.amount
                                        .is_none_or(|a| Some((a * 100.0).round() as i64) == *amount)
                                    && x.category
                                        .as_ref()
                                        .is_none_or(|c| Some(c) == category.as_ref())
                            })
                };
                // At a confirmation prompt, a word that is neither yes nor no
                // is asked again: some scripts call that a CLARIFY, others no
                // action. The customer sees the same question either way.
                let asked = reply.contains(crate::finance::messages::ASK_AGAIN);
                let asked_again: Vec<Proposed> = match seen.as_slice() {
                    [(kind, None, None)]
                        if kind == "CLARIFY" && state == "AWAITING_CONFIRMATION" && asked =>
                    {
                        Vec::new()
                    }
                    [] if state == "AWAITING_CONFIRMATION" && asked => {
                        vec![("CLARIFY".to_owned(), None, None)]
                    }
                    _ => seen.clone(),
                };
                if !matches(&proposed) && !matches(&effective) && !matches(&asked_again) {
                    problems.push(format!("actions {proposed:?}"));
                }
            }
            check_state(e.state.as_ref(), &state, &mut problems);
            if let Some(expected) = &e.written {
                let written = audit
                    .iter()
                    .find(|row| row.kind == crate::audit::Kind::WriteExecuted)
                    .and_then(|row| row.action.clone());
                if &written != expected {
                    problems.push(format!("wrote {written:?}, expected {expected:?}"));
                }
            }
            if let Some(expected) = &e.tools {
                // Plans compared side by side run the same tool more than once.
                let mut ran: Vec<String> = audit
                    .iter()
                    .filter(|row| row.kind == crate::audit::Kind::ToolExecuted)
                    .filter_map(|row| row.action.clone())
                    .filter(|a| a != "simulatePurchase")
                    .collect();
                ran.dedup();
                if &ran != expected {
                    problems.push(format!("tools {ran:?}, expected {expected:?}"));
                }
            }
            for spec in e.figures.iter().flatten() {
                problems.extend(super::figures::check(spec, &reply, today));
            }
            if e.no_data == Some(true) && !reply.contains("No encontré") {
                problems.push("the reply does not say nothing was found".into());
            }
            for text in e.reply.iter().flatten() {
                let text = fill(text);
                if !reply.contains(&text) {
                    problems.push(format!("reply lacks {text:?}"));
                }
            }
            report.score(script_name, index, turn, &problems, Some(&reply));
        }
    }
    Ok(report)
}

/// An action as scored: its kind, its amount in cents and its category key.
type Proposed = (String, Option<i64>, Option<String>);

/// A category changed on the pending draft, written either way: a patch of
/// the category alone (no amount expected nor proposed) is a category
/// corrected.
fn same_patch(
    expected: &str,
    kind: &str,
    amount: Option<f64>,
    proposed_amount: Option<i64>,
    category: Option<&String>,
) -> bool {
    let pair = [expected.to_ascii_uppercase(), kind.to_ascii_uppercase()];
    amount.is_none()
        && proposed_amount.is_none()
        && category.is_some()
        && (pair == ["PATCH_DRAFT", "CORRECT_CATEGORY"]
            || pair == ["CORRECT_CATEGORY", "PATCH_DRAFT"])
}

/// The same turn in what it did, for scripts that describe behaviour rather
/// than the rules' own action names: a write proposed without a required field
/// left the draft asking (CLARIFYING) — the bot asked back, a CLARIFY; a
/// PATCH_DRAFT completed the draft — the bot now proposes the draft's intent
/// with the draft's amount and category.
fn effective_actions(proposed: &[Proposed], state: &str, draft: Option<&Value>) -> Vec<Proposed> {
    let draft: Option<crate::finance::core::Draft> =
        draft.and_then(|d| serde_json::from_value(d.clone()).ok());
    proposed
        .iter()
        .map(|(kind, amount, category)| {
            let write = matches!(
                kind.as_str(),
                "LOG_TRANSACTION"
                    | "SET_BUDGET"
                    | "MANAGE_DEBT"
                    | "SIMULATE_PURCHASE"
                    | "SET_BANK_BALANCE"
            );
            match &draft {
                _ if write && state == "CLARIFYING" => ("CLARIFY".to_owned(), None, None),
                Some(d) if kind == "PATCH_DRAFT" && state != "CLARIFYING" => (
                    d.intent.as_str().to_owned(),
                    d.amount_cents
                        .or(d.debt.balance_cents)
                        .or(d.debt.payment_cents),
                    d.category.clone(),
                ),
                _ => (kind.clone(), *amount, category.clone()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_category_patched_is_a_category_corrected() {
        let regalos = "regalos".to_owned();
        let cat = Some(&regalos);
        assert!(same_patch(
            "PATCH_DRAFT",
            "CORRECT_CATEGORY",
            None,
            None,
            cat
        ));
        assert!(same_patch(
            "CORRECT_CATEGORY",
            "PATCH_DRAFT",
            None,
            None,
            cat
        ));
        assert!(!same_patch(
            "PATCH_DRAFT",
            "CORRECT_CATEGORY",
            Some(300.0),
            None,
            cat
        ));
        assert!(
            !same_patch("CORRECT_CATEGORY", "PATCH_DRAFT", None, Some(30_000), cat),
            "a patch that also changes the amount"
        );
        assert!(!same_patch(
            "PATCH_DRAFT",
            "CORRECT_CATEGORY",
            None,
            None,
            None
        ));
        assert!(!same_patch(
            "LOG_TRANSACTION",
            "CORRECT_CATEGORY",
            None,
            None,
            cat
        ));
    }

    #[test]
    fn a_negative_figure_from_a_tool_vouches_for_the_digits_a_reply_shows() {
        let mut known = BTreeSet::new();
        numbers_of(&json!({"change_bp": -165, "months": [2390400]}), &mut known);
        for shown in
            crate::text::numbers_in_hundredths("bajaron (-1.65% del primer mes), $23,904.00")
        {
            assert!(known.contains(&shown), "{shown} has no source in {known:?}");
        }
    }
}
