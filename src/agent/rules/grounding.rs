//! An LLM's proposal may change the cart or the order only on the customer's own
//! words. The matrix already refuses what a state does not allow; this refuses
//! what the message does not say: a product it never names, a quantity it never
//! gives, emptying the cart or cancelling, confirming or calling a person without
//! a word of it. A small model that proposes five unrelated actions (seen with a
//! 270M model: "cambia la maracuyá a 4" → CLEAR_CART among them) then gets a
//! question back instead of a changed cart, because a wrong effect is worse than
//! a question. Actions without an effect (catalog, product, summary, reply,
//! clarify) pass: at worst they answer the wrong question.
//!
//! What counts as said is read with the rules' own lexicon and product matcher,
//! plus whatever the rules' reading of the message proposed (which covers "media
//! docena", "otro", "el segundo" once rewritten).

use std::collections::BTreeSet;

use serde::Serialize;

use super::{lexicon, mentions, prepared};
use crate::agent::contract::{Proposal, ProposalInput};
use crate::conversation::{ActionKind, ActionType, ProductId};
use crate::text::{token_number, tokens};

/// Why an action was not the customer's to propose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Ungrounded {
    #[error("the customer did not name product {product_id}")]
    ProductNotNamed { product_id: ProductId },
    #[error("the customer did not say the quantity {quantity}")]
    QuantityNotSaid { quantity: i64 },
    #[error("nothing the customer said asks for {action:?}")]
    NotAsked { action: ActionKind },
}

/// What the message gives an action to stand on.
struct Grounds {
    /// Products named (every candidate of an ambiguous word) or read by the rules.
    products: BTreeSet<ProductId>,
    /// The message names no product at all: "quítalo", "ponle 3" mean the last line.
    names_none: bool,
    last_line: Option<ProductId>,
    /// Numbers said, and quantities the rules read.
    quantities: BTreeSet<i64>,
    /// Action types the rules' reading proposed.
    read_as: BTreeSet<String>,
    text: String,
}

fn grounds(input: &ProposalInput) -> Grounds {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let reading = super::read(input).proposal;
    let mut products: BTreeSet<ProductId> = mentions::find(&words, &input.product_catalog)
        .into_iter()
        .flat_map(|m| m.candidates)
        .collect();
    let names_none = products.is_empty();
    let mut quantities: BTreeSet<i64> = words.iter().filter_map(|w| token_number(w)).collect();
    quantities.insert(1);
    for action in &reading.proposed_actions {
        if let Some(id) = action.params.product_id.as_ref().and_then(|v| v.as_i64()) {
            products.insert(id);
        }
        if let Some(q) = action.params.quantity.as_ref().and_then(|v| v.as_i64()) {
            quantities.insert(q);
        }
    }
    Grounds {
        products,
        names_none,
        last_line: input.cart.lines.last().map(|l| l.product_id),
        quantities,
        read_as: reading
            .proposed_actions
            .iter()
            .map(|a| a.action_type.clone())
            .collect(),
        text,
    }
}

impl Grounds {
    fn names(&self, id: ProductId) -> bool {
        self.products.contains(&id) || (self.names_none && self.last_line == Some(id))
    }

    fn read_as(&self, kinds: &[&str]) -> bool {
        kinds.iter().any(|k| self.read_as.contains(*k))
    }

    fn says(&self, phrases: &[&str]) -> bool {
        lexicon::any(&self.text, phrases)
    }
}

/// The proposal's actions that stand on nothing the customer said, by index.
pub fn ungrounded(input: &ProposalInput, proposal: &Proposal) -> Vec<(usize, Ungrounded)> {
    let grounds = grounds(input);
    let cart_quantity = |id: ProductId| {
        input
            .cart
            .lines
            .iter()
            .find(|l| l.product_id == id)
            .map_or(0, |l| l.quantity)
    };
    let mut found = Vec::new();
    for (index, action) in proposal.actions().iter().enumerate() {
        let ActionType::Allowed(kind) = action.kind else {
            continue; // the matrix refuses these anyway
        };
        let product = action.product_id.given().copied();
        let quantity = action.quantity.given().copied();
        let verdict = match kind {
            ActionKind::AddToCart | ActionKind::UpdateQuantity | ActionKind::RemoveItem => {
                match product {
                    Some(id) if !grounds.names(id) => {
                        Err(Ungrounded::ProductNotNamed { product_id: id })
                    }
                    Some(id) if kind != ActionKind::RemoveItem => match quantity {
                        Some(q) if !said(&grounds, kind, q, cart_quantity(id)) => {
                            Err(Ungrounded::QuantityNotSaid { quantity: q })
                        }
                        _ => Ok(()),
                    },
                    _ => Ok(()),
                }
            }
            ActionKind::ClearCart | ActionKind::CancelOrder => asked(
                kind,
                grounds.read_as(&["CLEAR_CART", "CANCEL_ORDER"])
                    || grounds.says(lexicon::CLEAR)
                    || grounds.says(lexicon::CANCEL),
            ),
            ActionKind::ConfirmOrder => asked(
                kind,
                grounds.read_as(&["CONFIRM_ORDER"])
                    || super::is_yes(&input.customer_message)
                    || grounds.says(lexicon::CONFIRM),
            ),
            ActionKind::Escalate => {
                asked(kind, grounds.read_as(&["ESCALATE"]) || grounds.says(PERSON))
            }
            ActionKind::ShowCatalog
            | ActionKind::ShowProduct
            | ActionKind::ReviewOrder
            | ActionKind::Reply
            | ActionKind::Clarify => Ok(()),
        };
        if let Err(why) = verdict {
            found.push((index, why));
        }
    }
    found
}

/// Words that ask for a person (the backend's own detector catches most first).
const PERSON: &[&str] = &[
    "persona",
    "personas",
    "humano",
    "alguien",
    "asesor",
    "asesora",
    "encargado",
    "encargada",
    "dueno",
    "duena",
    "agente",
    "operador",
];

fn asked(action: ActionKind, asked: bool) -> Result<(), Ungrounded> {
    if asked {
        Ok(())
    } else {
        Err(Ungrounded::NotAsked { action })
    }
}

/// A quantity the customer said: a number of the message (or the rules'
/// reading), or for a new total, the cart's quantity moved by one of them.
fn said(grounds: &Grounds, kind: ActionKind, quantity: i64, in_cart: i64) -> bool {
    grounds.quantities.contains(&quantity)
        || (kind == ActionKind::UpdateQuantity
            && grounds
                .quantities
                .iter()
                .any(|n| in_cart + n == quantity || in_cart - n == quantity))
}
