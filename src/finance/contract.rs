//! The finance proposer contract: what a proposer is shown and what it must
//! answer. The same structure comes from the LLM and from the offline rules, so
//! both go through one parser into the core's typed actions, and every field of
//! the answer is untrusted.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::finance::core::category::{self, CategoryType};
use crate::finance::core::draft::{Draft, TxKind};
use crate::finance::core::query::QueryPlan;
use crate::finance::core::tools::{DataQuality, Period, Sensitivity, ToolName, ToolRequest};
use crate::finance::core::{FinanceAction, FinanceActionType, FinanceParams, FinanceState};
use crate::finance::learning::Example;
use crate::llm::CallContext;
use crate::proposal::Param;
use crate::proposal::{HistoryEntry, ProposalOf, RawAction};

#[derive(Debug, Clone, Serialize)]
pub struct FinanceInput {
    pub current_state: FinanceState,
    /// The draft whose questions are open (CLARIFYING), if any.
    pub draft: Option<Draft>,
    pub customer_message: String,
    pub recent_history: Vec<HistoryEntry>,
    /// Today in the bot's time zone.
    pub today: NaiveDate,
    pub currency: String,
    pub data_quality: DataQuality,
    pub debts: Vec<String>,
    /// Names of those who owe the user money.
    pub owed_to_me: Vec<String>,
    /// The user's latest category corrections (few-shot examples).
    pub corrections: Vec<Example>,
    /// What the user's movements are called (the places a question may name);
    /// the rules' only, never sent to a model.
    #[serde(skip)]
    pub descriptions: Vec<String>,
    /// The plan of the question just answered, which a follow-up refines.
    pub last_query: Option<QueryPlan>,
    #[serde(skip)]
    pub context: CallContext,
}

/// A finance proposal.
pub type FinanceProposal = ProposalOf<RawFinanceAction>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawFinanceAction {
    #[serde(rename = "type")]
    pub action_type: String,
    #[serde(default)]
    pub params: RawFinanceParams,
}

/// Parameters as they arrive. Amounts are pesos (`amount`, up to two decimals) or,
/// from the offline rules, cents (`amount_cents`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RawFinanceParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount_cents: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category_type: Option<Value>,
    /// YYYY-MM-DD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merchant: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debt_name: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debt_balance: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debt_minimum: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debt_due_day: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debt_payment: Option<Value>,
    /// `true` when the money is owed to the user («Toño me debe 500»).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debt_owed_to_me: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl RawFinanceAction {
    pub fn new(action_type: &str) -> Self {
        RawFinanceAction {
            action_type: action_type.to_owned(),
            params: RawFinanceParams::default(),
        }
    }

    pub fn with(mut self, edit: impl FnOnce(&mut RawFinanceParams)) -> Self {
        edit(&mut self.params);
        self
    }

    /// Parses the untrusted parameters into the core's typed action.
    pub fn to_action(&self) -> FinanceAction {
        let p = &self.params;
        let amount = match (&p.amount_cents, &p.amount) {
            (Some(cents), _) => integer(Some(cents)),
            (None, pesos) => cents(pesos.as_ref()),
        };
        FinanceAction {
            kind: FinanceActionType::parse(&self.action_type),
            params: FinanceParams {
                kind: parsed(p.kind.as_ref(), |s| match s.to_lowercase().as_str() {
                    "expense" | "gasto" => Some(TxKind::Expense),
                    "income" | "ingreso" => Some(TxKind::Income),
                    _ => None,
                }),
                amount,
                category: parsed(p.category.as_ref(), category::named),
                category_type: parsed(p.category_type.as_ref(), CategoryType::parse),
                date: parsed(p.date.as_ref(), |s| {
                    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").ok()
                }),
                description: text(p.description.as_ref()),
                merchant: text(p.merchant.as_ref()),
                debt_name: parsed(p.debt_name.as_ref(), |s| {
                    let s = s.trim();
                    (!s.is_empty()).then(|| s.to_owned())
                }),
                debt_balance: cents(p.debt_balance.as_ref()),
                debt_minimum: cents(p.debt_minimum.as_ref()),
                debt_due_day: match integer(p.debt_due_day.as_ref()) {
                    Param::Given(d) if (0..=1000).contains(&d) => Param::Given(d as u32),
                    Param::Given(d) => Param::Invalid(d.to_string()),
                    Param::Invalid(raw) => Param::Invalid(raw),
                    Param::Missing => Param::Missing,
                },
                debt_payment: cents(p.debt_payment.as_ref()),
                debt_owed_to_me: match p.debt_owed_to_me.as_ref() {
                    None | Some(Value::Null) => Param::Missing,
                    Some(Value::Bool(b)) => Param::Given(*b),
                    Some(other) => Param::Invalid(echo(other)),
                },
                tools: p.tools.iter().flatten().take(8).map(tool_request).collect(),
            },
        }
    }
}

impl RawAction for RawFinanceAction {
    fn type_name(&self) -> &str {
        &self.action_type
    }
}

impl FinanceProposal {
    pub fn actions(&self) -> Vec<FinanceAction> {
        self.proposed_actions
            .iter()
            .map(RawFinanceAction::to_action)
            .collect()
    }
}

fn echo(value: &Value) -> String {
    value.to_string().chars().take(40).collect()
}

fn text(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(|s| s.chars().take(120).collect())
}

/// A string parameter checked by `parse`; anything else is `Invalid`.
fn parsed<T>(value: Option<&Value>, parse: impl FnOnce(&str) -> Option<T>) -> Param<T> {
    match value {
        None | Some(Value::Null) => Param::Missing,
        Some(Value::String(s)) => {
            parse(s).map_or_else(|| Param::Invalid(echo(&json!(s))), Param::Given)
        }
        Some(other) => Param::Invalid(echo(other)),
    }
}

fn integer(value: Option<&Value>) -> Param<i64> {
    let parsed = match value {
        None | Some(Value::Null) => return Param::Missing,
        Some(Value::Number(n)) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                .map(|f| f as i64)
        }),
        Some(Value::String(s)) => s.trim().parse::<i64>().ok(),
        Some(_) => None,
    };
    match parsed {
        Some(n) => Param::Given(n),
        None => Param::Invalid(echo(value.expect("present"))),
    }
}

/// Pesos (a number with at most two decimals, or a string like "$1,800.50")
/// into cents. More decimals, NaN or text are `Invalid`.
fn cents(value: Option<&Value>) -> Param<i64> {
    let parsed = match value {
        None | Some(Value::Null) => return Param::Missing,
        Some(Value::Number(n)) => n.as_i64().and_then(|p| p.checked_mul(100)).or_else(|| {
            let f = n.as_f64()?;
            let c = (f * 100.0).round();
            ((f * 100.0 - c).abs() < 1e-6 && c.abs() < 1e15).then_some(c as i64)
        }),
        Some(Value::String(s)) => {
            let trimmed = s.trim().trim_start_matches('$').trim();
            let plain = !trimmed.is_empty()
                && trimmed
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == ',');
            if plain {
                crate::text::numbers_in_hundredths(trimmed).first().copied()
            } else {
                None
            }
        }
        Some(_) => None,
    };
    match parsed {
        Some(n) => Param::Given(n),
        None => Param::Invalid(echo(value.expect("present"))),
    }
}

/// A tool as a name, or as an object with a name and parameters.
fn tool_request(value: &Value) -> Param<ToolRequest> {
    let (name, params) = match value {
        Value::String(name) => (name.as_str(), None),
        Value::Object(map) => match map.get("name").and_then(Value::as_str) {
            Some(name) => (name, Some(map)),
            None => return Param::Invalid(echo(value)),
        },
        _ => return Param::Invalid(echo(value)),
    };
    let Some(tool) = ToolName::parse(name) else {
        return Param::Invalid(echo(value));
    };
    let mut request = ToolRequest::new(tool);
    if tool == ToolName::QueryTransactions {
        let empty = serde_json::Map::new();
        return match QueryPlan::parse(params.unwrap_or(&empty)) {
            Ok(plan) => {
                request.plan = Some(plan);
                Param::Given(request)
            }
            Err(why) => Param::Invalid(format!("queryTransactions: {why}")),
        };
    }
    if let Some(map) = params {
        let string = |key: &str| map.get(key).and_then(Value::as_str);
        request.category = string("category").and_then(category::named);
        request.period = string("period").and_then(Period::parse);
        request.query = string("query").map(|q| q.chars().take(80).collect());
        request.sensitivity = match string("sensitivity") {
            Some("low") => Some(Sensitivity::Low),
            Some("high") => Some(Sensitivity::High),
            Some("medium") => Some(Sensitivity::Medium),
            _ => None,
        };
        request.min_cents = cents(map.get("min_amount")).given().copied();
        request.max_cents = cents(map.get("max_amount")).given().copied();
    }
    Param::Given(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finance::core::{FinanceActionKind, FinanceForbidden};

    #[test]
    fn money_owed_to_the_user_is_marked_only_by_a_boolean() {
        let owed = |value: Value| {
            RawFinanceAction::new("MANAGE_DEBT")
                .with(|p| {
                    p.debt_name = Some(json!("Fer"));
                    p.debt_balance = Some(json!(120));
                    p.debt_owed_to_me = Some(value);
                })
                .to_action()
                .params
                .debt_owed_to_me
        };
        assert_eq!(owed(json!(true)), Param::Given(true));
        assert_eq!(owed(json!(false)), Param::Given(false));
        assert_eq!(owed(Value::Null), Param::Missing);
        for hostile in [json!("yes"), json!(1), json!({"a": 1})] {
            assert!(matches!(owed(hostile), Param::Invalid(_)));
        }
    }

    #[test]
    fn hostile_parameters_parse_into_rejectable_values() {
        let raw = r#"{"proposed_actions":[
            {"type":"LOG_TRANSACTION","params":{"amount":250.5,"category":"Súper","date":"2026-11-22"}},
            {"type":"LOG_TRANSACTION","params":{"amount":"mucho","category":"cripto","date":"ayer","debt_due_day":9999999}},
            {"type":"LOG_TRANSACTION","params":{"amount":1.234,"category":{"$ne":1}}},
            {"type":"EXECUTE_WRITE"},
            {"type":"QUERY_DATA","params":{"tools":["searchExpenses",{"name":"dropTables"},{"name":"getBudgetStatus","period":"last_month"}, 7]}}],
            "response_text":"ok","suggested_state":"IDLE"}"#;
        let proposal: FinanceProposal = serde_json::from_str(raw).unwrap();
        let actions = proposal.actions();
        let good = &actions[0].params;
        assert_eq!(good.amount, Param::Given(25_050));
        assert_eq!(good.category.given().unwrap().key, "supermercado");
        assert_eq!(
            good.date,
            Param::Given(NaiveDate::from_ymd_opt(2026, 11, 22).unwrap())
        );
        let bad = &actions[1].params;
        assert!(matches!(bad.amount, Param::Invalid(_)));
        assert!(matches!(bad.category, Param::Invalid(_)));
        assert!(matches!(bad.date, Param::Invalid(_)));
        assert!(matches!(bad.debt_due_day, Param::Invalid(_)));
        assert!(
            matches!(actions[2].params.amount, Param::Invalid(_)),
            "three decimals"
        );
        assert!(matches!(actions[2].params.category, Param::Invalid(_)));
        assert_eq!(
            actions[3].kind,
            FinanceActionType::Forbidden(FinanceForbidden::ConfirmWrite)
        );
        assert_eq!(
            actions[4].kind,
            FinanceActionType::Allowed(FinanceActionKind::QueryData)
        );
        let tools = &actions[4].params.tools;
        assert_eq!(tools.len(), 4);
        assert_eq!(tools[0].given().unwrap().name, ToolName::SearchExpenses);
        assert!(matches!(tools[1], Param::Invalid(_)));
        assert_eq!(tools[2].given().unwrap().period, Some(Period::LastMonth));
        assert!(matches!(tools[3], Param::Invalid(_)));
    }

    #[test]
    fn amounts_in_pesos_and_cents_agree() {
        let pesos = RawFinanceAction::new("SET_BUDGET").with(|p| p.amount = Some(json!("$8,000")));
        assert_eq!(pesos.to_action().params.amount, Param::Given(800_000));
        let cents =
            RawFinanceAction::new("SET_BUDGET").with(|p| p.amount_cents = Some(json!(800_000)));
        assert_eq!(cents.to_action().params.amount, Param::Given(800_000));
        let negative = RawFinanceAction::new("SET_BUDGET").with(|p| p.amount = Some(json!(-5)));
        assert_eq!(negative.to_action().params.amount, Param::Given(-500));
    }
}
