//! IDLE and CLARIFYING: the proposer reads the message, the finance matrix decides
//! what of it stands, and the accepted effects run: a draft is staged or patched
//! (and its questions or confirmation prompt shown), a simulation or the planned
//! tools run. Every proposed, rejected and accepted action, every tool and every
//! dropped tool is audited.

use std::collections::BTreeSet;

use serde_json::json;

use super::{Deps, FinancePlan, simulate};
use crate::audit::{Actor, Entry, Kind};
use crate::detect::Detected;
use crate::finance::context::UserContext;
use crate::finance::contract::{FinanceInput, FinanceProposal, RawFinanceAction};
use crate::finance::core::amount;
use crate::finance::core::matrix::Facts;
use crate::finance::core::tools::{Dropped, ToolName, ToolRequest, plan_tools};
use crate::finance::core::{Draft, Effect, FinanceState, Intent, evaluate};
use crate::finance::{messages, reply, tools};
use crate::progress::Step;
use crate::text::normalize;

pub async fn turn(
    deps: &Deps<'_>,
    plan: &mut FinancePlan,
    ctx: &UserContext,
    draft: Option<Draft>,
    text: &str,
    detected: Detected,
) -> anyhow::Result<()> {
    let turn = deps.turn;
    // At a confirmation prompt (a message that was neither a yes, a no nor a new
    // amount) the draft is read as if its question were open: a reply that fits
    // patches it, a complete new request sets it aside, anything else asks again.
    let confirming = plan.state == FinanceState::AwaitingConfirmation;
    let last_query = if plan.state == FinanceState::Idle {
        last_query(deps).await?
    } else {
        None
    };
    let input = FinanceInput {
        current_state: if confirming {
            FinanceState::Clarifying
        } else {
            plan.state
        },
        draft: draft.clone().filter(|_| {
            matches!(
                plan.state,
                FinanceState::Clarifying | FinanceState::AwaitingConfirmation
            )
        }),
        customer_message: text.to_owned(),
        recent_history: turn.history(),
        today: ctx.today,
        currency: turn.bot.currency.clone(),
        data_quality: ctx.history.quality(),
        debts: ctx.debts.iter().map(|d| d.name.clone()).collect(),
        owed_to_me: ctx.owed_to_me.iter().map(|r| r.name.clone()).collect(),
        corrections: ctx.examples.clone(),
        descriptions: ctx.descriptions.clone(),
        last_query,
        context: turn.call_context(),
    };
    let mut proposal = propose(deps, &input).await;
    // An erasure stands only on the person's own words, whoever proposed it.
    if !crate::finance::rules::asks_to_erase(text)
        && proposal
            .proposed_actions
            .iter()
            .any(|a| a.action_type.eq_ignore_ascii_case("ERASE_MY_DATA"))
    {
        proposal
            .proposed_actions
            .retain(|a| !a.action_type.eq_ignore_ascii_case("ERASE_MY_DATA"));
        if proposal.proposed_actions.is_empty() {
            proposal
                .proposed_actions
                .push(RawFinanceAction::new("CLARIFY"));
        }
    }
    // A complete new request while a draft waited for an answer (a question, a
    // budget, another expense with its amount): the draft is set aside and the
    // request read from IDLE; only a reply that fits the open question patches.
    let mut draft = draft;
    let mut set_aside = false;
    let first = proposal
        .proposed_actions
        .first()
        .map(|a| a.action_type.to_ascii_uppercase());
    let has_amount = !amount::stated(text).is_empty();
    let new_request = match first.as_deref() {
        Some("QUERY_DATA") => true,
        // A write read at a confirmation prompt is new only with its own amount:
        // «era en el súper» names a category, not a new expense.
        Some(
            "LOG_TRANSACTION" | "SET_BUDGET" | "MANAGE_DEBT" | "SIMULATE_PURCHASE"
            | "SET_BANK_BALANCE",
        ) => !confirming || has_amount,
        Some("CORRECT_CATEGORY") => !confirming,
        _ => false,
    };
    if confirming && !new_request {
        let patch = proposal.proposed_actions.iter().find(|a| {
            matches!(
                a.action_type.to_ascii_uppercase().as_str(),
                "PATCH_DRAFT" | "LOG_TRANSACTION" | "CORRECT_CATEGORY"
            )
        });
        let category = patch.and_then(|a| a.params.category.clone());
        match (draft.clone(), category) {
            // «no, era en el súper»: the category the user named replaces the draft's.
            (Some(pending), Some(category)) if !has_amount => {
                plan.move_to(
                    FinanceState::Clarifying,
                    Some(pending),
                    Actor::Customer,
                    "a correction at the prompt",
                );
                proposal.proposed_actions = vec![RawFinanceAction {
                    action_type: "PATCH_DRAFT".into(),
                    params: crate::finance::contract::RawFinanceParams {
                        category: Some(category),
                        ..Default::default()
                    },
                }];
            }
            _ => {
                plan.reply = Some(messages::ASK_AGAIN.into());
                return Ok(());
            }
        }
    }
    if matches!(
        plan.state,
        FinanceState::Clarifying | FinanceState::AwaitingConfirmation
    ) && new_request
    {
        plan.audit.push(
            Entry::new(Actor::Backend, Kind::DraftDiscarded)
                .reason("a new request")
                .action(draft.as_ref().map_or("none", |d| d.intent.as_str())),
        );
        plan.move_to(FinanceState::Idle, None, Actor::Customer, "a new request");
        draft = None;
        set_aside = true;
    }
    // A turn that will run tools says it is working (the LLM proposer already
    // says so while the model is asked).
    let runs_tools = proposal
        .proposed_actions
        .iter()
        .any(|a| a.action_type.eq_ignore_ascii_case("QUERY_DATA"));
    if runs_tools {
        deps.signal(Step::Typing).await;
    }
    audit_proposal(plan, &proposal, deps.proposer.name());
    let stated = amount::stated(text);
    let facts = Facts {
        today: ctx.today,
        stated: stated.clone(),
        message: normalize(text),
        has_balance: ctx.balance_cents.is_some(),
        debts: ctx.debts.iter().map(|d| d.name.clone()).collect(),
        owed_to_me: ctx.owed_to_me.iter().map(|r| r.name.clone()).collect(),
        last_transaction: ctx.last_transaction.clone(),
        category_budgets: ctx.category_budgets,
        rules: ctx.rules.clone(),
    };
    let eval = evaluate(plan.state, draft.as_ref(), &facts, &proposal.actions());
    let mut blocks: Vec<String> = Vec::new();
    if set_aside {
        blocks.push(messages::DRAFT_SET_ASIDE.into());
    }
    let mut seen = BTreeSet::new();
    let mut add = |blocks: &mut Vec<String>, block: String| {
        if seen.insert(block.clone()) {
            blocks.push(block);
        }
    };
    let (mut replied, mut clarified, mut facts_shown) = (false, false, false);
    for decided in &eval.decisions {
        let name = decided.action.kind.name().to_owned();
        let accepted = match &decided.outcome {
            Err(rejection) => {
                plan.audit.push(
                    Entry::new(Actor::Backend, Kind::ActionRejected)
                        .action(name)
                        .reason(rejection.to_string())
                        .detail(json!(rejection)),
                );
                let at = decided_state(&eval, decided);
                add(
                    &mut blocks,
                    reply::rejection(rejection, at, eval.draft.as_ref().or(draft.as_ref())),
                );
                continue;
            }
            Ok(accepted) => accepted,
        };
        plan.audit.push(
            Entry::new(Actor::Backend, Kind::ActionAccepted)
                .action(name)
                .states(accepted.from, accepted.to)
                .detail(json!(accepted.effect)),
        );
        match &accepted.effect {
            Effect::SimulationReady { draft } => {
                let (sim, entry) = simulate::run(deps, ctx, draft, None, ctx.balance_as_of).await;
                plan.audit.push(entry);
                add(&mut blocks, reply::simulation(&sim, ctx.balance_as_of));
                facts_shown = true;
            }
            Effect::QueryPlanned { tools } => {
                for block in query(deps, plan, ctx, tools).await {
                    add(&mut blocks, block);
                }
                facts_shown = true;
            }
            Effect::Cancelled { .. } => add(&mut blocks, messages::CANCELLED.into()),
            Effect::Replied => replied = true,
            Effect::Clarified => clarified = true,
            Effect::Escalated => plan.escalate = true,
            Effect::DraftStaged { .. }
            | Effect::DraftPatched { .. }
            | Effect::DraftQueued { .. }
            | Effect::BalanceAsked => {}
        }
    }
    let mut next = eval.draft.clone();
    match (eval.state, next.as_mut()) {
        (FinanceState::AwaitingConfirmation, Some(pending)) => {
            if pending.intent == Intent::LogTransaction && pending.duplicate.is_none() {
                pending.duplicate = duplicate_of(ctx, pending);
            }
            let debt_balance = pending
                .debt
                .name
                .as_ref()
                .and_then(|name| ctx.balance_of(name, pending.debt.owed_to_me));
            let debt_after = debt_balance
                .zip(pending.debt.payment_cents)
                .map(|(balance, paid)| (balance - paid).max(0));
            plan.audit.push(
                Entry::new(Actor::Backend, Kind::ConfirmationAsked)
                    .action(pending.intent.as_str())
                    .detail(json!({"draft": pending, "debt_balance": debt_balance, "debt_after": debt_after})),
            );
            add(&mut blocks, reply::prompt(pending, debt_balance));
        }
        (FinanceState::Clarifying, Some(open)) => {
            let asked = reply::questions(open);
            if !blocks.iter().any(|b| b.contains(&asked)) {
                add(&mut blocks, asked);
            }
        }
        _ => {}
    }
    // «pagué 100 de luz, 200 de agua, … y 600 de renta»: more movements than a
    // turn stages are not dropped in silence.
    let logged = proposal
        .proposed_actions
        .iter()
        .filter(|a| a.action_type.eq_ignore_ascii_case("LOG_TRANSACTION"))
        .count();
    if logged >= crate::shop::core::MAX_ACTIONS && stated.len() > logged {
        add(&mut blocks, messages::MORE_MOVEMENTS.into());
    }
    if blocks.is_empty() && (replied || clarified) {
        let greeted = detected.greeting;
        if greeted {
            add(&mut blocks, messages::GREETING.into());
        }
        if proposal.response_text.trim().is_empty() || clarified {
            if clarified && !greeted {
                add(&mut blocks, "No entendí lo que necesitas.".into());
            }
            add(&mut blocks, messages::HELP.into());
        }
    }
    if blocks.is_empty() && proposal.response_text.trim().is_empty() {
        add(&mut blocks, messages::NOT_UNDERSTOOD.into());
    }
    // The proposer's own words only lead a turn that did nothing but talk: a
    // draft, a confirmation or a figure is always in the backend's words.
    let only_talk = !facts_shown && eval.state == plan.state && eval.draft == draft;
    let text = if only_talk {
        proposal.response_text.as_str()
    } else {
        ""
    };
    let anything_rejected = eval.rejected().next().is_some();
    let composed = reply::compose(text, &blocks, &stated, anything_rejected);
    if let Some(why) = &composed.replaced {
        let proposed: String = proposal.response_text.chars().take(600).collect();
        plan.audit.push(
            Entry::new(Actor::Backend, Kind::ReplyReplaced)
                .reason(why.clone())
                .detail(json!({ "proposed_text": proposed })),
        );
    }
    plan.move_to(eval.state, next, Actor::Agent, "accepted action");
    plan.reply = Some(composed.text);
    Ok(())
}

/// The state an action was validated in (for the wording of its rejection).
fn decided_state(
    eval: &crate::finance::core::Evaluation,
    decided: &crate::finance::core::matrix::Decided,
) -> FinanceState {
    let mut state = eval.began_in;
    for d in &eval.decisions {
        if std::ptr::eq(d, decided) {
            break;
        }
        if let Ok(accepted) = &d.outcome {
            state = accepted.to;
        }
    }
    state
}

/// The proposer's answer, bounded in time; a failure or timeout becomes a
/// clarification, never a guess.
async fn propose(deps: &Deps<'_>, input: &FinanceInput) -> FinanceProposal {
    let name = deps.proposer.name();
    match tokio::time::timeout(deps.turn.proposer_timeout, deps.proposer.propose(input)).await {
        Ok(Ok(proposal)) => proposal,
        Ok(Err(err)) => {
            tracing::warn!(%err, proposer = name, "finance proposer failed; asking the user");
            FinanceProposal::new(vec![RawFinanceAction::new("CLARIFY")], "")
        }
        Err(_) => {
            tracing::warn!(
                proposer = name,
                "finance proposer timed out; asking the user"
            );
            FinanceProposal::new(vec![RawFinanceAction::new("CLARIFY")], "")
        }
    }
}

fn audit_proposal(plan: &mut FinancePlan, proposal: &FinanceProposal, proposer: &'static str) {
    let origin = proposal
        .origin
        .unwrap_or(crate::proposal::Origin::Named(proposer))
        .as_str();
    for (index, proposed) in proposal.proposed_actions.iter().enumerate() {
        let action: String = proposed.action_type.chars().take(64).collect();
        plan.audit.push(
            Entry::new(Actor::Agent, Kind::ActionProposed)
                .action(action)
                .detail(json!({"index": index, "params": proposed.params, "proposer": origin})),
        );
    }
    if let Some(suggested) = &proposal.suggested_state {
        plan.audit.push(
            Entry::new(Actor::Agent, Kind::SuggestedStateIgnored)
                .reason(suggested.chars().take(64).collect::<String>()),
        );
    }
}

/// A transaction of the same amount and a similar concept logged in the last day.
fn duplicate_of(
    ctx: &UserContext,
    draft: &Draft,
) -> Option<crate::finance::core::draft::Duplicate> {
    let amount = draft.amount_cents?;
    let concept = draft
        .description
        .clone()
        .or_else(|| draft.merchant.clone())
        .unwrap_or_default();
    ctx.duplicate_of(amount, &concept, draft.category.as_deref())
}

/// How long a question's plan stays the one a follow-up refines.
const FOLLOW_UP_MINUTES: i64 = 30;

/// The plan of the question this conversation asked last, if the last tool it
/// ran answered a question about its movements a short while ago.
async fn last_query(
    deps: &Deps<'_>,
) -> sqlx::Result<Option<crate::finance::core::query::QueryPlan>> {
    let conversation = deps.turn.conversation();
    let rows = crate::audit::query(
        deps.pool,
        conversation.id,
        Some(Kind::ToolExecuted),
        None,
        1,
    )
    .await?;
    Ok(rows.into_iter().next().and_then(|row| {
        let fresh =
            chrono::Utc::now() - row.created_at < chrono::Duration::minutes(FOLLOW_UP_MINUTES);
        let request = row.detail.get("request")?;
        let name = ToolName::parse(request.get("name")?.as_str()?)?;
        let mut asked = ToolRequest::new(name);
        asked.plan = request
            .get("plan")
            .and_then(|p| serde_json::from_value(p.clone()).ok());
        asked.category = request
            .get("category")
            .and_then(|c| c.as_str())
            .and_then(crate::finance::core::category::by_key);
        asked.period = request
            .get("period")
            .and_then(|p| serde_json::from_value(p.clone()).ok());
        fresh
            .then(|| crate::finance::core::query::QueryPlan::of_request(&asked))
            .flatten()
    }))
}

/// QUERY_DATA: the limits of KakeBot applied to what was asked, the tools that
/// remain run together, each result (or error) audited and shown with its
/// source, and the data-quality disclaimer added to any analysis.
async fn query(
    deps: &Deps<'_>,
    plan: &mut FinancePlan,
    ctx: &UserContext,
    requested: &[ToolRequest],
) -> Vec<String> {
    let tool_plan = plan_tools(requested, ctx.history);
    let mut blocks = Vec::new();
    for (tool, dropped) in &tool_plan.dropped {
        plan.audit.push(
            Entry::new(Actor::Backend, Kind::ToolDropped)
                .action(tool.as_str())
                .detail(json!(dropped)),
        );
        if let Dropped::NeedsHistory { days, has } = dropped {
            blocks.push(messages::needs_history(*tool, *days, *has));
        }
    }
    for tool in &tool_plan.added {
        plan.audit.push(
            Entry::new(Actor::Backend, Kind::ToolAdded)
                .action(tool.as_str())
                .reason("required companion"),
        );
    }
    if tool_plan.run.is_empty() {
        blocks.extend(disclaimer(plan, ctx));
        return blocks;
    }
    let names: Vec<String> = tool_plan
        .run
        .iter()
        .map(|r| r.name.as_str().to_owned())
        .collect();
    deps.signal(Step::Tools { tools: names }).await;
    let results = tools::run_all(&deps.tools(ctx), &tool_plan.run).await;
    let mut analysis = false;
    for (request, result) in tool_plan.run.iter().zip(results) {
        analysis |= !matches!(request.name, ToolName::GetBankBalance | ToolName::GetDebts);
        match result {
            Ok(output) => {
                plan.audit.push(
                    Entry::new(Actor::Backend, Kind::ToolExecuted)
                        .action(request.name.as_str())
                        .detail(json!({"request": request, "result": output})),
                );
                blocks.push(reply::render_tool(&output));
                // One picture a turn: the first result worth one.
                if plan.chart.is_none()
                    && let Some(drawn) = crate::finance::charts::draw(&output)
                {
                    plan.audit.push(
                        Entry::new(Actor::Backend, Kind::ChartDrawn)
                            .action(request.name.as_str())
                            .reason(drawn.kind)
                            .detail(json!({"values": drawn.values, "caption": drawn.caption})),
                    );
                    plan.chart = Some(drawn);
                }
            }
            Err(error) => {
                plan.audit.push(
                    Entry::new(Actor::Backend, Kind::ToolFailed)
                        .action(request.name.as_str())
                        .reason(error.kind.as_str())
                        .detail(json!(error)),
                );
                let message = messages::tool_error(error.kind).to_owned();
                if !blocks.contains(&message) {
                    blocks.push(message);
                }
            }
        }
    }
    if analysis {
        blocks.extend(disclaimer(plan, ctx));
    }
    blocks
}

/// The data-quality note for this user's history, audited with the figures it
/// quotes.
fn disclaimer(plan: &mut FinancePlan, ctx: &UserContext) -> Option<String> {
    let note = messages::disclaimer(ctx.history)?;
    plan.audit.push(
        Entry::new(Actor::Backend, Kind::DisclaimerAdded)
            .reason(format!("{:?}", ctx.history.quality()).to_lowercase())
            .detail(json!(ctx.history)),
    );
    Some(note)
}
