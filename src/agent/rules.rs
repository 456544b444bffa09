//! The offline proposer: plain Spanish shop messages read by rules, with product
//! names matched fuzzily against the bot's own catalog. It answers with the same
//! `Proposal` an LLM would, and its proposals face the same matrix.

use crate::conversation::{Event, ProductId, State};
use crate::shop::messages;
use crate::text::{contains_phrase, normalize, token_number, tokens};

use super::contract::{CatalogEntry, Proposal, ProposalInput, ProposedAction};

const CATALOG: &[&str] = &[
    "que tienen",
    "que tienes",
    "que venden",
    "que vendes",
    "que hay",
    "que ofrecen",
    "catalogo",
    "menu",
    "carta",
    "productos",
    "opciones",
    "lista de precios",
    "precios",
];
const CLEAR: &[&str] = &[
    "vacia el carrito",
    "vacia mi carrito",
    "vaciar el carrito",
    "vaciar carrito",
    "vacia carrito",
    "limpia el carrito",
    "limpiar el carrito",
    "borra todo",
    "quita todo",
    "elimina todo",
    "saca todo",
    "borrar todo",
];
const CANCEL: &[&str] = &[
    "cancelar",
    "cancela",
    "cancelo",
    "cancelalo",
    "cancela el pedido",
    "ya no quiero",
    "anula",
    "anular",
    "anulalo",
    "olvidalo",
];
const REVIEW: &[&str] = &[
    "cuanto es",
    "cuanto seria",
    "cuanto sale todo",
    "cuanto te debo",
    "cuanto le debo",
    "total",
    "mi pedido",
    "mi carrito",
    "ver carrito",
    "ver pedido",
    "ver mi pedido",
    "eso es todo",
    "es todo",
    "nada mas",
    "seria todo",
    "finalizar",
    "pagar",
    "quiero pagar",
    "como pago",
    "terminar",
    "checkout",
    "resumen",
];
const CONFIRM: &[&str] = &[
    "si",
    "s",
    "confirmo",
    "confirmar",
    "confirmado",
    "dale",
    "ok",
    "okay",
    "va",
    "correcto",
    "de acuerdo",
    "listo",
    "perfecto",
    "claro",
    "si confirmo",
    "esta bien",
    "asi es",
];
const THANKS: &[&str] = &[
    "gracias",
    "muchas gracias",
    "mil gracias",
    "chau",
    "chao",
    "adios",
    "hasta luego",
    "nos vemos",
    "buenisimo",
    "genial",
];
const DENY: &[&str] = &["no", "nop", "todavia no", "aun no", "espera"];
const REMOVE_VERBS: &[&str] = &[
    "quita", "quitar", "quitame", "quitale", "saca", "sacar", "sacame", "elimina", "eliminar",
    "borra", "borrar", "retira", "sin",
];
const UPDATE_VERBS: &[&str] = &[
    "cambia",
    "cambiar",
    "cambiame",
    "mejor",
    "que sean",
    "solo",
    "deja",
    "dejame",
    "pon",
    "ponle",
    "modifica",
    "actualiza",
];
const PRICE_WORDS: &[&str] = &[
    "cuanto cuesta",
    "cuanto cuestan",
    "cuanto vale",
    "cuanto valen",
    "cuanto sale",
    "precio",
    "tienen",
    "tienes",
    "hay",
];
/// Words that never name a product, so they can't match one by accident.
const STOPWORDS: &[&str] = &[
    "de", "del", "la", "el", "los", "las", "un", "una", "unos", "unas", "con", "y", "a", "al",
    "por", "para", "en", "mi", "me", "que", "quiero", "dame", "favor",
];

/// A product mention found in the message.
#[derive(Debug, Clone, PartialEq)]
struct Mention {
    product_id: ProductId,
    /// Token index where the mention starts and ends (exclusive).
    start: usize,
    end: usize,
}

/// Proposes actions for `input` by rules alone. Deterministic and total.
pub fn propose(input: &ProposalInput) -> Proposal {
    let text = normalize(&input.customer_message);
    let state = input.current_state;
    let words = tokens(&text);

    if input.detected_events.contains(&Event::EscalationRequested) {
        return Proposal::new(vec![ProposedAction::new("ESCALATE")], "");
    }
    if state == State::Checkout {
        if is_exactly(&text, CONFIRM) {
            return Proposal::new(vec![ProposedAction::new("CONFIRM_ORDER")], "");
        }
        if is_exactly(&text, DENY) {
            return clarify(messages::CONFIRM_OR_CANCEL);
        }
    }
    if any_phrase(&text, CLEAR) {
        return Proposal::new(vec![ProposedAction::new("CLEAR_CART")], "");
    }

    let mentions = find_mentions(&words, &input.product_catalog);
    if mentions.is_empty() && any_phrase(&text, CANCEL) {
        return Proposal::new(vec![ProposedAction::new("CANCEL_ORDER")], "");
    }

    let mut actions = Vec::new();
    let in_cart = |id: ProductId| input.cart.lines.iter().any(|l| l.product_id == id);
    let asks_price = any_phrase(&text, PRICE_WORDS);
    for (i, mention) in mentions.iter().enumerate() {
        // The clause a mention belongs to runs from the previous mention's end.
        let clause_start = if i == 0 { 0 } else { mentions[i - 1].end };
        let clause_end = mentions.get(i + 1).map_or(words.len(), |m| m.start);
        let before = &words[clause_start..mention.start];
        let after = &words[mention.end..clause_end];
        let clause = words[clause_start..clause_end].join(" ");
        let id = mention.product_id;

        if REMOVE_VERBS.iter().any(|v| contains_phrase(&clause, v)) || any_phrase(&clause, CANCEL) {
            actions.push(ProposedAction::new("REMOVE_ITEM").product(id));
        } else if UPDATE_VERBS.iter().any(|v| contains_phrase(&clause, v)) && in_cart(id) {
            match target_quantity(before, after) {
                Some(q) => actions.push(
                    ProposedAction::new("UPDATE_QUANTITY")
                        .product(id)
                        .quantity(q),
                ),
                None => actions.push(ProposedAction::new("SHOW_PRODUCT").product(id)),
            }
        } else if let Some(q) = quantity_before(before).or_else(|| quantity_after(after)) {
            actions.push(ProposedAction::new("ADD_TO_CART").product(id).quantity(q));
        } else if asks_price && !wants_to_buy(&clause) {
            actions.push(ProposedAction::new("SHOW_PRODUCT").product(id));
        } else {
            actions.push(ProposedAction::new("ADD_TO_CART").product(id).quantity(1));
        }
    }
    if !actions.is_empty() {
        actions.truncate(5);
        return Proposal::new(actions, "");
    }

    if any_phrase(&text, REVIEW) {
        return match state {
            State::CartOpen => Proposal::new(vec![ProposedAction::new("REVIEW_ORDER")], ""),
            _ => Proposal::new(vec![ProposedAction::new("REPLY")], ""),
        };
    }
    if any_phrase(&text, CATALOG) || input.detected_events.contains(&Event::GreetingReceived) {
        return Proposal::new(vec![ProposedAction::new("SHOW_CATALOG")], "");
    }
    if any_phrase(&text, THANKS) {
        return Proposal::new(
            vec![ProposedAction::new("REPLY")],
            messages::YOU_ARE_WELCOME,
        );
    }
    if words.iter().any(|w| token_number(w).is_some()) && !words.is_empty() {
        return clarify(messages::WHICH_PRODUCT);
    }
    clarify(messages::CLARIFY_DEFAULT)
}

fn clarify(text: &str) -> Proposal {
    Proposal::new(vec![ProposedAction::new("CLARIFY")], text)
}

fn is_exactly(text: &str, options: &[&str]) -> bool {
    let trimmed = text.trim_end_matches(" por favor");
    options.contains(&trimmed)
}

fn any_phrase(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| contains_phrase(text, p))
}

fn wants_to_buy(clause: &str) -> bool {
    [
        "quiero", "dame", "agrega", "agregame", "anade", "ponme", "llevo", "mandame", "quisiera",
    ]
    .iter()
    .any(|v| contains_phrase(clause, v))
}

/// "2 maracuyá", "tres de matcha", "una docena de brownies".
fn quantity_before(before: &[&str]) -> Option<i64> {
    let mut words: Vec<&str> = before.to_vec();
    while let Some(last) = words.last() {
        if matches!(*last, "de" | "del" | "la" | "el" | "los" | "las") {
            words.pop();
        } else {
            break;
        }
    }
    let last = words.last()?;
    if *last == "docena" {
        let n = words.len();
        return Some(if n >= 2 && words[n - 2] == "media" {
            6
        } else {
            12
        });
    }
    token_number(last)
}

/// "maracuyá x3", "matcha 2".
fn quantity_after(after: &[&str]) -> Option<i64> {
    match after {
        [first, ..] if token_number(first).is_some() => token_number(first),
        ["x", n, ..] => token_number(n),
        [first, ..] if first.starts_with('x') => token_number(&first[1..]),
        _ => None,
    }
}

/// "cambia la maracuyá a 4", "mejor 3 de matcha", "que sean 2 matchas".
fn target_quantity(before: &[&str], after: &[&str]) -> Option<i64> {
    if let Some(pos) = after.iter().position(|w| matches!(*w, "a" | "por" | "en"))
        && let Some(n) = after.get(pos + 1).and_then(|w| token_number(w))
    {
        return Some(n);
    }
    quantity_after(after).or_else(|| quantity_before(before))
}

fn singular(word: &str) -> &str {
    if word.len() > 4 && word.ends_with("es") && !word.ends_with("ees") {
        &word[..word.len() - 2]
    } else if word.len() > 3 && word.ends_with('s') {
        &word[..word.len() - 1]
    } else {
        word
    }
}

fn word_matches(message_word: &str, name_word: &str) -> bool {
    let (a, b) = (singular(message_word), singular(name_word));
    if a == b || message_word == name_word {
        return true;
    }
    let limit = match b.chars().count() {
        0..=3 => 0,
        4..=6 => 1,
        _ => 2,
    };
    limit > 0 && strsim::damerau_levenshtein(a, b) <= limit
}

fn significant_words(name: &str) -> Vec<String> {
    tokens(&normalize(name))
        .into_iter()
        .filter(|w| !STOPWORDS.contains(w))
        .map(str::to_owned)
        .collect()
}

/// Finds product mentions, longest names first, never overlapping.
fn find_mentions(words: &[&str], catalog: &[CatalogEntry]) -> Vec<Mention> {
    let mut taken = vec![false; words.len()];
    let mut candidates: Vec<(usize, Mention)> = Vec::new();
    for product in catalog {
        let name_words = significant_words(&product.name);
        if name_words.is_empty() {
            continue;
        }
        // Every significant word of the name must appear, in order, within a short
        // window; the first name word alone is enough when it is distinctive (4+ letters).
        for start in 0..words.len() {
            if STOPWORDS.contains(&words[start]) || !word_matches(words[start], &name_words[0]) {
                continue;
            }
            let mut end = start + 1;
            let mut matched = 1;
            for name_word in &name_words[1..] {
                let window_end = (end + 2).min(words.len());
                match (end..window_end).find(|&j| word_matches(words[j], name_word)) {
                    Some(j) => {
                        end = j + 1;
                        matched += 1;
                    }
                    None => break,
                }
            }
            let full = matched == name_words.len();
            if full || name_words[0].chars().count() >= 4 {
                candidates.push((
                    matched * 10 + usize::from(full),
                    Mention {
                        product_id: product.product_id,
                        start,
                        end,
                    },
                ));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.start.cmp(&b.1.start)));
    let mut chosen: Vec<Mention> = Vec::new();
    for (_, mention) in candidates {
        let overlaps = taken[mention.start..mention.end].iter().any(|t| *t);
        let duplicate = chosen.iter().any(|m| m.product_id == mention.product_id);
        if !overlaps && !duplicate {
            taken[mention.start..mention.end]
                .iter_mut()
                .for_each(|t| *t = true);
            chosen.push(mention);
        }
    }
    chosen.sort_by_key(|m| m.start);
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::contract::{CartLineView, CartView};

    fn catalog() -> Vec<CatalogEntry> {
        [
            (1, "Maracuya"),
            (2, "Matcha"),
            (3, "Café americano"),
            (4, "Té chai"),
            (5, "Chocolate caliente"),
            (6, "Brownie"),
        ]
        .into_iter()
        .map(|(id, name)| CatalogEntry {
            product_id: id,
            name: name.into(),
            price_minor: 1000,
            description: String::new(),
        })
        .collect()
    }

    fn input(state: State, message: &str, cart: &[(ProductId, i64)]) -> ProposalInput {
        ProposalInput {
            current_state: state,
            detected_events: crate::conversation::detect::detect(
                crate::conversation::detect::Inbound {
                    text: message,
                    has_image: false,
                },
            ),
            cart: CartView {
                lines: cart
                    .iter()
                    .map(|&(product_id, quantity)| CartLineView {
                        product_id,
                        name: String::new(),
                        quantity,
                        unit_price_minor: 1000,
                        line_total_minor: 1000 * quantity,
                    })
                    .collect(),
                total_minor: 0,
            },
            customer_message: message.into(),
            recent_history: vec![],
            product_catalog: catalog(),
            currency: "BOB".into(),
            context: Default::default(),
        }
    }

    fn summary(state: State, message: &str, cart: &[(ProductId, i64)]) -> Vec<String> {
        propose(&input(state, message, cart))
            .proposed_actions
            .iter()
            .map(|a| {
                let mut s = a.action_type.clone();
                if let Some(p) = &a.params.product_id {
                    s.push_str(&format!(" {p}"));
                }
                if let Some(q) = &a.params.quantity {
                    s.push_str(&format!(" x{q}"));
                }
                s
            })
            .collect()
    }

    #[test]
    fn understands_the_shop_phrases_of_a_purchase() {
        use State::*;
        type Case<'a> = (State, &'a str, &'a [(ProductId, i64)], &'a [&'a str]);
        let cases: &[Case] = &[
            (Idle, "Hola", &[], &["SHOW_CATALOG"]),
            (Idle, "¿Qué tienen?", &[], &["SHOW_CATALOG"]),
            (Browsing, "menú", &[], &["SHOW_CATALOG"]),
            (Browsing, "quiero 2 maracuyá", &[], &["ADD_TO_CART 1 x2"]),
            (Browsing, "Quiero 2 MARACUYÁS", &[], &["ADD_TO_CART 1 x2"]),
            (
                CartOpen,
                "agrégame tres de matcha",
                &[(1, 2)],
                &["ADD_TO_CART 2 x3"],
            ),
            (
                CartOpen,
                "quiero un cafe americano y dos brownies",
                &[],
                &["ADD_TO_CART 3 x1", "ADD_TO_CART 6 x2"],
            ),
            (
                CartOpen,
                "quita el matcha",
                &[(1, 2), (2, 3)],
                &["REMOVE_ITEM 2"],
            ),
            (
                CartOpen,
                "cambia la maracuyá a 4",
                &[(1, 2)],
                &["UPDATE_QUANTITY 1 x4"],
            ),
            (CartOpen, "vacía el carrito", &[(1, 2)], &["CLEAR_CART"]),
            (CartOpen, "cuánto es", &[(1, 2)], &["REVIEW_ORDER"]),
            (CartOpen, "mi pedido", &[(1, 2)], &["REVIEW_ORDER"]),
            (Checkout, "sí", &[(1, 2)], &["CONFIRM_ORDER"]),
            (Checkout, "Confirmo", &[(1, 2)], &["CONFIRM_ORDER"]),
            (Checkout, "cancelar", &[(1, 2)], &["CANCEL_ORDER"]),
            (AwaitingPayment, "cancelar", &[], &["CANCEL_ORDER"]),
            (
                CartOpen,
                "quiero hablar con una persona",
                &[],
                &["ESCALATE"],
            ),
            (
                Browsing,
                "cuánto cuesta el té chai?",
                &[],
                &["SHOW_PRODUCT 4"],
            ),
            (Browsing, "una mracuya porfa", &[], &["ADD_TO_CART 1 x1"]),
            (
                Browsing,
                "chocolate caliente x2",
                &[],
                &["ADD_TO_CART 5 x2"],
            ),
            (Browsing, "asdf qwer", &[], &["CLARIFY"]),
            (AwaitingPayment, "¡Muchas gracias!", &[], &["REPLY"]),
        ];
        for (state, message, cart, expected) in cases {
            assert_eq!(
                summary(*state, message, cart),
                *expected,
                "{message:?} in {state}"
            );
        }
    }

    #[test]
    fn yes_outside_checkout_is_not_a_confirmation() {
        assert_eq!(summary(State::CartOpen, "si", &[(1, 1)]), vec!["CLARIFY"]);
    }
}
