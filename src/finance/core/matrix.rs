//! The finance validation matrix, the same idea as the shop's: which action is
//! valid in which state, what it checks, and where it leads. `evaluate` is a pure
//! function of the state the turn began in, the draft, what the backend knows of
//! the user and the proposed actions. Confirmations never pass through here: only
//! the user's own token confirms (see `confirm` and `on_answer`).
//!
//! | action | valid in | checks | state after |
//! |---|---|---|---|
//! | LOG_TRANSACTION, SET_BUDGET, MANAGE_DEBT, SET_BANK_BALANCE, CORRECT_CATEGORY | IDLE | amounts > 0, under the cap and written by the user; category known; date not absurd; debt exists to change; a transaction to correct | CLARIFYING (questions) or AWAITING_CONFIRMATION |
//! | SIMULATE_PURCHASE | IDLE | as above | IDLE (runs), CLARIFYING (questions, or the bank balance is unknown) |
//! | QUERY_DATA | IDLE | at least one known tool | IDLE (tools run) |
//! | PATCH_DRAFT | CLARIFYING | as the draft's intent; something changes | CLARIFYING, AWAITING_CONFIRMATION or IDLE (a complete simulation runs) |
//! | CANCEL | CLARIFYING, AWAITING_CONFIRMATION | — | IDLE |
//! | LOG_TRANSACTION, second of a turn that began IDLE | after a LOG staged in that turn | as above | same (queued behind the first, asked once it is answered) |
//! | REPLY, CLARIFY | all | — | same |
//! | ESCALATE | all | — | HUMAN_TAKEOVER |
//!
//! Forbidden (always rejected and audited): DELETE_TRANSACTION, DELETE_HISTORY,
//! CONFIRM_WRITE, ADJUST_BALANCE, DISABLE_OVERRIDE; any unknown type likewise.

use chrono::{Duration, NaiveDate};
use serde::Serialize;

use super::action::{
    FinanceAction, FinanceActionKind, FinanceActionType, FinanceForbidden, FinanceParams,
};
use super::amount::MAX_AMOUNT_CENTS;
use super::category::CategoryType;
use super::confirm::Answer;
use super::draft::{Draft, Field, Intent, TxKind, Write};
use super::state::FinanceState;
use super::tools::ToolRequest;
use crate::shop::core::{MAX_ACTIONS, Param};
use crate::text::normalize;

/// Oldest date a transaction may carry, in days before today.
pub const MAX_PAST_DAYS: i64 = 730;
/// Furthest a simulated purchase may be planned, in days after today.
pub const MAX_FUTURE_DAYS: i64 = 366;

/// The last transaction the user logged, for corrections.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastTransaction {
    pub id: i64,
    pub category: String,
    pub description: String,
    pub merchant: Option<String>,
    pub amount_cents: i64,
    pub date: NaiveDate,
}

/// A merchant → category rule learned from this user's corrections.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LearnedRule {
    pub merchant: String,
    pub category: String,
}

/// What the backend knows when it validates; read before the turn's transaction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facts {
    pub today: NaiveDate,
    /// Amounts (cents) the user wrote in this turn's message(s).
    pub stated: Vec<i64>,
    /// The message, normalized (a category named in it outranks a learned rule).
    pub message: String,
    pub has_balance: bool,
    /// Names of the user's debts, as stored (compared normalized).
    pub debts: Vec<String>,
    /// Names of those who owe the user money, as stored.
    pub owed_to_me: Vec<String>,
    pub last_transaction: Option<LastTransaction>,
    /// The user has per-category budgets, so a simulation needs a category.
    pub category_budgets: bool,
    pub rules: Vec<LearnedRule>,
}

/// Why an action was not executed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", content = "value", rename_all = "snake_case")]
pub enum Rejection {
    #[error("{0:?} is reserved to the user or the backend")]
    Forbidden(FinanceForbidden),
    #[error("unknown action type `{0}`")]
    UnknownType(String),
    #[error("more than {MAX_ACTIONS} actions in one proposal")]
    TooManyActions,
    #[error("{action:?} is not valid in state {state}")]
    NotAllowedInState {
        action: FinanceActionKind,
        state: FinanceState,
    },
    #[error("{field} is not usable: {raw}")]
    InvalidParam { field: &'static str, raw: String },
    #[error("amount {cents} is outside 1..={MAX_AMOUNT_CENTS} cents")]
    AmountOutOfRange { cents: i64 },
    #[error("amount {cents} was not written by the user")]
    AmountNotStated { cents: i64 },
    #[error("date {date} is outside the accepted range")]
    DateOutOfRange {
        date: NaiveDate,
        /// A planned purchase (today to a year ahead), not a past movement.
        planned: bool,
    },
    #[error("an income needs an income category and an expense an expense one")]
    CategoryKindMismatch,
    #[error("the user has no debt named {0}")]
    DebtNotFound(String),
    #[error("nobody named {0} owes the user money")]
    ReceivableNotFound(String),
    #[error("due day {0} is not a day of the month")]
    DueDayOutOfRange(u32),
    #[error("there is no transaction to correct")]
    NoTransactionToCorrect,
    #[error("the transaction already has that category")]
    SameCategory,
    #[error("no known tool was asked for")]
    NoTools,
    #[error("the reply changes nothing in the draft")]
    NothingToPatch,
}

/// What an accepted action does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    /// A draft was started; `questions` empty means it waits for confirmation.
    DraftStaged {
        intent: Intent,
        questions: Vec<Field>,
    },
    DraftPatched {
        intent: Intent,
        questions: Vec<Field>,
    },
    /// A second complete write waits behind the one being confirmed.
    DraftQueued {
        intent: Intent,
    },
    /// A complete simulation runs now, with this draft.
    SimulationReady {
        draft: Box<Draft>,
    },
    /// A simulation needs the bank balance first: it is asked, then confirmed.
    BalanceAsked,
    QueryPlanned {
        tools: Vec<ToolRequest>,
    },
    Cancelled {
        intent: Option<Intent>,
    },
    Replied,
    Clarified,
    Escalated,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Accepted {
    pub from: FinanceState,
    pub to: FinanceState,
    pub effect: Effect,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    pub action: FinanceAction,
    pub outcome: Result<Accepted, Rejection>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub began_in: FinanceState,
    pub decisions: Vec<Decided>,
    pub state: FinanceState,
    pub draft: Option<Draft>,
}

impl Evaluation {
    pub fn accepted(&self) -> impl Iterator<Item = &Accepted> {
        self.decisions
            .iter()
            .filter_map(|d| d.outcome.as_ref().ok())
    }

    pub fn rejected(&self) -> impl Iterator<Item = (&FinanceAction, &Rejection)> {
        self.decisions
            .iter()
            .filter_map(|d| d.outcome.as_ref().err().map(|r| (&d.action, r)))
    }
}

/// The matrix's "valid in" column.
pub fn valid_in(action: FinanceActionKind, state: FinanceState) -> bool {
    use FinanceActionKind::*;
    use FinanceState::*;
    match action {
        Reply | Clarify | Escalate => true,
        LogTransaction | QueryData | SetBudget | ManageDebt | SimulatePurchase | SetBankBalance
        | CorrectCategory | EraseMyData => state == Idle,
        PatchDraft => state == Clarifying,
        Cancel => matches!(state, Clarifying | AwaitingConfirmation),
    }
}

/// Validates every action in order, each against the state and draft the
/// previous accepted one produced.
pub fn evaluate(
    began_in: FinanceState,
    draft: Option<&Draft>,
    facts: &Facts,
    actions: &[FinanceAction],
) -> Evaluation {
    let mut state = began_in;
    let mut draft = draft.cloned();
    let mut decisions = Vec::with_capacity(actions.len());
    for (index, action) in actions.iter().enumerate() {
        let queued = (index < MAX_ACTIONS)
            .then(|| queue(began_in, state, draft.as_ref(), facts, action))
            .flatten();
        let outcome = if let Some((effect, with_next)) = queued {
            let accepted = Accepted {
                from: state,
                to: state,
                effect,
            };
            draft = Some(with_next);
            Ok(accepted)
        } else if index >= MAX_ACTIONS {
            Err(Rejection::TooManyActions)
        } else {
            step(state, draft.as_ref(), facts, action).map(|(to, effect, next)| {
                let accepted = Accepted {
                    from: state,
                    to,
                    effect,
                };
                state = to;
                draft = next;
                accepted
            })
        };
        decisions.push(Decided {
            action: action.clone(),
            outcome,
        });
    }
    Evaluation {
        began_in,
        decisions,
        state,
        draft,
    }
}

/// A second expense or income logged in the same message, after the first was
/// staged: it is queued behind the first and asked once the first is answered
/// (one confirmation per write; its own questions first if it has any).
fn queue(
    began_in: FinanceState,
    state: FinanceState,
    draft: Option<&Draft>,
    facts: &Facts,
    action: &FinanceAction,
) -> Option<(Effect, Draft)> {
    let current = draft?;
    let is_log = matches!(
        action.kind,
        FinanceActionType::Allowed(FinanceActionKind::LogTransaction)
    );
    if !is_log
        || began_in != FinanceState::Idle
        || !matches!(
            state,
            FinanceState::AwaitingConfirmation | FinanceState::Clarifying
        )
        || current.intent != Intent::LogTransaction
    {
        return None;
    }
    // Complete or with its own questions: asked in turn, never lost; a third
    // waits behind the second.
    let (_, _, next) = step(FinanceState::Idle, None, facts, action).ok()?;
    let next = next?;
    let mut first = current.clone();
    let mut tail = &mut first.then;
    while let Some(queued) = tail {
        tail = &mut queued.then;
    }
    *tail = Some(Box::new(next));
    Some((
        Effect::DraftQueued {
            intent: Intent::LogTransaction,
        },
        first,
    ))
}

type Step = (FinanceState, Effect, Option<Draft>);

fn step(
    state: FinanceState,
    draft: Option<&Draft>,
    facts: &Facts,
    action: &FinanceAction,
) -> Result<Step, Rejection> {
    let kind = match &action.kind {
        FinanceActionType::Allowed(kind) => *kind,
        FinanceActionType::Forbidden(kind) => return Err(Rejection::Forbidden(*kind)),
        FinanceActionType::Unknown(name) => return Err(Rejection::UnknownType(name.clone())),
    };
    if !valid_in(kind, state) {
        return Err(Rejection::NotAllowedInState {
            action: kind,
            state,
        });
    }
    let params = &action.params;
    use FinanceActionKind as K;
    let intent = match kind {
        K::Reply => return Ok((state, Effect::Replied, draft.cloned())),
        K::Clarify => return Ok((state, Effect::Clarified, draft.cloned())),
        K::Escalate => return Ok((FinanceState::HumanTakeover, Effect::Escalated, None)),
        K::Cancel => {
            let intent = draft.map(|d| d.intent);
            return Ok((FinanceState::Idle, Effect::Cancelled { intent }, None));
        }
        K::QueryData => {
            let tools: Vec<ToolRequest> = params
                .tools
                .iter()
                .filter_map(|t| t.given().cloned())
                .collect();
            if tools.is_empty() {
                return Err(Rejection::NoTools);
            }
            return Ok((FinanceState::Idle, Effect::QueryPlanned { tools }, None));
        }
        K::PatchDraft => {
            let current = draft.ok_or(Rejection::NothingToPatch)?;
            let mut patched = current.clone();
            fill(&mut patched, params, facts)?;
            let changed = Draft {
                questions: current.questions.clone(),
                ..patched.clone()
            } != *current;
            if !changed {
                return Err(Rejection::NothingToPatch);
            }
            return Ok(settle(patched, facts, true));
        }
        K::LogTransaction => Intent::LogTransaction,
        K::SetBudget => Intent::SetBudget,
        K::ManageDebt => Intent::ManageDebt,
        K::SimulatePurchase => Intent::SimulatePurchase,
        K::SetBankBalance => Intent::SetBankBalance,
        K::CorrectCategory => Intent::CorrectCategory,
        K::EraseMyData => Intent::EraseMyData,
    };
    let mut staged = Draft::new(intent);
    if intent == Intent::CorrectCategory {
        let last = facts
            .last_transaction
            .as_ref()
            .ok_or(Rejection::NoTransactionToCorrect)?;
        staged.transaction_id = Some(last.id);
        staged.from_category = Some(last.category.clone());
        staged.description = Some(last.description.clone());
        staged.merchant = last.merchant.clone();
        staged.amount_cents = Some(last.amount_cents);
        staged.date = Some(last.date);
    }
    if matches!(
        intent,
        Intent::LogTransaction | Intent::SetBudget | Intent::SimulatePurchase
    ) {
        staged.date = Some(facts.today);
    }
    fill(&mut staged, params, facts)?;
    Ok(settle(staged, facts, false))
}

/// Where a draft goes once its fields are in: questions, confirmation, or (for a
/// simulation) running now or asking for the bank balance first.
fn settle(mut draft: Draft, facts: &Facts, patched: bool) -> Step {
    let needs_category = draft.intent == Intent::SimulatePurchase && facts.category_budgets;
    draft.questions = draft.missing(needs_category);
    let intent = draft.intent;
    let questions = draft.questions.clone();
    let staged = |questions| {
        if patched {
            Effect::DraftPatched { intent, questions }
        } else {
            Effect::DraftStaged { intent, questions }
        }
    };
    if !questions.is_empty() {
        return (FinanceState::Clarifying, staged(questions), Some(draft));
    }
    if intent == Intent::SimulatePurchase {
        if facts.has_balance {
            return (
                FinanceState::Idle,
                Effect::SimulationReady {
                    draft: Box::new(draft),
                },
                None,
            );
        }
        let mut balance = Draft::new(Intent::SetBankBalance);
        balance.questions = vec![Field::Amount];
        balance.resume = Some(Box::new(draft));
        return (
            FinanceState::Clarifying,
            Effect::BalanceAsked,
            Some(balance),
        );
    }
    (
        FinanceState::AwaitingConfirmation,
        staged(Vec::new()),
        Some(draft),
    )
}

/// Copies every given parameter into the draft, checking each. An unusable one
/// rejects the action; an absent one stays a question.
fn fill(draft: &mut Draft, params: &FinanceParams, facts: &Facts) -> Result<(), Rejection> {
    let intent = draft.intent;
    let amount = match intent {
        Intent::SetBankBalance => amount(&params.amount, facts, 0)?,
        Intent::LogTransaction | Intent::SetBudget | Intent::SimulatePurchase => {
            amount(&params.amount, facts, 1)?
        }
        _ => None,
    };
    if amount.is_some() {
        draft.amount_cents = amount;
    }
    if let Some(date) = given(&params.date, "date", |d| Some(*d))? {
        let (earliest, latest) = match intent {
            Intent::SimulatePurchase => {
                (facts.today, facts.today + Duration::days(MAX_FUTURE_DAYS))
            }
            _ => (facts.today - Duration::days(MAX_PAST_DAYS), facts.today),
        };
        if date < earliest || date > latest {
            return Err(Rejection::DateOutOfRange {
                date,
                planned: intent == Intent::SimulatePurchase,
            });
        }
        if matches!(
            intent,
            Intent::LogTransaction | Intent::SetBudget | Intent::SimulatePurchase
        ) {
            draft.date = Some(date);
        }
    }
    if let Some(kind) = given(&params.kind, "kind", |k| Some(*k))? {
        draft.kind = Some(kind);
    }
    if let Some(description) = &params.description {
        let description: String = description.trim().chars().take(120).collect();
        if !description.is_empty() && intent != Intent::CorrectCategory {
            draft.description = Some(description);
        }
    }
    if let Some(merchant) = &params.merchant {
        let merchant: String = normalize(merchant).chars().take(60).collect();
        if !merchant.is_empty() && intent != Intent::CorrectCategory {
            draft.merchant = Some(merchant);
        }
    }
    if let Some(category) = given(&params.category, "category", |c| Some(*c))? {
        match intent {
            Intent::CorrectCategory => {
                let from = draft.from_category.as_deref();
                if from == Some(category.key) {
                    return Err(Rejection::SameCategory);
                }
                let from_income = from
                    .and_then(super::category::by_key)
                    .map(|c| c.is_income());
                if from_income.is_some_and(|income| income != category.is_income()) {
                    return Err(Rejection::CategoryKindMismatch);
                }
            }
            Intent::SetBudget | Intent::SimulatePurchase if category.is_income() => {
                return Err(Rejection::CategoryKindMismatch);
            }
            _ => {}
        }
        draft.set_category(category);
        draft.learned_category = false;
    }
    if let Some(kind) = given(&params.category_type, "category_type", |t| Some(*t))? {
        if kind == CategoryType::Ingreso || draft.kind == Some(TxKind::Income) {
            // An income's type is always "ingreso"; only expenses pick theirs.
        } else if draft.category.is_some() || intent == Intent::LogTransaction {
            draft.category_type = Some(kind);
        }
    }
    if intent == Intent::LogTransaction {
        apply_learned_rule(draft, facts);
        let income_category = draft.category().map(|c| c.is_income());
        match (draft.kind, income_category) {
            (Some(TxKind::Income), Some(false)) | (Some(TxKind::Expense), Some(true)) => {
                return Err(Rejection::CategoryKindMismatch);
            }
            _ => {}
        }
    }
    if intent == Intent::ManageDebt {
        fill_debt(draft, params, facts)?;
    }
    Ok(())
}

fn fill_debt(draft: &mut Draft, params: &FinanceParams, facts: &Facts) -> Result<(), Rejection> {
    if let Some(name) = given(&params.debt_name, "debt_name", |n| {
        let name: String = n.trim().chars().take(60).collect();
        (!name.is_empty()).then_some(name)
    })? {
        draft.debt.name = Some(name);
    }
    if let Some(balance) = amount(&params.debt_balance, facts, 0)? {
        draft.debt.balance_cents = Some(balance);
    }
    if let Some(minimum) = amount(&params.debt_minimum, facts, 0)? {
        draft.debt.minimum_cents = Some(minimum);
    }
    if let Some(payment) = amount(&params.debt_payment, facts, 1)? {
        draft.debt.payment_cents = Some(payment);
    }
    if let Some(owed) = given(&params.debt_owed_to_me, "debt_owed_to_me", |b| Some(*b))? {
        draft.debt.owed_to_me = owed;
    }
    if let Some(day) = given(&params.debt_due_day, "debt_due_day", |d| Some(*d))? {
        if !(1..=31).contains(&day) {
            return Err(Rejection::DueDayOutOfRange(day));
        }
        draft.debt.due_day = Some(day);
    }
    // What someone owes the person has no payment day or minimum; it is set
    // («Toño me debe 500») or lowered by a sum paid back («ya me devolvió
    // 1000»), never both at once.
    let known = if draft.debt.owed_to_me {
        draft.debt.minimum_cents = None;
        draft.debt.due_day = None;
        if draft.debt.payment_cents.is_none() {
            return Ok(());
        }
        draft.debt.balance_cents = None;
        &facts.owed_to_me
    } else {
        &facts.debts
    };
    // «le aboné 500 a Toño» and the debt is «compadre Toño»: the one debt the
    // name's words point to is the one meant.
    if let Some(name) = &draft.debt.name
        && !known.iter().any(|d| normalize(d) == normalize(name))
    {
        let words: Vec<String> = normalize(name).split(' ').map(str::to_owned).collect();
        let mut named = known.iter().filter(|d| {
            let stored = normalize(d);
            words.iter().all(|w| stored.split(' ').any(|s| s == w))
        });
        if let (Some(one), None) = (named.next(), named.next()) {
            draft.debt.name = Some(one.clone());
        }
    }
    // Changing a debt needs one to change; a new one needs its balance.
    if let Some(name) = &draft.debt.name {
        let exists = known.iter().any(|d| normalize(d) == normalize(name));
        if draft.debt.owed_to_me && !exists {
            return Err(Rejection::ReceivableNotFound(name.clone()));
        }
        let creates = draft.debt.balance_cents.is_some() && draft.debt.payment_cents.is_none();
        if !exists && !creates && draft.debt.changes_something() {
            return Err(Rejection::DebtNotFound(name.clone()));
        }
    }
    Ok(())
}

/// A rule learned from this user's corrections decides the category of a
/// merchant's transactions, unless the message itself names a category.
fn apply_learned_rule(draft: &mut Draft, facts: &Facts) {
    let Some(merchant) = &draft.merchant else {
        return;
    };
    let Some(rule) = facts.rules.iter().find(|r| &r.merchant == merchant) else {
        return;
    };
    let Some(category) = super::category::by_key(&rule.category) else {
        return;
    };
    let named = draft.category().is_some_and(|c| {
        crate::text::contains_phrase(&facts.message, c.key)
            || crate::text::contains_phrase(&facts.message, &normalize(c.label))
    });
    if !named && draft.category.as_deref() != Some(category.key) {
        draft.set_category(category);
        draft.learned_category = true;
    }
}

fn given<T, U>(
    param: &Param<T>,
    field: &'static str,
    check: impl FnOnce(&T) -> Option<U>,
) -> Result<Option<U>, Rejection> {
    match param {
        Param::Missing => Ok(None),
        Param::Invalid(raw) => Err(Rejection::InvalidParam {
            field,
            raw: raw.clone(),
        }),
        Param::Given(value) => check(value).map(Some).ok_or(Rejection::InvalidParam {
            field,
            raw: String::new(),
        }),
    }
}

/// An amount in range that the user wrote this turn.
fn amount(param: &Param<i64>, facts: &Facts, min: i64) -> Result<Option<i64>, Rejection> {
    let Some(cents) = given(param, "amount", |c| Some(*c))? else {
        return Ok(None);
    };
    if cents < min || cents > MAX_AMOUNT_CENTS {
        return Err(Rejection::AmountOutOfRange { cents });
    }
    if !facts.stated.contains(&cents) {
        return Err(Rejection::AmountNotStated { cents });
    }
    Ok(Some(cents))
}

/// What the user's answer to a confirmation prompt does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmation {
    /// Write, then (if the write was the balance a simulation waited for) run it.
    Execute {
        write: Write,
        then_simulate: Option<Box<Draft>>,
    },
    /// Nothing is written; the draft is dropped.
    Cancelled { intent: Intent },
    /// Not a token: ask again, change nothing.
    AskAgain,
    /// The stored draft is not a complete write (it cannot be confirmed).
    Unusable,
}

pub fn on_answer(draft: &Draft, answer: Answer) -> Confirmation {
    match answer {
        Answer::Other => Confirmation::AskAgain,
        Answer::Reject => Confirmation::Cancelled {
            intent: draft.intent,
        },
        Answer::Confirm => match draft.write() {
            Some(write) => Confirmation::Execute {
                write,
                then_simulate: draft.resume.clone(),
            },
            None => Confirmation::Unusable,
        },
    }
}
