//! What a shop conversation remembers between turns (stored in
//! `conversations.draft`): the products last offered as numbered choices, how
//! many of the chosen one were asked for, how many clarifications in a row got
//! nowhere, whether a person was offered, and how often the customer was abusive.

use serde::{Deserialize, Serialize};

use crate::shop::core::{ProductId, State};

/// Clarifications in a row, without progress, before a person is offered.
pub const CLARIFICATIONS_BEFORE_PERSON: u32 = 3;
/// Abusive messages before the conversation is handed to a person.
pub const ABUSE_BEFORE_PERSON: u32 = 2;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopMemo {
    /// Numbered choices last shown: "2" or "el segundo" picks from these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<ProductId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice_quantity: Option<i64>,
    /// The choices are products the customer's words fitted (a name picks too),
    /// not the catalog listing (where only a number does).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub choices_named: bool,
    /// The product last asked about: "dame 2" means two of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<ProductId>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub clarifications: u32,
    /// The bot offered a person; a "sí" now escalates.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub person_offered: bool,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub abuse: u32,
    /// "Solo nos quedan 3; ¿te pongo 3?": a yes makes the product's line this many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stock_offer: Option<(ProductId, i64)>,
    /// How the order will reach the customer, as chosen so far (checked again
    /// against the shop's zones when the order is confirmed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fulfilment: Option<crate::shop::core::Choice>,
    /// What the bot last asked about the order's delivery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<crate::shop::core::Missing>,
    /// The lines the last change to the cart set: «otro» is one more of the only
    /// one, and a question when there were several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_changed: Vec<ProductId>,
    /// The last question an entry of the knowledge answered: «¿y los
    /// domingos?» goes on from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_before: Option<AskedBefore>,
}

/// A question the knowledge answered, and the title of the entry that did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskedBefore {
    pub question: String,
    /// The entry's id; a memo written before it was kept reads 0 (no entry),
    /// so nothing goes on from it.
    #[serde(default)]
    pub entry: i64,
    pub title: String,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl ShopMemo {
    /// The memo a conversation stored; an unreadable one is forgotten (it only
    /// holds conveniences, never a commitment).
    pub fn read(stored: Option<&serde_json::Value>) -> ShopMemo {
        stored
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

    /// The customer asked about `product`: «dame 2» is about it now, and a
    /// number no longer picks from a list shown before.
    pub fn focus_on(&mut self, product: ProductId) {
        self.choices.clear();
        self.choice_quantity = None;
        self.choices_named = false;
        self.focus = Some(product);
    }

    /// Whether a product asked about stays what «dame 2» means in `state`:
    /// while shopping and at the summary (an order there reopens the cart),
    /// never once the order is placed.
    pub fn focus_holds_in(state: State) -> bool {
        matches!(
            state,
            State::Idle | State::Browsing | State::CartOpen | State::Checkout
        )
    }

    /// As stored: nothing when there is nothing to remember.
    pub fn stored(&self) -> Option<serde_json::Value> {
        (*self != ShopMemo::default()).then(|| serde_json::to_value(self).expect("memo serializes"))
    }
}
