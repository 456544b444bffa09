//! The closed set of finance actions a proposer may name, the ones that exist only
//! to be refused, and their parameters once parsed. Nothing a proposer writes
//! reaches the engine as anything but one of these.

use chrono::NaiveDate;
use serde::Serialize;

use super::category::{Category, CategoryType};
use super::draft::TxKind;
use super::tools::ToolRequest;
use crate::proposal::Param;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FinanceActionKind {
    LogTransaction,
    QueryData,
    SetBudget,
    ManageDebt,
    SimulatePurchase,
    SetBankBalance,
    CorrectCategory,
    /// «Borra mis datos»: stages the erasure of the person's rows (confirmed like
    /// any write).
    EraseMyData,
    /// Answers the open questions of the draft (CLARIFYING only).
    PatchDraft,
    /// Drops the draft.
    Cancel,
    Reply,
    Clarify,
    Escalate,
}

impl FinanceActionKind {
    pub const ALL: [FinanceActionKind; 13] = [
        FinanceActionKind::LogTransaction,
        FinanceActionKind::QueryData,
        FinanceActionKind::SetBudget,
        FinanceActionKind::ManageDebt,
        FinanceActionKind::SimulatePurchase,
        FinanceActionKind::SetBankBalance,
        FinanceActionKind::CorrectCategory,
        FinanceActionKind::EraseMyData,
        FinanceActionKind::PatchDraft,
        FinanceActionKind::Cancel,
        FinanceActionKind::Reply,
        FinanceActionKind::Clarify,
        FinanceActionKind::Escalate,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FinanceActionKind::LogTransaction => "LOG_TRANSACTION",
            FinanceActionKind::QueryData => "QUERY_DATA",
            FinanceActionKind::SetBudget => "SET_BUDGET",
            FinanceActionKind::ManageDebt => "MANAGE_DEBT",
            FinanceActionKind::SimulatePurchase => "SIMULATE_PURCHASE",
            FinanceActionKind::SetBankBalance => "SET_BANK_BALANCE",
            FinanceActionKind::CorrectCategory => "CORRECT_CATEGORY",
            FinanceActionKind::EraseMyData => "ERASE_MY_DATA",
            FinanceActionKind::PatchDraft => "PATCH_DRAFT",
            FinanceActionKind::Cancel => "CANCEL",
            FinanceActionKind::Reply => "REPLY",
            FinanceActionKind::Clarify => "CLARIFY",
            FinanceActionKind::Escalate => "ESCALATE",
        }
    }
}

/// Actions that belong to the user or the backend, never to a proposer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FinanceForbidden {
    /// History is never deleted from chat.
    DeleteTransaction,
    DeleteHistory,
    /// Writing without the user's own confirmation token.
    ConfirmWrite,
    /// A balance from the model's own arithmetic.
    AdjustBalance,
    DisableOverride,
}

impl FinanceForbidden {
    pub const ALL: [FinanceForbidden; 5] = [
        FinanceForbidden::DeleteTransaction,
        FinanceForbidden::DeleteHistory,
        FinanceForbidden::ConfirmWrite,
        FinanceForbidden::AdjustBalance,
        FinanceForbidden::DisableOverride,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FinanceForbidden::DeleteTransaction => "DELETE_TRANSACTION",
            FinanceForbidden::DeleteHistory => "DELETE_HISTORY",
            FinanceForbidden::ConfirmWrite => "CONFIRM_WRITE",
            FinanceForbidden::AdjustBalance => "ADJUST_BALANCE",
            FinanceForbidden::DisableOverride => "DISABLE_OVERRIDE",
        }
    }

    /// Other names a model may use for the same thing.
    fn aliases(self) -> &'static [&'static str] {
        match self {
            FinanceForbidden::DeleteTransaction => &["DELETE_EXPENSE", "REMOVE_TRANSACTION"],
            FinanceForbidden::DeleteHistory => &["DELETE_DATA", "CLEAR_HISTORY"],
            FinanceForbidden::ConfirmWrite => &[
                "CONFIRM",
                "EXECUTE_WRITE",
                "WRITE_WITHOUT_CONFIRMATION",
                "COMMIT",
            ],
            FinanceForbidden::AdjustBalance => &["UPDATE_BALANCE", "COMPUTE_BALANCE"],
            FinanceForbidden::DisableOverride => &[],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FinanceActionType {
    Allowed(FinanceActionKind),
    Forbidden(FinanceForbidden),
    /// Anything else, kept (truncated) for the audit.
    Unknown(String),
}

impl FinanceActionType {
    pub fn parse(raw: &str) -> FinanceActionType {
        let name = raw.trim();
        if let Some(kind) = FinanceActionKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(name))
        {
            return FinanceActionType::Allowed(kind);
        }
        if let Some(kind) = FinanceForbidden::ALL.into_iter().find(|k| {
            k.as_str().eq_ignore_ascii_case(name)
                || k.aliases().iter().any(|a| a.eq_ignore_ascii_case(name))
        }) {
            return FinanceActionType::Forbidden(kind);
        }
        FinanceActionType::Unknown(name.chars().take(64).collect())
    }

    pub fn name(&self) -> &str {
        match self {
            FinanceActionType::Allowed(kind) => kind.as_str(),
            FinanceActionType::Forbidden(kind) => kind.as_str(),
            FinanceActionType::Unknown(name) => name,
        }
    }
}

/// Parameters as a proposer gave them, each parsed on its own: a bad one is
/// `Invalid` (and rejects its action), an absent one `Missing` (and becomes a
/// question).
#[derive(Debug, Clone, PartialEq)]
pub struct FinanceParams {
    pub kind: Param<TxKind>,
    /// Cents.
    pub amount: Param<i64>,
    pub category: Param<&'static Category>,
    pub category_type: Param<CategoryType>,
    pub date: Param<NaiveDate>,
    pub description: Option<String>,
    pub merchant: Option<String>,
    pub debt_name: Param<String>,
    pub debt_balance: Param<i64>,
    pub debt_minimum: Param<i64>,
    pub debt_due_day: Param<u32>,
    pub debt_payment: Param<i64>,
    /// The money is owed to the user, not by them.
    pub debt_owed_to_me: Param<bool>,
    pub tools: Vec<Param<ToolRequest>>,
}

impl Default for FinanceParams {
    fn default() -> Self {
        FinanceParams {
            kind: Param::Missing,
            amount: Param::Missing,
            category: Param::Missing,
            category_type: Param::Missing,
            date: Param::Missing,
            description: None,
            merchant: None,
            debt_name: Param::Missing,
            debt_balance: Param::Missing,
            debt_minimum: Param::Missing,
            debt_due_day: Param::Missing,
            debt_payment: Param::Missing,
            debt_owed_to_me: Param::Missing,
            tools: Vec::new(),
        }
    }
}

/// One proposed finance action after parsing, before validation.
#[derive(Debug, Clone, PartialEq)]
pub struct FinanceAction {
    pub kind: FinanceActionType,
    pub params: FinanceParams,
}

impl FinanceAction {
    pub fn of(kind: FinanceActionKind) -> Self {
        FinanceAction {
            kind: FinanceActionType::Allowed(kind),
            params: FinanceParams::default(),
        }
    }

    pub fn with(mut self, edit: impl FnOnce(&mut FinanceParams)) -> Self {
        edit(&mut self.params);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_onto_the_closed_set_the_forbidden_list_or_unknown() {
        assert_eq!(
            FinanceActionType::parse("log_transaction"),
            FinanceActionType::Allowed(FinanceActionKind::LogTransaction)
        );
        assert_eq!(
            FinanceActionType::parse("EXECUTE_WRITE"),
            FinanceActionType::Forbidden(FinanceForbidden::ConfirmWrite)
        );
        assert_eq!(
            FinanceActionType::parse(" delete_history "),
            FinanceActionType::Forbidden(FinanceForbidden::DeleteHistory)
        );
        let long = "Z".repeat(300);
        assert_eq!(FinanceActionType::parse(&long).name().len(), 64);
        assert_eq!(
            FinanceActionType::parse("ADD_TO_CART"),
            FinanceActionType::Unknown("ADD_TO_CART".into())
        );
    }
}
