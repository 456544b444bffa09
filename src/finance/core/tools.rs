//! The analysis tools a turn may run, and the limits that hold them (KakeBot §3 and
//! §1): at most three per turn, the redundant pair reduced, the required companion
//! added, and tools that need history refused for a user who has too little of it.

use chrono::{Duration, NaiveDate};
use serde::{Deserialize, Serialize};

use super::category::Category;
use super::date::{month_end, month_start, previous_month};

/// Most tools one turn runs.
pub const MAX_TOOLS: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ToolName {
    #[serde(rename = "analyzeSpendingPattern")]
    AnalyzeSpendingPattern,
    #[serde(rename = "getBudgetStatus")]
    GetBudgetStatus,
    #[serde(rename = "detectAnomalies")]
    DetectAnomalies,
    #[serde(rename = "predictMonthlySpending")]
    PredictMonthlySpending,
    #[serde(rename = "getSpendingTrends")]
    GetSpendingTrends,
    #[serde(rename = "searchExpenses")]
    SearchExpenses,
    #[serde(rename = "getBankBalance")]
    GetBankBalance,
    #[serde(rename = "getDebts")]
    GetDebts,
    #[serde(rename = "queryTransactions")]
    QueryTransactions,
}

impl ToolName {
    pub const ALL: [ToolName; 9] = [
        ToolName::AnalyzeSpendingPattern,
        ToolName::GetBudgetStatus,
        ToolName::DetectAnomalies,
        ToolName::PredictMonthlySpending,
        ToolName::GetSpendingTrends,
        ToolName::SearchExpenses,
        ToolName::GetBankBalance,
        ToolName::GetDebts,
        ToolName::QueryTransactions,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::AnalyzeSpendingPattern => "analyzeSpendingPattern",
            ToolName::GetBudgetStatus => "getBudgetStatus",
            ToolName::DetectAnomalies => "detectAnomalies",
            ToolName::PredictMonthlySpending => "predictMonthlySpending",
            ToolName::GetSpendingTrends => "getSpendingTrends",
            ToolName::SearchExpenses => "searchExpenses",
            ToolName::GetBankBalance => "getBankBalance",
            ToolName::GetDebts => "getDebts",
            ToolName::QueryTransactions => "queryTransactions",
        }
    }

    pub fn parse(raw: &str) -> Option<ToolName> {
        let raw = raw.trim();
        ToolName::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(raw))
    }

    /// Days of history a tool needs before its answer means anything.
    pub fn required_days(self) -> i64 {
        match self {
            ToolName::DetectAnomalies | ToolName::PredictMonthlySpending => 30,
            ToolName::GetSpendingTrends => 60,
            _ => 0,
        }
    }
}

/// The stretch of time a tool looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Period {
    CurrentMonth,
    LastMonth,
    Last30Days,
    Last90Days,
    /// A named month, by its first day.
    Month(NaiveDate),
}

impl Period {
    pub fn parse(raw: &str) -> Option<Period> {
        let raw = raw.trim().to_ascii_lowercase();
        Some(match raw.as_str() {
            "current_month" | "this_month" | "month" => Period::CurrentMonth,
            "last_month" | "previous_month" => Period::LastMonth,
            "last_30_days" | "30_days" => Period::Last30Days,
            "last_90_days" | "90_days" | "last_3_months" => Period::Last90Days,
            other => {
                let date = NaiveDate::parse_from_str(&format!("{other}-01"), "%Y-%m-%d").ok()?;
                Period::Month(date)
            }
        })
    }

    /// First and last day, inclusive; never past today.
    pub fn range(self, today: NaiveDate) -> (NaiveDate, NaiveDate) {
        let (from, to) = match self {
            Period::CurrentMonth => (month_start(today), today),
            Period::LastMonth => {
                let start = previous_month(today);
                (start, month_end(start))
            }
            Period::Last30Days => (today - Duration::days(29), today),
            Period::Last90Days => (today - Duration::days(89), today),
            Period::Month(first) => (month_start(first), month_end(first)),
        };
        (from, to.min(today))
    }
}

impl From<Period> for super::query::Span {
    fn from(period: Period) -> super::query::Span {
        use super::query::Span;
        use Period;
        match period {
            Period::CurrentMonth => Span::ThisMonth,
            Period::LastMonth => Span::LastMonth,
            Period::Last30Days => Span::LastDays(30),
            Period::Last90Days => Span::LastDays(90),
            Period::Month(first) => Span::Month(first),
        }
    }
}

impl super::query::QueryPlan {
    /// The plan a fixed tool's request amounts to, so a follow-up can refine a
    /// question the older tools answered («¿cuánto en transporte el mes
    /// pasado?» → «¿y de eso en Uber?»).
    pub fn of_request(request: &ToolRequest) -> Option<super::query::QueryPlan> {
        use super::query::QueryPlan;
        if let Some(plan) = &request.plan {
            return Some(plan.clone());
        }
        let default = match request.name {
            ToolName::AnalyzeSpendingPattern => Period::CurrentMonth,
            ToolName::SearchExpenses => Period::Last90Days,
            _ => return None,
        };
        Some(QueryPlan {
            category: request.category.map(|c| c.key.to_owned()),
            span: request.period.unwrap_or(default).into(),
            ..QueryPlan::default()
        })
    }
}

/// How closely anomalies are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sensitivity {
    Low,
    Medium,
    High,
}

impl Sensitivity {
    /// Standard deviations above the typical amount that make an expense unusual.
    pub fn threshold(self) -> f64 {
        match self {
            Sensitivity::Low => 3.0,
            Sensitivity::Medium => 2.5,
            Sensitivity::High => 2.0,
        }
    }
}

/// One tool call with its parameters, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolRequest {
    pub name: ToolName,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "category_key"
    )]
    pub category: Option<&'static Category>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<Period>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_cents: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cents: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitivity: Option<Sensitivity>,
    /// queryTransactions: the validated plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<super::query::QueryPlan>,
}

fn category_key<S: serde::Serializer>(
    category: &Option<&'static Category>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(category.map_or("", |c| c.key))
}

impl ToolRequest {
    pub fn new(name: ToolName) -> Self {
        ToolRequest {
            name,
            category: None,
            period: None,
            query: None,
            min_cents: None,
            max_cents: None,
            sensitivity: None,
            plan: None,
        }
    }

    pub fn category(mut self, category: &'static Category) -> Self {
        self.category = Some(category);
        self
    }

    pub fn period(mut self, period: Period) -> Self {
        self.period = Some(period);
        self
    }

    pub fn query(mut self, query: impl Into<String>) -> Self {
        self.query = Some(query.into());
        self
    }
}

/// How much history a user has, which decides what analysis is honest (KakeBot §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DataQuality {
    /// Under 30 days or under 20 transactions.
    Poor,
    /// 30–60 days and 20–50 transactions.
    Fair,
    /// 60–90 days and 50–100 transactions.
    Good,
    /// 90+ days and 100+ transactions.
    Excellent,
}

/// A user's history as the context analyzer sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct History {
    /// Days from the first transaction to today, both counted.
    pub days: i64,
    pub transactions: i64,
}

impl History {
    /// Both measures must reach a level for the user to be at it.
    pub fn quality(self) -> DataQuality {
        let (days, count) = (self.days, self.transactions);
        if days < 30 || count < 20 {
            DataQuality::Poor
        } else if days >= 90 && count >= 100 {
            DataQuality::Excellent
        } else if days >= 60 && count >= 50 {
            DataQuality::Good
        } else {
            DataQuality::Fair
        }
    }
}

/// Why a requested tool does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Dropped {
    /// The user's history is shorter than the tool needs.
    NeedsHistory { days: i64, has: i64 },
    /// Redundant with a tool already planned (predict + trends).
    Redundant { with: ToolName },
    /// Over the per-turn limit.
    OverLimit,
    /// Asked twice.
    Duplicate,
}

/// What runs, and what was asked and does not.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ToolPlan {
    pub run: Vec<ToolRequest>,
    pub dropped: Vec<(ToolName, Dropped)>,
    /// Companions added to what was asked.
    pub added: Vec<ToolName>,
}

/// Applies the limits to what a proposer asked, in order: duplicates, history
/// gating, the redundant pair, the required companion, then the cap of three
/// (a companion is never the one dropped for the cap).
pub fn plan_tools(requested: &[ToolRequest], history: History) -> ToolPlan {
    let mut plan = ToolPlan::default();
    let mut wanted: Vec<ToolRequest> = Vec::new();
    for request in requested {
        // Several plans may be compared side by side; the same one twice may not.
        if wanted.iter().any(|w| {
            w.name == request.name && (request.name != ToolName::QueryTransactions || w == request)
        }) {
            plan.dropped.push((request.name, Dropped::Duplicate));
            continue;
        }
        let needs = request.name.required_days();
        if history.days < needs || (needs > 0 && history.quality() == DataQuality::Poor) {
            plan.dropped.push((
                request.name,
                Dropped::NeedsHistory {
                    days: needs,
                    has: history.days,
                },
            ));
            continue;
        }
        wanted.push(request.clone());
    }
    let has = |wanted: &[ToolRequest], name| wanted.iter().any(|w: &ToolRequest| w.name == name);
    if has(&wanted, ToolName::PredictMonthlySpending) && has(&wanted, ToolName::GetSpendingTrends) {
        wanted.retain(|w| w.name != ToolName::GetSpendingTrends);
        plan.dropped.push((
            ToolName::GetSpendingTrends,
            Dropped::Redundant {
                with: ToolName::PredictMonthlySpending,
            },
        ));
    }
    if let Some(predict) = wanted
        .iter()
        .find(|w| w.name == ToolName::PredictMonthlySpending)
        && !has(&wanted, ToolName::GetBudgetStatus)
    {
        let mut companion = ToolRequest::new(ToolName::GetBudgetStatus);
        companion.category = predict.category;
        companion.period = predict.period;
        let at = wanted
            .iter()
            .position(|w| w.name == ToolName::PredictMonthlySpending)
            .map_or(wanted.len(), |p| p + 1);
        wanted.insert(at, companion);
        plan.added.push(ToolName::GetBudgetStatus);
    }
    while wanted.len() > MAX_TOOLS {
        let protected = has(&wanted, ToolName::PredictMonthlySpending);
        let victim = wanted
            .iter()
            .rposition(|w| {
                !(protected
                    && matches!(
                        w.name,
                        ToolName::PredictMonthlySpending | ToolName::GetBudgetStatus
                    ))
            })
            .unwrap_or(wanted.len() - 1);
        let dropped = wanted.remove(victim);
        plan.dropped.push((dropped.name, Dropped::OverLimit));
    }
    plan.run = wanted;
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(names: &[ToolName]) -> Vec<ToolRequest> {
        names.iter().map(|n| ToolRequest::new(*n)).collect()
    }

    fn names(plan: &ToolPlan) -> Vec<ToolName> {
        plan.run.iter().map(|r| r.name).collect()
    }

    const RICH: History = History {
        days: 120,
        transactions: 150,
    };

    #[test]
    fn quality_needs_both_days_and_transactions() {
        let at = |days, transactions| History { days, transactions }.quality();
        assert_eq!(at(10, 500), DataQuality::Poor);
        assert_eq!(at(200, 19), DataQuality::Poor);
        assert_eq!(at(30, 20), DataQuality::Fair);
        assert_eq!(at(59, 49), DataQuality::Fair);
        assert_eq!(at(60, 50), DataQuality::Good);
        assert_eq!(at(120, 60), DataQuality::Good);
        assert_eq!(at(90, 100), DataQuality::Excellent);
    }

    #[test]
    fn at_most_three_run_and_the_rest_are_dropped_in_order() {
        use ToolName::*;
        let plan = plan_tools(
            &ask(&[
                AnalyzeSpendingPattern,
                SearchExpenses,
                DetectAnomalies,
                GetDebts,
                GetBankBalance,
            ]),
            RICH,
        );
        assert_eq!(
            names(&plan),
            [AnalyzeSpendingPattern, SearchExpenses, DetectAnomalies]
        );
        assert_eq!(
            plan.dropped,
            [
                (GetBankBalance, Dropped::OverLimit),
                (GetDebts, Dropped::OverLimit)
            ]
        );
    }

    #[test]
    fn the_redundant_pair_is_reduced_and_the_companion_added() {
        use ToolName::*;
        let plan = plan_tools(&ask(&[GetSpendingTrends, PredictMonthlySpending]), RICH);
        assert_eq!(names(&plan), [PredictMonthlySpending, GetBudgetStatus]);
        assert_eq!(plan.added, [GetBudgetStatus]);
        assert!(plan.dropped.contains(&(
            GetSpendingTrends,
            Dropped::Redundant {
                with: PredictMonthlySpending
            }
        )));
        // The companion survives the cap; a plain tool goes instead.
        let plan = plan_tools(
            &ask(&[SearchExpenses, GetDebts, PredictMonthlySpending]),
            RICH,
        );
        assert_eq!(
            names(&plan),
            [SearchExpenses, PredictMonthlySpending, GetBudgetStatus]
        );
        assert_eq!(plan.dropped, [(GetDebts, Dropped::OverLimit)]);
    }

    #[test]
    fn tools_needing_history_are_refused_for_a_new_user() {
        use ToolName::*;
        let new_user = History {
            days: 12,
            transactions: 8,
        };
        let plan = plan_tools(
            &ask(&[AnalyzeSpendingPattern, DetectAnomalies, GetSpendingTrends]),
            new_user,
        );
        assert_eq!(names(&plan), [AnalyzeSpendingPattern]);
        assert_eq!(plan.dropped.len(), 2);
        let fair = History {
            days: 45,
            transactions: 30,
        };
        let plan = plan_tools(&ask(&[GetSpendingTrends, DetectAnomalies]), fair);
        assert_eq!(names(&plan), [DetectAnomalies]);
        assert_eq!(
            plan.dropped,
            [(
                GetSpendingTrends,
                Dropped::NeedsHistory { days: 60, has: 45 }
            )]
        );
        let plan = plan_tools(&ask(&[GetDebts, GetDebts]), new_user);
        assert_eq!(plan.dropped, [(GetDebts, Dropped::Duplicate)]);
    }

    #[test]
    fn periods_parse_and_resolve_to_ranges_up_to_today() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        let d = |m, day| NaiveDate::from_ymd_opt(2026, m, day).unwrap();
        assert_eq!(Period::CurrentMonth.range(today), (d(11, 1), today));
        assert_eq!(Period::LastMonth.range(today), (d(10, 1), d(10, 31)));
        assert_eq!(Period::Last30Days.range(today), (d(10, 25), today));
        assert_eq!(
            Period::parse("2026-09").unwrap().range(today),
            (d(9, 1), d(9, 30))
        );
        assert_eq!(Period::parse("this_month"), Some(Period::CurrentMonth));
        assert_eq!(Period::parse("ayer"), None);
        assert_eq!(
            ToolName::parse("searchexpenses"),
            Some(ToolName::SearchExpenses)
        );
        assert_eq!(ToolName::parse("deleteEverything"), None);
    }
}
