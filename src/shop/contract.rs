//! The shop's proposer contract of DESIGN §3 (Agent V2): what a proposer is shown
//! and what it must answer. The same structure comes from the LLM and from the offline rules, so
//! both go through one validator path.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalog::CatalogIndex;
use super::core::{Action, ActionType, Cart, Event, Missing, Mode, ProductId, State};
use crate::llm::CallContext;
use crate::proposal::Param;
pub use crate::proposal::{HistoryEntry, MAX_RESPONSE_TEXT, ProposalOf, RawAction};

#[derive(Debug, Clone, Serialize)]
pub struct ProposalInput {
    pub current_state: State,
    pub detected_events: Vec<Event>,
    pub cart: CartView,
    pub customer_message: String,
    pub recent_history: Vec<HistoryEntry>,
    pub product_catalog: Vec<CatalogEntry>,
    pub currency: String,
    /// Products the bot last offered to choose from ("¿cuál?"), in order: a reply
    /// of "2" or a name picks one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<ProductId>,
    /// How many of the chosen product were asked for.
    #[serde(skip)]
    pub choice_quantity: Option<i64>,
    /// The choices were products the words fitted (so a name picks too), not a
    /// catalog listing (where only a number does).
    #[serde(skip)]
    pub choices_named: bool,
    /// The product the customer last asked about: "dame 2" means two of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus: Option<ProductId>,
    /// The bot's last turn asked the customer back (a question or a refusal):
    /// this message likely answers it.
    #[serde(skip)]
    pub asked_back: bool,
    /// The lines the last change to the cart set (`ShopMemo::last_changed`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_changed: Vec<ProductId>,
    /// How orders reach customers, when the shop delivers (pickup only: absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<DeliveryView>,
    /// What the bot last asked about the order's delivery: the next message
    /// likely answers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked: Option<Missing>,
    /// Where the turn happens; never part of a prompt.
    #[serde(skip)]
    pub context: CallContext,
    /// The customer's words as written, when `customer_message` is the rules'
    /// standalone reading of a follow-up («ponme otro igual» → «quiero 1 más
    /// de Matcha»). A model is shown both and a change stands on either.
    #[serde(skip)]
    pub as_written: Option<String>,
}

/// The shop's delivery as a proposer sees it: zones by id, with their fees
/// (shown, never set: SET_FULFILMENT names a zone).
#[derive(Debug, Clone, Serialize)]
pub struct DeliveryView {
    pub pickup: bool,
    pub zones: Vec<ZoneEntry>,
    /// What the customer chose so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen: Option<super::core::Choice>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ZoneEntry {
    pub zone_id: i64,
    pub name: String,
    pub fee_minor: i64,
    /// Smallest order (before the fee) delivered there.
    pub min_order_minor: Option<i64>,
    /// An order (before the fee) of at least this much goes free.
    pub free_from_minor: Option<i64>,
}

impl DeliveryView {
    /// `None` when the shop only offers pickup (nothing to ask).
    pub fn of(
        options: &super::core::Options,
        chosen: Option<&super::core::Choice>,
    ) -> Option<DeliveryView> {
        options.asks().then(|| DeliveryView {
            pickup: options.pickup,
            zones: options
                .zones
                .iter()
                .map(|z| ZoneEntry {
                    zone_id: z.id,
                    name: z.name.clone(),
                    fee_minor: z.fee_minor,
                    min_order_minor: z.min_order_minor,
                    free_from_minor: z.free_from_minor,
                })
                .collect(),
            chosen: chosen.cloned(),
        })
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct CartView {
    pub lines: Vec<CartLineView>,
    pub total_minor: i64,
}

impl CartView {
    /// How many of `id` the cart holds, if it has a line of it.
    pub fn quantity_of(&self, id: ProductId) -> Option<i64> {
        self.lines
            .iter()
            .find(|l| l.product_id == id)
            .map(|l| l.quantity)
    }

    /// Whether the cart has a line of `id`.
    pub fn holds(&self, id: ProductId) -> bool {
        self.quantity_of(id).is_some()
    }

    /// A cart with the catalog's names, lines in the order they were added.
    pub fn of(cart: &Cart, catalog: &CatalogIndex) -> CartView {
        CartView {
            lines: cart
                .lines()
                .iter()
                .map(|l| CartLineView {
                    product_id: l.product_id,
                    name: catalog.name(l.product_id).to_owned(),
                    quantity: l.quantity,
                    unit_price_minor: l.unit_price_minor,
                    line_total_minor: l.line_total_minor(),
                })
                .collect(),
            total_minor: cart.total_minor(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CartLineView {
    pub product_id: ProductId,
    pub name: String,
    pub quantity: i64,
    pub unit_price_minor: i64,
    pub line_total_minor: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CatalogEntry {
    pub product_id: ProductId,
    pub name: String,
    pub price_minor: i64,
    pub description: String,
    /// The merchant's tags («frío», «sin cafeína», «postre»…).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// What it contains that some cannot eat («frutos secos», «lácteos»), as
    /// the merchant declared it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allergens: Vec<String>,
}

impl CatalogEntry {
    /// The products on sale, as the rules, the knowledge and a model read them.
    pub fn on_sale(catalog: &CatalogIndex) -> Vec<CatalogEntry> {
        catalog
            .active()
            .map(|p| CatalogEntry {
                product_id: p.id,
                name: p.name.clone(),
                price_minor: p.price_minor,
                description: p.description.clone(),
                tags: p.tags.clone(),
                allergens: p.allergens.clone(),
            })
            .collect()
    }
}

/// A shop proposal.
pub type Proposal = ProposalOf<ProposedAction>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProposedAction {
    #[serde(rename = "type")]
    pub action_type: String,
    #[serde(default)]
    pub params: ProposedParams,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProposedParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product_id: Option<Value>,
    /// Never shown to anyone: names come from the catalog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// CLARIFY: the products the customer may mean, offered as choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Value>>,
    /// SET_FULFILMENT: `pickup` or `delivery`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Value>,
    /// SET_FULFILMENT: one of `delivery.zones[].zone_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_id: Option<Value>,
    /// SET_FULFILMENT: the delivery address in the customer's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Never the proposer's: an amount for delivery is refused (the fee is the
    /// zone's).
    #[serde(
        default,
        alias = "delivery_fee",
        alias = "delivery_fee_minor",
        alias = "fee_minor",
        skip_serializing_if = "Option::is_none"
    )]
    pub fee: Option<Value>,
}

impl ProposedAction {
    pub fn new(action_type: &str) -> Self {
        ProposedAction {
            action_type: action_type.to_owned(),
            params: ProposedParams::default(),
        }
    }

    /// The product id given, when it is a whole number.
    pub fn product_id(&self) -> Option<ProductId> {
        self.params.product_id.as_ref().and_then(Value::as_i64)
    }

    /// The quantity given, when it is a whole number.
    pub fn quantity_given(&self) -> Option<i64> {
        self.params.quantity.as_ref().and_then(Value::as_i64)
    }

    pub fn product(mut self, id: ProductId) -> Self {
        self.params.product_id = Some(Value::from(id));
        self
    }

    pub fn quantity(mut self, quantity: i64) -> Self {
        self.params.quantity = Some(Value::from(quantity));
        self
    }

    pub fn mode(mut self, mode: Mode) -> Self {
        self.params.mode = Some(Value::from(mode.as_str()));
        self
    }

    pub fn zone(mut self, zone_id: i64) -> Self {
        self.params.zone_id = Some(Value::from(zone_id));
        self
    }

    pub fn address(mut self, address: &str) -> Self {
        self.params.address = Some(address.to_owned());
        self
    }

    /// Parses the untrusted parameters into the core's `Action`.
    pub fn to_action(&self) -> Action {
        let mode = match &self.params.mode {
            None | Some(Value::Null) => Param::Missing,
            Some(Value::String(raw)) => match Mode::parse(raw) {
                Some(mode) => Param::Given(mode),
                None => Param::Invalid(raw.chars().take(40).collect()),
            },
            Some(other) => Param::Invalid(other.to_string().chars().take(40).collect()),
        };
        Action {
            kind: ActionType::parse(&self.action_type),
            product_id: integer_param(self.params.product_id.as_ref()),
            quantity: integer_param(self.params.quantity.as_ref()),
            mode,
            zone_id: integer_param(self.params.zone_id.as_ref()),
            address: self.params.address.as_ref().map(|a| {
                a.chars()
                    .take(super::core::fulfilment::MAX_ADDRESS)
                    .collect()
            }),
            proposes_fee: self.params.fee.as_ref().is_some_and(|fee| !fee.is_null()),
            reason: self
                .params
                .reason
                .as_ref()
                .map(|r| r.chars().take(200).collect()),
        }
    }
}

impl RawAction for ProposedAction {
    fn type_name(&self) -> &str {
        &self.action_type
    }
}

impl Proposal {
    pub fn actions(&self) -> Vec<Action> {
        self.proposed_actions
            .iter()
            .map(ProposedAction::to_action)
            .collect()
    }
}

/// Accepts `3`, `3.0` and `"3"`; anything else is `Invalid` with a short echo.
fn integer_param(value: Option<&Value>) -> Param<i64> {
    let Some(value) = value else {
        return Param::Missing;
    };
    let parsed = match value {
        Value::Null => return Param::Missing,
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 1e12)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    match parsed {
        Some(n) => Param::Given(n),
        None => Param::Invalid(value.to_string().chars().take(40).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shop::core::{ActionKind, ForbiddenKind};

    #[test]
    fn hostile_parameters_parse_into_rejectable_values() {
        let raw = r#"{"proposed_actions":[
            {"type":"ADD_TO_CART","params":{"product_id":"7","quantity":2.0}},
            {"type":"ADD_TO_CART","params":{"product_id":{"$gt":1},"quantity":"muchos"}},
            {"type":"MODIFY_PRICE","params":{"product_id":7}},
            {"type":"REPLY"}],
            "response_text":"hola","suggested_state":"COMPLETED"}"#;
        let proposal: Proposal = serde_json::from_str(raw).unwrap();
        let actions = proposal.actions();
        assert_eq!(actions[0].kind, ActionType::Allowed(ActionKind::AddToCart));
        assert_eq!(actions[0].product_id, Param::Given(7));
        assert_eq!(actions[0].quantity, Param::Given(2));
        assert!(matches!(actions[1].product_id, Param::Invalid(_)));
        assert!(matches!(actions[1].quantity, Param::Invalid(_)));
        assert_eq!(
            actions[2].kind,
            ActionType::Forbidden(ForbiddenKind::ModifyPrice)
        );
        assert_eq!(actions[3].product_id, Param::Missing);
    }
}
