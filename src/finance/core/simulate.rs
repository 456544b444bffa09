//! "¿Me alcanza?": a purchase against the bank balance (the only cash available),
//! the minimum debt payments still due this month, and the month's budget.

use chrono::NaiveDate;
use serde::Serialize;

/// What the simulation knows, read from the user's data (or, right after the
/// user confirmed a new balance, that balance).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SimulationFacts {
    pub balance_cents: i64,
    /// Minimum debt payments due from the purchase date to the end of its month.
    pub upcoming_cents: i64,
    /// The variable-spending (or the category's) cap for the purchase's month and
    /// what is spent against it so far.
    pub budget: Option<BudgetFacts>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetFacts {
    /// The budget's category; `None` is the cap on all variable spending.
    pub category: Option<String>,
    pub cap_cents: i64,
    pub spent_cents: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The balance covers the purchase and the payments still due.
    Affordable,
    /// It covers the purchase but not the payments after it.
    TightWithPayments,
    /// The balance does not cover the purchase.
    NotAffordable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Simulation {
    pub amount_cents: i64,
    pub date: NaiveDate,
    pub category: Option<String>,
    pub balance_cents: i64,
    pub after_purchase_cents: i64,
    pub upcoming_cents: i64,
    /// What is left after the purchase and the payments still due.
    pub free_cents: i64,
    pub verdict: Verdict,
    pub budget: Option<BudgetAfter>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetAfter {
    pub category: Option<String>,
    pub cap_cents: i64,
    pub spent_cents: i64,
    pub spent_after_cents: i64,
    pub exceeded: bool,
}

pub fn simulate(
    amount_cents: i64,
    date: NaiveDate,
    category: Option<String>,
    facts: &SimulationFacts,
) -> Simulation {
    let after = facts.balance_cents - amount_cents;
    let free = after - facts.upcoming_cents;
    let verdict = if after < 0 {
        Verdict::NotAffordable
    } else if free < 0 {
        Verdict::TightWithPayments
    } else {
        Verdict::Affordable
    };
    let budget = facts.budget.as_ref().map(|b| {
        let spent_after = b.spent_cents + amount_cents;
        BudgetAfter {
            category: b.category.clone(),
            cap_cents: b.cap_cents,
            spent_cents: b.spent_cents,
            spent_after_cents: spent_after,
            exceeded: spent_after > b.cap_cents,
        }
    });
    Simulation {
        amount_cents,
        date,
        category,
        balance_cents: facts.balance_cents,
        after_purchase_cents: after,
        upcoming_cents: facts.upcoming_cents,
        free_cents: free,
        verdict,
        budget,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(balance: i64, upcoming: i64) -> SimulationFacts {
        SimulationFacts {
            balance_cents: balance,
            upcoming_cents: upcoming,
            budget: Some(BudgetFacts {
                category: None,
                cap_cents: 800_000,
                spent_cents: 700_000,
            }),
        }
    }

    #[test]
    fn the_verdict_uses_the_bank_balance_and_the_payments_still_due() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        let sim = simulate(180_000, day, None, &facts(1_000_000, 50_000));
        assert_eq!(sim.verdict, Verdict::Affordable);
        assert_eq!(
            (sim.after_purchase_cents, sim.free_cents),
            (820_000, 770_000)
        );
        let budget = sim.budget.unwrap();
        assert!(budget.exceeded, "700 + 180 is over the 800 cap");
        assert_eq!(budget.spent_after_cents, 880_000);
        assert_eq!(
            simulate(180_000, day, None, &facts(200_000, 50_000)).verdict,
            Verdict::TightWithPayments
        );
        assert_eq!(
            simulate(180_000, day, None, &facts(100_000, 0)).verdict,
            Verdict::NotAffordable
        );
    }
}
