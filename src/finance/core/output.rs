//! What each tool returns. Every result that carries figures also carries its
//! source (how many transactions, from which date to which), so a reply can say
//! where each number came from.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::tools::ToolName;

/// Where a result's figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Source {
    pub transactions: i64,
    pub from: NaiveDate,
    pub to: NaiveDate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Trend {
    Increasing,
    Decreasing,
    Stable,
}

impl Trend {
    /// The direction from `before` to `now`: a change of 10 % or more either way.
    pub fn between(before: i64, now: i64) -> Trend {
        if before == 0 {
            return if now > 0 {
                Trend::Increasing
            } else {
                Trend::Stable
            };
        }
        let change = (now - before) as f64 / before as f64;
        if change >= 0.10 {
            Trend::Increasing
        } else if change <= -0.10 {
            Trend::Decreasing
        } else {
            Trend::Stable
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryTotal {
    pub category: String,
    pub total_cents: i64,
    pub count: i64,
}

/// One transaction as a tool shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpenseLine {
    pub id: i64,
    pub date: NaiveDate,
    pub description: String,
    pub category: String,
    pub amount_cents: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpendingPattern {
    pub source: Source,
    pub category: Option<String>,
    pub total_cents: i64,
    pub count: i64,
    pub daily_average_cents: i64,
    /// The same number of days just before, for the trend.
    pub previous_total_cents: i64,
    pub trend: Trend,
    /// The largest expenses of the period (at most three).
    pub top: Vec<ExpenseLine>,
    /// Parts of the total; they add up to it.
    pub by_category: Vec<CategoryTotal>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetLevel {
    /// Under 80 % of the cap.
    Safe,
    /// From 80 % to 100 %.
    Warning,
    /// Over the cap.
    Exceeded,
}

impl BudgetLevel {
    /// The level for a share of the cap used, in basis points (10 000 = 100 %).
    pub fn of(used_bp: i64) -> BudgetLevel {
        if used_bp > 10_000 {
            BudgetLevel::Exceeded
        } else if used_bp >= 8_000 {
            BudgetLevel::Warning
        } else {
            BudgetLevel::Safe
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cap {
    pub cap_cents: i64,
    pub remaining_cents: i64,
    /// Share of the cap spent, in basis points.
    pub used_bp: i64,
    pub status: BudgetLevel,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetStatus {
    pub source: Source,
    /// First day of the month looked at.
    pub month: NaiveDate,
    /// `None`: all variable spending (fixed bills are outside the cap).
    pub category: Option<String>,
    pub spent_cents: i64,
    /// `None` when the user set no budget for it.
    pub cap: Option<Cap>,
    pub by_category: Vec<CategoryTotal>,
    /// Spending at this month's pace until its last day.
    pub projected_cents: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Anomaly {
    pub line: ExpenseLine,
    /// The usual amount of that category for this user.
    pub typical_cents: i64,
    pub severity: Severity,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Anomalies {
    pub source: Source,
    pub items: Vec<Anomaly>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prediction {
    pub source: Source,
    pub month: NaiveDate,
    pub category: Option<String>,
    pub spent_so_far_cents: i64,
    pub predicted_cents: i64,
    pub confidence: Confidence,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MonthTotal {
    pub month: NaiveDate,
    pub total_cents: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trends {
    pub source: Source,
    pub category: Option<String>,
    /// Whole months, oldest first.
    pub months: Vec<MonthTotal>,
    pub direction: Trend,
    /// Change from the first month to the last, in basis points.
    pub change_bp: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    pub line: ExpenseLine,
    /// Text similarity 0.6 + recency 0.2 + category match 0.2, in basis points.
    pub confidence_bp: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Search {
    pub source: Source,
    pub query: String,
    /// Categories the query covered after synonym expansion.
    pub categories: Vec<String>,
    pub items: Vec<Found>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Balance {
    pub balance_cents: i64,
    pub as_of: NaiveDate,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DebtLine {
    pub name: String,
    pub balance_cents: i64,
    pub minimum_cents: Option<i64>,
    pub due_day: Option<u32>,
}

/// What someone owes the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceivableLine {
    pub name: String,
    pub balance_cents: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Debts {
    pub items: Vec<DebtLine>,
    pub total_cents: i64,
    /// What others owe the person, and its sum.
    pub owed_to_me: Vec<ReceivableLine>,
    pub owed_to_me_total_cents: i64,
}

/// A tool's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "tool", content = "result")]
pub enum ToolOutput {
    #[serde(rename = "analyzeSpendingPattern")]
    SpendingPattern(SpendingPattern),
    #[serde(rename = "getBudgetStatus")]
    BudgetStatus(BudgetStatus),
    #[serde(rename = "detectAnomalies")]
    Anomalies(Anomalies),
    #[serde(rename = "predictMonthlySpending")]
    Prediction(Prediction),
    #[serde(rename = "getSpendingTrends")]
    Trends(Trends),
    #[serde(rename = "searchExpenses")]
    Search(Search),
    #[serde(rename = "getBankBalance")]
    Balance(Balance),
    #[serde(rename = "getDebts")]
    Debts(Debts),
    #[serde(rename = "queryTransactions")]
    Query(Box<QueryResult>),
}

impl ToolOutput {
    pub fn tool(&self) -> ToolName {
        match self {
            ToolOutput::SpendingPattern(_) => ToolName::AnalyzeSpendingPattern,
            ToolOutput::BudgetStatus(_) => ToolName::GetBudgetStatus,
            ToolOutput::Anomalies(_) => ToolName::DetectAnomalies,
            ToolOutput::Prediction(_) => ToolName::PredictMonthlySpending,
            ToolOutput::Trends(_) => ToolName::GetSpendingTrends,
            ToolOutput::Search(_) => ToolName::SearchExpenses,
            ToolOutput::Balance(_) => ToolName::GetBankBalance,
            ToolOutput::Debts(_) => ToolName::GetDebts,
            ToolOutput::Query(_) => ToolName::QueryTransactions,
        }
    }
}

/// The error classes of KakeBot's error handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolErrorKind {
    /// Connection, timeout or query failures.
    Database,
    /// A result that failed the output validator.
    Validation,
    /// Nothing to look at.
    NotFound,
    /// The data does not belong to whoever asked.
    Permission,
    Unknown,
}

impl ToolErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolErrorKind::Database => "database",
            ToolErrorKind::Validation => "validation",
            ToolErrorKind::NotFound => "not_found",
            ToolErrorKind::Permission => "permission",
            ToolErrorKind::Unknown => "unknown",
        }
    }
}

/// A tool that gave no usable result: its class and, for the audit, why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{} failed ({}): {detail}", tool.as_str(), kind.as_str())]
pub struct ToolError {
    pub tool: ToolName,
    pub kind: ToolErrorKind,
    pub detail: String,
}

/// One group of a grouped query: its key, what a reply calls it, its sum and count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryGroup {
    pub key: String,
    pub label: String,
    pub total_cents: i64,
    pub count: i64,
}

/// The same filters over a second period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryComparison {
    /// The period in a reply's words.
    pub period: String,
    pub source: Source,
    pub total_cents: i64,
    pub count: i64,
    /// The main period's total minus this one's.
    pub difference_cents: i64,
    /// The change from this period to the main one, in basis points (none from 0).
    pub change_bp: Option<i64>,
}

/// A step the query took when the plan as asked found nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Relaxation {
    /// The words as written matched nothing; these descriptions are close to them.
    Spelling { asked: String, found: Vec<String> },
    /// Nothing carries the name; its category was looked at instead.
    Category { asked: String, category: String },
    /// Nothing in the period asked; the whole history was looked at instead.
    WiderRange { asked: String },
}

/// queryTransactions: what a validated plan found in the person's rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryResult {
    /// The plan as it finally ran (after any relaxation).
    pub plan: super::query::QueryPlan,
    /// The period in a reply's words.
    pub period: String,
    pub source: Source,
    pub total_cents: i64,
    pub count: i64,
    /// Total over count, rounded; 0 without rows.
    pub average_cents: i64,
    /// The rows in the plan's order, at most its limit.
    pub rows: Vec<ExpenseLine>,
    /// With a grouping: the groups, largest first, at most the limit.
    pub groups: Vec<QueryGroup>,
    pub compare: Option<QueryComparison>,
    pub relaxed: Vec<Relaxation>,
}
