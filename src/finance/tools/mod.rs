//! The analysis tools as backend functions over PostgreSQL (KakeBot §6). Each reads
//! only the asking user's rows, returns a typed result with its source, and passes
//! the output validator before anyone sees it: a failed query is a `database`
//! error, a failed check a `validation` error, nothing to show `not_found`.

mod anomalies;
mod query;
mod search;
mod spending;

use chrono::NaiveDate;
use sqlx::PgPool;

use super::core::output::{Balance, Debts, ToolError, ToolErrorKind, ToolOutput};
use super::core::tools::{History, ToolName, ToolRequest};
use super::core::validate::validate;
use super::ledger::UserScope;
use super::{balances, debts};

/// What every tool is given besides its own parameters.
#[derive(Debug, Clone, Copy)]
pub struct ToolContext<'a> {
    pub pool: &'a PgPool,
    pub user: UserScope,
    pub today: NaiveDate,
    pub timezone: &'a str,
    pub history: History,
}

impl ToolContext<'_> {
    fn error(&self, tool: ToolName, kind: ToolErrorKind, detail: impl Into<String>) -> ToolError {
        ToolError {
            tool,
            kind,
            detail: detail.into(),
        }
    }

    fn database(&self, tool: ToolName, err: sqlx::Error) -> ToolError {
        self.error(tool, ToolErrorKind::Database, err.to_string())
    }

    fn not_found(&self, tool: ToolName) -> ToolError {
        self.error(tool, ToolErrorKind::NotFound, "no rows")
    }
}

/// Runs the planned tools concurrently; each result is validated on its own.
pub async fn run_all(
    context: &ToolContext<'_>,
    requests: &[ToolRequest],
) -> Vec<Result<ToolOutput, ToolError>> {
    futures::future::join_all(requests.iter().map(|r| run(context, r))).await
}

/// Runs one tool and validates what it returned.
pub async fn run(
    context: &ToolContext<'_>,
    request: &ToolRequest,
) -> Result<ToolOutput, ToolError> {
    let started = std::time::Instant::now();
    let output = match request.name {
        ToolName::AnalyzeSpendingPattern => spending::pattern(context, request).await,
        ToolName::GetBudgetStatus => spending::budget_status(context, request).await,
        ToolName::PredictMonthlySpending => spending::prediction(context, request).await,
        ToolName::GetSpendingTrends => spending::trends(context, request).await,
        ToolName::DetectAnomalies => anomalies::detect(context, request).await,
        ToolName::SearchExpenses => search::search(context, request).await,
        ToolName::GetBankBalance => balance(context).await,
        ToolName::GetDebts => debt_list(context).await,
        ToolName::QueryTransactions => query::query(context, request).await,
    }?;
    tracing::debug!(
        tool = request.name.as_str(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "tool ran"
    );
    validate(&output).map_err(|invalid| {
        tracing::warn!(tool = request.name.as_str(), %invalid, "tool output failed validation");
        context.error(request.name, ToolErrorKind::Validation, invalid.0)
    })?;
    Ok(output)
}

async fn balance(context: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
    let tool = ToolName::GetBankBalance;
    let current = balances::current(context.pool, context.user, context.timezone)
        .await
        .map_err(|e| context.database(tool, e))?
        .ok_or_else(|| context.not_found(tool))?;
    Ok(ToolOutput::Balance(Balance {
        balance_cents: current.0,
        as_of: current.1,
    }))
}

async fn debt_list(context: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
    let items = debts::list(context.pool, context.user)
        .await
        .map_err(|e| context.database(ToolName::GetDebts, e))?;
    let owed_to_me = super::receivables::list(context.pool, context.user)
        .await
        .map_err(|e| context.database(ToolName::GetDebts, e))?;
    let total_cents = items.iter().map(|d| d.balance_cents).sum();
    let owed_to_me_total_cents = owed_to_me.iter().map(|r| r.balance_cents).sum();
    Ok(ToolOutput::Debts(Debts {
        items,
        total_cents,
        owed_to_me,
        owed_to_me_total_cents,
    }))
}
