//! The finance contract for the LLM: its system prompt, what it is shown (the
//! draft and its open questions, masked history, the user's latest category
//! corrections as few-shot examples), the JSON schema of a finance proposal and
//! the parser that holds the model's answer to it.

use serde_json::{Value, json};

use crate::config::LlmConfig;
use crate::finance::contract::{FinanceInput, FinanceProposal};
use crate::finance::core::FinanceActionKind;
use crate::finance::core::category::{self, CategoryType};
use crate::finance::core::tools::ToolName;
use crate::llm::privacy::{mask, masked_history};
use crate::llm::{Contract, Prompt, ProposalError, parse_answer};
use crate::proposal::MAX_ACTIONS;
use crate::shop::contract::MAX_RESPONSE_TEXT;

const SYSTEM_PROMPT: &str = "Eres el asistente de finanzas personales de un usuario en México (MXN). \
Lees su mensaje y PROPONES acciones; el sistema decide cuáles se ejecutan y calcula todas las cifras.\n\
Reglas:\n\
1. Propón de 1 a 5 acciones, solo de estos tipos: LOG_TRANSACTION, QUERY_DATA, SET_BUDGET, MANAGE_DEBT, \
SIMULATE_PURCHASE, SET_BANK_BALANCE, CORRECT_CATEGORY, ERASE_MY_DATA, PATCH_DRAFT, CANCEL, REPLY, CLARIFY, ESCALATE.\n\
2. Montos (amount, debt_*): SOLO los que el usuario escribió, en pesos. Nunca sumes, restes ni multipliques: \
si no dio el total, usa CLARIFY.\n\
3. Nunca confirmes una escritura: el sistema pide la confirmación al usuario. Nunca borres historial, salvo \
que el usuario pida borrar todos sus datos (\"borra mis datos\"): entonces usa ERASE_MY_DATA.\n\
4. Para cifras (totales, presupuestos, tendencias) usa QUERY_DATA con tools; no escribas cifras en response_text. \
Para preguntas libres sobre sus movimientos usa la tool queryTransactions con un plan: measure (sum, count, \
average, list), kind (expense, income), category, text (comercio o concepto), period (today, yesterday, \
this_week, last_week, this_month, last_month, this_year, last_year, last_N_days, YYYY-MM, all) o from/to \
(YYYY-MM-DD), weekday (0 = lunes), min_amount/max_amount (pesos), group_by (day, weekday, week, month, \
category, merchant), compare_period, order (amount_desc, amount_asc, date_desc, date_asc), limit (1 a 50). \
Si last_query existe y el mensaje la refina (\"¿y en septiembre?\"), repite el plan con el cambio. Nunca escribas SQL.\n\
5. Si current_state es CLARIFYING, responde con PATCH_DRAFT con los campos que el mensaje da (o CANCEL): \
no empieces otra cosa.\n\
6. date en formato YYYY-MM-DD; today es la fecha de hoy. category debe ser una de las categorías dadas.\n\
7. Si el usuario corrige la categoría de su último gasto (\"eso era transporte\"), usa CORRECT_CATEGORY; \
aprende de correcciones_recientes.\n\
8. Si alguien le debe dinero al usuario (\"Toño me debe 500\", \"le presté 800 a mi prima\"), usa MANAGE_DEBT \
con debt_name, debt_balance y debt_owed_to_me = true; si es el usuario quien debe, debt_owed_to_me = false. \
Si alguien de owed_to_me le devuelve una parte (\"ya me devolvió 1000 Javi\"), usa MANAGE_DEBT con debt_name, \
debt_payment y debt_owed_to_me = true.\n\
9. Si pide hablar con una persona, usa ESCALATE. Si no estás seguro, usa CLARIFY.\n\
10. response_text: español, breve, neutral, sin cifras, máximo 500 caracteres.\n\
Responde SOLO con un objeto JSON con reasoning, proposed_actions [{type, params}], response_text y suggested_state.";

pub fn contract() -> Contract<FinanceProposal> {
    Contract {
        schema: finance_schema(),
        parse: parse_finance_proposal,
    }
}

/// The messages for one finance turn, history shrunk to the prompt budget.
pub fn prompt(config: &LlmConfig, input: &FinanceInput) -> Prompt {
    let budget_chars = config.prompt_budget_tokens * 4;
    let mut history = masked_history(&input.recent_history, config.history_len);
    let corrections: Vec<Value> = input
        .corrections
        .iter()
        .map(|c| {
            json!({
                "concepto": mask(&c.description),
                "comercio": c.merchant,
                "categoria_correcta": c.to_category,
                "no_era": c.from_category,
            })
        })
        .collect();
    let draft = input.draft.as_ref().map(|d| {
        json!({
            "intent": d.intent,
            "open_questions": d.questions,
            "amount": d.amount_cents.map(|c| c as f64 / 100.0),
            "category": d.category,
            "date": d.date,
        })
    });
    let categories: Vec<&str> = category::CATEGORIES.iter().map(|c| c.key).collect();
    loop {
        let user = json!({
            "current_state": input.current_state,
            "draft": draft,
            "customer_message": mask(&input.customer_message),
            "recent_history": history,
            "today": input.today,
            "currency": input.currency,
            "data_quality": input.data_quality,
            "debts": input.debts.iter().map(|d| mask(d)).collect::<Vec<_>>(),
            "owed_to_me": input.owed_to_me.iter().map(|d| mask(d)).collect::<Vec<_>>(),
            "categories": categories,
            "tools": ToolName::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            "last_query": input.last_query,
            "correcciones_recientes": corrections,
        })
        .to_string();
        let chars = SYSTEM_PROMPT.chars().count() + user.chars().count();
        if chars <= budget_chars || history.is_empty() {
            return Prompt {
                messages: vec![
                    json!({"role": "system", "content": SYSTEM_PROMPT}),
                    json!({"role": "user", "content": user}),
                ],
                chars,
                catalog_items: 0,
            };
        }
        history.remove(0);
    }
}

/// The JSON schema of a finance proposal (strict-mode compatible: every field is
/// required and nullable).
pub fn finance_schema() -> Value {
    let types: Vec<&str> = FinanceActionKind::ALL.iter().map(|k| k.as_str()).collect();
    let tools: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
    let categories: Vec<&str> = category::CATEGORIES.iter().map(|c| c.key).collect();
    let kinds: Vec<&str> = CategoryType::ALL.iter().map(|t| t.as_str()).collect();
    let nullable = |kind: &str| json!({"type": [kind, "null"]});
    let one_of = |values: Vec<&str>| {
        let mut options: Vec<Value> = values.into_iter().map(|v| json!(v)).collect();
        options.push(Value::Null);
        json!({"type": ["string", "null"], "enum": options})
    };
    let mut tool_fields = serde_json::Map::new();
    tool_fields.insert("name".into(), json!({"type": "string", "enum": tools}));
    for text in [
        "category",
        "period",
        "query",
        "text",
        "from",
        "to",
        "compare_period",
    ] {
        tool_fields.insert(text.into(), nullable("string"));
    }
    tool_fields.insert(
        "measure".into(),
        one_of(vec!["sum", "count", "average", "list"]),
    );
    tool_fields.insert("kind".into(), one_of(vec!["expense", "income"]));
    tool_fields.insert(
        "group_by".into(),
        one_of(vec![
            "day", "weekday", "week", "month", "category", "merchant",
        ]),
    );
    tool_fields.insert(
        "order".into(),
        one_of(vec!["amount_desc", "amount_asc", "date_desc", "date_asc"]),
    );
    for number in ["min_amount", "max_amount"] {
        tool_fields.insert(number.into(), nullable("number"));
    }
    for integer in ["weekday", "limit"] {
        tool_fields.insert(integer.into(), nullable("integer"));
    }
    let tool_required: Vec<String> = tool_fields.keys().cloned().collect();
    let tool = json!({
        "type": "object", "additionalProperties": false,
        "required": tool_required,
        "properties": tool_fields,
    });
    let mut params = serde_json::Map::new();
    params.insert("kind".into(), one_of(vec!["expense", "income"]));
    params.insert("amount".into(), nullable("number"));
    params.insert("category".into(), one_of(categories));
    params.insert("category_type".into(), one_of(kinds));
    for text in ["date", "description", "merchant", "debt_name", "reason"] {
        params.insert(text.into(), nullable("string"));
    }
    for number in ["debt_balance", "debt_minimum", "debt_payment"] {
        params.insert(number.into(), nullable("number"));
    }
    params.insert("debt_due_day".into(), nullable("integer"));
    params.insert("debt_owed_to_me".into(), nullable("boolean"));
    params.insert(
        "tools".into(),
        json!({"type": ["array", "null"], "maxItems": 3, "items": tool}),
    );
    let required: Vec<String> = params.keys().cloned().collect();
    let action = json!({
        "type": "object", "additionalProperties": false, "required": ["type", "params"],
        "properties": {
            "type": {"type": "string", "enum": types},
            "params": {
                "type": "object", "additionalProperties": false,
                "required": required, "properties": params,
            },
        },
    });
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["reasoning", "proposed_actions", "response_text", "suggested_state"],
        "properties": {
            "reasoning": {"type": "string"},
            "proposed_actions": {"type": "array", "minItems": 1, "maxItems": MAX_ACTIONS, "items": action},
            "response_text": {"type": "string", "maxLength": MAX_RESPONSE_TEXT},
            "suggested_state": nullable("string"),
        },
    })
}

/// Parses model output into a finance proposal, checking the contract.
pub fn parse_finance_proposal(content: &str) -> Result<FinanceProposal, ProposalError> {
    parse_answer(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finance_output_is_parsed_against_its_contract() {
        let ok = parse_finance_proposal(
            "```json\n{\"proposed_actions\":[{\"type\":\"LOG_TRANSACTION\",\"params\":{\"amount\":250}}],\"response_text\":\"\"}\n```",
        )
        .unwrap();
        assert_eq!(ok.proposed_actions[0].action_type, "LOG_TRANSACTION");
        assert!(matches!(
            parse_finance_proposal("{\"proposed_actions\":[],\"response_text\":\"\"}"),
            Err(ProposalError::Contract(_))
        ));
        assert!(matches!(
            parse_finance_proposal("no"),
            Err(ProposalError::NoJson)
        ));
        let schema = finance_schema();
        let listed =
            &schema["properties"]["proposed_actions"]["items"]["properties"]["type"]["enum"];
        assert_eq!(
            listed.as_array().unwrap().len(),
            FinanceActionKind::ALL.len()
        );
    }
}
