//! The validation matrix of DESIGN §3: which action is valid in which state, what it
//! checks, and which state it leads to. `evaluate` is a pure function of the state the
//! turn began in, the cart, the catalog and the proposed actions.

use serde::Serialize;

use super::action::{Action, ActionKind, ActionType, ForbiddenKind, ProductId};
use super::cart::{Cart, CartLine, Catalog, MAX_QUANTITY};
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
    /// The order is created from exactly these lines, with these prices.
    OrderConfirmed {
        lines: Vec<CartLine>,
        total_minor: i64,
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
        CancelOrder => matches!(state, CartOpen | Checkout | AwaitingPayment),
    }
}

/// Validates every action in order, each against the state and cart the previous
/// accepted action produced.
pub fn evaluate(
    began_in: State,
    cart: &Cart,
    catalog: &impl Catalog,
    actions: &[Action],
) -> Evaluation {
    let mut state = began_in;
    let mut cart = cart.clone();
    let mut decisions = Vec::with_capacity(actions.len());
    for (index, action) in actions.iter().enumerate() {
        let outcome = if index >= MAX_ACTIONS {
            Err(Rejection::TooManyActions)
        } else {
            step(began_in, state, &cart, catalog, action).map(|(to, effect, next_cart)| {
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
    }
}

fn step(
    began_in: State,
    state: State,
    cart: &Cart,
    catalog: &impl Catalog,
    action: &Action,
) -> Result<(State, Effect, Cart), Rejection> {
    let kind = match &action.kind {
        ActionType::Allowed(kind) => *kind,
        ActionType::Forbidden(kind) => return Err(Rejection::Forbidden(*kind)),
        ActionType::Unknown(name) => return Err(Rejection::UnknownType(name.clone())),
    };
    if !valid_in(kind, state) {
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
            Ok((browse_from_idle, Effect::ProductShown { product_id }, next))
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
            let effect = Effect::OrderConfirmed {
                lines: cart.lines().to_vec(),
                total_minor: cart.total_minor(),
            };
            next.clear();
            Ok((State::AwaitingPayment, effect, next))
        }
        ActionKind::CancelOrder => {
            next.clear();
            let had_order = state == State::AwaitingPayment;
            Ok((State::Idle, Effect::OrderCancelled { had_order }, next))
        }
        ActionKind::Reply => Ok((state, Effect::Replied, next)),
        ActionKind::Clarify => Ok((state, Effect::Clarified, next)),
        ActionKind::Escalate => Ok((State::HumanTakeover, Effect::Escalated, next)),
    }
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
