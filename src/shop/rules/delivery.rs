//! How the customer wants the order: «lo recojo», «envíenlo a Sopocachi, calle
//! Guachalla 123», a zone's number from the list, or the address the bot asked
//! for. Read only when the shop delivers, and read before anything else: an
//! address's numbers are never quantities.

use super::lexicon::{self, any};
use crate::shop::contract::{DeliveryView, ProposalInput, ProposedAction};
use crate::shop::core::{Missing, Mode, State};
use crate::text::{contains_phrase, normalize, token_number, tokens};

/// Picking the order up.
pub const PICKUP: &[&str] = &[
    "recoger",
    "recojo",
    "recogo",
    "recogerlo",
    "recogerla",
    "recogerlos",
    "recojer",
    "recojerlo",
    "recojerla",
    "recojerlos",
    "lo recojo",
    "paso a recoger",
    // «paso a las 10 por él»: the customer comes by.
    "paso a las",
    "pasamos a las",
    "paso como a las",
    "paso en",
    "pasamos en",
    "paso por el",
    "paso por la",
    "pasamos por el",
    "pasamos por ella",
    "paso yo",
    // «confirmo y ahorita paso por ellos», «confirmo, paso ahora», «paso
    // por ahí a las 8».
    "paso por ahi",
    "pasamos por ahi",
    "paso por ellos",
    "paso por ellas",
    "pasamos por ellos",
    "pasamos por ellas",
    "paso ahora",
    "paso ahorita",
    "ahorita paso",
    "paso mas tarde",
    "paso luego",
    "voy yo",
    "retiro",
    "retirar",
    "retirarlo",
    "lo retiro",
    "para llevar",
    "en tienda",
    "en la tienda",
    "en el local",
    "pickup",
    "pick up",
    "pick it up",
    "paso a buscar",
    "pasamos a buscar",
    "paso a buscarlo",
    "paso a buscarla",
    "pasamos a buscarlo",
    "lo paso a buscar",
    // Venezuela's «paso buscándolo»: I come by for it.
    "paso buscandolo",
    "paso buscandola",
    "paso buscando",
    "pasamos buscandolo",
    "pasamos buscando",
    "lo recogemos",
    "la recogemos",
    "lo busco",
    "lo buscamos",
    "voy a buscarlo",
    // «lo manda a buscar mi hermano», «viene a recogerlo mi esposo»: someone
    // comes by for it.
    "manda a buscar",
    "mando a buscar",
    "mandamos a buscar",
    "mandare a buscar",
    "viene a buscar",
    "vienen a buscar",
    "va a buscar",
    "van a buscar",
    // «lo recoge nuestro mensajero», «pasa a recogerlo mi chofer» (not «el
    // repartidor lo recoge y me lo lleva»).
    "lo recoge mi",
    "lo recoge nuestro",
    "lo recoge nuestra",
    "lo recoge su",
    "lo retira mi",
    "lo retira nuestro",
    "pasa a recoger",
    "pasa a recogerlo",
    "pasa a buscar",
    "pasa a buscarlo",
    "viene a recoger",
    "viene a recogerlo",
];

/// «retiro», «retirarlo»: a verb of picking up that is also one of taking
/// out, read as pickup only where no product is named.
pub fn picks_up(word: &str) -> bool {
    word.starts_with("retir") && PICKUP.iter().any(|p| p.split(' ').any(|w| w == word))
        || matches!(word, "retiramos" | "retirare" | "retiraremos")
}

/// Having it brought.
const DELIVERY: &[&str] = &[
    "delivery",
    "domicilio",
    "a domicilio",
    "envio",
    "envios",
    "enviar",
    "envien",
    "envienlo",
    "envienla",
    "envialo",
    "enviamelo",
    "enviamela",
    "enviarlo",
    "me lo envian",
    "me lo traen",
    "traer",
    "traigan",
    "traiganlo",
    "me lo lleven",
    "llevenlo",
    "llevamelo",
    "mandalo",
    "mandala",
    "mandamelo",
    "mandamela",
    "mandenlo",
    "mandenmelo",
    "mandenmela",
    "mandemelo",
    "mandemela",
    "mandelo",
    "mandela",
    "envielo",
    "enviemelo",
    "envienmelo",
    "traemelo",
    "traiganmelo",
    "llevemelo",
    "llevenmelo",
    "me lo mandan",
    "me lo mandas",
    // «me lo manda a San Pedro», «nos lo envía a Obrajes» (usted).
    "me lo manda",
    "me la manda",
    "me los manda",
    "nos lo manda",
    "me lo envia",
    "me la envia",
    "nos lo envia",
    "me lo trae",
    "me lo lleva",
    "despacho",
    "deliver",
    "send it",
];

/// Words that start the street part of an address.
const STREET: &[&str] = &[
    "calle",
    "c/",
    "av",
    "av.",
    "avenida",
    "pasaje",
    "psje",
    "nro",
    "n°",
    "numero",
    "número",
    "#",
    "esquina",
    "edificio",
    "edif",
    "casa",
    "depto",
    "departamento",
    "piso",
    "manzana",
    "mz",
    "lote",
    "barrio",
    "urbanizacion",
    "urbanización",
    "condominio",
    "frente",
];

/// The SET_FULFILMENT the message makes, when the shop delivers and the cart is
/// being checked out.
pub fn read(input: &ProposalInput) -> Option<ProposedAction> {
    // «y un americano para llevar»: an order of a product, the way beside it
    // (unless the bot asked for the way).
    let text = normalize(&input.customer_message);
    // (In the cart or at the summary, with the address asked, a product
    // named is an order too: «mejor que sean 4 capuchinos» is no address.)
    if (input.asked.is_none() || product_beats_address(input.current_state, input.asked))
        && !super::mentions::find(&tokens(&text), &input.product_catalog).is_empty()
    {
        return None;
    }
    read_message(
        &input.customer_message,
        input.delivery.as_ref()?,
        input.asked,
        input.current_state,
    )
}

/// Whether a product named in this state, with this question open, makes the
/// message an order rather than the address asked (in the cart or at the
/// summary; after the order is placed the address is all that is asked).
pub fn product_beats_address(state: State, asked: Option<Missing>) -> bool {
    matches!(state, State::CartOpen | State::Checkout) && asked == Some(Missing::Address)
}

/// `read`, from the message and what the turn knows of delivery: the plan asks
/// this before classifying a message (an address is no small talk).
pub fn read_message(
    message: &str,
    delivery: &DeliveryView,
    asked: Option<Missing>,
    state: State,
) -> Option<ProposedAction> {
    // (An order placed for delivery without its address waits for it: only
    // the address is read then, as it was asked.)
    // (A street or a number is needed, nothing of another way or zone —
    // «muchas gracias», «mejor lo recojo yo», «…a Obrajes, calle 5» on
    // another zone's order are no address of it.)
    if state == State::AwaitingPayment && asked == Some(Missing::Address) {
        let raw = message.trim();
        let text = normalize(raw);
        let found = address_in(raw);
        let street = found.as_deref().is_some_and(starts_with_a_street_word)
            || raw.chars().any(|c| c.is_ascii_digit());
        let own_zone = delivery.chosen.as_ref().and_then(|c| c.zone_id);
        let zone_named = delivery.zones.iter().any(|z| {
            Some(z.zone_id) != own_zone
                && places_of(&z.name).any(|place| contains_phrase(&text, &place))
        });
        let other_way = any(&text, PICKUP) || zone_named || lexicon::clears(&text);
        if !street || other_way || !looks_like_an_address(raw, &text) {
            return None;
        }
        let address = found.unwrap_or_else(|| raw.to_owned());
        let address = address
            .trim_end_matches(['.', ',', ';', '!', ' '])
            .to_owned();
        return Some(
            ProposedAction::new("SET_FULFILMENT")
                .mode(Mode::Delivery)
                .address(&address),
        );
    }
    if !matches!(state, State::CartOpen | State::Checkout) {
        return None;
    }
    let raw = message.trim();
    let text = normalize(raw);
    let words = tokens(&text);
    if words.is_empty() {
        return None;
    }
    // («ahorita paso la dirección»: sent, not come by.)
    let wants_pickup = any(&text, PICKUP) && !sends_a_thing(&text);
    // («no necesito que me lo traigan, mi hija pasa a recogerlo»: a way
    // refused is none chosen.)
    let wants_delivery = any(&text, DELIVERY) && !refuses_delivery(&words);
    // «¿cuánto cobran de envío a Calacoto?»: a question about delivery is the
    // knowledge's, no choice of the way.
    // («¿puedo pasar a recogerlo yo?» too: asked, not chosen.)
    if (asks_about_it(&words) || raw.contains(['?', '¿']))
        && !matches!(asked, Some(Missing::Zone | Missing::Address))
    {
        return None;
    }
    let zone = delivery
        .zones
        .iter()
        .filter(|z| {
            let name = normalize(&z.name);
            !name.is_empty() && contains_phrase(&text, &name)
        })
        .max_by_key(|z| z.name.len())
        .map(|z| z.zone_id);
    let answering_list = matches!(asked, Some(Missing::Mode | Missing::Zone));
    // «2», «la 2», «la segunda» after the list of zones.
    let numbered = if answering_list {
        picked(&words)
            .filter(|n| (1..=delivery.zones.len()).contains(n))
            .map(|n| delivery.zones[n - 1].zone_id)
    } else {
        None
    };
    // «la 2» picks a zone; it is no address.
    let address = if numbered.is_some() && zone.is_none() {
        None
    } else {
        address_in(raw)
    };
    // «a Obrajes, calle 10»: one of the places a zone's name lists
    // («Zona 2 (Miraflores, Obrajes, San Jorge)»), where the message sends
    // the order somewhere (never beside a pickup said alone).
    // (An address is one that starts with a street word: «llego en 20
    // minutos» is no address, «estoy en el centro» no place to send to.)
    let street = address.as_deref().is_some_and(starts_with_a_street_word);
    // At the summary, which invites the zone: «confirmo, a El Prado» — the
    // place right after «a», «al», «para» or «hasta» («estoy en el centro»,
    // «para mi tía de Obrajes» send nothing there).
    let sent_to = state == State::Checkout
        && delivery.zones.iter().any(|z| {
            places_of(&z.name).any(|place| {
                let place = tokens(&place);
                words
                    .windows(place.len() + 1)
                    .any(|w| matches!(w[0], "a" | "al" | "para" | "hasta") && w[1..] == place[..])
            })
        });
    let sends = wants_delivery || answering_list || street || sent_to;
    let zone = zone.or_else(|| {
        (sends && (wants_delivery || !wants_pickup))
            .then(|| place_zone(&text, delivery))
            .flatten()
    });
    // In the cart, nothing asked, a message that also closes, clears or calls
    // off the order is read for that («paso a recogerlo yo, eso sería todo»,
    // «borrá todo, pedimos para llevar»); delivery said beside a close is
    // read. A pickup said alone («recojo», «paso a recoger en tienda»)
    // chooses it: it is all the message says.
    // (Not a pickup refused or told of someone else: «no voy a poder pasar a
    // recogerlo», «ayer mi hermano vino a recoger».)
    let pickup_doubtful =
        pickup_refused(&words) || any(&text, &["vino a", "fue a", "vinieron a", "fueron a"]);
    if state == State::CartOpen
        && asked.is_none()
        && !wants_delivery
        && zone.is_none()
        // («eso es todo, lo recojo yo»: the pickup is chosen, and the plan
        // shows the summary it closes with.)
        && ((any(&text, lexicon::DONE) && !(wants_pickup && super::says_done(&text)))
            || any(&text, lexicon::CLEAR)
            || any(&text, lexicon::CANCEL)
            || pickup_doubtful)
    {
        return None;
    }
    if wants_pickup && !wants_delivery && zone.is_none() {
        return Some(ProposedAction::new("SET_FULFILMENT").mode(Mode::Pickup));
    }
    if let Some(zone) = zone.or(numbered) {
        let mut action = ProposedAction::new("SET_FULFILMENT")
            .mode(Mode::Delivery)
            .zone(zone);
        if let Some(address) = address {
            action = action.address(&address);
        }
        return Some(action);
    }
    // (In the cart, an address has a street or a number, and a change to the
    // cart is none: «perdón, dije tres chocolates, eran cuatro», «quíteme
    // los chocolates y póngame dos americanos».)
    let street_named = words.iter().any(|w| STREET.contains(w));
    let changes_cart = words
        .iter()
        .any(|w| lexicon::adds(w) || lexicon::removes(w) || lexicon::ADD.contains(w));
    // (At the summary, too, a change to the cart is no address: «agrégame un
    // brownie también».)
    let addressed = match state {
        State::CartOpen => {
            street_named || (raw.chars().any(|c| c.is_ascii_digit()) && !changes_cart)
        }
        State::Checkout => street_named || !changes_cart,
        _ => true,
    };
    if asked == Some(Missing::Address) && addressed && looks_like_an_address(raw, &text) {
        return Some(
            ProposedAction::new("SET_FULFILMENT")
                .mode(Mode::Delivery)
                .address(raw),
        );
    }
    if wants_delivery {
        let mut action = ProposedAction::new("SET_FULFILMENT").mode(Mode::Delivery);
        if let Some(address) = address {
            action = action.address(&address);
        } else if let Some(place) = place_named(&words) {
            // «mándalo a El Alto»: a place that is no zone is named, so the
            // backend says honestly it does not deliver there.
            action.params.zone_id = Some(serde_json::Value::from(place));
        }
        return Some(action);
    }
    // A place the list does not have («El Alto»), said where a zone was asked:
    // named, so the backend answers honestly that it does not deliver there.
    if asked == Some(Missing::Zone) && names_a_place(&text) {
        let mut action = ProposedAction::new("SET_FULFILMENT").mode(Mode::Delivery);
        action.params.zone_id = Some(serde_json::Value::from(
            raw.chars().take(40).collect::<String>(),
        ));
        return Some(action);
    }
    None
}

/// The zone one of whose places the text names: a zone's name lists them after
/// its label («Zona 1 (Sopocachi, San Pedro, Centro)»); the longest place wins.
/// The places a zone's name lists, folded: «Zona 3 (Calacoto, San Miguel,
/// Achumani y Irpavi)» is «zona 3», «calacoto», «san miguel», «achumani»,
/// «irpavi».
fn places_of(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(['(', ')', ',', ';', '/', ':', '-', '–'])
        .flat_map(|part| part.split(" y "))
        .map(normalize)
        .filter(|place| !place.is_empty())
}

fn place_zone(text: &str, delivery: &DeliveryView) -> Option<i64> {
    let found: Vec<(String, i64)> = delivery
        .zones
        .iter()
        .flat_map(|z| places_of(&z.name).map(|place| (place, z.zone_id)))
        .filter(|(place, _)| contains_phrase(text, place))
        .collect();
    // Places of two zones («al Centro… yo vivo en Irpavi»): which is asked.
    match found.as_slice() {
        [(_, first), rest @ ..] if rest.iter().all(|(_, id)| id == first) => Some(*first),
        _ => None,
    }
}

/// «no necesito que me lo traigan», «sin delivery»: a word of delivery with a
/// «no» or «sin» at most five words before it, and no way of picking up in
/// between («no puedo ir a recoger, tráiganmelo» refuses the pickup; «ni
/// modo», «sin falta» refuse nothing).
fn refuses_delivery(words: &[&str]) -> bool {
    words.iter().enumerate().any(|(at, w)| {
        DELIVERY.contains(w)
            && words[at.saturating_sub(5)..at]
                .iter()
                .enumerate()
                .any(|(k, b)| {
                    let after = &words[at.saturating_sub(5) + k + 1..at];
                    matches!(*b, "no" | "sin" | "ni")
                        && !matches!(after.first(), Some(&("modo" | "falta")))
                        && !after.iter().any(|a| pickup_verb(a))
                })
    })
}

/// A verb of picking up, any person («recoger», «recojo», «retirar»).
fn pickup_verb(word: &str) -> bool {
    ["recog", "recoj", "retir"]
        .iter()
        .any(|stem| word.starts_with(stem))
}

/// Whether an address read starts with a street word («calle 10 #455», «av.
/// Busch 1230»), not merely with a number («20 minutos»).
fn starts_with_a_street_word(address: &str) -> bool {
    address.split_whitespace().next().is_some_and(|first| {
        let bare = first
            .to_lowercase()
            .trim_matches(|c: char| c == ',' || c == ':' || c == ';')
            .to_owned();
        STREET.contains(&bare.as_str()) || bare.starts_with('#')
    })
}

/// A question about delivery («¿cuánto cobran de envío?», «¿llegan a
/// Calacoto?», «¿cuánto tarda?»), not a way chosen.
fn asks_about_it(words: &[&str]) -> bool {
    words.iter().any(|w| {
        matches!(
            *w,
            "cuanto"
                | "cuanta"
                | "cuantos"
                | "tarda"
                | "tardan"
                | "tardaria"
                | "demora"
                | "demoran"
                | "cobran"
                | "cobrarian"
                | "cuesta"
                | "cuestan"
                | "costo"
                | "precio"
                | "llegan"
                | "hacen"
                | "horario"
                | "gratis"
                | "minimo"
        )
    })
}

/// «ahorita paso la dirección», «paso luego el comprobante»: a thing sent
/// after «paso» says it is sent, nobody comes by (folded text).
fn sends_a_thing(folded: &str) -> bool {
    let words: Vec<&str> = folded.split_whitespace().collect();
    words.iter().enumerate().any(|(k, w)| {
        *w == "paso"
            && words[k + 1..].iter().take(4).any(|x| {
                matches!(
                    *x,
                    "direccion"
                        | "ubicacion"
                        | "comprobante"
                        | "datos"
                        | "foto"
                        | "captura"
                        | "numero"
                        | "qr"
                        | "nit"
                        | "referencia"
                        | "pin"
                        | "link"
                )
            })
    })
}

/// The way the words ask for the order, pickup or delivery (an address is
/// delivery), whatever the shop offers; `None` when they say neither or both.
pub fn mode_said(text: &str) -> Option<Mode> {
    let folded = normalize(text);
    // «te paso en un rato la dirección», «le paso a las 5 el comprobante»: I
    // send you, nobody comes by.
    let sent = [
        " te paso ",
        " le paso ",
        " les paso ",
        " te pasamos ",
        " le pasamos ",
    ]
    .iter()
    .fold(format!(" {folded} "), |t, p| t.replace(p, " te envio "));
    let pickup = !sends_a_thing(&folded) && any(sent.trim(), PICKUP);
    let delivery = any(&folded, DELIVERY)
        || address_in(text).is_some_and(|a| {
            let first = normalize(a.split_whitespace().next().unwrap_or_default());
            STREET.contains(&first.as_str())
        });
    match (pickup, delivery) {
        (true, false) => Some(Mode::Pickup),
        (false, true) => Some(Mode::Delivery),
        _ => None,
    }
}

/// «2 capuchinos y 2 brownies para Sopocachi», «quiero un americano, para
/// enviar a Obrajes», «me manda un cheesecake a Calacoto»: delivery said
/// beside an order of products, in so many words — a zone's place sent to or
/// a word of sending. Not a question nor a hypothesis («si agrego uno, el
/// delivery sale gratis, ¿verdad?»), and nothing when coming by is said too
/// (pickup, the shop's default, needs no choosing beside an order).
pub fn beside_an_order(input: &ProposalInput) -> Option<ProposedAction> {
    let delivery = input.delivery.as_ref()?;
    let raw = input
        .as_written
        .as_deref()
        .unwrap_or(&input.customer_message);
    if raw.contains(['?', '¿']) {
        return None;
    }
    let text = normalize(raw);
    let words = tokens(&text);
    if words
        .iter()
        .any(|w| matches!(*w, "si" | "verdad" | "cierto" | "sera"))
    {
        return None;
    }
    let sent_to = delivery.zones.iter().find_map(|z| {
        places_of(&z.name)
            .any(|place| {
                let place = tokens(&place);
                // («para Sopocachi», «para el Centro», «a la Zona 2».)
                !place.is_empty()
                    && (0..words.len()).any(|k| {
                        matches!(words[k], "a" | "al" | "para" | "hasta") && {
                            let at = k
                                + 1
                                + usize::from(matches!(words.get(k + 1), Some(&("el" | "la"))));
                            words.get(at..at + place.len()) == Some(&place[..])
                        }
                    })
            })
            .then_some(z.zone_id)
    });
    let sends = DELIVERY
        .iter()
        .filter(|p| !matches!(**p, "traer" | "deliver"))
        .any(|p| contains_phrase(&text, p))
        && !refuses_delivery(&words);
    let comes_by = PICKUP
        .iter()
        .filter(|p| {
            !matches!(
                **p,
                "para llevar"
                    | "en tienda"
                    | "en la tienda"
                    | "en el local"
                    | "paso en"
                    | "pasamos en"
            )
        })
        .any(|p| contains_phrase(&text, p))
        && !sends_a_thing(&text)
        && !pickup_refused(&words);
    match (sent_to.is_some() || sends, comes_by) {
        (true, false) => {
            let mut action = ProposedAction::new("SET_FULFILMENT").mode(Mode::Delivery);
            if let Some(zone) = sent_to.or_else(|| place_zone(&text, delivery)) {
                action = action.zone(zone);
            }
            Some(action)
        }
        _ => None,
    }
}

/// «no voy a poder pasar a recogerlo»: a verb of coming by with a «no» in the
/// six words before it.
fn pickup_refused(words: &[&str]) -> bool {
    words.iter().enumerate().any(|(at, w)| {
        pickup_verb(w)
            && words[at.saturating_sub(6)..at]
                .iter()
                .any(|b| matches!(*b, "no" | "ni" | "nunca"))
    })
}

/// Whether the message speaks of pickup or delivery at all (for grounding a
/// model's SET_FULFILMENT).
pub fn mentions(input: &ProposalInput) -> bool {
    let text = normalize(&input.customer_message);
    input.asked.is_some() || any(&text, PICKUP) || any(&text, DELIVERY) || read(input).is_some()
}

/// The street part of the message, from its first street word or number.
fn address_in(raw: &str) -> Option<String> {
    let lower = raw.to_lowercase();
    let mut at = None;
    for (i, word) in lower.split_whitespace().enumerate() {
        let bare = word.trim_matches(|c: char| c == ',' || c == ':' || c == ';');
        let street = STREET.contains(&bare) || bare.starts_with('#');
        let number = bare.chars().any(|c| c.is_ascii_digit());
        if street || (number && i > 0) {
            at = Some(i);
            break;
        }
    }
    let at = at?;
    let address: Vec<&str> = raw.split_whitespace().skip(at).collect();
    // A bare number is no address («2 porfa»); a street word or two words are.
    let address = address.join(" ");
    (starts_with_a_street_word(&address) || raw.split_whitespace().count() - at >= 2)
        .then_some(address)
}

/// An answer to «¿a qué dirección?»: not a yes, a no, a cancel or a question.
fn looks_like_an_address(raw: &str, text: &str) -> bool {
    let words = tokens(text);
    // («ahí te mandé el comprobante de la transferencia» tells a payment.)
    let command = any(text, lexicon::CONFIRM)
        || any(text, lexicon::DENY)
        || any(text, lexicon::CANCEL)
        || raw.contains('?')
        || (words.iter().any(|w| {
            w.starts_with("comprobante")
                || w.starts_with("transferi")
                || matches!(
                    *w,
                    "pague" | "pagado" | "pagada" | "captura" | "deposite" | "qr" | "pago"
                )
        }) && !words.iter().any(|w| STREET.contains(w)));
    !command && (words.len() >= 2 || raw.chars().any(|c| c.is_ascii_digit()))
}

/// Ordinal words a list is answered with.
const ORDINALS: &[(&str, usize)] = &[
    ("primera", 1),
    ("primero", 1),
    ("segunda", 2),
    ("segundo", 2),
    ("tercera", 3),
    ("tercero", 3),
    ("cuarta", 4),
    ("cuarto", 4),
    ("quinta", 5),
    ("quinto", 5),
];

/// Words around a pick from a list: «la 2», «opción 3», «la segunda porfa».
const AROUND_A_PICK: &[&str] = &[
    "la", "el", "opcion", "numero", "nro", "zona", "de", "esa", "ese", "porfa", "por", "favor",
    "xfa", "pls", "entonces", "mejor", "a",
];

/// The number of the item a short answer picks from a list.
fn picked(words: &[&str]) -> Option<usize> {
    if words.is_empty() || words.len() > 4 {
        return None;
    }
    let mut found = None;
    for word in words {
        let n = token_number(word)
            .and_then(|n| usize::try_from(n).ok())
            .or_else(|| ORDINALS.iter().find(|(w, _)| w == word).map(|(_, n)| *n));
        match n {
            Some(n) if found.is_none() => found = Some(n),
            Some(_) => return None,
            None if AROUND_A_PICK.contains(word) => {}
            None => return None,
        }
    }
    found
}

/// The place a delivery request names after «a», «hasta», «para» or «en»
/// («mándalo a El Alto xfa» → «el alto»), when it is a few plain words.
fn place_named(words: &[&str]) -> Option<String> {
    let at = words
        .iter()
        .rposition(|w| matches!(*w, "a" | "hasta" | "para" | "en" | "al"))?;
    let place: Vec<&str> = words[at + 1..]
        .iter()
        .copied()
        .filter(|w| {
            !matches!(
                *w,
                "porfa" | "xfa" | "pls" | "plis" | "por" | "favor" | "please" | "gracias"
            )
        })
        .collect();
    let plain = !place.is_empty()
        && place.len() <= 4
        && place
            .iter()
            .all(|w| token_number(w).is_none() && !DELIVERY.contains(w) && !PICKUP.contains(w));
    plain.then(|| place.join(" "))
}

/// A few words that could name a place (no digits, no question, no yes or no).
fn names_a_place(text: &str) -> bool {
    let words = tokens(text);
    (1..=4).contains(&words.len())
        && !words.iter().any(|w| token_number(w).is_some())
        && !any(text, lexicon::THANKS)
        && !any(text, lexicon::CONFIRM)
        && !any(text, lexicon::DENY)
        && !any(text, lexicon::CANCEL)
}

/// The demo shop's delivery for tests: pickup, and three zones each naming
/// its places.
#[cfg(test)]
pub(super) fn demo_zones() -> DeliveryView {
    let zone = |zone_id, name: &str, fee_minor| crate::shop::contract::ZoneEntry {
        zone_id,
        name: name.into(),
        fee_minor,
        min_order_minor: Some(4000),
        free_from_minor: None,
    };
    DeliveryView {
        pickup: true,
        zones: vec![
            zone(1, "Zona 1 (Sopocachi, San Pedro, Centro, El Prado)", 800),
            zone(2, "Zona 2 (Miraflores, Obrajes, San Jorge)", 1200),
            zone(3, "Zona 3 (Calacoto, San Miguel, Achumani y Irpavi)", 2000),
        ],
        chosen: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_street_part_starts_at_its_first_street_word_or_number() {
        assert_eq!(
            address_in("Envíenlo a Sopocachi, calle Guachalla 123").as_deref(),
            Some("calle Guachalla 123")
        );
        assert_eq!(
            address_in("a Miraflores av. Busch #1420, edificio Azul").as_deref(),
            Some("av. Busch #1420, edificio Azul")
        );
        assert_eq!(address_in("delivery a Sopocachi porfa"), None);
        assert_eq!(address_in("la 2"), None);
    }

    #[test]
    fn a_pick_from_a_list_and_a_place_are_read_in_few_words() {
        assert_eq!(picked(&["la", "2"]), Some(2));
        assert_eq!(picked(&["la", "segunda", "porfa"]), Some(2));
        assert_eq!(picked(&["opcion", "3"]), Some(3));
        assert_eq!(picked(&["2", "y", "3"]), None);
        assert_eq!(picked(&["quiero", "2"]), None);
        assert_eq!(
            place_named(&["mandalo", "a", "el", "alto", "xfa"]).as_deref(),
            Some("el alto")
        );
        assert_eq!(place_named(&["a", "domicilio"]), None);
        assert_eq!(place_named(&["delivery", "pls"]), None);
    }

    fn grouped() -> DeliveryView {
        super::demo_zones()
    }

    fn zone_of(action: &ProposedAction) -> Option<i64> {
        action.params.zone_id.as_ref().and_then(|z| z.as_i64())
    }

    #[test]
    fn a_place_a_zone_lists_is_that_zone_where_the_order_is_sent() {
        let view = grouped();
        let read = |text| read_message(text, &view, None, State::Checkout);
        let sent = read("sí, va a Calacoto calle 21 número 8040").unwrap();
        assert_eq!(zone_of(&sent), Some(3));
        assert_eq!(sent.params.address.as_deref(), Some("calle 21 número 8040"));
        assert_eq!(
            zone_of(&read("mándamelo a San Pedro, calle Nicolás Acosta 455").unwrap()),
            Some(1)
        );
        assert_eq!(zone_of(&read("delivery a irpavi porfa").unwrap()), Some(3));
        // At the summary, which invites the zone, a place sent to is chosen.
        assert_eq!(zone_of(&read("Confirmo, a El Prado").unwrap()), Some(1));
        assert!(read("a El Prado").is_some_and(|a| zone_of(&a) == Some(1)));
        // Where one is, or whom it is for, is no place to send it.
        assert!(read("confirmo, estoy en el centro, pago al llegar").is_none());
        assert!(read("confirmo. voy a estar en Sopocachi hasta las 6").is_none());
        assert!(read("sí, confirmo, es para mi tía de Obrajes").is_none());
        // (Not in the cart, where nothing invited it.)
        assert!(read_message("a El Prado", &view, None, State::CartOpen).is_none());
        // A place beside a pickup said alone is where the customer is, not
        // where to send it.
        let picked = read("paso a recoger, estoy en el centro").unwrap();
        assert_eq!(
            picked.params.mode.as_ref().and_then(|m| m.as_str()),
            Some("pickup")
        );
        // Asked about, not chosen.
        assert!(read("cuánto cobran de envío a calacoto y cuánto tarda").is_none());
        assert!(read("¿me lo pueden mandar a Obrajes?").is_none());
    }

    #[test]
    fn a_number_or_a_place_where_one_is_is_no_delivery() {
        let view = grouped();
        let read = |text| read_message(text, &view, None, State::Checkout);
        // «20 minutos» is no address and «el centro» is where one is.
        assert!(read("confirmo, estoy en el centro, llego en 20 minutos").is_none());
        // Places of two zones: which is asked (no zone chosen).
        let two = read("mándalo al Centro, calle Comercio 200, yo vivo en Irpavi").unwrap();
        assert_eq!(zone_of(&two), None);
        // Delivery said beside a close, in the cart, is read.
        let closing = read_message(
            "listo, mándalo a Obrajes, calle 10 #455",
            &view,
            None,
            State::CartOpen,
        )
        .unwrap();
        assert_eq!(zone_of(&closing), Some(2));
    }

    #[test]
    fn someone_sent_for_it_is_a_pickup_and_a_payment_told_is_no_address() {
        let view = grouped();
        let read = |text| read_message(text, &view, None, State::Checkout);
        let mode = |a: Option<ProposedAction>| {
            a.and_then(|a| a.params.mode.and_then(|m| m.as_str().map(str::to_owned)))
        };
        assert_eq!(
            mode(read("confirmo, lo manda a buscar mi hermano a la tienda")).as_deref(),
            Some("pickup")
        );
        // «ahorita paso la dirección»: a thing sent, nobody comes by.
        for sent in [
            "sí, ahorita paso la dirección",
            "confirmo, paso luego el comprobante",
            "ok paso ahora la ubicación",
        ] {
            assert_eq!(mode(read(sent)), None, "{sent}");
            assert_eq!(mode_said(sent), None, "{sent}");
        }
        assert_eq!(
            mode(read("sí, ahorita paso por ellos")).as_deref(),
            Some("pickup")
        );
        assert_eq!(
            mode(read("viene a recogerlo mi esposo")).as_deref(),
            Some("pickup")
        );
        // («mándame a mi correo la factura» sends no order.)
        assert!(read("mándame a mi correo la factura").is_none());
        // Asked for the address, a payment told is not one; a street said
        // beside the payment is still the address.
        let at_address = |text| read_message(text, &view, Some(Missing::Address), State::Checkout);
        assert!(at_address("ahí te mandé el comprobante de la transferencia").is_none());
        assert!(at_address("te pagué por qr, es en la calle Landaeta 540").is_some());
        assert!(at_address("calle Landaeta 540, casa verde").is_some());
    }

    #[test]
    fn in_the_cart_a_close_is_left_to_the_order_and_a_pickup_said_alone_chosen() {
        let view = grouped();
        let read = |text| read_message(text, &view, None, State::CartOpen);
        assert!(read("borra todo del carrito, vamos a ver qué pedimos para llevar").is_none());
        assert!(read("ya, eso sería todo").is_none());
        let pickup = |text| {
            read(text)
                .and_then(|a| a.params.mode)
                .and_then(|m| m.as_str().map(str::to_owned))
        };
        // The pickup said with the close is chosen (the summary is asked with
        // it, by the plan and the rules).
        assert_eq!(
            pickup("ya, entonces paso a recogerlo yo, eso sería todo").as_deref(),
            Some("pickup")
        );
        assert_eq!(pickup("paso a recogerlo").as_deref(), Some("pickup"));
        assert_eq!(pickup("recojo").as_deref(), Some("pickup"));
        // A pickup refused or told of someone else chooses nothing.
        assert!(read("no voy a poder pasar a recogerlo").is_none());
        assert!(read("ayer mi hermano vino a recoger y no había nada").is_none());
        // A pickup refused leaves the delivery asked for.
        let delivery = |text| {
            read(text)
                .and_then(|a| a.params.mode)
                .and_then(|m| m.as_str().map(str::to_owned))
        };
        assert_eq!(
            delivery("no puedo ir a recoger, tráiganmelo").as_deref(),
            Some("delivery")
        );
        // A delivery refused is none chosen: the pickup beside it is.
        assert_eq!(
            pickup(
                "no necesito que me lo traigan voy a mandar a mi hija a recogerlo ella pasa por ahi"
            )
            .as_deref(),
            Some("pickup")
        );
        // Where the bot asked for a zone, thanks are no place.
        assert!(read_message("gracias", &view, Some(Missing::Zone), State::Checkout).is_none());
    }

    /// In the cart, with the address asked after a zone was chosen: a change
    /// to the cart, or words with no street and no number, are no address.
    #[test]
    fn in_the_cart_an_address_has_a_street_or_a_number_and_changes_nothing() {
        let view = grouped();
        let read = |text| read_message(text, &view, Some(Missing::Address), State::CartOpen);
        for not_one in [
            "perdon dije tres chocolates eran cuatro chocolates",
            "Ay, entonces quíteme los chocolates y póngame dos americanos",
            "agrega 2 brownies",
        ] {
            assert!(read(not_one).is_none(), "{not_one}");
        }
        for address in ["calle Arce 2450, frente a la plaza", "Av. 6 de Agosto 123"] {
            let set = read(address).expect(address);
            assert!(set.params.address.is_some(), "{address}");
        }
        // At the summary too, a change to the cart is no address.
        let at_summary = |text| read_message(text, &view, Some(Missing::Address), State::Checkout);
        assert!(at_summary("agrégame un brownie también").is_none());
        assert!(at_summary("calle Arce 2450").is_some());
    }
}
