//! Totals over time: analyzeSpendingPattern, getBudgetStatus,
//! predictMonthlySpending and getSpendingTrends. The sums are PostgreSQL's.

use chrono::{Duration, NaiveDate};
use sqlx::types::Json;

use super::ToolContext;
use crate::finance::budgets;
use crate::finance::core::category::{self, Category};
use crate::finance::core::date::{month_end, month_start, previous_month};
use crate::finance::core::output::{
    BudgetLevel, BudgetStatus, Cap, CategoryTotal, Confidence, ExpenseLine, MonthTotal, Prediction,
    Source, SpendingPattern, ToolError, ToolOutput, Trend, Trends,
};
use crate::finance::core::tools::{DataQuality, Period, ToolName, ToolRequest};

/// Which expenses a total counts: one category (an umbrella with its
/// neighbours), or all variable spending.
struct Scope {
    only: Option<Vec<&'static str>>,
    exclude: Vec<&'static str>,
}

impl Scope {
    fn of(category: Option<&'static Category>, variable_only: bool) -> Scope {
        match category {
            Some(c) => Scope {
                only: Some(category::analysis_keys(c)),
                exclude: Vec::new(),
            },
            None => Scope {
                only: None,
                exclude: if variable_only {
                    category::fixed_keys()
                } else {
                    Vec::new()
                },
            },
        }
    }
}

/// Totals by category and the largest expenses between `from` and `to`.
struct Window {
    by_category: Vec<CategoryTotal>,
    top: Vec<ExpenseLine>,
    /// Expenses in the `before` days just ahead of `from`: their sum and count.
    previous_cents: i64,
    previous_count: i64,
}

impl Window {
    fn total(&self) -> i64 {
        self.by_category.iter().map(|c| c.total_cents).sum()
    }

    fn count(&self) -> i64 {
        self.by_category.iter().map(|c| c.count).sum()
    }
}

async fn window(
    context: &ToolContext<'_>,
    scope: &Scope,
    from: NaiveDate,
    to: NaiveDate,
    before: i64,
) -> sqlx::Result<Window> {
    type Row = (Json<Vec<CategoryTotal>>, Json<Vec<ExpenseLine>>, i64, i64);
    let (by_category, top, previous_cents, previous_count): Row = sqlx::query_as(
        "WITH rows AS (
                 SELECT id, occurred_on, description, category, amount_cents FROM fin_transactions
                 WHERE contact_id = $2 AND bot_id = $1 AND kind = 'expense'
                   AND occurred_on BETWEEN $3::date - $5::int AND $4
                   AND ($6::text[] IS NULL OR category = ANY($6))
                   AND category <> ALL($7)
             )
             SELECT
               (SELECT coalesce(json_agg(c ORDER BY c.total_cents DESC, c.category), '[]')
                FROM (SELECT category, sum(amount_cents)::bigint AS total_cents, count(*) AS count
                      FROM rows WHERE occurred_on >= $3 GROUP BY category) c),
               (SELECT coalesce(json_agg(t), '[]')
                FROM (SELECT id, occurred_on AS date, description, category, amount_cents
                      FROM rows WHERE occurred_on >= $3 ORDER BY amount_cents DESC, id LIMIT 3) t),
               (SELECT coalesce(sum(amount_cents), 0)::bigint FROM rows WHERE occurred_on < $3),
               (SELECT count(*) FROM rows WHERE occurred_on < $3)",
    )
    .bind(context.user.bot_id)
    .bind(context.user.contact_id)
    .bind(from)
    .bind(to)
    .bind(before as i32)
    .bind(scope.only.as_deref())
    .bind(&scope.exclude)
    .fetch_one(context.pool)
    .await?;
    Ok(Window {
        by_category: by_category.0,
        top: top.0,
        previous_cents,
        previous_count,
    })
}

fn days(from: NaiveDate, to: NaiveDate) -> i64 {
    (to - from).num_days() + 1
}

pub async fn pattern(
    context: &ToolContext<'_>,
    request: &ToolRequest,
) -> Result<ToolOutput, ToolError> {
    let tool = ToolName::AnalyzeSpendingPattern;
    let (from, to) = request
        .period
        .unwrap_or(Period::CurrentMonth)
        .range(context.today);
    let span = days(from, to);
    let w = window(context, &Scope::of(request.category, false), from, to, span)
        .await
        .map_err(|e| context.database(tool, e))?;
    if w.count() == 0 {
        return Err(context.not_found(tool));
    }
    let total = w.total();
    Ok(ToolOutput::SpendingPattern(SpendingPattern {
        source: Source {
            transactions: w.count(),
            from,
            to,
        },
        category: request.category.map(|c| c.key.to_owned()),
        total_cents: total,
        count: w.count(),
        daily_average_cents: total / span.max(1),
        previous_total_cents: w.previous_cents,
        trend: Trend::between(w.previous_cents, total),
        top: w.top,
        by_category: w.by_category,
    }))
}

/// The month a budget or prediction looks at: the named one, or this one.
fn month_of(request: &ToolRequest, today: NaiveDate) -> NaiveDate {
    match request.period {
        Some(Period::LastMonth) => previous_month(today),
        Some(Period::Month(first)) if first <= today => month_start(first),
        _ => month_start(today),
    }
}

pub async fn budget_status(
    context: &ToolContext<'_>,
    request: &ToolRequest,
) -> Result<ToolOutput, ToolError> {
    let tool = ToolName::GetBudgetStatus;
    let month = month_of(request, context.today);
    let to = month_end(month).min(context.today);
    let cap = budgets::cap_for(
        context.pool,
        context.user,
        request.category.map(|c| c.key),
        month,
    )
    .await
    .map_err(|e| context.database(tool, e))?;
    let w = window(context, &Scope::of(request.category, true), month, to, 0)
        .await
        .map_err(|e| context.database(tool, e))?;
    if cap.is_none() && w.count() == 0 {
        return Err(context.not_found(tool));
    }
    let spent = w.total();
    let elapsed = days(month, to);
    let in_month = days(month, month_end(month));
    let projected = if to < month_end(month) {
        spent * in_month / elapsed.max(1)
    } else {
        spent
    };
    let cap = cap.map(|cap_cents| {
        let used_bp = spent * 10_000 / cap_cents;
        Cap {
            cap_cents,
            remaining_cents: cap_cents - spent,
            used_bp,
            status: BudgetLevel::of(used_bp),
        }
    });
    Ok(ToolOutput::BudgetStatus(BudgetStatus {
        source: Source {
            transactions: w.count(),
            from: month,
            to,
        },
        month,
        category: request.category.map(|c| c.key.to_owned()),
        spent_cents: spent,
        cap,
        by_category: w.by_category,
        projected_cents: projected,
    }))
}

pub async fn prediction(
    context: &ToolContext<'_>,
    request: &ToolRequest,
) -> Result<ToolOutput, ToolError> {
    let tool = ToolName::PredictMonthlySpending;
    let today = context.today;
    let month = month_start(today);
    let scope = Scope::of(request.category, true);
    // This month so far, and the 90 days before it as the usual daily pace.
    let w = window(context, &scope, month, today, 90)
        .await
        .map_err(|e| context.database(tool, e))?;
    let history_days = (context.history.days - days(month, today)).clamp(1, 90);
    let daily = w.previous_cents / history_days;
    let remaining = (month_end(month) - today).num_days();
    let spent = w.total();
    let confidence = match context.history.quality() {
        DataQuality::Excellent => Confidence::High,
        DataQuality::Good => Confidence::Medium,
        _ => Confidence::Low,
    };
    if w.count() == 0 && w.previous_cents == 0 {
        return Err(context.not_found(tool));
    }
    Ok(ToolOutput::Prediction(Prediction {
        source: Source {
            transactions: w.count() + w.previous_count,
            from: month - Duration::days(history_days),
            to: today,
        },
        month,
        category: request.category.map(|c| c.key.to_owned()),
        spent_so_far_cents: spent,
        predicted_cents: spent + daily * remaining,
        confidence,
    }))
}

/// Whole months looked at by a trend.
const TREND_MONTHS: usize = 3;

pub async fn trends(
    context: &ToolContext<'_>,
    request: &ToolRequest,
) -> Result<ToolOutput, ToolError> {
    let tool = ToolName::GetSpendingTrends;
    let last = previous_month(context.today);
    let mut first = last;
    for _ in 1..TREND_MONTHS {
        first = previous_month(first);
    }
    let scope = Scope::of(request.category, false);
    let rows: Vec<(NaiveDate, i64, i64)> = sqlx::query_as(
        "SELECT m::date, coalesce(sum(t.amount_cents), 0)::bigint, count(t.id)
         FROM generate_series($3::date, $4::date, interval '1 month') m
         LEFT JOIN fin_transactions t
           ON t.contact_id = $2 AND t.bot_id = $1 AND t.kind = 'expense'
          AND date_trunc('month', t.occurred_on) = m
          AND ($5::text[] IS NULL OR t.category = ANY($5)) AND t.category <> ALL($6)
         GROUP BY m ORDER BY m",
    )
    .bind(context.user.bot_id)
    .bind(context.user.contact_id)
    .bind(first)
    .bind(last)
    .bind(scope.only.as_deref())
    .bind(&scope.exclude)
    .fetch_all(context.pool)
    .await
    .map_err(|e| context.database(tool, e))?;
    let count: i64 = rows.iter().map(|r| r.2).sum();
    if count == 0 || rows.len() < 2 {
        return Err(context.not_found(tool));
    }
    let months: Vec<MonthTotal> = rows
        .iter()
        .map(|(month, total_cents, _)| MonthTotal {
            month: *month,
            total_cents: *total_cents,
        })
        .collect();
    let (start, end) = (months[0].total_cents, months[months.len() - 1].total_cents);
    Ok(ToolOutput::Trends(Trends {
        source: Source {
            transactions: count,
            from: first,
            to: month_end(last),
        },
        category: request.category.map(|c| c.key.to_owned()),
        direction: Trend::between(start, end),
        change_bp: if start == 0 {
            0
        } else {
            (end - start) * 10_000 / start
        },
        months,
    }))
}
