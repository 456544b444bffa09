//! The user context a finance turn reads before it decides (KakeBot's context
//! analyzer, Financial Agent v1's "now"): today in the bot's time zone, how much
//! history the user has, their balance, debts, last transaction, budgets, learned
//! rules and latest corrections, what they logged in the last two days (to flag a
//! duplicate) and how often they corrected a merchant (to say a rule was learned).
//! One round trip: everything a finance plan reads of the user's rows but the
//! analysis tools' own queries.

use chrono::NaiveDate;
use serde::Deserialize;
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

use super::core::draft::Duplicate;
use super::core::matrix::{LastTransaction, LearnedRule};
use super::core::output::{DebtLine, ReceivableLine};
use super::core::tools::History;
use super::learning::{EXAMPLES, Example};
use super::ledger::UserScope;

#[derive(Debug, Clone)]
pub struct UserContext {
    pub user: UserScope,
    pub today: NaiveDate,
    pub history: History,
    pub balance_cents: Option<i64>,
    /// The day the balance was stated, in the bot's time zone.
    pub balance_as_of: Option<NaiveDate>,
    pub debts: Vec<DebtLine>,
    /// Who owes the person money, and how much.
    pub owed_to_me: Vec<ReceivableLine>,
    pub last_transaction: Option<LastTransaction>,
    pub category_budgets: bool,
    pub rules: Vec<LearnedRule>,
    /// The latest corrections, newest first (few-shot examples for the LLM).
    pub examples: Vec<Example>,
    /// Transactions logged in the last day or dated since yesterday, newest first.
    pub recent: Vec<Recent>,
    /// Corrections so far, by merchant and the category it went to.
    pub corrections: Vec<Corrected>,
    /// What their movements are called, most frequent first (at most 80): the
    /// places a question may name.
    pub descriptions: Vec<String>,
}

/// A transaction logged lately, for the duplicate check.
#[derive(Debug, Clone, Deserialize)]
pub struct Recent {
    pub id: i64,
    pub occurred_on: NaiveDate,
    pub description: String,
    pub amount_cents: i64,
    pub category: String,
}

/// How often a merchant was corrected to a category.
#[derive(Debug, Clone, Deserialize)]
pub struct Corrected {
    pub merchant: String,
    pub to_category: String,
    pub times: i64,
}

impl UserContext {
    /// What is left of the debt named `name`, or of what `name` owes the
    /// person when `owed_to_me` (names compared normalized).
    pub fn balance_of(&self, name: &str, owed_to_me: bool) -> Option<i64> {
        let name = crate::text::normalize(name);
        if owed_to_me {
            self.owed_to_me
                .iter()
                .find(|r| crate::text::normalize(&r.name) == name)
                .map(|r| r.balance_cents)
        } else {
            self.debts
                .iter()
                .find(|d| crate::text::normalize(&d.name) == name)
                .map(|d| d.balance_cents)
        }
    }

    /// A transaction of the same amount and a similar concept (or the same
    /// category) logged in the last day: the user may be logging it twice.
    pub fn duplicate_of(
        &self,
        amount_cents: i64,
        concept: &str,
        category: Option<&str>,
    ) -> Option<Duplicate> {
        let concept = crate::text::normalize(concept);
        self.recent
            .iter()
            .filter(|t| t.amount_cents == amount_cents)
            .find(|t| {
                let description = crate::text::normalize(&t.description);
                category == Some(t.category.as_str())
                    || crate::text::similarity(&description, &concept) > 0.3
                    || (!concept.is_empty() && description.contains(&concept))
            })
            .map(|t| Duplicate {
                id: t.id,
                date: t.occurred_on,
                description: t.description.clone(),
                amount_cents: t.amount_cents,
            })
    }

    /// How many times `merchant` was corrected to `category` before.
    pub fn corrections_of(&self, merchant: &str, category: &str) -> i64 {
        self.corrections
            .iter()
            .find(|c| c.merchant == merchant && c.to_category == category)
            .map_or(0, |c| c.times)
    }
}

#[derive(Deserialize)]
struct Debt {
    name: String,
    balance_cents: i64,
    minimum_cents: Option<i64>,
    due_day: Option<i16>,
}

#[derive(Deserialize)]
struct Last {
    id: i64,
    category: String,
    description: String,
    merchant: Option<String>,
    amount_cents: i64,
    date: NaiveDate,
}

#[derive(Deserialize)]
struct Rule {
    merchant: String,
    category: String,
}

#[derive(Deserialize)]
struct Correction {
    description: String,
    merchant: Option<String>,
    from_category: String,
    to_category: String,
}

type Row = (
    NaiveDate,
    Option<NaiveDate>,
    i64,
    Option<Json<(i64, NaiveDate)>>,
    Json<Vec<Debt>>,
    Json<Vec<ReceivableLine>>,
    Option<Json<Last>>,
    bool,
    Json<Vec<Rule>>,
    Json<Vec<Correction>>,
    Json<Vec<Recent>>,
    Json<Vec<Corrected>>,
    Json<Vec<String>>,
);

/// The context of `contact_id`, or `None` when the contact is not this bot's
/// (the permission error of the finance tools).
pub async fn load(
    pool: &PgPool,
    bot_id: Uuid,
    contact_id: Uuid,
    timezone: &str,
) -> sqlx::Result<Option<UserContext>> {
    let row: Option<Row> = sqlx::query_as(
        "SELECT (now() AT TIME ZONE $3)::date,
            (SELECT min(occurred_on) FROM fin_transactions WHERE contact_id = $2 AND bot_id = $1),
            (SELECT count(*) FROM fin_transactions WHERE contact_id = $2 AND bot_id = $1),
            (SELECT json_build_array(balance_cents, (created_at AT TIME ZONE $3)::date)
             FROM fin_balances WHERE contact_id = $2 AND bot_id = $1 ORDER BY id DESC LIMIT 1),
            (SELECT coalesce(json_agg(json_build_object('name', name, 'balance_cents', balance_cents,
                                     'minimum_cents', minimum_payment_cents, 'due_day', due_day)
                                     ORDER BY balance_cents DESC, name), '[]')
             FROM fin_debts WHERE contact_id = $2 AND bot_id = $1),
            (SELECT coalesce(json_agg(json_build_object('name', name, 'balance_cents', balance_cents)
                                     ORDER BY balance_cents DESC, name), '[]')
             FROM fin_receivables WHERE contact_id = $2 AND bot_id = $1 AND balance_cents > 0),
            (SELECT row_to_json(t) FROM (
                 SELECT id, category, description, merchant, amount_cents, occurred_on AS date
                 FROM fin_transactions WHERE contact_id = $2 AND bot_id = $1 AND source = 'chat'
                 ORDER BY id DESC LIMIT 1) t),
            EXISTS (SELECT 1 FROM fin_budgets WHERE contact_id = $2 AND bot_id = $1 AND category <> ''),
            (SELECT coalesce(json_agg(json_build_object('merchant', merchant, 'category', category)), '[]')
             FROM fin_merchant_rules WHERE contact_id = $2 AND bot_id = $1),
            (SELECT coalesce(json_agg(c ORDER BY c.id DESC), '[]') FROM (
                 SELECT id, description, merchant, from_category, to_category FROM fin_corrections
                 WHERE contact_id = $2 AND bot_id = $1 ORDER BY id DESC LIMIT $4) c),
            (SELECT coalesce(json_agg(r ORDER BY r.id DESC), '[]') FROM (
                 SELECT id, occurred_on, description, amount_cents, category FROM fin_transactions
                 WHERE contact_id = $2 AND bot_id = $1
                   AND (created_at > now() - interval '24 hours'
                        OR occurred_on >= (now() AT TIME ZONE $3)::date - 1)
                 ORDER BY id DESC LIMIT 200) r),
            (SELECT coalesce(json_agg(k), '[]') FROM (
                 SELECT merchant, to_category, count(*) AS times FROM fin_corrections
                 WHERE contact_id = $2 AND bot_id = $1 AND merchant IS NOT NULL
                 GROUP BY merchant, to_category) k),
            (SELECT coalesce(json_agg(d.description), '[]') FROM (
                 SELECT description FROM fin_transactions
                 WHERE contact_id = $2 AND bot_id = $1 AND description <> ''
                 GROUP BY description ORDER BY count(*) DESC, description LIMIT 80) d)
         FROM contacts WHERE id = $2 AND bot_id = $1",
    )
    .bind(bot_id)
    .bind(contact_id)
    .bind(timezone)
    .bind(EXAMPLES)
    .fetch_optional(pool)
    .await?;
    let Some((
        today,
        first,
        transactions,
        balance,
        debts,
        owed_to_me,
        last,
        category_budgets,
        rules,
        examples,
        recent,
        corrections,
        descriptions,
    )) = row
    else {
        return Ok(None);
    };
    Ok(Some(UserContext {
        user: UserScope { bot_id, contact_id },
        today,
        history: History {
            days: first.map_or(0, |first| (today - first).num_days() + 1),
            transactions,
        },
        balance_cents: balance.as_ref().map(|b| b.0.0),
        balance_as_of: balance.as_ref().map(|b| b.0.1),
        debts: debts
            .0
            .into_iter()
            .map(|d| DebtLine {
                name: d.name,
                balance_cents: d.balance_cents,
                minimum_cents: d.minimum_cents,
                due_day: d.due_day.map(|day| day as u32),
            })
            .collect(),
        owed_to_me: owed_to_me.0,
        last_transaction: last.map(|Json(l)| LastTransaction {
            id: l.id,
            category: l.category,
            description: l.description,
            merchant: l.merchant,
            amount_cents: l.amount_cents,
            date: l.date,
        }),
        category_budgets,
        rules: rules
            .0
            .into_iter()
            .map(|r| LearnedRule {
                merchant: r.merchant,
                category: r.category,
            })
            .collect(),
        examples: examples
            .0
            .into_iter()
            .map(|c| Example {
                description: c.description,
                merchant: c.merchant,
                from_category: c.from_category,
                to_category: c.to_category,
            })
            .collect(),
        recent: recent.0,
        corrections: corrections.0,
        descriptions: descriptions.0,
    }))
}

/// Today in `timezone`, as PostgreSQL sees it.
pub async fn today(pool: &PgPool, timezone: &str) -> sqlx::Result<NaiveDate> {
    sqlx::query_scalar("SELECT (now() AT TIME ZONE $1)::date")
        .bind(timezone)
        .fetch_one(pool)
        .await
}
