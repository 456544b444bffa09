//! Composing what the customer reads. Facts (names, prices, quantities, totals, order
//! numbers) are written here from backend data; a proposer's text is kept only when
//! nothing was rejected and every number in it is one the backend produced.

use std::collections::BTreeSet;

use crate::shop::core::fulfilment::{self, Missing, Mode, Options, Settled};
use crate::shop::core::{Cart, Effect, Evaluation, MAX_QUANTITY, Rejection, State};
use crate::text::{money, numbers_in_hundredths};

use super::catalog::CatalogIndex;
use super::messages::{CLARIFY_DEFAULT, ESCALATED};

/// An order as the reply needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderRef {
    pub number: i64,
    pub total_minor: i64,
}

/// Backend facts available to the composer.
pub struct ReplyContext<'a> {
    pub bot_name: &'a str,
    pub currency: &'a str,
    pub catalog: &'a CatalogIndex,
    /// The cart as it was when the turn began (for summaries shown on rejection).
    pub cart_before: &'a Cart,
    /// The order waiting for payment when the turn began, if any.
    pub open_order: Option<&'a OrderRef>,
    /// The order this turn created, if any.
    pub confirmed_order: Option<&'a OrderRef>,
    pub payment_instructions: &'a str,
    pub greeted: bool,
    /// Products offered as numbered choices ("¿cuál?").
    pub offer: &'a [crate::shop::core::ProductId],
    /// Offer a person after clarifications that got nowhere.
    pub offer_person: bool,
    /// Blocks that come first (the knowledge's answers to the message's questions).
    pub preface: &'a [String],
    /// How orders reach customers (pickup, delivery zones).
    pub delivery: &'a Options,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    /// Why the proposer's text was not used, when it was given but dropped.
    pub replaced: Option<String>,
    /// Quick answers offered as buttons where the channel has them.
    pub choices: Vec<String>,
}

/// The answers to an order summary.
pub fn checkout_choices() -> Vec<String> {
    vec!["Sí".to_string(), "Cancelar".to_string()]
}

/// Longest catalog listing in one message; the rest is offered on request.
pub const CATALOG_LINES: usize = 30;

pub fn compose(eval: &Evaluation, proposal_text: &str, ctx: &ReplyContext<'_>) -> Reply {
    let mut blocks: Vec<String> = Vec::new();
    if ctx.greeted {
        blocks.push(format!("¡Hola! Bienvenido a {}.", ctx.bot_name));
    }
    blocks.extend(ctx.preface.iter().cloned());
    let mut cart_touched = false;
    let mut replied = false;
    let mut clarified = false;
    // (An order placed in the same turn asks what its way still lacks itself.)
    let placed = eval
        .accepted()
        .any(|(_, a)| matches!(a.effect, Effect::OrderConfirmed { .. }));
    // What the order's lines come to: the cart's, or, once placed in this
    // turn (the cart then emptied), the order's without its fee.
    let subtotal_minor = eval
        .accepted()
        .find_map(|(_, a)| match &a.effect {
            Effect::OrderConfirmed {
                total_minor,
                fulfilment,
                ..
            } => Some(total_minor - fulfilment.as_ref().map_or(0, |s| s.fee_minor)),
            _ => None,
        })
        .unwrap_or_else(|| eval.cart.total_minor());
    // What the products asked about with a count come to, each.
    let mut quoted: Vec<(i64, i64)> = Vec::new();
    for (_, accepted) in eval.accepted() {
        match &accepted.effect {
            Effect::CatalogShown => blocks.push(catalog_block(ctx)),
            Effect::ProductShown {
                product_id,
                quantity,
            } => {
                if let Some(p) = ctx.catalog.get(*product_id) {
                    let mut line = format!("{}: {}", p.name, money(p.price_minor, ctx.currency));
                    if !p.description.is_empty() {
                        line.push_str(&format!(". {}", p.description));
                    }
                    if p.available == Some(0) {
                        line.push_str(". Agotado por ahora");
                    }
                    if let Some(q) = quantity.filter(|q| *q > 1) {
                        if !line.ends_with('.') {
                            line.push('.');
                        }
                        line.push_str(&format!(
                            " {q} × {} = {}",
                            p.name,
                            money(p.price_minor * q, ctx.currency)
                        ));
                    }
                    if let Some(q) = quantity {
                        quoted.push((p.price_minor * q, *q));
                    }
                    blocks.push(line);
                }
            }
            Effect::CartLineSet {
                product_id,
                previous,
                quantity,
            } => {
                cart_touched = true;
                let name = ctx.catalog.name(*product_id);
                blocks.push(if *previous == 0 {
                    format!("Agregué {quantity} × {name} a tu carrito.")
                } else {
                    format!("Ahora tienes {quantity} × {name} en tu carrito.")
                });
            }
            Effect::CartLineRemoved { product_id } => {
                cart_touched = true;
                blocks.push(format!(
                    "Quité {} de tu carrito.",
                    ctx.catalog.name(*product_id)
                ));
            }
            Effect::CartCleared => {
                cart_touched = true;
                blocks.push("Vacié tu carrito.".into());
            }
            Effect::OrderReviewed => blocks.push(review_block(&eval.cart, eval, ctx)),
            Effect::OrderConfirmed { fulfilment, .. } => {
                blocks.push(confirmed_block(ctx, fulfilment.as_ref()))
            }
            Effect::FulfilmentSet { choice, missing } => {
                let below = below_minimum(choice, subtotal_minor, ctx);
                // (A confirmation refused for the minimum says it itself.)
                let refused_for_it = eval
                    .rejected()
                    .any(|(_, r)| matches!(r, Rejection::BelowZoneMinimum { .. }));
                blocks.push(chosen_block(
                    choice,
                    subtotal_minor,
                    below.filter(|_| !refused_for_it),
                    ctx,
                ));
                // At the summary, a complete choice shows the summary again
                // (with the fee); otherwise the next question — but not the
                // address of an order still below its zone's minimum.
                // (A summary asked in the same turn shows itself, and asks
                // what it lacks.)
                let reviewed = eval
                    .accepted()
                    .any(|(_, a)| a.effect == Effect::OrderReviewed);
                match missing {
                    Some(_) if placed || reviewed => {}
                    Some(Missing::Address) if below.is_some() => {}
                    // (At the summary a yes places the order: the address
                    // may come after it.)
                    Some(Missing::Address) if eval.state == State::Checkout => {
                        blocks.push(address_or_yes(ctx))
                    }
                    // «2 capuchinos para Sopocachi»: the way said beside an
                    // order still being made; its address is asked at the
                    // summary, not before the customer is done.
                    Some(Missing::Address) if ordering_beside(eval) => {}
                    Some(missing) => blocks.push(question(*missing, ctx)),
                    None if eval.state == State::Checkout && !reviewed => {
                        blocks.push(review_block(&eval.cart, eval, ctx))
                    }
                    None => {}
                }
            }
            Effect::OrderAddressSet { address } => {
                blocks.push(format!("Anotado: te lo enviamos a {address}."))
            }
            Effect::OrderCancelled { had_order } => {
                blocks.push(match (had_order, ctx.open_order) {
                    (true, Some(order)) => format!("Cancelé tu pedido #{}.", order.number),
                    _ => "Listo, cancelé tu pedido y vacié el carrito.".into(),
                })
            }
            Effect::Escalated => blocks.push(ESCALATED.into()),
            Effect::Replied => replied = true,
            Effect::Clarified => clarified = true,
        }
    }
    match quoted.as_slice() {
        [] => {}
        [(_, 1)] => {}
        [_] => blocks.push(super::messages::QUOTE_OFFER.into()),
        _ => blocks.push(format!(
            "Todo eso sumaría {} (sin contar el envío). {}",
            money(quoted.iter().map(|(minor, _)| minor).sum(), ctx.currency),
            super::messages::QUOTE_OFFER
        )),
    }
    let mut seen = BTreeSet::new();
    for (_, rejection) in eval.rejected() {
        let message = rejection_message(rejection, eval, ctx);
        if seen.insert(message.clone()) {
            blocks.push(message);
        }
    }
    if cart_touched && eval.state == State::CartOpen {
        blocks.push(cart_block(&eval.cart, ctx));
    }
    if clarified && !ctx.offer.is_empty() {
        blocks.push(numbered(ctx.offer.iter().copied(), ctx));
    }
    if ctx.offer_person {
        blocks.push(super::messages::OFFER_PERSON.into());
    }

    let proposal_text = proposal_text.trim();
    let mut replaced = None;
    let usable = if proposal_text.is_empty() {
        None
    } else if proposal_text.chars().count() > crate::proposal::MAX_RESPONSE_TEXT {
        replaced = Some("response_text longer than 500 characters".to_string());
        None
    } else if eval.rejected().next().is_some() {
        replaced = Some("some proposed actions were rejected".to_string());
        None
    } else {
        match unaccounted_number(proposal_text, &blocks, eval, ctx) {
            Some(number) => {
                replaced = Some(format!("number {number} not produced by the backend"));
                None
            }
            None => Some(proposal_text),
        }
    };

    // The greeting first, then what the proposer said, then the effects.
    let mut parts: Vec<String> = Vec::new();
    let mut blocks = blocks.into_iter();
    if ctx.greeted {
        parts.extend(blocks.next());
    }
    if let Some(text) = usable {
        parts.push(text.to_owned());
    }
    parts.extend(blocks);
    if parts.is_empty() || (parts.len() == 1 && ctx.greeted) {
        parts.push(
            if replied && !clarified && eval.decisions.iter().all(|d| d.outcome.is_ok()) {
                state_help(eval, ctx)
            } else {
                CLARIFY_DEFAULT.to_string()
            },
        );
    }
    let choices = if ctx.offer_person {
        vec!["Sí".to_string(), "No".to_string()]
    } else if clarified && !ctx.offer.is_empty() {
        ctx.offer
            .iter()
            .map(|id| ctx.catalog.name(*id).to_owned())
            .collect()
    } else if let Some(asked) = asked_next(eval, ctx.delivery) {
        asked_choices(asked, ctx)
    } else if eval.state == State::Checkout {
        checkout_choices()
    } else {
        Vec::new()
    };
    Reply {
        text: parts.join("\n\n"),
        replaced,
        choices,
    }
}

/// Products as a numbered list with their prices, for a reply of "2" to pick.
fn numbered(
    ids: impl Iterator<Item = crate::shop::core::ProductId>,
    ctx: &ReplyContext<'_>,
) -> String {
    ids.enumerate()
        .filter_map(|(i, id)| {
            ctx.catalog.get(id).map(|p| {
                format!(
                    "{}. {} — {}{}",
                    i + 1,
                    p.name,
                    money(p.price_minor, ctx.currency),
                    if p.available == Some(0) {
                        " (agotado)"
                    } else {
                        ""
                    }
                )
            })
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn catalog_block(ctx: &ReplyContext<'_>) -> String {
    let mut lines = vec!["Esto es lo que tenemos:".to_string()];
    let active: Vec<_> = ctx.catalog.active().collect();
    lines.push(numbered(
        active.iter().take(CATALOG_LINES).map(|p| p.id),
        ctx,
    ));
    if active.len() > CATALOG_LINES {
        lines.push("…y más: pregúntame por el producto que buscas.".into());
    }
    lines.push(super::messages::PICK_BY_NUMBER.into());
    lines.join("\n")
}

fn cart_lines(cart: &Cart, ctx: &ReplyContext<'_>) -> Vec<String> {
    cart.lines()
        .iter()
        .map(|l| {
            format!(
                "• {} × {} — {}",
                l.quantity,
                ctx.catalog.name(l.product_id),
                money(l.line_total_minor(), ctx.currency)
            )
        })
        .collect()
}

fn cart_block(cart: &Cart, ctx: &ReplyContext<'_>) -> String {
    let mut lines = vec!["Tu carrito:".to_string()];
    lines.extend(cart_lines(cart, ctx));
    lines.push(format!(
        "Total: {}",
        money(cart.total_minor(), ctx.currency)
    ));
    lines.push("Cuando termines, escribe «cuánto es» para revisar tu pedido.".into());
    lines.join("\n")
}

fn review_block(cart: &Cart, eval: &Evaluation, ctx: &ReplyContext<'_>) -> String {
    let mut lines = vec!["Resumen de tu pedido:".to_string()];
    lines.extend(cart_lines(cart, ctx));
    let settled = fulfilment::settle(ctx.delivery, eval.choice.as_ref(), cart.total_minor());
    let fee = settled.as_ref().map_or(0, |s| s.fee_minor);
    if let Some(settled) = &settled {
        lines.push(format!("• {}", fulfilment_line(settled, ctx)));
    }
    lines.push(format!(
        "Total: {}",
        money(cart.total_minor() + fee, ctx.currency)
    ));
    // Nothing said yet in a shop that also delivers: picked up unless the
    // customer says where to send it.
    if eval.choice.is_none() && ctx.delivery.asks() && ctx.delivery.pickup {
        // (Not numbered: a number here would be read as a count.)
        let zones = zone_list(ctx)
            .lines()
            .map(|line| match line.split_once(". ") {
                Some((_, zone)) => format!("• {zone}"),
                None => line.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        lines.push(format!(
            "Si prefieres que te lo enviemos, dime la zona y la dirección:\n{zones}"
        ));
    }
    match fulfilment::missing(ctx.delivery, eval.choice.as_ref()) {
        // (Below the zone's minimum a yes is refused: the address only.)
        Some(Missing::Address)
            if eval
                .choice
                .as_ref()
                .and_then(|c| below_minimum(c, cart.total_minor(), ctx))
                .is_none() =>
        {
            lines.push(address_or_yes(ctx))
        }
        Some(missing) => lines.push(question(missing, ctx)),
        None => lines.push(
            "¿Confirmas tu pedido? Responde «sí» para confirmar o «cancelar» para anularlo.".into(),
        ),
    }
    lines.join("\n")
}

/// How a settled order reaches the customer, with its fee.
fn fulfilment_line(settled: &Settled, ctx: &ReplyContext<'_>) -> String {
    match (&settled.zone, &settled.address) {
        (Some(zone), Some(address)) => format!(
            "Envío a {address}, {} — {}",
            zone.name,
            fee_text(settled.fee_minor, ctx)
        ),
        (Some(zone), None) => format!(
            "Envío a {} — {}",
            zone.name,
            fee_text(settled.fee_minor, ctx)
        ),
        _ => "Recoges en la tienda — sin costo".into(),
    }
}

/// A delivery fee as said: «gratis» when the order reached the zone's threshold.
fn fee_text(fee_minor: i64, ctx: &ReplyContext<'_>) -> String {
    if fee_minor == 0 {
        "gratis".into()
    } else {
        money(fee_minor, ctx.currency)
    }
}

/// The minimum order of the zone chosen, when the order is below it.
fn below_minimum(
    choice: &fulfilment::Choice,
    subtotal_minor: i64,
    ctx: &ReplyContext<'_>,
) -> Option<i64> {
    let zone = choice.zone_id.and_then(|id| ctx.delivery.zone(id))?;
    (choice.mode == Mode::Delivery)
        .then_some(zone.min_order_minor)
        .flatten()
        .filter(|minimum| subtotal_minor < *minimum)
}

/// What the customer just said about delivery, in the backend's words, and
/// the zone's minimum when the order is below it (`below`).
fn chosen_block(
    choice: &fulfilment::Choice,
    subtotal_minor: i64,
    below: Option<i64>,
    ctx: &ReplyContext<'_>,
) -> String {
    match choice.mode {
        Mode::Pickup => "Perfecto: lo recoges en la tienda.".into(),
        Mode::Delivery => match choice.zone_id.and_then(|id| ctx.delivery.zone(id)) {
            Some(zone) => {
                let fee = match zone.free_from_minor {
                    Some(free) if zone.fee_for(subtotal_minor) == 0 => format!(
                        "Envío a {}: gratis (pedidos desde {}).",
                        zone.name,
                        money(free, ctx.currency)
                    ),
                    _ => format!(
                        "Envío a {}: {}.",
                        zone.name,
                        money(zone.fee_minor, ctx.currency)
                    ),
                };
                // Said now, not only when the order is confirmed.
                match below {
                    Some(minimum) => format!(
                        "{fee} El pedido mínimo para envío a esa zona es {} (sin contar el envío) y tu pedido suma {}: puedes agregar algo más{}.",
                        money(minimum, ctx.currency),
                        money(subtotal_minor, ctx.currency),
                        if ctx.delivery.pickup {
                            " o recogerlo en la tienda"
                        } else {
                            ""
                        }
                    ),
                    _ => fee,
                }
            }
            None => "Te lo enviamos.".into(),
        },
    }
}

/// The shop's zones, numbered, with their fees and minimum orders.
fn zone_list(ctx: &ReplyContext<'_>) -> String {
    ctx.delivery
        .zones
        .iter()
        .enumerate()
        .map(|(i, zone)| {
            let mut line = format!(
                "{}. {} — {}",
                i + 1,
                zone.name,
                money(zone.fee_minor, ctx.currency)
            );
            if let Some(min) = zone.min_order_minor {
                line.push_str(&format!(" (pedido mínimo {})", money(min, ctx.currency)));
            }
            if let Some(free) = zone.free_from_minor {
                line.push_str(&format!(", gratis desde {}", money(free, ctx.currency)));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The question for what is missing before the order can be confirmed.
fn question(missing: Missing, ctx: &ReplyContext<'_>) -> String {
    let pickup = ctx.delivery.pickup;
    match missing {
        Missing::Mode if pickup => format!(
            "¿Cómo quieres recibir tu pedido? Puedes recogerlo en la tienda (sin costo) o te lo enviamos a una de estas zonas:\n{}",
            zone_list(ctx)
        ),
        Missing::Mode | Missing::Zone => format!(
            "¿A qué zona te lo enviamos?\n{}\nSi tu zona no está en la lista, por ahora no llegamos ahí{}.",
            zone_list(ctx),
            if pickup {
                "; puedes recogerlo en la tienda"
            } else {
                ""
            }
        ),
        Missing::Address => {
            "¿A qué dirección te lo enviamos? Escribe la calle, el número y una referencia.".into()
        }
    }
}

/// At a summary that has the zone and not the address: the address asked,
/// and the yes that places the order without it (the address is asked right
/// after, as the matrix allows).
fn address_or_yes(ctx: &ReplyContext<'_>) -> String {
    format!(
        "{} Si prefieres, responde «sí» para confirmar el pedido y me la das después.",
        question(Missing::Address, ctx)
    )
}

fn asked_choices(asked: Missing, ctx: &ReplyContext<'_>) -> Vec<String> {
    match asked {
        Missing::Mode if ctx.delivery.pickup => {
            vec!["Recoger en la tienda".into(), "Envío a domicilio".into()]
        }
        Missing::Mode | Missing::Zone => {
            ctx.delivery.zones.iter().map(|z| z.name.clone()).collect()
        }
        Missing::Address => Vec::new(),
    }
}

/// Whether the turn put products in the cart while it stays open: a way
/// chosen beside them waits for the summary to ask what it lacks.
fn ordering_beside(eval: &Evaluation) -> bool {
    eval.state == State::CartOpen
        && eval.accepted().any(|(_, a)| {
            matches!(a.effect, Effect::CartLineSet { previous, quantity, .. } if quantity > previous)
        })
}

/// What the bot asks next about delivery after this evaluation: remembered so
/// the next message is read as its answer.
pub fn asked_next(eval: &Evaluation, delivery: &Options) -> Option<Missing> {
    let set = eval.accepted().find_map(|(_, a)| match &a.effect {
        Effect::FulfilmentSet { missing, .. } => Some(*missing),
        _ => None,
    });
    let refused = eval.rejected().find_map(|(_, r)| match r {
        Rejection::FulfilmentMissing(missing) => Some(*missing),
        Rejection::ZoneNotFound(_) | Rejection::PickupUnavailable => Some(Missing::Zone),
        Rejection::MissingMode => Some(Missing::Mode),
        _ => None,
    });
    match (set, refused) {
        (_, Some(missing)) => Some(missing),
        (Some(Some(Missing::Address)), None) if ordering_beside(eval) => None,
        (Some(missing), None) => missing,
        (None, None) if eval.state == State::Checkout => {
            fulfilment::missing(delivery, eval.choice.as_ref())
        }
        // An order placed without its address asks it until it is given.
        (None, None) if eval.state == State::AwaitingPayment => eval
            .choice
            .as_ref()
            .filter(|c| c.mode == Mode::Delivery && c.address.is_none())
            .map(|_| Missing::Address),
        _ => None,
    }
}

fn confirmed_block(ctx: &ReplyContext<'_>, settled: Option<&Settled>) -> String {
    let Some(order) = ctx.confirmed_order else {
        return "¡Listo! Registré tu pedido.".into();
    };
    let mut text = format!(
        "¡Listo! Tu pedido #{} por {} quedó registrado.",
        order.number,
        money(order.total_minor, ctx.currency)
    );
    if let Some(settled) = settled {
        text.push(' ');
        text.push_str(&match (&settled.zone, &settled.address) {
            (Some(zone), Some(address)) if settled.fee_minor == 0 => {
                format!(
                    "Te lo enviamos a {address}, {}; el envío es gratis.",
                    zone.name
                )
            }
            (Some(zone), Some(address)) => format!(
                "Te lo enviamos a {address}, {}; el envío ({}) está incluido.",
                zone.name,
                money(settled.fee_minor, ctx.currency)
            ),
            (Some(zone), None) if settled.fee_minor == 0 => {
                format!("Te lo enviamos a {}; el envío es gratis.", zone.name)
            }
            (Some(zone), None) => format!(
                "Te lo enviamos a {}; el envío ({}) está incluido.",
                zone.name,
                money(settled.fee_minor, ctx.currency)
            ),
            _ => "Lo recoges en la tienda.".into(),
        });
    }
    if !ctx.payment_instructions.is_empty() {
        text.push(' ');
        text.push_str(ctx.payment_instructions);
    }
    text.push_str(" Cuando pagues, envíanos por aquí la foto del comprobante.");
    if settled.is_some_and(|s| s.zone.is_some() && s.address.is_none()) {
        text.push_str("\n\n");
        text.push_str(&question(Missing::Address, ctx));
    }
    text
}

fn state_help(eval: &Evaluation, ctx: &ReplyContext<'_>) -> String {
    match eval.state {
        State::AwaitingPayment => match ctx.open_order.or(ctx.confirmed_order) {
            Some(order) => format!(
                "Tu pedido #{} por {} está pendiente de pago. {}Envíanos por aquí la foto del comprobante.",
                order.number,
                money(order.total_minor, ctx.currency),
                if ctx.payment_instructions.is_empty() {
                    String::new()
                } else {
                    format!("{} ", ctx.payment_instructions)
                }
            ),
            None => "Tu pedido está pendiente de pago.".into(),
        },
        State::Checkout => review_block(&eval.cart, eval, ctx),
        State::CartOpen => cart_block(&eval.cart, ctx),
        State::HumanTakeover => ESCALATED.into(),
        _ => "¿En qué te ayudo? Escribe «catálogo» para ver nuestros productos.".into(),
    }
}

fn rejection_message(rejection: &Rejection, eval: &Evaluation, ctx: &ReplyContext<'_>) -> String {
    use crate::shop::core::ActionKind as K;
    match rejection {
        Rejection::Forbidden(_) => {
            "Los precios, descuentos y pagos los define el comercio; no puedo cambiarlos por aquí.".into()
        }
        Rejection::UnknownType(_) | Rejection::TooManyActions => {
            "Hubo parte de tu mensaje que no pude hacer; ¿me lo dices de otra forma?".into()
        }
        Rejection::NotAllowedInState { action, state } => match (action, state) {
            (_, State::Checkout) => {
                "Tu pedido está esperando confirmación: responde «sí» para confirmarlo o «cancelar» para empezar de nuevo.".into()
            }
            (_, State::AwaitingPayment) => match ctx.open_order {
                Some(order) => format!(
                    "Tu pedido #{} está pendiente de pago. Envía el comprobante o escribe «cancelar» para anularlo.",
                    order.number
                ),
                None => "Tu pedido está pendiente de pago. Envía el comprobante o escribe «cancelar».".into(),
            },
            // A confirmation before the summary was shown: the summary comes first.
            (K::ConfirmOrder, _) if !eval.cart.is_empty() => {
                "Antes de confirmar, revisa tu pedido: escribe «cuánto es» para ver el resumen con el total.".into()
            }
            (K::ConfirmOrder, _) | (K::ReviewOrder, _) | (K::ClearCart, _) => {
                "Tu carrito está vacío. Escribe «catálogo» para ver nuestros productos.".into()
            }
            (K::UpdateQuantity | K::RemoveItem, _) => "Ese producto no está en tu carrito.".into(),
            (K::CancelOrder, _) => "No tienes ningún pedido en curso para cancelar.".into(),
            _ => "Eso no lo puedo hacer en este momento.".into(),
        },
        Rejection::MissingProduct | Rejection::InvalidProduct(_) | Rejection::ProductNotFound(_) => {
            "No encontré ese producto en el catálogo. Escribe «catálogo» para ver lo que tenemos.".into()
        }
        Rejection::ProductInactive(id) => format!("{} no está disponible por ahora.", ctx.catalog.name(*id)),
        Rejection::MissingQuantity | Rejection::InvalidQuantity(_) => {
            "¿Cuántas unidades quieres? Dímelo con un número.".into()
        }
        Rejection::QuantityOutOfRange { .. } | Rejection::LineQuantityOutOfRange { .. } => {
            format!("Puedo anotar entre 1 y {MAX_QUANTITY} unidades de cada producto.")
        }
        Rejection::NotInCart(id) => format!("{} no está en tu carrito.", ctx.catalog.name(*id)),
        Rejection::CartEmpty => "Tu carrito está vacío. Escribe «catálogo» para ver nuestros productos.".into(),
        Rejection::FulfilmentMissing(missing) => question(*missing, ctx),
        Rejection::MissingMode => question(Missing::Mode, ctx),
        Rejection::PickupUnavailable => format!(
            "Por ahora no tenemos recojo en la tienda; te lo enviamos. {}",
            question(Missing::Zone, ctx)
        ),
        Rejection::DeliveryUnavailable => {
            "Por ahora no hacemos envíos: puedes recoger tu pedido en la tienda.".into()
        }
        Rejection::ZoneNotFound(_) => format!(
            "No encontré esa zona entre las que llegamos. {}",
            question(Missing::Zone, ctx)
        ),
        Rejection::BelowZoneMinimum {
            zone_id,
            min_order_minor,
        } => format!(
            "Para enviar a {} el pedido mínimo es {} (sin contar el envío). Puedes agregar algo más{}.",
            ctx.delivery.zone(*zone_id).map_or("esa zona", |z| z.name.as_str()),
            money(*min_order_minor, ctx.currency),
            if ctx.delivery.pickup {
                " o recogerlo en la tienda"
            } else {
                ""
            }
        ),
        Rejection::OutOfStock {
            product_id,
            available,
            ..
        } => super::messages::out_of_stock(ctx.catalog.name(*product_id), *available),
        Rejection::ConfirmWithoutReview => {
            if eval.state == State::Checkout {
                "Antes de confirmar, revisa el resumen de arriba.".into()
            } else {
                "Antes de confirmar necesito mostrarte el resumen de tu pedido.".into()
            }
        }
    }
}

/// The first number in `text` the backend cannot account for, if any.
fn unaccounted_number(
    text: &str,
    blocks: &[String],
    eval: &Evaluation,
    ctx: &ReplyContext<'_>,
) -> Option<String> {
    let mut allowed: BTreeSet<i64> = BTreeSet::new();
    for block in blocks {
        allowed.extend(numbers_in_hundredths(block));
    }
    for p in ctx.catalog.active() {
        allowed.insert(p.price_minor);
    }
    for cart in [&eval.cart, ctx.cart_before] {
        for line in cart.lines() {
            allowed.insert(line.quantity * 100);
            allowed.insert(line.line_total_minor());
        }
        allowed.insert(cart.total_minor());
        allowed.insert(cart.item_count() * 100);
    }
    for zone in &ctx.delivery.zones {
        allowed.insert(zone.fee_minor);
        allowed.extend(zone.min_order_minor);
        allowed.extend(zone.free_from_minor);
    }
    for order in [ctx.open_order, ctx.confirmed_order].into_iter().flatten() {
        allowed.insert(order.number * 100);
        allowed.insert(order.total_minor);
    }
    crate::text::unaccounted_number(text, &allowed)
}
