//! The shop contract for the LLM: its system prompt, the catalog slice and
//! history it is shown, the JSON schema of a proposal and the parser that holds
//! the model's answer to it.

use std::collections::HashSet;
use std::sync::LazyLock;

use serde_json::{Value, json};

use super::rules::CatalogMemo;
use crate::config::LlmConfig;
use crate::llm::privacy::{mask, masked_history};
use crate::llm::{Contract, Prompt, ProposalError, parse_answer};
use crate::shop::contract::{CatalogEntry, MAX_RESPONSE_TEXT, Proposal, ProposalInput};
use crate::shop::core::{ActionKind, MAX_ACTIONS, ProductId};
use crate::text::{Trigram, money, normalize, trigrams};

const SYSTEM_PROMPT: &str = "Eres el asistente de ventas de una tienda que vende por chat. \
Lees el mensaje del cliente y PROPONES acciones; el sistema de la tienda decide cuáles se ejecutan.\n\
Reglas:\n\
1. Propón de 1 a 5 acciones, solo de estos tipos: SHOW_CATALOG, SHOW_PRODUCT, ADD_TO_CART, UPDATE_QUANTITY, \
REMOVE_ITEM, CLEAR_CART, REVIEW_ORDER, CONFIRM_ORDER, CANCEL_ORDER, SET_FULFILMENT, REPLY, CLARIFY, ESCALATE.\n\
2. Nunca inventes ni cambies precios, descuentos, totales ni pagos. No escribas montos ni totales en \
response_text: el sistema agrega precios, carrito y totales por su cuenta.\n\
3. Usa solo product_id del catálogo que recibes. Cantidades enteras de 1 a 100.\n\
4. CONFIRM_ORDER solo si current_state es CHECKOUT y el cliente aceptó el resumen; para llegar ahí usa REVIEW_ORDER.\n\
5. Si no estás seguro de qué quiere el cliente, usa CLARIFY y pregunta en response_text.\n\
6. Si pide hablar con una persona, usa ESCALATE.\n\
7. response_text: español, breve, amable, máximo 500 caracteres.\n\
8. Si recibes delivery, la tienda hace envíos: cuando el cliente diga si recoge o quiere envío, usa SET_FULFILMENT \
con mode \"pickup\" o \"delivery\", zone_id de delivery.zones y address con sus palabras. El costo del envío lo \
pone el sistema según la zona: nunca lo propongas.\n\
9. rules_reading, si llega, es una lectura automática del mensaje que puede estar equivocada: decide por las \
palabras del cliente (customer_message), el carrito y el historial.\n\
Responde SOLO con un objeto JSON: {\"reasoning\": string, \"proposed_actions\": [{\"type\": string, \
\"params\": {\"product_id\": number|null, \"product_name\": string|null, \"quantity\": number|null, \
\"reason\": string|null, \"mode\": string|null, \"zone_id\": number|null, \"address\": string|null}}], \
\"response_text\": string, \"suggested_state\": string|null}";

pub fn contract() -> Contract<Proposal> {
    Contract {
        schema: proposal_schema(),
        parse: parse_proposal,
    }
}

/// The products most relevant to the message and the cart: the cart's first, then
/// by how much of each name the message holds (trigrams, as PostgreSQL's pg_trgm
/// counts them), then by id. Ranked in process from the turn's catalog.
pub fn catalog_slice(config: &LlmConfig, input: &ProposalInput) -> Vec<CatalogEntry> {
    static TRIGRAMS: LazyLock<CatalogMemo<Vec<Vec<Trigram>>>> = LazyLock::new(Default::default);
    let catalog = &input.product_catalog;
    let names = TRIGRAMS.get(catalog, |catalog| {
        catalog
            .iter()
            .map(|p| trigrams(&normalize(&p.name)))
            .collect()
    });
    let message: HashSet<Trigram> = trigrams(&normalize(&input.customer_message))
        .into_iter()
        .collect();
    let in_cart = |id: ProductId| input.cart.lines.iter().any(|l| l.product_id == id);
    let mut ranked: Vec<(bool, f32, ProductId, usize)> = catalog
        .iter()
        .zip(names.iter())
        .enumerate()
        .map(|(i, (p, name))| {
            let shared = name.iter().filter(|t| message.contains(*t)).count();
            let similarity = if name.is_empty() {
                0.0
            } else {
                shared as f32 / name.len() as f32
            };
            (in_cart(p.product_id), similarity, p.product_id, i)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    let limit = (config.catalog_top_k.max(0) as usize).max(input.cart.lines.len());
    ranked
        .into_iter()
        .take(limit)
        .map(|(.., i)| catalog[i].clone())
        .collect()
}

/// Builds the messages, shrinking history, descriptions and catalog to the budget.
pub fn prompt(config: &LlmConfig, input: &ProposalInput, mut catalog: Vec<CatalogEntry>) -> Prompt {
    let budget_chars = config.prompt_budget_tokens * 4;
    let mut history = masked_history(&input.recent_history, config.history_len);
    let mut describe = true;
    loop {
        let mut user = json!({
            "current_state": input.current_state,
            "detected_events": input.detected_events,
            "cart": {
                "lines": input.cart.lines.iter().map(|l| json!({
                    "product_id": l.product_id, "name": l.name, "quantity": l.quantity,
                    "line_total": money(l.line_total_minor, &input.currency),
                })).collect::<Vec<_>>(),
                "total": money(input.cart.total_minor, &input.currency),
            },
            "customer_message": mask(input.as_written.as_deref().unwrap_or(&input.customer_message)),
            "rules_reading": input.as_written.as_ref().map(|_| mask(&input.customer_message)),
            "recent_history": history,
            "product_catalog": catalog.iter().map(|p| {
                let mut entry = json!({"product_id": p.product_id, "name": p.name, "price": money(p.price_minor, &input.currency)});
                if describe && !p.description.is_empty() {
                    entry["description"] = json!(p.description.chars().take(120).collect::<String>());
                }
                entry
            }).collect::<Vec<_>>(),
            "delivery": input.delivery.as_ref().map(|d| json!({
                "pickup": d.pickup,
                "zones": d.zones.iter().map(|z| {
                    let mut zone = json!({
                        "zone_id": z.zone_id, "name": z.name, "fee": money(z.fee_minor, &input.currency),
                    });
                    // What the summary will say of the zone, so the model can
                    // answer «¿cuánto es el mínimo?» with the shop's figures.
                    if let Some(min) = z.min_order_minor {
                        zone["min_order"] = json!(money(min, &input.currency));
                    }
                    if let Some(free) = z.free_from_minor {
                        zone["free_from"] = json!(money(free, &input.currency));
                    }
                    zone
                }).collect::<Vec<_>>(),
                // The address stays out of the prompt: the model needs only
                // whether there is one.
                "chosen": d.chosen.as_ref().map(|c| json!({
                    "mode": c.mode, "zone_id": c.zone_id, "has_address": c.address.is_some(),
                })),
                "asked": input.asked,
            })),
        });
        if input.as_written.is_none() {
            user.as_object_mut().map(|u| u.remove("rules_reading"));
        }
        let user = user.to_string();
        let chars = SYSTEM_PROMPT.chars().count() + user.chars().count();
        let shrinkable = !history.is_empty() || describe || catalog.len() > 1;
        if chars <= budget_chars || !shrinkable {
            return Prompt {
                messages: vec![
                    json!({"role": "system", "content": SYSTEM_PROMPT}),
                    json!({"role": "user", "content": user}),
                ],
                chars,
                catalog_items: catalog.len(),
            };
        }
        if !history.is_empty() {
            history.remove(0);
        } else if describe {
            describe = false;
        } else {
            let keep = (catalog.len() * 3 / 4).max(1);
            catalog.truncate(keep);
        }
    }
}

/// The JSON schema of a proposal (strict-mode compatible).
pub fn proposal_schema() -> Value {
    let types: Vec<&str> = ActionKind::ALL.iter().map(|k| k.as_str()).collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["reasoning", "proposed_actions", "response_text", "suggested_state"],
        "properties": {
            "reasoning": {"type": "string"},
            "proposed_actions": {
                "type": "array", "minItems": 1, "maxItems": MAX_ACTIONS,
                "items": {
                    "type": "object", "additionalProperties": false, "required": ["type", "params"],
                    "properties": {
                        "type": {"type": "string", "enum": types},
                        "params": {
                            "type": "object", "additionalProperties": false,
                            "required": ["product_id", "product_name", "quantity", "reason", "mode", "zone_id", "address"],
                            "properties": {
                                "product_id": {"type": ["integer", "null"]},
                                "product_name": {"type": ["string", "null"]},
                                "quantity": {"type": ["integer", "null"]},
                                "reason": {"type": ["string", "null"]},
                                "mode": {"type": ["string", "null"], "enum": ["pickup", "delivery", null]},
                                "zone_id": {"type": ["integer", "null"]},
                                "address": {"type": ["string", "null"]},
                            },
                        },
                    },
                },
            },
            "response_text": {"type": "string", "maxLength": MAX_RESPONSE_TEXT},
            "suggested_state": {"type": ["string", "null"]},
        },
    })
}

/// Parses model output into a proposal, checking the contract. Tolerates code
/// fences and prose around the object; the error lists what is wrong.
pub fn parse_proposal(content: &str) -> Result<Proposal, ProposalError> {
    parse_answer(content)
}
