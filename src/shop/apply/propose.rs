//! A proposal faces the matrix: every proposed action is audited, each is
//! validated against the state the previous accepted one produced, and only what
//! passed takes effect. The reply is composed from backend facts at commit.

use serde_json::json;

use super::{Decision, ReplyPlan, TurnInput};
use crate::audit::{Actor, Entry, Kind};
use crate::outbox::Author;
use crate::shop::contract::Proposal;
use crate::shop::core::{Action, ActionKind, ActionType, Effect, State, evaluate_with};
use crate::shop::effects::{ComposeJob, StoreOp};
use crate::shop::memo::ShopMemo;
use crate::shop::plan::ProposePlan;
use crate::shop::reply::OrderRef;
use crate::shop::rules::grounding::Ungrounded;

pub fn apply(input: &TurnInput<'_>, plan: ProposePlan, decision: &mut Decision) {
    let ProposePlan {
        start,
        greeted,
        proposal,
        proposer,
        cart,
        mut memo,
        rewritten,
        ungrounded,
        asked,
        replaced,
        answered,
    } = plan;
    super::knowledge::audit(&answered, decision);
    let audit = &mut decision.audit;
    if let Some(standalone) = &rewritten {
        audit.push(
            Entry::new(Actor::Backend, Kind::MessageRewritten)
                .reason("follow-up read against the cart and the choices offered")
                .detail(json!({ "standalone": standalone })),
        );
    }
    for (action, why) in &replaced {
        audit.push(refusal(action, why).reason(format!(
            "not grounded in the customer's message: {why}; the rules' reading took the turn"
        )));
    }
    for (index, proposed) in proposal.proposed_actions.iter().enumerate() {
        audit.push(
            Entry::new(Actor::Agent, Kind::ActionProposed)
                .action(truncated(&proposed.action_type, 64))
                .detail(json!({"index": index, "params": proposed.params, "proposer": proposer.as_str()})),
        );
    }
    if let Some(suggested) = &proposal.suggested_state {
        audit.push(
            Entry::new(Actor::Agent, Kind::SuggestedStateIgnored).reason(truncated(suggested, 64)),
        );
    }
    let catalog = input.catalog.as_ref();
    let (actions, positions) = grounded(&proposal, &ungrounded);
    let delivery = crate::shop::delivery::options(input.bot, &catalog.zones);
    let eval = evaluate_with(
        start,
        &cart,
        catalog,
        &delivery,
        memo.fulfilment.as_ref(),
        &actions,
    );
    let mut escalated_from: Option<State> = None;
    // Refusals are audited in the order the actions were proposed.
    let mut refused = ungrounded.iter().peekable();
    for (decided, position) in eval.decisions.iter().zip(positions) {
        while let Some((index, why)) = refused.next_if(|(i, _)| position.is_none_or(|p| *i < p)) {
            audit.push(not_grounded(&proposal, *index, why));
        }
        let name = decided.action.kind.name().to_owned();
        let accepted = match &decided.outcome {
            Err(rejection) => {
                audit.push(
                    Entry::new(Actor::Backend, Kind::ActionRejected)
                        .action(name)
                        .reason(rejection.to_string())
                        .detail(json!(rejection)),
                );
                continue;
            }
            Ok(accepted) => accepted,
        };
        audit.push(
            Entry::new(Actor::Backend, Kind::ActionAccepted)
                .action(name.clone())
                .states(accepted.from, accepted.to),
        );
        let executed = audit.len();
        match &accepted.effect {
            Effect::OrderConfirmed {
                lines, fulfilment, ..
            } => decision.store.push(StoreOp::CreateOrder {
                lines: lines.clone(),
                fulfilment: fulfilment.clone(),
                audit_index: executed,
            }),
            Effect::OrderAddressSet { address } => decision.store.push(StoreOp::SetAddress {
                address: address.clone(),
            }),
            Effect::OrderCancelled { had_order: true } => {
                decision.store.push(StoreOp::CancelOrder {
                    audit_index: executed,
                })
            }
            Effect::Escalated => escalated_from = Some(accepted.from),
            _ => {}
        }
        audit.push(
            Entry::new(Actor::Backend, Kind::ActionExecuted)
                .action(name)
                .states(accepted.from, accepted.to)
                .detail(json!(accepted.effect)),
        );
        audit.extend(Entry::state_change(
            Actor::Agent,
            accepted.from,
            accepted.to,
            "accepted action",
        ));
    }
    for (index, why) in refused {
        audit.push(not_grounded(&proposal, *index, why));
    }
    if eval.cart != cart {
        decision.cart = Some(eval.cart.clone());
    }
    decision.update.state = eval.state.into();
    if let Some(from) = escalated_from {
        decision.update.human_override = true;
        decision.update.override_by = Some("customer".into());
        decision.update.state_before_takeover = Some(from.into());
        audit.push(
            Entry::new(Actor::Agent, Kind::OverrideChanged)
                .states(from, State::HumanTakeover)
                .reason("ESCALATE accepted")
                .detail(json!({"human_override": true, "by": "customer"})),
        );
    }
    // (A way chosen is kept while an order is made or waits for its address.)
    memo.fulfilment = eval.choice.clone().filter(|_| {
        matches!(
            eval.state,
            State::CartOpen | State::Checkout | State::AwaitingPayment
        )
    });
    memo.asked = crate::shop::reply::asked_next(&eval, &delivery);
    let offer = offered(input, &proposal, &eval);
    let offer_person = remember(&mut memo, input, &eval, &offer);
    // «¿Cuántos?» about one product: the next number is how many of it.
    if let Some(product) = asked_how_many(input, &proposal, &eval) {
        memo.focus = Some(product);
        memo.choices.clear();
        memo.choice_quantity = None;
        memo.choices_named = false;
    }
    // «el chai tiene cafeína? es que ya es tarde» answered beside the
    // proposal: the one product the answer was about is what «sácalo» or
    // «dame 2» means next, as when it is shown.
    let answered_about: std::collections::BTreeSet<i64> = answered
        .iter()
        .flat_map(|a| a.answer.sources.iter())
        .filter_map(|s| match s {
            crate::shop::knowledge::answer::Source::Product { id, .. } => Some(*id),
            crate::shop::knowledge::answer::Source::Entry { .. } => None,
        })
        .collect();
    if memo.focus.is_none()
        && memo.choices.is_empty()
        && answered_about.len() == 1
        && ShopMemo::focus_holds_in(eval.state)
        && let Some(only) = answered_about.first()
    {
        memo.focus_on(*only);
    }
    if offer_person {
        decision.audit.push(
            Entry::new(Actor::Backend, Kind::PersonOffered)
                .reason("three clarifications in a row without progress"),
        );
    }
    decision.update.draft = memo.stored();
    let open_order = input.open_order.map(|o| OrderRef {
        number: o.number,
        total_minor: o.total_minor,
    });
    decision.reply = Some(ReplyPlan::Compose(Box::new(ComposeJob {
        author: if escalated_from.is_some() {
            Author::System
        } else {
            Author::Bot
        },
        eval,
        proposal_text: proposal.response_text,
        cart_before: cart,
        open_order,
        greeted,
        offer: offer.iter().map(|(id, _)| *id).collect(),
        offer_person,
        preface: asked
            .into_iter()
            .chain(answered.into_iter().map(|a| a.answer.text))
            .filter(|text| !text.is_empty())
            .collect(),
    })));
}

/// The products an accepted CLARIFY offers as choices: the proposer's
/// candidates that are active in the catalog, at most five, with the quantity
/// asked for.
fn offered(
    input: &TurnInput<'_>,
    proposal: &Proposal,
    eval: &crate::shop::core::Evaluation,
) -> Vec<(crate::shop::core::ProductId, Option<i64>)> {
    let clarified = eval
        .accepted()
        .any(|(_, accepted)| accepted.effect == Effect::Clarified);
    if !clarified {
        return Vec::new();
    }
    let Some(asking) = proposal
        .proposed_actions
        .iter()
        .find(|a| a.action_type.eq_ignore_ascii_case("CLARIFY") && a.params.candidates.is_some())
    else {
        return Vec::new();
    };
    let quantity = asking
        .params
        .quantity
        .as_ref()
        .and_then(serde_json::Value::as_i64)
        .filter(|q| (1..=crate::shop::core::MAX_QUANTITY).contains(q));
    let mut out: Vec<(crate::shop::core::ProductId, Option<i64>)> = Vec::new();
    for candidate in asking.params.candidates.iter().flatten() {
        let Some(id) = candidate.as_i64() else {
            continue;
        };
        let active = input.catalog.get(id).is_some_and(|p| p.active);
        if active && !out.iter().any(|(seen, _)| *seen == id) && out.len() < 5 {
            out.push((id, quantity));
        }
    }
    if out.len() < 2 { Vec::new() } else { out }
}

/// The one product an accepted CLARIFY asks about, when it names exactly one.
fn asked_how_many(
    input: &TurnInput<'_>,
    proposal: &Proposal,
    eval: &crate::shop::core::Evaluation,
) -> Option<crate::shop::core::ProductId> {
    let clarified = eval
        .accepted()
        .any(|(_, accepted)| accepted.effect == Effect::Clarified);
    if !clarified {
        return None;
    }
    let asking = proposal
        .proposed_actions
        .iter()
        .find(|a| a.action_type.eq_ignore_ascii_case("CLARIFY"))?;
    match asking.params.candidates.as_deref()? {
        [only] => only
            .as_i64()
            .filter(|id| input.catalog.get(*id).is_some_and(|p| p.active)),
        _ => None,
    }
}

/// Updates what the conversation remembers; true when a person should be offered
/// now (three clarifications in a row got nowhere).
fn remember(
    memo: &mut crate::shop::memo::ShopMemo,
    input: &TurnInput<'_>,
    eval: &crate::shop::core::Evaluation,
    offer: &[(crate::shop::core::ProductId, Option<i64>)],
) -> bool {
    let changed: Vec<crate::shop::core::ProductId> = eval
        .accepted()
        .filter_map(|(_, a)| match a.effect {
            // (A line set to what it already held changed nothing: «otro»
            // next still means the line changed before.)
            Effect::CartLineSet {
                product_id,
                previous,
                quantity,
            } if previous != quantity => Some(product_id),
            _ => None,
        })
        .collect();
    // Lines taken out are remembered too (no longer in the cart): «en su
    // lugar pon una limonada» right after is an addition, not a swap.
    let removed: Vec<crate::shop::core::ProductId> = eval
        .accepted()
        .filter_map(|(_, a)| match a.effect {
            Effect::CartLineRemoved { product_id, .. } => Some(product_id),
            _ => None,
        })
        .collect();
    if !changed.is_empty() {
        memo.last_changed = changed;
    } else if !removed.is_empty() {
        memo.last_changed = removed;
    } else if eval
        .accepted()
        .any(|(_, a)| matches!(a.effect, Effect::CartCleared))
    {
        memo.last_changed.clear();
    }
    let progress = eval
        .accepted()
        .any(|(_, a)| !matches!(a.effect, Effect::Replied | Effect::Clarified));
    let catalog_shown = eval
        .accepted()
        .any(|(_, a)| a.effect == Effect::CatalogShown);
    let mut shown_all: Vec<crate::shop::core::ProductId> = Vec::new();
    for (_, a) in eval.accepted() {
        if let Effect::ProductShown { product_id, .. } = a.effect
            && !shown_all.contains(&product_id)
        {
            shown_all.push(product_id);
        }
    }
    let shown = shown_all.first().copied();
    if !offer.is_empty() {
        memo.choices = offer.iter().map(|(id, _)| *id).collect();
        memo.choice_quantity = offer[0].1;
        memo.choices_named = true;
        memo.focus = None;
    } else if catalog_shown {
        memo.choices = input
            .catalog
            .active()
            .take(crate::shop::reply::CATALOG_LINES)
            .map(|p| p.id)
            .collect();
        memo.choice_quantity = None;
        memo.choices_named = false;
        memo.focus = None;
    } else if shown_all.len() > 1 {
        // «¿a cuánto el cheesecake y el brownie?»: «dame dos» next could be
        // either; the products shown are the choices.
        memo.choices = shown_all.clone();
        memo.choice_quantity = None;
        memo.choices_named = true;
        memo.focus = None;
    } else if let Some(product) = shown {
        // The customer asked about one product: "dame 2" is about it now.
        memo.focus_on(product);
    }
    // What was asked about is the subject of the next message only.
    if shown.is_none() {
        memo.focus = None;
    }
    // A question back about something else: a number next answers it, not the
    // catalog listed earlier.
    let clarified_now = eval.accepted().any(|(_, a)| a.effect == Effect::Clarified);
    if clarified_now && offer.is_empty() && !memo.choices_named {
        memo.choices.clear();
    }
    // A list stays pickable while the customer shops; past the summary it is done.
    if !matches!(eval.state, State::Idle | State::Browsing | State::CartOpen) {
        memo.choices.clear();
    }
    if !ShopMemo::focus_holds_in(eval.state) {
        memo.focus = None;
    }
    if memo.choices.is_empty() {
        memo.choice_quantity = None;
        memo.choices_named = false;
    }
    // What is left was offered: a yes next takes it.
    memo.stock_offer = eval.rejected().find_map(|(_, rejection)| match rejection {
        crate::shop::core::Rejection::OutOfStock {
            product_id,
            available,
            ..
        } if *available > 0
            && matches!(eval.state, State::Idle | State::Browsing | State::CartOpen) =>
        {
            Some((*product_id, *available))
        }
        _ => None,
    });
    if progress {
        // «2 cafés y 2 croissants»: the croissants were added and the cafés
        // asked about; the next message answers that question.
        memo.clarifications = u32::from(clarified_now);
        memo.person_offered = false;
        return false;
    }
    let asked_back = eval.accepted().any(|(_, a)| a.effect == Effect::Clarified)
        || eval.rejected().next().is_some();
    if asked_back {
        memo.clarifications += 1;
    }
    let offer_now = memo.clarifications >= crate::shop::memo::CLARIFICATIONS_BEFORE_PERSON
        && !memo.person_offered;
    if offer_now {
        memo.person_offered = true;
    }
    offer_now
}

/// The proposal's actions less the ungrounded ones, with each one's place in the
/// proposal. If nothing is left, the customer is asked (a question back beats a
/// wrong effect); that question has no place.
fn grounded(
    proposal: &Proposal,
    ungrounded: &[(usize, Ungrounded)],
) -> (Vec<Action>, Vec<Option<usize>>) {
    let (mut actions, mut positions) = (Vec::new(), Vec::new());
    for (index, action) in proposal.actions().into_iter().enumerate() {
        if !ungrounded.iter().any(|(i, _)| *i == index) {
            actions.push(action);
            positions.push(Some(index));
        }
    }
    if actions.is_empty() && !ungrounded.is_empty() {
        actions.push(Action::new(ActionType::Allowed(ActionKind::Clarify)));
        positions.push(None);
    }
    (actions, positions)
}

fn not_grounded(proposal: &Proposal, index: usize, why: &Ungrounded) -> Entry {
    refusal(&proposal.proposed_actions[index].action_type, why)
}

fn refusal(action: &str, why: &Ungrounded) -> Entry {
    Entry::new(Actor::Backend, Kind::ActionRejected)
        .action(truncated(action, 64))
        .reason(format!("not grounded in the customer's message: {why}"))
        .detail(json!({"code": "not_grounded", "value": why}))
}

fn truncated(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}
