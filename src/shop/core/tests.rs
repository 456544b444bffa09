//! Table-driven tests over every (state, action) and (state, event) pair, and a
//! property test over random proposal sequences.

use std::collections::HashMap;

use proptest::prelude::*;

use super::*;

fn catalog() -> HashMap<ProductId, ProductInfo> {
    [(1, true, 3000), (2, true, 2900), (3, false, 1000)]
        .into_iter()
        .map(|(id, active, price_minor)| {
            (
                id,
                ProductInfo {
                    id,
                    active,
                    price_minor,
                    available: None,
                },
            )
        })
        .collect()
}

/// The cart a conversation realistically holds in each state.
fn cart_for(state: State) -> Cart {
    let catalog = catalog();
    let mut cart = Cart::default();
    if matches!(state, State::CartOpen | State::Checkout) {
        cart.set(&catalog[&1], 2);
        cart.set(&catalog[&2], 1);
    }
    cart
}

fn state_code(code: &str) -> Option<State> {
    Some(match code {
        "IDLE" => State::Idle,
        "BROW" => State::Browsing,
        "CART" => State::CartOpen,
        "CHK" => State::Checkout,
        "AWAIT" => State::AwaitingPayment,
        "DONE" => State::Completed,
        "HUMAN" => State::HumanTakeover,
        "-" => return None,
        other => panic!("bad code {other}"),
    })
}

/// DESIGN §3, written out (with issue 20's one change: at the summary a cart
/// change reopens the cart): the state after each action, or `-` where it is invalid.
/// Columns: the state the action is validated in.
const MATRIX: &str = "
                 IDLE  BROW  CART  CHK   AWAIT DONE  HUMAN
SHOW_CATALOG     BROW  BROW  CART  CHK   AWAIT DONE  HUMAN
SHOW_PRODUCT     BROW  BROW  CART  CHK   AWAIT DONE  HUMAN
ADD_TO_CART      CART  CART  CART  CART  -     -     -
UPDATE_QUANTITY  -     -     CART  CART  -     -     -
REMOVE_ITEM      -     -     CART  CART  -     -     -
CLEAR_CART       -     -     BROW  BROW  -     -     -
REVIEW_ORDER     -     -     CHK   -     -     -     -
CONFIRM_ORDER    -     -     -     AWAIT -     -     -
CANCEL_ORDER     -     -     IDLE  IDLE  IDLE  -     -
SET_FULFILMENT   -     -     CART  CHK   -     -     -
REPLY            IDLE  BROW  CART  CHK   AWAIT DONE  HUMAN
CLARIFY          IDLE  BROW  CART  CHK   AWAIT DONE  HUMAN
ESCALATE         HUMAN HUMAN HUMAN HUMAN HUMAN HUMAN HUMAN
";

type MatrixRow = (ActionKind, Vec<(State, Option<State>)>);

fn matrix_rows() -> Vec<MatrixRow> {
    let mut lines = MATRIX.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<State> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|c| state_code(c).unwrap())
        .collect();
    lines
        .map(|line| {
            let mut cells = line.split_whitespace();
            let kind = match ActionType::parse(cells.next().unwrap()) {
                ActionType::Allowed(kind) => kind,
                other => panic!("{other:?}"),
            };
            let row = header.iter().copied().zip(cells.map(state_code)).collect();
            (kind, row)
        })
        .collect()
}

#[test]
fn every_state_action_pair_follows_the_matrix() {
    let rows = matrix_rows();
    assert_eq!(rows.len(), ActionKind::ALL.len(), "one row per action");
    let mut pairs = 0;
    for (kind, row) in rows {
        assert_eq!(row.len(), State::ALL.len());
        for (state, expected) in row {
            let action = Action::of(kind)
                .with_product(1)
                .with_quantity(2)
                .with_mode(Mode::Pickup);
            let eval = evaluate(state, &cart_for(state), &catalog(), &[action]);
            let outcome = &eval.decisions[0].outcome;
            match expected {
                Some(to) => {
                    let accepted = outcome
                        .as_ref()
                        .unwrap_or_else(|r| panic!("{kind:?} in {state} rejected: {r}"));
                    assert_eq!(
                        (accepted.from, accepted.to),
                        (state, to),
                        "{kind:?} in {state}"
                    );
                    assert_eq!(eval.state, to);
                }
                None => {
                    assert_eq!(
                        outcome,
                        &Err(Rejection::NotAllowedInState {
                            action: kind,
                            state
                        }),
                        "{kind:?} in {state}"
                    );
                    assert_eq!(eval.state, state, "a rejection changes nothing");
                    assert_eq!(eval.cart, cart_for(state));
                }
            }
            pairs += 1;
        }
    }
    assert_eq!(pairs, 91);
}

#[test]
fn matrix_function_agrees_with_the_written_table() {
    for (kind, row) in matrix_rows() {
        for (state, expected) in row {
            assert_eq!(
                valid_in(kind, state),
                expected.is_some(),
                "{kind:?} in {state}"
            );
        }
    }
}

#[test]
fn forbidden_and_unknown_actions_are_rejected_in_every_state() {
    for state in State::ALL {
        for forbidden in ForbiddenKind::ALL {
            let eval = evaluate(
                state,
                &cart_for(state),
                &catalog(),
                &[Action::new(ActionType::Forbidden(forbidden))],
            );
            assert_eq!(
                eval.decisions[0].outcome,
                Err(Rejection::Forbidden(forbidden))
            );
            assert_eq!(eval.state, state);
        }
        let eval = evaluate(
            state,
            &cart_for(state),
            &catalog(),
            &[Action::new(ActionType::parse("SET_PRICE"))],
        );
        assert_eq!(
            eval.decisions[0].outcome,
            Err(Rejection::UnknownType("SET_PRICE".into()))
        );
    }
}

#[test]
fn checks_reject_bad_products_quantities_and_empty_carts() {
    let cat = catalog();
    let idle = Cart::default();
    let add = |p: Param<i64>, q: Param<i64>| Action {
        kind: ActionType::Allowed(ActionKind::AddToCart),
        product_id: p,
        quantity: q,
        ..Action::of(ActionKind::AddToCart)
    };
    let cases = [
        (
            add(Param::Given(9), Param::Given(1)),
            Rejection::ProductNotFound(9),
        ),
        (
            add(Param::Given(3), Param::Given(1)),
            Rejection::ProductInactive(3),
        ),
        (
            add(Param::Missing, Param::Given(1)),
            Rejection::MissingProduct,
        ),
        (
            add(Param::Invalid("abc".into()), Param::Given(1)),
            Rejection::InvalidProduct("abc".into()),
        ),
        (
            add(Param::Given(1), Param::Given(0)),
            Rejection::QuantityOutOfRange { quantity: 0 },
        ),
        (
            add(Param::Given(1), Param::Given(1000)),
            Rejection::QuantityOutOfRange { quantity: 1000 },
        ),
        (
            add(Param::Given(1), Param::Invalid("2.5".into())),
            Rejection::InvalidQuantity("2.5".into()),
        ),
    ];
    for (action, rejection) in cases {
        let eval = evaluate(State::Browsing, &idle, &cat, &[action]);
        assert_eq!(eval.decisions[0].outcome, Err(rejection));
        assert!(eval.cart.is_empty());
        assert_eq!(eval.state, State::Browsing);
    }

    // The line total is capped too: 60 in the cart plus 50 more is refused.
    let mut cart = Cart::default();
    cart.set(&cat[&1], 60);
    let eval = evaluate(
        State::CartOpen,
        &cart,
        &cat,
        &[Action::of(ActionKind::AddToCart)
            .with_product(1)
            .with_quantity(50)],
    );
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::LineQuantityOutOfRange {
            product_id: 1,
            quantity: 110
        })
    );
    assert_eq!(eval.cart.quantity_of(1), 60);

    let not_in_cart = evaluate(
        State::CartOpen,
        &cart,
        &cat,
        &[Action::of(ActionKind::RemoveItem).with_product(2)],
    );
    assert_eq!(
        not_in_cart.decisions[0].outcome,
        Err(Rejection::NotInCart(2))
    );
    let missing_qty = evaluate(
        State::CartOpen,
        &cart,
        &cat,
        &[Action::of(ActionKind::UpdateQuantity).with_product(1)],
    );
    assert_eq!(
        missing_qty.decisions[0].outcome,
        Err(Rejection::MissingQuantity)
    );

    // CHECKOUT with an empty cart cannot confirm.
    let empty_confirm = evaluate(
        State::Checkout,
        &Cart::default(),
        &cat,
        &[Action::of(ActionKind::ConfirmOrder)],
    );
    assert_eq!(
        empty_confirm.decisions[0].outcome,
        Err(Rejection::CartEmpty)
    );
}

#[test]
fn removing_the_last_line_goes_back_to_browsing() {
    let cat = catalog();
    let mut cart = Cart::default();
    cart.set(&cat[&1], 1);
    let eval = evaluate(
        State::CartOpen,
        &cart,
        &cat,
        &[Action::of(ActionKind::RemoveItem).with_product(1)],
    );
    assert_eq!(eval.state, State::Browsing);
    assert!(eval.cart.is_empty());
}

#[test]
fn review_and_confirm_in_one_proposal_confirms_nothing() {
    let state = State::CartOpen;
    let eval = evaluate(
        state,
        &cart_for(state),
        &catalog(),
        &[
            Action::of(ActionKind::ReviewOrder),
            Action::of(ActionKind::ConfirmOrder),
        ],
    );
    assert!(eval.decisions[0].outcome.is_ok());
    assert_eq!(
        eval.decisions[1].outcome,
        Err(Rejection::ConfirmWithoutReview)
    );
    assert_eq!(eval.state, State::Checkout);
    assert_eq!(
        eval.cart,
        cart_for(state),
        "the cart is still there to confirm"
    );
}

#[test]
fn confirm_snapshots_backend_prices_and_empties_the_cart() {
    let eval = evaluate(
        State::Checkout,
        &cart_for(State::Checkout),
        &catalog(),
        &[Action::of(ActionKind::ConfirmOrder)],
    );
    let accepted = eval.decisions[0].outcome.as_ref().unwrap();
    match &accepted.effect {
        Effect::OrderConfirmed {
            lines, total_minor, ..
        } => {
            assert_eq!(*total_minor, 2 * 3000 + 2900);
            assert_eq!(lines.len(), 2);
        }
        other => panic!("{other:?}"),
    }
    assert!(eval.cart.is_empty());
}

/// Product 1 with only `left` units a customer can still buy.
fn catalog_with_left(left: i64) -> HashMap<ProductId, ProductInfo> {
    let mut catalog = catalog();
    catalog.get_mut(&1).unwrap().available = Some(left);
    catalog
}

#[test]
fn a_line_never_holds_more_than_is_left() {
    let catalog = catalog_with_left(3);
    let add = |q: i64| {
        Action::of(ActionKind::AddToCart)
            .with_product(1)
            .with_quantity(q)
    };
    let eval = evaluate(State::Browsing, &Cart::default(), &catalog, &[add(3)]);
    assert_eq!(eval.cart.quantity_of(1), 3, "exactly what is left fits");
    let eval = evaluate(State::Browsing, &Cart::default(), &catalog, &[add(4)]);
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::OutOfStock {
            product_id: 1,
            requested: 4,
            available: 3
        })
    );
    assert!(eval.cart.is_empty(), "nothing is added past what is left");
    // Two in the cart and two more asked for: the line would hold four.
    let cart = cart_for(State::CartOpen);
    let eval = evaluate(State::CartOpen, &cart, &catalog, &[add(2)]);
    assert!(matches!(
        eval.decisions[0].outcome,
        Err(Rejection::OutOfStock { requested: 4, .. })
    ));
    assert_eq!(eval.cart, cart);
    let set = Action::of(ActionKind::UpdateQuantity)
        .with_product(1)
        .with_quantity(5);
    let eval = evaluate(State::CartOpen, &cart, &catalog, &[set]);
    assert!(matches!(
        eval.decisions[0].outcome,
        Err(Rejection::OutOfStock { available: 3, .. })
    ));
    // Untracked products (2) take any quantity up to the line's maximum.
    let eval = evaluate(
        State::Browsing,
        &Cart::default(),
        &catalog,
        &[Action::of(ActionKind::AddToCart)
            .with_product(2)
            .with_quantity(50)],
    );
    assert_eq!(eval.cart.quantity_of(2), 50);
}

#[test]
fn a_summary_whose_product_ran_out_is_not_confirmed() {
    let cart = cart_for(State::Checkout);
    let eval = evaluate(
        State::Checkout,
        &cart,
        &catalog_with_left(0),
        &[Action::of(ActionKind::ConfirmOrder)],
    );
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::OutOfStock {
            product_id: 1,
            requested: 2,
            available: 0
        })
    );
    assert_eq!(eval.state, State::Checkout);
    assert_eq!(eval.cart, cart, "the cart stays to change");
}

fn delivering() -> Options {
    super::fulfilment::sample_options()
}

#[test]
fn a_delivery_is_priced_by_its_zone_and_a_proposed_fee_is_refused() {
    let options = delivering();
    let cart = cart_for(State::Checkout); // 2 × 3000 + 1 × 2900
    let chosen = Action::of(ActionKind::SetFulfilment)
        .with_zone(7)
        .with_address("Calle 5 #12");
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        None,
        &[chosen],
    );
    let choice = eval.choice.clone().unwrap();
    assert_eq!((choice.mode, choice.zone_id), (Mode::Delivery, Some(7)));
    assert_eq!(eval.state, State::Checkout);

    let confirm = [Action::of(ActionKind::ConfirmOrder)];
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        Some(&choice),
        &confirm,
    );
    match &eval.decisions[0].outcome.as_ref().unwrap().effect {
        Effect::OrderConfirmed {
            total_minor,
            fulfilment,
            ..
        } => {
            assert_eq!(
                *total_minor,
                8900 + 1000,
                "the zone's fee, from the backend"
            );
            assert_eq!(fulfilment.as_ref().unwrap().fee_minor, 1000);
        }
        other => panic!("{other:?}"),
    }

    let mut priced = Action::of(ActionKind::SetFulfilment).with_zone(7);
    priced.proposes_fee = true;
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        None,
        &[priced],
    );
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::Forbidden(ForbiddenKind::SetDeliveryFee))
    );
    assert_eq!(
        ActionType::parse("set_delivery_fee"),
        ActionType::Forbidden(ForbiddenKind::SetDeliveryFee)
    );
    let unknown = Action::of(ActionKind::SetFulfilment).with_zone(99);
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        None,
        &[unknown],
    );
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::ZoneNotFound("99".into()))
    );
    assert_eq!(eval.choice, None, "a refusal changes nothing");
}

#[test]
fn a_delivery_order_is_confirmed_only_complete_seen_and_above_the_zone_minimum() {
    let options = delivering();
    let cart = cart_for(State::Checkout);
    let confirm = Action::of(ActionKind::ConfirmOrder);
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        None,
        std::slice::from_ref(&confirm),
    );
    // Nothing said in a shop that also lets customers pick up: a pickup.
    let confirmed = eval.decisions[0].outcome.as_ref().expect("picked up");
    assert!(matches!(
        &confirmed.effect,
        Effect::OrderConfirmed { fulfilment: Some(f), total_minor, .. }
            if f.mode == Mode::Pickup && *total_minor == cart.total_minor()
    ));
    // A shop that only delivers asks how.
    let only_delivery = Options {
        pickup: false,
        ..options.clone()
    };
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &only_delivery,
        None,
        std::slice::from_ref(&confirm),
    );
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::FulfilmentMissing(Missing::Mode))
    );
    let no_address = Choice {
        mode: Mode::Delivery,
        zone_id: Some(7),
        address: None,
    };
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        Some(&no_address),
        std::slice::from_ref(&confirm),
    );
    // A zone chosen before without its address: the summary showed the
    // zone's fee and asked the address; a yes places the order, and the
    // address is asked right after.
    let placed = eval.decisions[0].outcome.as_ref().expect("placed");
    assert!(matches!(
        &placed.effect,
        Effect::OrderConfirmed { fulfilment: Some(f), .. }
            if f.mode == Mode::Delivery && f.address.is_none()
    ));
    // A zone said with the yes («sí, mándamelo a Sopocachi») places the
    // order (the zone's fee in its total); the way is kept for the address
    // asked next.
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        None,
        &[
            Action::of(ActionKind::SetFulfilment).with_zone(7),
            confirm.clone(),
        ],
    );
    let placed = eval.decisions[1].outcome.as_ref().expect("placed");
    assert!(matches!(
        &placed.effect,
        Effect::OrderConfirmed { fulfilment: Some(f), total_minor, .. }
            if f.mode == Mode::Delivery && f.address.is_none()
                && *total_minor == cart.total_minor() + 1000
    ));
    assert_eq!(eval.choice, Some(no_address.clone()));
    // Chosen and confirmed in one proposal after a summary that showed
    // another way: the new summary (and its fee) comes first.
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        Some(&no_address),
        &[
            Action::of(ActionKind::SetFulfilment).with_address("Calle 5"),
            confirm.clone(),
        ],
    );
    assert_eq!(
        eval.decisions[1].outcome,
        Err(Rejection::ConfirmWithoutReview)
    );
    // After a summary shown before any way was chosen (it listed every zone
    // with its fee), «sí, a Sopocachi, calle 5» confirms with that fee.
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        None,
        &[
            Action::of(ActionKind::SetFulfilment)
                .with_zone(7)
                .with_address("Calle 5"),
            confirm.clone(),
        ],
    );
    let confirmed = eval.decisions[1].outcome.as_ref().expect("confirmed");
    assert!(matches!(
        &confirmed.effect,
        Effect::OrderConfirmed { fulfilment: Some(f), total_minor, .. }
            if f.mode == Mode::Delivery && *total_minor == cart.total_minor() + 1000
    ));
    // A small order does not reach the zone's minimum.
    let mut small = Cart::default();
    small.set(&catalog()[&2], 1);
    let complete = Choice {
        address: Some("Calle 5".into()),
        ..no_address
    };
    let eval = evaluate_with(
        State::Checkout,
        &small,
        &catalog(),
        &options,
        Some(&complete),
        std::slice::from_ref(&confirm),
    );
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::BelowZoneMinimum {
            zone_id: 7,
            min_order_minor: 5000
        })
    );
    // A pickup-only shop refuses delivery and asks nothing.
    let eval = evaluate(
        State::Checkout,
        &cart,
        &catalog(),
        &[Action::of(ActionKind::SetFulfilment).with_mode(Mode::Delivery)],
    );
    assert_eq!(
        eval.decisions[0].outcome,
        Err(Rejection::DeliveryUnavailable)
    );
    // «Sí, paso a recoger»: picking up where no way was charged leaves the
    // total the customer saw, so the yes in the same proposal stands.
    let eval = evaluate(
        State::Checkout,
        &cart,
        &catalog(),
        &[
            Action::of(ActionKind::SetFulfilment).with_mode(Mode::Pickup),
            confirm.clone(),
        ],
    );
    assert!(eval.decisions[1].outcome.is_ok(), "{:?}", eval.decisions[1]);
    // Picking up after a delivery was in the summary changes its total.
    let eval = evaluate_with(
        State::Checkout,
        &cart,
        &catalog(),
        &options,
        Some(&complete),
        &[
            Action::of(ActionKind::SetFulfilment).with_mode(Mode::Pickup),
            confirm,
        ],
    );
    assert_eq!(
        eval.decisions[1].outcome,
        Err(Rejection::ConfirmWithoutReview)
    );
}

#[test]
fn actions_after_the_fifth_are_rejected() {
    let actions: Vec<Action> = (0..7).map(|_| Action::of(ActionKind::Reply)).collect();
    let eval = evaluate(State::Idle, &Cart::default(), &catalog(), &actions);
    assert_eq!(eval.accepted().count(), MAX_ACTIONS);
    assert!(
        eval.rejected()
            .all(|(_, r)| *r == Rejection::TooManyActions)
    );
}

/// Expected state after each event, per state: `-` where the event does not apply.
const EVENTS: &str = "
                        IDLE  BROW  CART  CHK   AWAIT DONE  HUMAN
GREETING_RECEIVED       IDLE  BROW  CART  CHK   AWAIT DONE  HUMAN
PAYMENT_PROOF_RECEIVED  -     -     -     -     AWAIT -     -
PAYMENT_APPROVED        -     -     -     -     DONE  -     -
PAYMENT_REJECTED        -     -     -     -     AWAIT -     -
ESCALATION_REQUESTED    HUMAN HUMAN HUMAN HUMAN HUMAN HUMAN HUMAN
SESSION_TIMEOUT         -     IDLE  IDLE  IDLE  -     -     -
PAYMENT_TIMEOUT         -     -     -     -     IDLE  -     -
ORDER_CANCELLED         -     -     -     -     IDLE  -     -
TAKEOVER_STARTED        HUMAN HUMAN HUMAN HUMAN HUMAN HUMAN HUMAN
TAKEOVER_RELEASED       -     -     -     -     -     -     CHK
";

#[test]
fn every_state_event_pair_follows_the_design() {
    let mut lines = EVENTS.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<State> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|c| state_code(c).unwrap())
        .collect();
    let release = Release {
        before: Some(State::Checkout),
        to_idle: false,
    };
    let mut rows = 0;
    for line in lines {
        let mut cells = line.split_whitespace();
        let name = cells.next().unwrap();
        let event = Event::ALL.into_iter().find(|e| e.as_str() == name).unwrap();
        for (state, expected) in header.iter().copied().zip(cells.map(state_code)) {
            match expected {
                Some(to) => {
                    assert_eq!(on_event(state, event, release), Ok(to), "{name} in {state}")
                }
                None => assert!(
                    on_event(state, event, release).is_err(),
                    "{name} in {state}"
                ),
            }
        }
        rows += 1;
    }
    assert_eq!(rows, Event::ALL.len());
}

#[test]
fn release_returns_to_the_state_before_or_to_idle_on_request() {
    let h = State::HumanTakeover;
    let to = |before, to_idle| on_event(h, Event::TakeoverReleased, Release { before, to_idle });
    assert_eq!(to(Some(State::CartOpen), false), Ok(State::CartOpen));
    assert_eq!(to(Some(State::CartOpen), true), Ok(State::Idle));
    assert_eq!(to(None, false), Ok(State::Idle));
    assert_eq!(
        to(Some(h), false),
        Ok(State::Idle),
        "never back into a takeover"
    );
    assert_eq!(on_customer_message(State::Completed), State::Idle);
    assert_eq!(on_customer_message(State::CartOpen), State::CartOpen);
}

fn any_action() -> impl Strategy<Value = Action> {
    let names = prop_oneof![
        proptest::sample::select(ActionKind::ALL.map(|k| k.as_str().to_string()).to_vec()),
        proptest::sample::select(ForbiddenKind::ALL.map(|k| k.as_str().to_string()).to_vec()),
        "[A-Z_]{1,12}",
    ];
    let product = prop_oneof![
        Just(Param::Missing),
        Just(Param::Invalid("x".to_string())),
        (0i64..6).prop_map(Param::Given),
    ];
    let quantity = prop_oneof![
        Just(Param::Missing),
        Just(Param::Invalid("1.5".to_string())),
        (-5i64..250).prop_map(Param::Given),
    ];
    (names, product, quantity).prop_map(|(name, product_id, quantity)| Action {
        kind: ActionType::parse(&name),
        product_id,
        quantity,
        ..Action::of(ActionKind::Reply)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_proposals_never_break_the_invariants(
        start in proptest::sample::select(State::ALL.to_vec()),
        turns in proptest::collection::vec(proptest::collection::vec(any_action(), 0..9), 1..12),
    ) {
        let cat = catalog();
        let mut state = start;
        let mut cart = cart_for(start);
        for actions in turns {
            let eval = evaluate(state, &cart, &cat, &actions);
            prop_assert_eq!(eval.decisions.len(), actions.len());
            prop_assert!(eval.accepted().count() <= MAX_ACTIONS);
            let mut current = state;
            for decision in &eval.decisions {
                match (&decision.action.kind, &decision.outcome) {
                    (ActionType::Forbidden(_) | ActionType::Unknown(_), Ok(_)) => {
                        prop_assert!(false, "forbidden or unknown action executed");
                    }
                    (ActionType::Allowed(kind), Ok(accepted)) => {
                        prop_assert_eq!(accepted.from, current);
                        prop_assert!(valid_in(*kind, current));
                        if *kind == ActionKind::ConfirmOrder {
                            prop_assert_eq!(state, State::Checkout, "confirm only in a turn begun in CHECKOUT");
                        }
                        current = accepted.to;
                    }
                    _ => {}
                }
            }
            prop_assert_eq!(eval.state, current);
            prop_assert!(State::ALL.contains(&eval.state));
            for line in eval.cart.lines() {
                prop_assert!((1..=MAX_QUANTITY).contains(&line.quantity));
                let product = &cat[&line.product_id];
                prop_assert!(product.active);
                prop_assert_eq!(line.unit_price_minor, product.price_minor);
            }
            if matches!(eval.state, State::Idle | State::Browsing | State::AwaitingPayment | State::Completed) {
                prop_assert!(eval.cart.is_empty(), "no cart outside CART_OPEN, CHECKOUT or a takeover");
            }
            state = eval.state;
            cart = eval.cart;
        }
    }
}

#[test]
fn the_address_of_an_order_placed_without_one_is_its_only_change_while_it_waits() {
    let options = delivering();
    let cart = Cart::default();
    let lacking = Choice {
        mode: Mode::Delivery,
        zone_id: Some(7),
        address: None,
    };
    let give = |choice: Option<&Choice>, action: Action| {
        evaluate_with(
            State::AwaitingPayment,
            &cart,
            &catalog(),
            &options,
            choice,
            std::slice::from_ref(&action),
        )
    };
    let address = Action::of(ActionKind::SetFulfilment).with_address("Calle 5 #120");
    // Never in the turn that places the order.
    let placing = evaluate_with(
        State::Checkout,
        &cart_for(State::Checkout),
        &catalog(),
        &options,
        None,
        &[
            Action::of(ActionKind::SetFulfilment).with_zone(7),
            Action::of(ActionKind::ConfirmOrder),
            address.clone(),
        ],
    );
    assert!(placing.decisions[1].outcome.is_ok());
    assert!(placing.decisions[2].outcome.is_err());
    let eval = give(Some(&lacking), address.clone());
    let set = eval.decisions[0].outcome.as_ref().expect("address kept");
    assert_eq!(
        set.effect,
        Effect::OrderAddressSet {
            address: "Calle 5 #120".into()
        }
    );
    assert_eq!(set.to, State::AwaitingPayment);
    assert_eq!(eval.choice, None);
    // The same zone said again is the same way.
    let eval = give(Some(&lacking), address.clone().with_zone(7));
    assert!(eval.decisions[0].outcome.is_ok());
    let not_allowed = Err(Rejection::NotAllowedInState {
        action: ActionKind::SetFulfilment,
        state: State::AwaitingPayment,
    });
    // No order waiting for an address, one that has it, a pickup, another
    // zone, another way, or no address at all: nothing changes.
    let complete = Choice {
        address: Some("Calle 9".into()),
        ..lacking.clone()
    };
    let pickup = Choice {
        mode: Mode::Pickup,
        zone_id: None,
        address: None,
    };
    for (choice, action) in [
        (None, address.clone()),
        (Some(&complete), address.clone()),
        (Some(&pickup), address.clone()),
        (Some(&lacking), address.clone().with_zone(8)),
        (Some(&lacking), address.clone().with_mode(Mode::Pickup)),
        (
            Some(&lacking),
            Action::of(ActionKind::SetFulfilment).with_zone(7),
        ),
    ] {
        assert_eq!(
            give(choice, action.clone()).decisions[0].outcome,
            not_allowed,
            "{action:?}"
        );
    }
}
