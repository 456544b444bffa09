//! A proposal faces the matrix: every proposed action is audited, each is
//! validated against the state the previous accepted one produced, and only what
//! passed takes effect. The reply is composed from backend facts at commit.

use serde_json::json;

use super::{ComposeJob, Decision, ReplyPlan, StoreOp, TurnInput};
use crate::audit::{Actor, Entry};
use crate::conversation::{Effect, State, evaluate};
use crate::engine::plan::ProposePlan;
use crate::outbox::Author;
use crate::shop::reply::OrderRef;

pub fn apply(input: &TurnInput<'_>, plan: ProposePlan, decision: &mut Decision) {
    let ProposePlan {
        start,
        greeted,
        proposal,
        proposer,
        cart,
    } = plan;
    let audit = &mut decision.audit;
    for (index, proposed) in proposal.proposed_actions.iter().enumerate() {
        audit.push(
            Entry::new(Actor::Agent, "action_proposed")
                .action(truncated(&proposed.action_type, 64))
                .detail(json!({"index": index, "params": proposed.params, "proposer": proposer})),
        );
    }
    if let Some(suggested) = &proposal.suggested_state {
        audit.push(
            Entry::new(Actor::Agent, "suggested_state_ignored").reason(truncated(suggested, 64)),
        );
    }
    let catalog = &input.profile.catalog;
    let eval = evaluate(start, &cart, catalog, &proposal.actions());
    let mut escalated_from: Option<State> = None;
    for decided in &eval.decisions {
        let name = decided.action.kind.name().to_owned();
        let accepted = match &decided.outcome {
            Err(rejection) => {
                audit.push(
                    Entry::new(Actor::Backend, "action_rejected")
                        .action(name)
                        .reason(rejection.to_string())
                        .detail(json!(rejection)),
                );
                continue;
            }
            Ok(accepted) => accepted,
        };
        audit.push(
            Entry::new(Actor::Backend, "action_accepted")
                .action(name.clone())
                .states(accepted.from, accepted.to),
        );
        let executed = audit.len();
        match &accepted.effect {
            Effect::OrderConfirmed { lines, .. } => decision.store.push(StoreOp::CreateOrder {
                lines: lines.clone(),
                audit_index: executed,
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
            Entry::new(Actor::Backend, "action_executed")
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
    if eval.cart != cart {
        decision.cart = Some(eval.cart.clone());
    }
    decision.update.state = eval.state.into();
    if let Some(from) = escalated_from {
        decision.update.human_override = true;
        decision.update.override_by = Some("customer".into());
        decision.update.state_before_takeover = Some(from.into());
        audit.push(
            Entry::new(Actor::Agent, "override_changed")
                .states(from, State::HumanTakeover)
                .reason("ESCALATE accepted")
                .detail(json!({"human_override": true, "by": "customer"})),
        );
    }
    let open_order = input.snapshot.open_order.as_deref().map(|o| OrderRef {
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
    })));
}

fn truncated(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}
