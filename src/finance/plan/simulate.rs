//! SIMULATE_PURCHASE: the facts a simulation needs (bank balance, minimum debt
//! payments still due, the month's budget) read from the user's data, and the
//! simulation itself from the pure core.

use chrono::Datelike;
use serde_json::json;

use super::Deps;
use crate::audit::{Actor, Entry, Kind};
use crate::finance::context::UserContext;
use crate::finance::core::Draft;
use crate::finance::core::date::{month_end, month_start};
use crate::finance::core::output::ToolOutput;
use crate::finance::core::simulate::{BudgetFacts, Simulation, SimulationFacts, simulate};
use crate::finance::core::tools::{Period, ToolName, ToolRequest};
use crate::finance::tools;

/// Runs the simulation of `purchase`; `balance` overrides the stored one (the
/// balance the user just confirmed), and `balance_as_of` is the day the reply
/// says it was recorded. Returns it and its audit row, which holds that day too
/// (every figure the user reads has its source).
pub async fn run(
    deps: &Deps<'_>,
    ctx: &UserContext,
    purchase: &Draft,
    balance: Option<i64>,
    balance_as_of: Option<chrono::NaiveDate>,
) -> (Simulation, Entry) {
    let date = purchase.date.unwrap_or(ctx.today);
    let amount = purchase.amount_cents.unwrap_or(0);
    let upcoming = ctx
        .debts
        .iter()
        .filter(|d| {
            d.due_day
                .is_some_and(|day| day >= date.day() && day <= month_end(date).day())
        })
        .filter_map(|d| d.minimum_cents)
        .sum();
    let facts = SimulationFacts {
        balance_cents: balance.or(ctx.balance_cents).unwrap_or(0),
        upcoming_cents: upcoming,
        budget: budget(deps, ctx, purchase).await,
    };
    let sim = simulate(amount, date, purchase.category.clone(), &facts);
    let entry = Entry::new(Actor::Backend, Kind::ToolExecuted)
        .action("simulatePurchase")
        .detail(json!({"facts": facts, "result": sim, "balance_as_of": balance_as_of}));
    (sim, entry)
}

/// The cap the purchase counts against, and what is spent against it: the
/// category's budget when the user has one, else the variable-spending budget
/// (fixed bills are outside it).
async fn budget(deps: &Deps<'_>, ctx: &UserContext, purchase: &Draft) -> Option<BudgetFacts> {
    let tool_ctx = deps.tools(ctx);
    let month = month_start(purchase.date.unwrap_or(ctx.today));
    let category = purchase.category();
    let mut requests = Vec::new();
    if ctx.category_budgets
        && let Some(c) = category
    {
        requests.push(
            ToolRequest::new(ToolName::GetBudgetStatus)
                .category(c)
                .period(Period::Month(month)),
        );
    }
    if category.is_none_or(|c| !c.fixed) {
        requests.push(ToolRequest::new(ToolName::GetBudgetStatus).period(Period::Month(month)));
    }
    for request in requests {
        if let Ok(ToolOutput::BudgetStatus(status)) = tools::run(&tool_ctx, &request).await
            && let Some(cap) = status.cap
        {
            return Some(BudgetFacts {
                category: status.category,
                cap_cents: cap.cap_cents,
                spent_cents: status.spent_cents,
            });
        }
    }
    None
}
