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
use crate::shop::contract::{Proposal, ProposalInput};
use crate::shop::core::{ActionKind, ActionType, ProductId};
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
    #[error("the message reads as {read_as} of product {product_id}, not this")]
    ContradictsReading {
        product_id: ProductId,
        read_as: String,
    },
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
    /// The rules' cart changes, by product: (action type, quantity).
    changes: Vec<(ProductId, String, Option<i64>)>,
    /// A question ("¿a cuánto el chai?"): it changes the cart only where the
    /// rules read a change in it too.
    question: bool,
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
    if quantities.is_empty() {
        // No number at all: one is what "quiero brownie" means.
        quantities.insert(1);
    }
    let mut changes = Vec::new();
    for action in &reading.proposed_actions {
        if let (Some(id), "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM") = (
            action.params.product_id.as_ref().and_then(|v| v.as_i64()),
            action.action_type.as_str(),
        ) {
            let quantity = action.params.quantity.as_ref().and_then(|v| v.as_i64());
            changes.push((id, action.action_type.clone(), quantity));
        }
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
        changes,
        question: input.customer_message.contains('?')
            || input.customer_message.trim_start().starts_with('¿')
            || lexicon::any(&text, lexicon::QUESTION),
        text,
    }
}

impl Grounds {
    fn names(&self, id: ProductId) -> bool {
        self.products.contains(&id) || (self.names_none && self.last_line == Some(id))
    }

    /// Where the rules read a change to `id`, the model's must leave the line at
    /// the same quantity: "quita el matcha" is not an ADD, "que sean 3" is not
    /// "add 3" (but "uno más" may be ADD 1 or a new total of one more).
    fn contradicts(&self, id: ProductId, change: Option<i64>, in_cart: i64) -> Option<Ungrounded> {
        let read: Vec<_> = self.changes.iter().filter(|(p, ..)| *p == id).collect();
        let first = read.first()?;
        let agrees = read.iter().any(|(_, kind, quantity)| {
            let kind = match ActionType::parse(kind) {
                ActionType::Allowed(kind) => kind,
                _ => return false,
            };
            change.is_none() || line_after(kind, *quantity, in_cart) == change
        });
        (!agrees).then(|| Ungrounded::ContradictsReading {
            product_id: id,
            read_as: first.1.clone(),
        })
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
                    Some(id) => cart_change(&grounds, kind, id, quantity, cart_quantity(id)),
                    None => Ok(()), // the matrix asks for the product
                }
            }
            // Emptying the cart and calling an order off are different requests.
            ActionKind::ClearCart => asked(
                kind,
                grounds.read_as(&["CLEAR_CART"]) || grounds.says(lexicon::CLEAR),
            ),
            ActionKind::CancelOrder => asked(
                kind,
                grounds.read_as(&["CANCEL_ORDER"]) || grounds.says(lexicon::CANCEL),
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

/// A change to one product's line: named, as the rules read it, by a said amount.
fn cart_change(
    grounds: &Grounds,
    kind: ActionKind,
    id: ProductId,
    quantity: Option<i64>,
    in_cart: i64,
) -> Result<(), Ungrounded> {
    if !grounds.names(id) {
        return Err(Ungrounded::ProductNotNamed { product_id: id });
    }
    if grounds.question && !grounds.changes.iter().any(|(p, ..)| *p == id) {
        return Err(Ungrounded::NotAsked { action: kind });
    }
    if let Some(contradiction) =
        grounds.contradicts(id, line_after(kind, quantity, in_cart), in_cart)
    {
        return Err(contradiction);
    }
    match quantity {
        Some(q) if kind != ActionKind::RemoveItem && !said(grounds, kind, q, in_cart) => {
            Err(Ungrounded::QuantityNotSaid { quantity: q })
        }
        _ => Ok(()),
    }
}

/// The quantity a line holds after a change (`None` when the change is unreadable).
fn line_after(kind: ActionKind, quantity: Option<i64>, in_cart: i64) -> Option<i64> {
    match kind {
        ActionKind::AddToCart => Some(in_cart + quantity.unwrap_or(1)),
        ActionKind::UpdateQuantity => quantity,
        ActionKind::RemoveItem => Some(0),
        _ => None,
    }
}

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
