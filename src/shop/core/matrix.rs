//! The validation matrix of DESIGN §3: which action is valid in which state, what it
//! checks, and which state it leads to. `evaluate` is a pure function of the state the
//! turn began in, the cart, the catalog and the proposed actions.

use serde::Serialize;

use super::action::{Action, ActionKind, ActionType, ForbiddenKind, ProductId};
use super::cart::{Cart, CartLine, Catalog, MAX_QUANTITY};
use super::fulfilment::{self, Choice, Missing, Mode, Options, Settled};
use super::state::State;

use crate::proposal::{MAX_ACTIONS, Param};

/// Why an action was not executed. Carries what was expected and what came.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", content = "value", rename_all = "snake_case")]
pub enum Rejection {
    #[error("{0:?} is reserved to the backend or the merchant")]
    Forbidden(ForbiddenKind),
    #[error("unknown action type `{0}`")]
    UnknownType(String),
    #[error("more than {MAX_ACTIONS} actions in one proposal")]
    TooManyActions,
    #[error("{action:?} is not valid in state {state}")]
    NotAllowedInState { action: ActionKind, state: State },
    #[error("product_id is required")]
    MissingProduct,
    #[error("product_id is not a catalog id: {0}")]
    InvalidProduct(String),
    #[error("product {0} does not exist")]
    ProductNotFound(ProductId),
    #[error("product {0} is not available")]
    ProductInactive(ProductId),
    #[error("quantity is required")]
    MissingQuantity,
    #[error("quantity is not a whole number: {0}")]
    InvalidQuantity(String),
    #[error("quantity {quantity} is outside 1..={MAX_QUANTITY}")]
    QuantityOutOfRange { quantity: i64 },
    #[error("the cart line would hold {quantity}, more than {MAX_QUANTITY}")]
    LineQuantityOutOfRange {
        product_id: ProductId,
        quantity: i64,
    },
    #[error("product {0} is not in the cart")]
    NotInCart(ProductId),
    #[error("the cart is empty")]
    CartEmpty,
    #[error("the order can only be confirmed after the customer saw its summary")]
    ConfirmWithoutReview,
    /// The order cannot be confirmed before the customer says how it reaches them.
    #[error("the order needs its {0:?} before it is confirmed")]
    FulfilmentMissing(Missing),
    #[error("SET_FULFILMENT needs a mode (pickup or delivery)")]
    MissingMode,
    #[error("the shop does not offer pickup")]
    PickupUnavailable,
    #[error("the shop does not deliver")]
    DeliveryUnavailable,
    #[error("zone {0} is not one of the shop's delivery zones")]
    ZoneNotFound(String),
    /// The zone's smallest order, before its fee.
    #[error("delivery to this zone needs an order of at least {min_order_minor}")]
    BelowZoneMinimum { zone_id: i64, min_order_minor: i64 },
    /// The line would hold more than the shop has left.
    #[error("product {product_id}: {requested} asked for, {available} left")]
    OutOfStock {
        product_id: ProductId,
        requested: i64,
        available: i64,
    },
}

/// What an accepted action does, for the executor and the reply composer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum Effect {
    CatalogShown,
    ProductShown {
        product_id: ProductId,
        /// How many were asked about («si pido 3 brownies, ¿cuánto sale?»):
        /// the reply prices that many. Nothing changes either way.
        #[serde(skip_serializing_if = "Option::is_none")]
        quantity: Option<i64>,
    },
    CartLineSet {
        product_id: ProductId,
        previous: i64,
        quantity: i64,
    },
    CartLineRemoved {
        product_id: ProductId,
    },
    CartCleared,
    OrderReviewed,
    /// The order is created from exactly these lines, with these prices, and
    /// how it reaches the customer (its fee in the total).
    OrderConfirmed {
        lines: Vec<CartLine>,
        total_minor: i64,
        fulfilment: Option<Settled>,
    },
    /// How the order reaches the customer, as far as they said; what is still
    /// missing is asked next.
    FulfilmentSet {
        choice: Choice,
        missing: Option<Missing>,
    },
    /// The address of an order placed for delivery to a zone without one.
    OrderAddressSet {
        address: String,
    },
    /// `had_order` is true when a placed order (AWAITING_PAYMENT) is cancelled.
    OrderCancelled {
        had_order: bool,
    },
    Replied,
    Clarified,
    Escalated,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Accepted {
    pub from: State,
    pub to: State,
    pub effect: Effect,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub action: Action,
    pub outcome: Result<Accepted, Rejection>,
}

/// The result of validating a whole proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub began_in: State,
    pub decisions: Vec<Decision>,
    pub state: State,
    pub cart: Cart,
    /// How the order will reach the customer, as chosen so far.
    pub choice: Option<Choice>,
}

impl Evaluation {
    pub fn accepted(&self) -> impl Iterator<Item = (&Action, &Accepted)> {
        self.decisions
            .iter()
            .filter_map(|d| d.outcome.as_ref().ok().map(|a| (&d.action, a)))
    }

    pub fn rejected(&self) -> impl Iterator<Item = (&Action, &Rejection)> {
        self.decisions
            .iter()
            .filter_map(|d| d.outcome.as_ref().err().map(|r| (&d.action, r)))
    }
}

/// The matrix's "valid in" column.
pub fn valid_in(action: ActionKind, state: State) -> bool {
    use ActionKind::*;
    use State::*;
    match action {
        ShowCatalog | ShowProduct | Reply | Clarify | Escalate => true,
        // At the summary a change to the cart reopens it: the customer sees a
        // new summary before anything is confirmed.
        AddToCart => matches!(state, Idle | Browsing | CartOpen | Checkout),
        UpdateQuantity | RemoveItem | ClearCart => matches!(state, CartOpen | Checkout),
        ReviewOrder => state == CartOpen,
        ConfirmOrder => state == Checkout,
        // (And in AWAITING_PAYMENT, only the address of an order placed for
        // delivery to a zone without one: see `step`.)
        SetFulfilment => matches!(state, CartOpen | Checkout),
        CancelOrder => matches!(state, CartOpen | Checkout | AwaitingPayment),
    }
}

/// Validates every action in order, each against the state and cart the previous
/// accepted action produced, for a shop that offers pickup only.
pub fn evaluate(
    began_in: State,
    cart: &Cart,
    catalog: &impl Catalog,
    actions: &[Action],
) -> Evaluation {
    evaluate_with(began_in, cart, catalog, &Options::default(), None, actions)
}

/// `evaluate` for a shop with `options` (pickup, delivery zones) and what the
/// customer chose so far.
pub fn evaluate_with(
    began_in: State,
    cart: &Cart,
    catalog: &impl Catalog,
    options: &Options,
    choice: Option<&Choice>,
    actions: &[Action],
) -> Evaluation {
    let mut state = began_in;
    let mut cart = cart.clone();
    let mut choice = choice.cloned();
    let began_with = choice.clone();
    let mut decisions = Vec::with_capacity(actions.len());
    for (index, action) in actions.iter().enumerate() {
        let outcome = if index >= MAX_ACTIONS {
            Err(Rejection::TooManyActions)
        } else {
            let at = Checkout {
                options,
                choice: choice.as_ref(),
                began_with: began_with.as_ref(),
            };
            step(began_in, state, &cart, catalog, &at, action).map(|(to, effect, next_cart)| {
                match &effect {
                    Effect::FulfilmentSet { choice: chosen, .. } => choice = Some(chosen.clone()),
                    // (An order placed without its address keeps the way
                    // chosen until the address is given.)
                    Effect::OrderConfirmed { fulfilment, .. } => {
                        let lacks_address = fulfilment
                            .as_ref()
                            .is_some_and(|f| f.mode == Mode::Delivery && f.address.is_none());
                        if !lacks_address {
                            choice = None;
                        }
                    }
                    Effect::OrderAddressSet { .. }
                    | Effect::OrderCancelled { .. }
                    | Effect::CartCleared => choice = None,
                    _ => {}
                }
                let accepted = Accepted {
                    from: state,
                    to,
                    effect,
                };
                state = to;
                cart = next_cart;
                accepted
            })
        };
        decisions.push(Decision {
            action: action.clone(),
            outcome,
        });
    }
    Evaluation {
        began_in,
        decisions,
        state,
        cart,
        choice,
    }
}

/// What the shop offers and what the customer chose, as a step sees them.
struct Checkout<'a> {
    options: &'a Options,
    choice: Option<&'a Choice>,
    /// The choice the summary the customer saw was made with.
    began_with: Option<&'a Choice>,
}

fn step(
    began_in: State,
    state: State,
    cart: &Cart,
    catalog: &impl Catalog,
    at: &Checkout<'_>,
    action: &Action,
) -> Result<(State, Effect, Cart), Rejection> {
    if action.proposes_fee {
        return Err(Rejection::Forbidden(ForbiddenKind::SetDeliveryFee));
    }
    let kind = match &action.kind {
        ActionType::Allowed(kind) => *kind,
        ActionType::Forbidden(kind) => return Err(Rejection::Forbidden(*kind)),
        ActionType::Unknown(name) => return Err(Rejection::UnknownType(name.clone())),
    };
    // (Only in a turn that began with the order placed: never in the turn
    // that places it.)
    let address_of_the_order = kind == ActionKind::SetFulfilment
        && state == State::AwaitingPayment
        && began_in == State::AwaitingPayment;
    if !valid_in(kind, state) && !address_of_the_order {
        return Err(Rejection::NotAllowedInState {
            action: kind,
            state,
        });
    }
    let browse_from_idle = if state == State::Idle {
        State::Browsing
    } else {
        state
    };
    let mut next = cart.clone();
    match kind {
        ActionKind::ShowCatalog => Ok((browse_from_idle, Effect::CatalogShown, next)),
        ActionKind::ShowProduct => {
            let product_id = active_product(catalog, &action.product_id)?;
            // (A count that is no count is just not priced: showing changes
            // nothing.)
            let quantity = match &action.quantity {
                Param::Missing => None,
                other => quantity(other).ok(),
            };
            Ok((
                browse_from_idle,
                Effect::ProductShown {
                    product_id,
                    quantity,
                },
                next,
            ))
        }
        ActionKind::AddToCart => {
            let product_id = active_product(catalog, &action.product_id)?;
            let added = match &action.quantity {
                Param::Missing => 1,
                other => quantity(other)?,
            };
            let previous = cart.quantity_of(product_id);
            let total = previous + added;
            if total > MAX_QUANTITY {
                return Err(Rejection::LineQuantityOutOfRange {
                    product_id,
                    quantity: total,
                });
            }
            let product = catalog.product(product_id).expect("checked above");
            in_stock(product, total)?;
            next.set(product, total);
            Ok((
                State::CartOpen,
                Effect::CartLineSet {
                    product_id,
                    previous,
                    quantity: total,
                },
                next,
            ))
        }
        ActionKind::UpdateQuantity => {
            let product_id = product_in_cart(cart, &action.product_id)?;
            let quantity = quantity(&action.quantity)?;
            let previous = cart.quantity_of(product_id);
            // The line keeps its price unless the product is still in the catalog,
            // in which case the current price applies, as it would on a new add.
            match catalog.product(product_id) {
                Some(product) if product.active => {
                    in_stock(product, quantity)?;
                    next.set(product, quantity)
                }
                Some(_) => return Err(Rejection::ProductInactive(product_id)),
                None => return Err(Rejection::ProductNotFound(product_id)),
            }
            Ok((
                State::CartOpen,
                Effect::CartLineSet {
                    product_id,
                    previous,
                    quantity,
                },
                next,
            ))
        }
        ActionKind::RemoveItem => {
            let product_id = product_in_cart(cart, &action.product_id)?;
            next.remove(product_id);
            let to = if next.is_empty() {
                State::Browsing
            } else {
                State::CartOpen
            };
            Ok((to, Effect::CartLineRemoved { product_id }, next))
        }
        ActionKind::ClearCart => {
            if cart.is_empty() {
                return Err(Rejection::CartEmpty);
            }
            next.clear();
            Ok((State::Browsing, Effect::CartCleared, next))
        }
        ActionKind::ReviewOrder => {
            if cart.is_empty() {
                return Err(Rejection::CartEmpty);
            }
            Ok((State::Checkout, Effect::OrderReviewed, next))
        }
        ActionKind::ConfirmOrder => {
            if cart.is_empty() {
                return Err(Rejection::CartEmpty);
            }
            if began_in != State::Checkout {
                return Err(Rejection::ConfirmWithoutReview);
            }
            // What ran out since the summary (the order's own transaction checks
            // again, under the products' row locks).
            for line in cart.lines() {
                if let Some(product) = catalog.product(line.product_id) {
                    in_stock(product, line.quantity)?;
                }
            }
            // «sí, mándamelo a Obrajes», or a yes to a summary that showed
            // the zone and asked the address (offering that yes): the order
            // is placed (its fee is the zone's); the address is asked right
            // after and kept on the order (SET_FULFILMENT in
            // AWAITING_PAYMENT). Nothing else missing is waived.
            if let Some(missing) = fulfilment::missing(at.options, at.choice)
                && missing != Missing::Address
            {
                return Err(Rejection::FulfilmentMissing(missing));
            }
            // Delivery changed in this same proposal: the customer sees the new
            // summary (and its fee) before anything is confirmed. Picking up
            // where nothing was charged for the way leaves the total they saw.
            let picked_up = |c: Option<&Choice>| c.is_none_or(|c| c.mode == Mode::Pickup);
            let same_total =
                at.choice.is_some_and(|c| c.mode == Mode::Pickup) && picked_up(at.began_with);
            // A summary shown before any way was chosen listed every zone with
            // its fee: «sí, a Obrajes, calle 10» confirms with a fee it showed
            // (the confirmation says the total with it).
            let fees_shown = at.began_with.is_none();
            if at.choice != at.began_with && !same_total && !fees_shown {
                return Err(Rejection::ConfirmWithoutReview);
            }
            let settled = fulfilment::settle(at.options, at.choice, cart.total_minor());
            if let Some(zone) = settled.as_ref().and_then(|s| s.zone.as_ref())
                && let Some(min) = zone.min_order_minor
                && cart.total_minor() < min
            {
                return Err(Rejection::BelowZoneMinimum {
                    zone_id: zone.id,
                    min_order_minor: min,
                });
            }
            let fee = settled.as_ref().map_or(0, |s| s.fee_minor);
            let effect = Effect::OrderConfirmed {
                lines: cart.lines().to_vec(),
                total_minor: cart.total_minor() + fee,
                fulfilment: settled,
            };
            next.clear();
            Ok((State::AwaitingPayment, effect, next))
        }
        ActionKind::CancelOrder => {
            next.clear();
            let had_order = state == State::AwaitingPayment;
            Ok((State::Idle, Effect::OrderCancelled { had_order }, next))
        }
        ActionKind::SetFulfilment if address_of_the_order => {
            // Only the address an order placed for delivery still lacks:
            // its way, zone and fee are the order's.
            let lacking = at.choice.filter(|c| {
                c.mode == Mode::Delivery && c.address.as_deref().is_none_or(str::is_empty)
            });
            let same_way = matches!(action.mode, Param::Missing | Param::Given(Mode::Delivery))
                && match &action.zone_id {
                    Param::Missing => true,
                    Param::Given(id) => lacking.is_some_and(|c| c.zone_id == Some(*id)),
                    Param::Invalid(_) => false,
                };
            let address = action.address.as_deref().and_then(fulfilment::tidy_address);
            match (lacking, address) {
                (Some(_), Some(address)) if same_way => {
                    Ok((state, Effect::OrderAddressSet { address }, next))
                }
                _ => Err(Rejection::NotAllowedInState {
                    action: kind,
                    state,
                }),
            }
        }
        ActionKind::SetFulfilment => {
            let choice = chosen(at, action)?;
            let missing = fulfilment::missing(at.options, Some(&choice));
            Ok((state, Effect::FulfilmentSet { choice, missing }, next))
        }
        ActionKind::Reply => Ok((state, Effect::Replied, next)),
        ActionKind::Clarify => Ok((state, Effect::Clarified, next)),
        ActionKind::Escalate => Ok((State::HumanTakeover, Effect::Escalated, next)),
    }
}

/// The customer's choice after SET_FULFILMENT: what it says over what they
/// chose before (a zone named later keeps the delivery and its address).
fn chosen(at: &Checkout<'_>, action: &Action) -> Result<Choice, Rejection> {
    let before = at.choice;
    let mode = match &action.mode {
        Param::Given(mode) => *mode,
        Param::Invalid(_) => return Err(Rejection::MissingMode),
        // A zone or an address alone means delivery.
        Param::Missing if action.zone_id != Param::Missing || action.address.is_some() => {
            Mode::Delivery
        }
        Param::Missing => return Err(Rejection::MissingMode),
    };
    match mode {
        Mode::Pickup if !at.options.pickup => return Err(Rejection::PickupUnavailable),
        Mode::Delivery if !at.options.delivery || at.options.zones.is_empty() => {
            return Err(Rejection::DeliveryUnavailable);
        }
        Mode::Pickup => {
            return Ok(Choice {
                mode,
                zone_id: None,
                address: None,
            });
        }
        Mode::Delivery => {}
    }
    let kept = before.filter(|b| b.mode == Mode::Delivery);
    let zone_id = match &action.zone_id {
        Param::Given(id) if at.options.zone(*id).is_some() => Some(*id),
        Param::Given(id) => return Err(Rejection::ZoneNotFound(id.to_string())),
        Param::Invalid(raw) => return Err(Rejection::ZoneNotFound(raw.clone())),
        Param::Missing => kept.and_then(|b| b.zone_id),
    };
    let address = action
        .address
        .as_deref()
        .and_then(fulfilment::tidy_address)
        .or_else(|| kept.and_then(|b| b.address.clone()));
    Ok(Choice {
        mode,
        zone_id,
        address,
    })
}

fn in_stock(product: &super::cart::ProductInfo, quantity: i64) -> Result<(), Rejection> {
    product
        .fits(quantity)
        .map_err(|available| Rejection::OutOfStock {
            product_id: product.id,
            requested: quantity,
            available,
        })
}

fn product_ref(param: &Param<ProductId>) -> Result<ProductId, Rejection> {
    match param {
        Param::Missing => Err(Rejection::MissingProduct),
        Param::Invalid(raw) => Err(Rejection::InvalidProduct(raw.clone())),
        Param::Given(id) => Ok(*id),
    }
}

fn active_product(
    catalog: &impl Catalog,
    param: &Param<ProductId>,
) -> Result<ProductId, Rejection> {
    let id = product_ref(param)?;
    match catalog.product(id) {
        None => Err(Rejection::ProductNotFound(id)),
        Some(product) if !product.active => Err(Rejection::ProductInactive(id)),
        Some(_) => Ok(id),
    }
}

fn product_in_cart(cart: &Cart, param: &Param<ProductId>) -> Result<ProductId, Rejection> {
    let id = product_ref(param)?;
    cart.line(id).map(|_| id).ok_or(Rejection::NotInCart(id))
}

fn quantity(param: &Param<i64>) -> Result<i64, Rejection> {
    match param {
        Param::Missing => Err(Rejection::MissingQuantity),
        Param::Invalid(raw) => Err(Rejection::InvalidQuantity(raw.clone())),
        Param::Given(q) if (1..=MAX_QUANTITY).contains(q) => Ok(*q),
        Param::Given(q) => Err(Rejection::QuantityOutOfRange { quantity: *q }),
    }
}
