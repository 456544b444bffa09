//! The draft a finance conversation carries between turns (stored in
//! `conversations.draft`): what the user wants done, the fields known so far, the
//! questions still open, and, for a simulation that needed the bank balance, the
//! original purchase to run again once the balance is confirmed.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::category::{self, Category, CategoryType};
use super::date::month_start;

/// What the user asked for (the intents of Financial Agent v1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Intent {
    LogTransaction,
    QueryData,
    SetBudget,
    ManageDebt,
    SimulatePurchase,
    SetBankBalance,
    /// "Eso era transporte, no comida": fixes the category of the last transaction.
    CorrectCategory,
    /// «Borra mis datos»: every row of this person in this bot, once confirmed.
    EraseMyData,
}

impl Intent {
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::LogTransaction => "LOG_TRANSACTION",
            Intent::QueryData => "QUERY_DATA",
            Intent::SetBudget => "SET_BUDGET",
            Intent::ManageDebt => "MANAGE_DEBT",
            Intent::SimulatePurchase => "SIMULATE_PURCHASE",
            Intent::SetBankBalance => "SET_BANK_BALANCE",
            Intent::CorrectCategory => "CORRECT_CATEGORY",
            Intent::EraseMyData => "ERASE_MY_DATA",
        }
    }

    /// Intents that write once confirmed; the others only read.
    pub fn writes(self) -> bool {
        !matches!(self, Intent::QueryData | Intent::SimulatePurchase)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TxKind {
    Expense,
    Income,
}

impl TxKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TxKind::Expense => "expense",
            TxKind::Income => "income",
        }
    }
}

/// A question the draft still needs answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Amount,
    Category,
    /// Whom the debt is with.
    DebtName,
    /// What changes in the debt (balance, minimum, due day or a payment).
    DebtChange,
}

/// The fields of a debt a MANAGE_DEBT draft changes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebtFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance_cents: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_cents: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_day: Option<u32>,
    /// A payment made towards the debt (lowers its balance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_cents: Option<i64>,
    /// The money is owed to the person («Toño me debe 500», «le presté 800»),
    /// not by them: only its balance is kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub owed_to_me: bool,
}

impl DebtFields {
    pub fn changes_something(&self) -> bool {
        self.balance_cents.is_some()
            || self.minimum_cents.is_some()
            || self.due_day.is_some()
            || self.payment_cents.is_some()
    }
}

/// A transaction logged in the last day with the same amount and a similar concept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Duplicate {
    pub id: i64,
    pub date: NaiveDate,
    pub description: String,
    pub amount_cents: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    pub intent: Intent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TxKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount_cents: Option<i64>,
    /// A category key (see `category::CATEGORIES`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category_type: Option<CategoryType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<NaiveDate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Normalized merchant, the key of learned rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merchant: Option<String>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub debt: DebtFields,
    /// CORRECT_CATEGORY: the transaction being fixed and its category before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_category: Option<String>,
    /// Open questions; in CLARIFYING the next reply answers them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<Field>,
    /// A simulation waiting for the bank balance this draft sets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Box<Draft>>,
    /// A second complete write from the same message («cobré 8000 y gasté 500
    /// en gasolina»), asked once this one is answered, yes or no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<Box<Draft>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<Duplicate>,
    /// The category came from a rule learned from this user's corrections.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub learned_category: bool,
}

fn is_default(debt: &DebtFields) -> bool {
    *debt == DebtFields::default()
}

impl Draft {
    pub fn new(intent: Intent) -> Self {
        Draft {
            intent,
            kind: None,
            amount_cents: None,
            category: None,
            category_type: None,
            date: None,
            description: None,
            merchant: None,
            debt: DebtFields::default(),
            transaction_id: None,
            from_category: None,
            questions: Vec::new(),
            resume: None,
            then: None,
            duplicate: None,
            learned_category: false,
        }
    }

    pub fn category(&self) -> Option<&'static Category> {
        self.category.as_deref().and_then(category::by_key)
    }

    /// Sets the category and, unless the user named one, its type.
    pub fn set_category(&mut self, category: &'static Category) {
        self.category = Some(category.key.to_owned());
        self.category_type = Some(category.kind);
        if category.is_income() {
            self.kind = Some(TxKind::Income);
        }
    }

    /// What is still missing for this intent (Financial Agent v1, "validate").
    /// `needs_category` is true for a simulation when the user has category budgets.
    pub fn missing(&self, needs_category: bool) -> Vec<Field> {
        let mut missing = Vec::new();
        let amount = self.amount_cents.is_none();
        match self.intent {
            Intent::LogTransaction => {
                if amount {
                    missing.push(Field::Amount);
                }
                if self.category.is_none() || self.category_type.is_none() {
                    missing.push(Field::Category);
                }
            }
            Intent::SetBudget | Intent::SetBankBalance => {
                if amount {
                    missing.push(Field::Amount);
                }
            }
            Intent::SimulatePurchase => {
                if amount {
                    missing.push(Field::Amount);
                }
                if needs_category && self.category.is_none() {
                    missing.push(Field::Category);
                }
            }
            Intent::ManageDebt => {
                if self.debt.name.is_none() {
                    missing.push(Field::DebtName);
                }
                // (What someone owes the person is its amount or a sum paid
                // back, nothing else.)
                let changes = if self.debt.owed_to_me {
                    self.debt.balance_cents.is_some() || self.debt.payment_cents.is_some()
                } else {
                    self.debt.changes_something()
                };
                if !changes {
                    missing.push(Field::DebtChange);
                }
            }
            Intent::CorrectCategory => {
                if self.category.is_none() {
                    missing.push(Field::Category);
                }
            }
            Intent::QueryData | Intent::EraseMyData => {}
        }
        missing
    }

    /// The write this draft makes once confirmed; `None` for read-only intents or
    /// a draft still missing something.
    pub fn write(&self) -> Option<Write> {
        Some(match self.intent {
            Intent::LogTransaction => {
                let category = self.category()?;
                Write::LogTransaction {
                    kind: self.kind.unwrap_or(TxKind::Expense),
                    amount_cents: self.amount_cents?,
                    category: category.key,
                    category_type: self.category_type.unwrap_or(category.kind),
                    date: self.date?,
                    description: self.description.clone().unwrap_or_default(),
                    merchant: self.merchant.clone(),
                    learned: self.learned_category,
                }
            }
            Intent::SetBudget => Write::SetBudget {
                category: self.category().map(|c| c.key),
                starts_on: month_start(self.date?),
                cap_cents: self.amount_cents?,
            },
            Intent::ManageDebt if self.debt.owed_to_me => {
                let name = self.debt.name.clone()?;
                match self.debt.payment_cents {
                    Some(amount_cents) => Write::ReceivablePayment { name, amount_cents },
                    None => Write::SetReceivable {
                        name,
                        balance_cents: self.debt.balance_cents?,
                    },
                }
            }
            Intent::ManageDebt => {
                let name = self.debt.name.clone()?;
                match self.debt.payment_cents {
                    Some(payment) => Write::DebtPayment {
                        name,
                        amount_cents: payment,
                    },
                    None => Write::SetDebt {
                        name,
                        balance_cents: self.debt.balance_cents,
                        minimum_cents: self.debt.minimum_cents,
                        due_day: self.debt.due_day,
                    },
                }
            }
            Intent::SetBankBalance => Write::SetBankBalance {
                balance_cents: self.amount_cents?,
            },
            Intent::CorrectCategory => {
                let to = self.category()?;
                Write::CorrectCategory {
                    transaction_id: self.transaction_id?,
                    from: self.from_category.clone()?,
                    to: to.key,
                    to_type: to.kind,
                    merchant: self.merchant.clone(),
                    description: self.description.clone().unwrap_or_default(),
                }
            }
            Intent::EraseMyData => Write::EraseMyData,
            Intent::QueryData | Intent::SimulatePurchase => return None,
        })
    }
}

/// A confirmed write, as the commit executes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "write", rename_all = "snake_case")]
pub enum Write {
    LogTransaction {
        kind: TxKind,
        amount_cents: i64,
        category: &'static str,
        category_type: CategoryType,
        date: NaiveDate,
        description: String,
        merchant: Option<String>,
        /// The category came from a learned rule (counted as the rule applied).
        learned: bool,
    },
    SetBudget {
        /// `None`: the cap on all variable spending.
        category: Option<&'static str>,
        starts_on: NaiveDate,
        cap_cents: i64,
    },
    /// Creates the debt or changes the given fields.
    SetDebt {
        name: String,
        balance_cents: Option<i64>,
        minimum_cents: Option<i64>,
        due_day: Option<u32>,
    },
    DebtPayment {
        name: String,
        amount_cents: i64,
    },
    /// What `name` owes the person, set.
    SetReceivable {
        name: String,
        balance_cents: i64,
    },
    /// `name` paid the person back part or all of what they owed.
    ReceivablePayment {
        name: String,
        amount_cents: i64,
    },
    SetBankBalance {
        balance_cents: i64,
    },
    CorrectCategory {
        transaction_id: i64,
        from: String,
        to: &'static str,
        to_type: CategoryType,
        /// Kept with the correction, for learning.
        merchant: Option<String>,
        description: String,
    },
    /// Every row of the person in this bot: their ledger, budgets, debts,
    /// balance, what was learned from them and their transcript.
    EraseMyData,
}

impl Write {
    pub fn name(&self) -> &'static str {
        match self {
            Write::LogTransaction { .. } => "LOG_TRANSACTION",
            Write::SetBudget { .. } => "SET_BUDGET",
            Write::SetDebt { .. }
            | Write::DebtPayment { .. }
            | Write::SetReceivable { .. }
            | Write::ReceivablePayment { .. } => "MANAGE_DEBT",
            Write::SetBankBalance { .. } => "SET_BANK_BALANCE",
            Write::CorrectCategory { .. } => "CORRECT_CATEGORY",
            Write::EraseMyData => "ERASE_MY_DATA",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_fields_follow_the_financial_agent_flow() {
        let mut log = Draft::new(Intent::LogTransaction);
        assert_eq!(log.missing(false), [Field::Amount, Field::Category]);
        log.amount_cents = Some(25_000);
        assert_eq!(log.missing(false), [Field::Category]);
        log.set_category(category::by_key("comida").unwrap());
        assert!(log.missing(false).is_empty());
        assert_eq!(log.category_type, Some(CategoryType::Supervivencia));

        let mut debt = Draft::new(Intent::ManageDebt);
        assert_eq!(debt.missing(false), [Field::DebtName, Field::DebtChange]);
        debt.debt.name = Some("Juan".into());
        debt.debt.due_day = Some(15);
        assert!(debt.missing(false).is_empty());

        let mut sim = Draft::new(Intent::SimulatePurchase);
        sim.amount_cents = Some(180_000);
        assert!(sim.missing(false).is_empty());
        assert_eq!(sim.missing(true), [Field::Category]);
    }

    #[test]
    fn a_complete_draft_becomes_exactly_one_write() {
        let mut log = Draft::new(Intent::LogTransaction);
        log.amount_cents = Some(25_000);
        log.set_category(category::by_key("supermercado").unwrap());
        assert_eq!(log.write(), None, "no date yet");
        log.date = NaiveDate::from_ymd_opt(2026, 11, 22);
        assert!(matches!(
            log.write(),
            Some(Write::LogTransaction {
                kind: TxKind::Expense,
                amount_cents: 25_000,
                category: "supermercado",
                ..
            })
        ));
        let mut sim = Draft::new(Intent::SimulatePurchase);
        sim.amount_cents = Some(1);
        assert_eq!(sim.write(), None);
    }

    #[test]
    fn drafts_survive_storage_with_their_resume_chain() {
        let mut sim = Draft::new(Intent::SimulatePurchase);
        sim.amount_cents = Some(180_000);
        let mut balance = Draft::new(Intent::SetBankBalance);
        balance.questions = vec![Field::Amount];
        balance.resume = Some(Box::new(sim));
        let json = serde_json::to_value(&balance).unwrap();
        let back: Draft = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, balance);
        assert_eq!(json["resume"]["intent"], "SIMULATE_PURCHASE");
        assert!(json.get("debt").is_none(), "empty fields are not stored");
    }
}
