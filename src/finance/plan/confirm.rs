//! A write waits for the user's own token. Only the exact allowlists confirm or
//! reject; anything else asks again and writes nothing. No proposer is consulted:
//! a model can never say "sí" for the user.

use serde_json::json;

use super::simulate;
use super::{Deps, FinancePlan};
use crate::audit::{Actor, Entry, Kind};
use crate::finance::context::UserContext;
use crate::finance::core::confirm::{self, Answer};
use crate::finance::core::{Confirmation, Draft, FinanceState, Write, on_answer};
use crate::finance::learning::CORRECTIONS_TO_LEARN;
use crate::finance::{messages, reply};
use crate::text::normalize;

pub async fn answer(
    deps: &Deps<'_>,
    plan: &mut FinancePlan,
    ctx: &UserContext,
    pending: &Draft,
    text: &str,
) -> anyhow::Result<()> {
    let answer = confirm::answer(text);
    let heard = match answer {
        Answer::Confirm => "confirm",
        Answer::Reject => "reject",
        Answer::Other => "other",
    };
    plan.audit.push(
        Entry::new(Actor::Customer, Kind::ConfirmationAnswer)
            .action(pending.intent.as_str())
            .reason(heard),
    );
    match on_answer(pending, answer) {
        Confirmation::AskAgain => {
            plan.reply = Some(messages::ASK_AGAIN.into());
        }
        Confirmation::Cancelled { intent } => {
            plan.audit
                .push(Entry::new(Actor::Customer, Kind::WriteCancelled).action(intent.as_str()));
            plan.move_to(FinanceState::Idle, None, Actor::Customer, "rejected");
            plan.reply = Some(messages::CANCELLED.into());
        }
        Confirmation::Unusable => {
            plan.audit.push(
                Entry::new(Actor::Backend, Kind::DraftDiscarded).reason("not a complete write"),
            );
            plan.move_to(FinanceState::Idle, None, Actor::Backend, "unusable draft");
            plan.reply = Some(messages::NOT_UNDERSTOOD.into());
        }
        Confirmation::Execute {
            write,
            then_simulate,
        } => {
            let (text, debt_after) = executed(ctx, &write);
            let mut blocks = vec![text];
            plan.audit.push(
                Entry::new(Actor::Backend, Kind::WriteExecuted)
                    .action(write.name())
                    .detail(json!({"write": write, "debt_after": debt_after})),
            );
            plan.writes.push(write.clone());
            plan.move_to(FinanceState::Idle, None, Actor::Customer, "confirmed");
            if let (Some(purchase), Write::SetBankBalance { balance_cents }) =
                (then_simulate, &write)
            {
                let (sim, entry) = simulate::run(deps, ctx, &purchase, Some(*balance_cents)).await;
                plan.audit.push(entry);
                blocks.push(reply::simulation(&sim, Some(ctx.today)));
            }
            plan.reply = Some(blocks.join("\n\n"));
        }
    }
    Ok(())
}

/// What the user reads once the write is done, with what the backend knows now,
/// and a paid debt's balance afterwards.
fn executed(ctx: &UserContext, write: &Write) -> (String, Option<i64>) {
    let mut debt_after = None;
    let mut learned = None;
    match write {
        Write::DebtPayment { name, amount_cents } => {
            debt_after = ctx
                .debts
                .iter()
                .find(|d| normalize(&d.name) == normalize(name))
                .map(|d| (d.balance_cents - amount_cents).max(0));
        }
        Write::CorrectCategory {
            to,
            merchant: Some(merchant),
            ..
        } => {
            let before = ctx.corrections_of(merchant, to);
            if before + 1 >= CORRECTIONS_TO_LEARN {
                learned = Some(merchant.as_str());
            }
        }
        _ => {}
    }
    (reply::executed(write, debt_after, learned), debt_after)
}
