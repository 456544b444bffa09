//! The offline shop proposer: Spanish as customers in Bolivia and Mexico type it,
//! read by rules, with product names matched against the bot's own catalog. It
//! answers with the same `Proposal` an LLM would, and its proposals face the same
//! matrix. It also says whether it read the whole message (`Reading::confident`):
//! only then does a turn skip the LLM.
//!
//! Questions (price, availability, description) never change the cart; a word
//! several products share is asked about with the candidates as choices; a
//! follow-up ("otro", "uno menos", "el segundo", "quítalo") is read against the
//! cart and the choices last offered.

pub mod delivery;
pub mod grounding;
mod lexicon;
pub use lexicon::is_food;
mod clause;
mod memo;
mod mentions;
mod order_status;
mod settle;
mod shapes;

#[cfg(test)]
mod tests;

use crate::shop::core::{Event, Mode, ProductId, State};
use crate::shop::messages;
use crate::text::{normalize, token_number, tokens};

use super::contract::{Proposal, ProposalInput, ProposedAction};
use clause::*;
use lexicon::any;
use mentions::Mention;
use settle::*;
use shapes::*;

pub use memo::CatalogMemo;
pub use mentions::{singular, word_matches};
pub use order_status::asks_order_status;
pub use settle::asks_of_what_was_said;

/// What the rules made of a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub proposal: Proposal,
    /// Every word was accounted for and the answer is not a question back: an
    /// LLM would add nothing.
    pub confident: bool,
    /// The message's words, and which of them a reading explained.
    pub words: Vec<String>,
    pub covered: Vec<bool>,
}

/// Proposes actions for `input` by rules alone. Deterministic and total.
pub fn propose(input: &ProposalInput) -> Proposal {
    // «…no no, dos matcha y una limonada»: the order said again whole is the
    // message.
    if let Some(again) = started_over(input) {
        let again = reworded(input, again);
        return with_the_way(&again, settle(&again, read(&again)));
    }
    with_the_way(input, settle(input, read(input)))
}

/// Imperatives that call an order off, said to «tú» or to «usted».
const CALLS_OFF: &[&str] = &[
    "cancela",
    "cancele",
    "cancelen",
    "cancelame",
    "canceleme",
    "cancelalo",
    "cancelelo",
    "cancelenlo",
    "anula",
    "anule",
    "anulen",
];

/// «…ya llegó mi hija con café. Cancele todo por favor»: the whole order
/// called off in so many words, the products named before it only a story —
/// none in the cart, no verb of ordering or taking out. Where the call-off is.
fn whole_order_called_off(words: &[&str], input: &ProposalInput) -> Option<usize> {
    let at = words.iter().position(|w| CALLS_OFF.contains(w))?;
    let whole = matches!(
        words.get(at + 1..),
        Some(["todo", ..] | ["el" | "mi" | "la", "pedido" | "orden", ..])
    );
    let story = mentions::find(words, &input.product_catalog)
        .iter()
        .all(|m| m.end <= at && !m.candidates.iter().any(|id| input.cart.holds(*id)));
    let ordering = words
        .iter()
        .enumerate()
        .any(|(k, w)| k != at && (lexicon::adds(w) || lexicon::removes(w) || swap_verb(w)));
    (whole && story && !ordering).then_some(at)
}

/// «2 capuchinos y 2 brownies para Sopocachi», «…, para enviar a Obrajes»:
/// the way said beside an order that was read whole is taken with it.
fn with_the_way(input: &ProposalInput, mut proposal: Proposal) -> Proposal {
    let ordered = proposal
        .proposed_actions
        .iter()
        .any(|a| a.action_type == "ADD_TO_CART");
    let settled = proposal.proposed_actions.iter().all(|a| {
        matches!(
            a.action_type.as_str(),
            "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM"
        )
    });
    if ordered
        && settled
        && matches!(
            input.current_state,
            State::Idle | State::Browsing | State::CartOpen
        )
        && let Some(way) = delivery::beside_an_order(input)
    {
        proposal.proposed_actions.push(way);
    }
    proposal
}

/// The turn read as `message`, keeping what the customer wrote.
fn reworded(input: &ProposalInput, message: String) -> ProposalInput {
    ProposalInput {
        customer_message: message,
        as_written: Some(
            input
                .as_written
                .clone()
                .unwrap_or_else(|| input.customer_message.clone()),
        ),
        ..input.clone()
    }
}

/// Whether the words tell an order of before («ayer pedí…», «me llegó…») and
/// ask for nothing now.
fn told_in_the_past(text: &str) -> bool {
    let words = tokens(text);
    // «lo último que pedí» names a line; it tells no story.
    let past = words.iter().enumerate().any(|(i, w)| {
        matches!(
            *w,
            "pedi"
                | "pedimos"
                | "ordene"
                | "ordenamos"
                | "compre"
                | "compramos"
                | "pidio"
                | "pidieron"
                | "compro"
                | "compraron"
        ) && !words[..i].ends_with(&["que"])
            // «te pedí 2 brownies, no 3» corrects what was just asked.
            && !words[..i].ends_with(&["te"])
            && !words[..i].ends_with(&["le"])
    }) || any(
        text,
        &[
            "me llego",
            "me llegaron",
            "nos llego",
            "nos llegaron",
            "me trajeron",
            // «ayer el americano llegó frío»: what came, told.
            "llego frio",
            "llego tibio",
            "llego mal",
            "llegaron frios",
            "llego derramado",
            "vino frio",
            "vino mal",
        ],
    );
    let now = any(text, lexicon::ASKS_FOR)
        || words.iter().any(|w| lexicon::adds(w))
        || any(text, &["otra vez", "de nuevo", "lo mismo"]);
    past && !now
}

/// An order from before, named and not said («lo de siempre», «el mismo de
/// ayer»), which this chat does not keep.
const USUAL: &[&str] = &[
    "lo de siempre",
    "lo mismo de siempre",
    "el de siempre",
    "lo usual",
    "lo de costumbre",
    "lo de ayer",
    "lo mismo de ayer",
    "el mismo de ayer",
    "lo de la vez pasada",
    "lo mismo de la vez pasada",
];

/// «un chocolate para ella y para mí lo de siempre»: the usual asked for
/// beside products named before it, with no product after it to say what it
/// is («lo de siempre: 2 americanos» says it).
pub(super) fn usual_beside(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    // (Asked for, it ends the message: «lo de ayer estuvo buenazo» tells.)
    let Some(at) = USUAL.iter().find_map(|phrase| {
        let len = phrase.split(' ').count();
        let end = words.len().checked_sub(len)?;
        (words[end..].join(" ") == *phrase).then_some(end)
    }) else {
        return false;
    };
    let found = mentions::find(&words, &input.product_catalog);
    !found.is_empty() && found.iter().all(|m| m.end <= at)
}

/// People a customer counts beside an order («somos 4 amigas»).
const PEOPLE: &[&str] = &[
    "personas",
    "persona",
    "amigas",
    "amigos",
    "chicas",
    "chicos",
    "ninos",
    "ninas",
    "adultos",
    "invitados",
    "invitadas",
    "companeros",
    "companeras",
    "colegas",
    "hijos",
    "hijas",
    "nietos",
    "gente",
    "people",
    "nosotros",
    "nosotras",
    "ustedes",
    "ellos",
    "ellas",
    // «somos muchos», «y de comer…», «algo para tomar»: who and what for.
    "somos muchos",
    "somos varios",
    "somos bastantes",
    "de comer",
    "para comer",
    "de tomar",
    "para tomar",
];

/// Words around a total asked on its own («¿y cuánto sería todo entonces?»).
const TOTAL_FILLER: &[&str] = &[
    "y", "entonces", "ahora", "si", "todo", "en", "el", "total", "pues", "ya", "porfa", "por",
    "favor", "me", "nos",
];

/// The message before a total asked at its end, after something else was
/// said: in a sentence of its own («un té chai. ¿Cuánto sería?»), after a
/// comma («ponle un croissant, ¿cuánto sale en total?») or after «y»
/// («sumale otro capu y pasame el total») → the words before it.
fn before_the_total_asked(message: &str) -> Option<String> {
    let lower = message.to_lowercase();
    if !["cuant", "cuánt", "total"]
        .iter()
        .any(|k| lower.contains(k))
    {
        return None;
    }
    const MARKS: [char; 7] = ['.', '?', '!', '¿', '¡', '\n', ' '];
    let trimmed = message.trim_end_matches(MARKS);
    // («…, total?»: a lone «total» asked with its mark.)
    let marked = message.trim_end().ends_with('?');
    // The places a total may start, the last first: a sentence's end, a
    // comma, a «y».
    let mut cuts: Vec<(usize, usize, bool)> = trimmed
        .char_indices()
        .filter(|(_, c)| matches!(c, '.' | '?' | '!' | '¿' | '¡' | '\n'))
        .map(|(at, c)| (at, at + c.len_utf8(), true))
        .chain(
            trimmed
                .match_indices(',')
                .map(|(at, _)| (at, at + 1, false)),
        )
        .chain(
            trimmed
                .match_indices(" y ")
                .chain(trimmed.match_indices(" Y "))
                .map(|(at, _)| (at, at + 3, false)),
        )
        .collect();
    cuts.sort_by_key(|cut| std::cmp::Reverse(cut.0));
    cuts.into_iter().take(3).find_map(|(at, after, sentence)| {
        let head = trimmed[..at].trim_end_matches(MARKS).trim();
        let tail = &trimmed[after..];
        (!tokens(&prepared(head)).is_empty() && asks_the_total(tail, sentence || marked))
            .then(|| head.to_owned())
    })
}

/// Whether a clause of its own asks the order's total («¿Cuánto es el
/// total?»).
pub fn asks_the_order_total(clause: &str) -> bool {
    asks_the_total(clause, true)
}

/// Whether `tail` asks the order's total: «¿cuánto sería?», «cuánto te
/// debo», «pásame el total», «cuánto sale todo». «¿Cuánto sale?» alone may
/// be the price of the product just said: only the whole («todo», «en
/// total») is the total. A sentence of its own may be only «¿y el total?».
fn asks_the_total(tail: &str, sentence: bool) -> bool {
    let text = prepared(tail);
    let words = tokens(&text);
    let whole = words.iter().any(|w| matches!(*w, "todo" | "total"));
    let mut asked: Vec<&str> = words
        .into_iter()
        .filter(|w| !TOTAL_FILLER.contains(w) && !matches!(*w, "de" | "nuevo" | "otra" | "vez"))
        .collect();
    // «dime cuánto queda»: the total asked through a verb of telling.
    if asked.len() > 1 && matches!(asked[0], "dime" | "decime" | "digame" | "dinos") {
        asked.remove(0);
    }
    // «¿cuánto sería con envío?»: the summary shows the fee beside the sum.
    if let [.., "con", "envio" | "delivery"] = asked.as_slice() {
        asked.truncate(asked.len() - 2);
    }
    match asked.as_slice() {
        [
            "cuanto",
            "seria" | "quedaria" | "saldria" | "queda" | "da" | "daria",
        ] => true,
        // «¿cuánto llevamos?», «cuánto va», «¿cuánto pago?»: the sum so far.
        [
            "cuanto",
            "llevamos" | "llevo" | "vamos" | "voy" | "suma" | "sumamos" | "sumaria" | "pago"
            | "pagamos" | "pagaria" | "cobran" | "cobras" | "debo" | "debemos",
        ] => true,
        ["cuanto", "te" | "le" | "les", "debo" | "debemos"] => true,
        ["cuanto"] | ["cuanto", "es" | "sale" | "va"] => whole,
        [] => whole && sentence,
        [
            "dame" | "dime" | "pasame" | "mandame" | "decime" | "deme" | "digame" | "pasa"
            | "manda",
        ] => whole,
        _ => false,
    }
}

/// The message without the invoice's details («NIT 4567821019», «CI
/// 1234567», «razón social Mamani Quispe» to the end of its sentence), when
/// something else is said beside them; each sentence keeps the rest of its
/// words («Quiero 3 capuchinos con factura, NIT 1020304. ¿Cuánto sería?»).
fn without_invoice_data(message: &str) -> Option<String> {
    // (Most messages say none of it: nothing folded for them.)
    let lower = message.to_lowercase();
    if !["nit", "ci", "carnet", "raz"]
        .iter()
        .any(|k| lower.contains(k))
    {
        return None;
    }
    let digits = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit());
    let mut found = false;
    let mut kept: Vec<String> = Vec::new();
    for sentence in message.split_inclusive(['.', '?', '!', '\n']) {
        let text = prepared(sentence);
        let words = tokens(&text);
        let mut out: Vec<&str> = Vec::with_capacity(words.len());
        let mut k = 0;
        while k < words.len() {
            if matches!(words[k], "nit" | "ci" | "carnet")
                && words.get(k + 1).is_some_and(|w| digits(w))
            {
                found = true;
                k += 2;
                continue;
            }
            if words[k] == "razon" && words.get(k + 1) == Some(&"social") {
                found = true;
                break;
            }
            out.push(words[k]);
            k += 1;
        }
        if !out.is_empty() {
            // (The sentence's own mark kept, so a total asked apart is seen.)
            let mark = sentence
                .trim_end()
                .chars()
                .last()
                .filter(|c| ".?!".contains(*c));
            kept.push(format!(
                "{}{}",
                out.join(" "),
                mark.map(String::from).unwrap_or_default()
            ));
        }
    }
    (found && !kept.is_empty()).then(|| kept.join(" "))
}

/// «tengo billete de 100 nomás»: the note the customer pays with is money, no
/// count of anything (its number is dropped).
fn notes_in_hand(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    words
        .iter()
        .enumerate()
        .filter(|(k, w)| {
            !(token_number(w).is_some()
                && *k >= 2
                && words[k - 1] == "de"
                && matches!(words[k - 2], "billete" | "billetes" | "billetito"))
        })
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What follows a yes said after remarks of their own («Bárbaro, confirmo.
/// Lo retiro yo», «ah ok, entonces QR. sí, confirmo el envío a Miraflores»):
/// sentences of approval, fillers or how the customer pays are passed over
/// until one opens with a yes (see [`after_a_yes`]).
fn after_remarks_a_yes(text: &str) -> Option<String> {
    let raw = text.trim();
    if let Some(rest) = after_a_yes(raw) {
        // («ah ok, entonces QR. sí, confirmo…»: the yes said again after a
        // remark is the one the way follows.)
        return past_a_remark(&rest)
            .and_then(after_remarks_a_yes)
            .or(Some(rest));
    }
    after_remarks_a_yes(past_a_remark(raw)?)
}

/// What follows a first sentence of approval, fillers or how the customer
/// pays («Bárbaro», «entonces QR»); `None` when the first sentence is
/// anything else or the whole text.
fn past_a_remark(raw: &str) -> Option<&str> {
    let raw = raw.trim();
    let first = raw
        .split(['.', '!', ',', ';', '\n'])
        .next()
        .unwrap_or_default();
    if first.len() == raw.len() {
        return None;
    }
    let mut folded = prepared(first);
    // «No importa, así está bien. Confirmo»: letting a thing go is a remark,
    // not a no to the order.
    for letting_go in [
        "no importa",
        "no hay problema",
        "no pasa nada",
        "da igual",
        "ni modo",
        "asi esta bien",
        "asi nomas",
    ] {
        folded = folded.replace(letting_go, " ");
    }
    let words = tokens(&folded);
    let let_go = folded != prepared(first);
    let remark = (let_go || !words.is_empty())
        && words.iter().all(|w| {
            lexicon::APPROVAL.contains(w)
                || lexicon::CONFIRM.contains(w)
                || matches!(
                    *w,
                    "ah" | "ahh"
                        | "oh"
                        | "uh"
                        | "entonces"
                        | "qr"
                        | "efectivo"
                        | "transferencia"
                        | "tarjeta"
                        | "pago"
                        | "pagamos"
                        | "pagare"
                        | "con"
                        | "en"
                        | "por"
                )
        });
    remark.then(|| raw[first.len()..].trim_start_matches(['.', '!', ',', ';', '\n', ' ']))
}

/// A plain yes (to an offer of a person, for instance).
pub fn is_yes(text: &str) -> bool {
    let text = prepared(text);
    only_words_of(&text, lexicon::CONFIRM)
}

/// A yes with thanks beside it («Sí, está todo correcto, muchas gracias.»).
pub fn is_yes_with_thanks(text: &str) -> bool {
    let text = prepared(text);
    let words = tokens(&text);
    let kept = without_thanks(&words);
    !kept.is_empty() && only_words_of(&kept.join(" "), lexicon::CONFIRM)
}

/// The words left once thanks and blessings are taken out («muchas
/// gracias», «que Dios le pague»): one reading of them for every yes.
fn without_thanks<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut thanked = vec![false; words.len()];
    lexicon::cover(words, lexicon::THANKS, &mut thanked);
    words
        .iter()
        .zip(thanked)
        .filter(|(_, t)| !t)
        .map(|(w, _)| *w)
        .collect()
}

/// What follows a yes said first («Sí, confirmo. Pasamos a recogerlo a las
/// 9:45», «sí está bien confirmo mi nieto va a pasar a recogerlo»): the yes
/// is the first sentence; with no stop in the whole message, the longest run
/// of words that is only a yes and says it in so many words («confirmo», «está
/// bien», «dale» — never a bare «si», «ya» or «pues», which open a condition
/// or a «ya no» as often). `None` when the message does not open with a yes or
/// says no more.
pub fn after_a_yes(text: &str) -> Option<String> {
    let raw = text.trim();
    let first = raw
        .split(['.', '!', ',', ';', '\n'])
        .next()
        .unwrap_or_default();
    let lead = prepared(first);
    // («sí, chévere»: approval beside the yes.)
    let yes_words: Vec<&str> = tokens(&lead)
        .into_iter()
        .filter(|w| !lexicon::APPROVAL.contains(w))
        .collect();
    if !yes_words.is_empty()
        && only_words_of(&yes_words.join(" "), lexicon::CONFIRM)
        && !any(&lead, lexicon::DENY)
    {
        let rest = raw[first.len()..].trim_start_matches(['.', '!', ',', ';', '\n', ' ']);
        if rest.trim().is_empty() {
            return None;
        }
        // «dale, sí. retiro yo»: a yes said twice.
        let again = rest
            .split(['.', '!', ',', ';', '\n'])
            .next()
            .unwrap_or_default();
        if again.len() < rest.len() && only_words_of(&prepared(again), lexicon::CONFIRM) {
            return after_a_yes(rest);
        }
        return Some(rest.to_owned());
    }
    if first.len() != raw.len() {
        return None;
    }
    let said_so = |lead: &str| {
        tokens(lead).iter().any(|w| w.starts_with("confirm"))
            || any(
                lead,
                &[
                    "esta bien",
                    "de acuerdo",
                    "dale",
                    "listo",
                    "correcto",
                    "perfecto",
                    // «ok recojo»: never «si» or «ya» alone, which also open a
                    // condition or a «no longer».
                    "ok",
                    "okay",
                    "okey",
                    "vale",
                    "claro",
                ],
            )
    };
    let words: Vec<&str> = raw.split_whitespace().collect();
    (1..words.len())
        .rev()
        .find(|&n| {
            let lead = prepared(&words[..n].join(" "));
            only_words_of(&lead, lexicon::CONFIRM) && !any(&lead, lexicon::DENY) && said_so(&lead)
        })
        .map(|n| words[n..].join(" "))
}

/// At the summary, a yes and then only how the order goes («Sí, confirmo.
/// Pasamos a recogerlo a las 9:45»): the way said, and the words after the
/// yes. Nothing of a doubt, a condition, a no, a cancel, a question, a change
/// or a product may follow («sí, pero no voy a poder pasar a recoger hoy»,
/// «sí, recojo yo, pero quita uno»). («Pasamos a recogerlo» is no «pásame»,
/// «mándalo a…» no order.)
pub fn yes_then_the_way(
    text: &str,
    catalog: &[super::contract::CatalogEntry],
) -> Option<(String, Mode)> {
    let rest = after_remarks_a_yes(text).or_else(|| before_a_closing_yes(text))?;
    let read = prepared(&rest);
    let words = tokens(&read);
    let doubts = rest.contains('?')
        || any(&read, lexicon::DENY)
        || any(&read, lexicon::CANCEL)
        || words.iter().any(|w| {
            matches!(
                *w,
                "no" | "pero"
                    | "todavia"
                    | "aun"
                    | "si"
                    | "cuando"
                    | "cuanto"
                    | "como"
                    | "donde"
                    | "que"
                    | "hay"
                    | "puedo"
                    | "pueden"
                    | "puede"
                    | "descuento"
            ) || orders_or_takes_out(w)
        })
        || names_a_product(&rest, catalog);
    if doubts {
        return None;
    }
    delivery::mode_said(&rest).map(|mode| (rest, mode))
}

/// The way said first and the yes closing the message («recojo entonces.
/// confirmo», «mándame a Achumani, confirmado cuñao»): what comes before the
/// last sentence, when that sentence is only a yes and forms of address.
fn before_a_closing_yes(text: &str) -> Option<String> {
    const ADDRESS: &[&str] = &[
        "cunao", "cunado", "cunada", "che", "pues", "nomas", "porfa", "gracias", "entonces", "ya",
        "amigo", "amiga", "jefe", "jefa", "joven", "hermano", "hermana", "senorita", "senor",
        "por", "favor", "xfa", "pls", "tambien",
    ];
    let raw = text.trim().trim_end_matches(['.', '!', ' ']);
    let cut = raw.rfind(['.', ',', ';', '!', '\n'])?;
    let (head, tail) = (raw[..cut].trim(), &raw[cut + 1..]);
    let tail = prepared(tail);
    let words = tokens(&tail);
    let yes = words
        .iter()
        .any(|w| lexicon::CONFIRM.contains(w) && !ADDRESS.contains(w));
    (yes && !head.is_empty()
        && words
            .iter()
            .all(|w| lexicon::CONFIRM.contains(w) || ADDRESS.contains(w)))
    .then(|| head.to_owned())
}

/// Whether `word` beside the way of an order asks to add or take out: never
/// «pasamos a recogerlo» (no «pásame»), «mándalo a…» (delivery) or «sí, retiro»
/// (I pick it up: where no product is named).
fn orders_or_takes_out(word: &str) -> bool {
    (lexicon::adds(word) && !word.starts_with("pas") && delivery::mode_said(word).is_none())
        || (lexicon::removes(word) && !delivery::picks_up(word))
}

/// A yes to «¿te pongo 3?», with or without the number: «sí», «dale, los 3»,
/// «ok ponme las 3», «los 3 nomás».
pub fn takes_offer(text: &str, quantity: i64) -> bool {
    const AROUND: &[&str] = &[
        "los", "las", "esos", "esas", "nomas", "entonces", "ponme", "dame", "pon", "me", "pues",
        "solo", "todos", "todas", "unidades",
    ];
    let prepared = prepared(text);
    let words = tokens(&prepared);
    let mut said_number = false;
    let rest: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| {
            if token_number(w) == Some(quantity) {
                said_number = true;
                return false;
            }
            !AROUND.contains(w)
        })
        .collect();
    if rest.iter().any(|w| token_number(w).is_some()) {
        return false;
    }
    let rest = rest.join(" ");
    if rest.is_empty() {
        return said_number;
    }
    only_words_of(&rest, lexicon::CONFIRM)
}

/// Every word of `text` belongs to a phrase of `phrases` or is a filler, and at
/// least one phrase is there: "listo, dale", "sí por favor", "ok 👍".
fn only_words_of(text: &str, phrases: &[&str]) -> bool {
    let words = tokens(text);
    if words.is_empty() || !any(text, phrases) {
        return false;
    }
    let mut covered = vec![false; words.len()];
    lexicon::cover(&words, phrases, &mut covered);
    // «De una, confirmado. Muy amables, de verdad», «ya señorita confirmado»:
    // thanks and whom it is said to add nothing.
    lexicon::cover(&words, lexicon::THANKS, &mut covered);
    lexicon::cover(&words, lexicon::VOCATIVES, &mut covered);
    words.iter().zip(&covered).all(|(w, c)| {
        *c || matches!(
            *w,
            "por"
                // «confirmo nomás»: just that; «ok igual, confirmo»: anyway.
                | "nomas"
                | "igual"
                | "favor"
                | "porfa"
                | "gracias"
                | "muchas"
                | "mil"
                | "y"
                | "ya"
                | "pues"
                | "pe"
                | "po"
                | "entonces"
                | "ah"
                | "oh"
                | "ahh"
                | "mmm"
                | "bueno"
        )
    })
}

/// «¿Cuál de estos quieres?», offering `ids` as choices with the count said.
fn which_of(ids: &[ProductId], quantity: Option<i64>) -> Proposal {
    let mut action = ProposedAction::new("CLARIFY");
    action.params.candidates = Some(ids.iter().map(|id| serde_json::Value::from(*id)).collect());
    if let Some(q) = quantity {
        action = action.quantity(q);
    }
    Proposal::new(vec![action], messages::WHICH_ONE)
}

/// Whether folded `text` asks for a thing by its kind («algo frío», «un
/// postre», «sin cafeína»).
pub fn says_a_kind(text: &str) -> bool {
    lexicon::KINDS
        .iter()
        .any(|(said, _)| crate::text::contains_phrase(text, said))
}

/// Whether `word` (folded) is one of the words whom a message is said to
/// («causa», «tío», «caserita»).
pub fn is_vocative(word: &str) -> bool {
    lexicon::VOCATIVES.contains(&word)
}

/// The products `text` names (a word several products share names none).
pub fn products_named(text: &str, catalog: &crate::shop::catalog::CatalogIndex) -> Vec<ProductId> {
    products_in(text, &super::contract::CatalogEntry::on_sale(catalog))
}

/// The products `text` names among `catalog`'s entries.
pub fn products_in(text: &str, catalog: &[super::contract::CatalogEntry]) -> Vec<ProductId> {
    let text = prepared(text);
    mentions::find(&tokens(&text), catalog)
        .into_iter()
        .filter_map(|m| m.product())
        .collect()
}

/// Whether `text` holds nothing but fillers, greetings and thanks: nothing for a
/// proposer to read.
pub fn says_nothing(text: &str) -> bool {
    let text = prepared(text);
    let words = tokens(&text);
    let mut covered = vec![false; words.len()];
    lexicon::cover(&words, lexicon::FILLER, &mut covered);
    lexicon::cover(&words, lexicon::THANKS, &mut covered);
    lexicon::cover(&words, crate::detect::GREETINGS, &mut covered);
    // «¿el chai tiene cafeína? es que ya es tarde»: a short reason given
    // beside a question asks for nothing.
    let reason = matches!(
        words.as_slice(),
        ["es", "que", ..] | ["porque", ..] | ["ya", "que", ..]
    ) && words.len() <= 8
        && !words.iter().any(|w| {
            token_number(w).is_some() || lexicon::adds(w) || lexicon::removes(w) || swap_verb(w)
        })
        && !any(&text, lexicon::ADD);
    reason || covered.iter().all(|c| *c)
}

/// Whether a message asks for something to be served, even as a question
/// («¿me das un chocolate?», «can I get a brownie?»).
pub fn asks_for(text: &str) -> bool {
    any(&prepared(text), lexicon::ASKS_FOR)
}

/// A message folded as the rules read it: chat spellings, emoji, basic English
/// and Portuguese in the Spanish words they stand for.
pub fn in_shop_words(text: &str) -> String {
    prepared(text)
}

/// What the shop's own phrases make of `text`: whether it holds a request the
/// shop handles (an order or removal verb, the catalog, the total, clearing or
/// cancelling, a plain yes or no), and the words none of those phrases, nor a
/// greeting, thanks or a filler, explain.
/// «¿Puedo pagar en dólares? Solo tengo billetes de 20 dólares»: words told
/// beside a question that ask nothing of the shop — no count of a thing (money
/// in hand is none), no verb of ordering or taking out, no close, no call-off.
pub fn only_talk(text: &str) -> bool {
    let text = notes_in_hand(&prepared(text));
    // «necesito buscar mi bus», «quiero llegar temprano»: a wish to do
    // something else, not to have a thing.
    let all = tokens(&text);
    let mut kept: Vec<&str> = Vec::with_capacity(all.len());
    let mut k = 0;
    while k < all.len() {
        let doing = all.get(k + 1).is_some_and(|next| {
            next.len() > 4
                && (next.ends_with("ar") || next.ends_with("er") || next.ends_with("ir"))
                && !orders_word(next)
                && !matches!(
                    *next,
                    "pedir" | "ordenar" | "llevar" | "comprar" | "encargar" | "probar" | "tomar"
                )
        });
        if doing
            && matches!(
                all[k],
                "necesito" | "quiero" | "queria" | "quisiera" | "tengo"
            )
        {
            k += 2;
            continue;
        }
        kept.push(all[k]);
        k += 1;
    }
    let text = kept.join(" ");
    let words = tokens(&text);
    let counted = words.iter().enumerate().any(|(k, w)| {
        token_number(w).is_some()
            && !words.get(k + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "dolares" | "dolar" | "bolivianos" | "bs" | "pesos" | "soles" | "euros"
                )
            })
    });
    !counted
        && !words
            .iter()
            .any(|w| lexicon::adds(w) || lexicon::removes(w) || w.starts_with("confirm"))
        && ![
            lexicon::CATALOG,
            lexicon::DONE,
            lexicon::CLEAR,
            lexicon::CANCEL,
            lexicon::ADD,
            lexicon::REMOVE,
            lexicon::CONFIRM,
        ]
        .iter()
        .any(|phrases| any(&text, phrases))
}

pub fn shop_phrases(text: &str) -> ShopPhrases {
    let text = prepared(text);
    let words = tokens(&text);
    let request = [
        lexicon::CATALOG,
        lexicon::DONE,
        lexicon::CLEAR,
        lexicon::CANCEL,
    ]
    .iter()
    .any(|phrases| any(&text, phrases))
        || only_words_of(&text, lexicon::CONFIRM)
        || only_words_of(&text, lexicon::DENY)
        // «Confirmamos. Pagamos por transferencia»: a confirmation beside
        // what it is about.
        || words.iter().any(|w| w.starts_with("confirm"))
        || words
            .iter()
            .any(|w| lexicon::adds(w) || lexicon::removes(w))
        || any(&text, lexicon::ADD)
        || any(&text, lexicon::REMOVE)
        || any(&text, lexicon::SET);
    let mut covered = vec![false; words.len()];
    for phrases in [
        lexicon::ADD,
        lexicon::REMOVE,
        lexicon::SET,
        lexicon::CATALOG,
        lexicon::DONE,
        lexicon::DONE_WORDS,
        lexicon::CONFIRM,
        lexicon::DENY,
        lexicon::CLEAR,
        lexicon::CANCEL,
        lexicon::THANKS,
        lexicon::FILLER,
        lexicon::VOCATIVES,
        crate::detect::GREETINGS,
    ] {
        lexicon::cover(&words, phrases, &mut covered);
    }
    let unexplained = words
        .iter()
        .zip(&covered)
        .filter(|(w, c)| !**c && !lexicon::adds(w) && !lexicon::removes(w))
        .map(|(w, _)| (*w).to_owned())
        .collect();
    ShopPhrases {
        request,
        unexplained,
    }
}

/// Whether `text` calls the order off («mejor cancelo todo», «anúlenlo») or
/// closes it, with at most how it goes («ya entonces recojo, cuánto es»).
pub fn calls_off_or_closes(text: &str) -> bool {
    let read = prepared(text);
    // «si cancelo el pedido me devuelven la plata», «una consulta, puedo
    // cancelar?»: asked about, not done.
    let words = tokens(&read);
    let asked = matches!(words.first(), Some(&("si" | "puedo" | "podria" | "se")))
        || any(&read, &["una consulta", "una pregunta", "se puede"]);
    if asked {
        return false;
    }
    if any(&read, lexicon::CANCEL) {
        return true;
    }
    // What is left beside «cuánto es» may only say the order is picked up
    // («cuánto es el delivery» asks the fee).
    let left = shop_phrases(text).unexplained.join(" ");
    any(&read, lexicon::DONE)
        && (left.is_empty() || delivery::mode_said(&left) == Some(Mode::Pickup))
}

/// «añade un capuchino para mi madre que el café solo no le gusta»: a dislike
/// told after «que» or «porque» is why, no order of what it names — dropped,
/// from the «que» to the end of the dislike.
fn dislike_told(text: &str) -> String {
    const DISLIKES: &[&str] = &[
        " no le gusta",
        " no le gustan",
        " no me gusta",
        " no me gustan",
        " no les gusta",
        " no les gustan",
        " no nos gusta",
        " no nos gustan",
    ];
    let padded = format!(" {text} ");
    let Some((end, phrase)) = DISLIKES
        .iter()
        .filter_map(|p| padded.find(&format!("{p} ")).map(|at| (at, *p)))
        .min_by_key(|(at, _)| *at)
    else {
        return text.to_owned();
    };
    // (Only a reason about a thing or a person: «que el café…», «que a
    // él…», «porque…» — not «el café que me diste no me gusta».)
    let Some(start) = [
        " que el ",
        " que la ",
        " que los ",
        " que las ",
        " que a ",
        " porque ",
    ]
    .iter()
    .filter_map(|w| padded[..end].rfind(w))
    .max()
    .filter(|at| *at > 0) else {
        return text.to_owned();
    };
    // («quítalo que el americano no le gusta»: beside a removal, the thing
    // disliked may be the one that goes — read as said.)
    if tokens(&padded[..start])
        .iter()
        .any(|w| lexicon::removes(w) || lexicon::with_pronoun(w, lexicon::removes))
    {
        return text.to_owned();
    }
    // The thing disliked goes too: «…que a mi hijo no le gusta el cheesecake
    // y un brownie» keeps only «y un brownie».
    let after = end + phrase.len();
    let resume = [" y ", " mejor ", " pero ", " entonces ", " asi que "]
        .iter()
        .filter_map(|w| padded[after..].find(w))
        .min()
        .map_or(padded.len(), |at| after + at);
    format!("{}{}", &padded[..start], &padded[resume..])
        .trim()
        .to_owned()
}

/// «nah, sácala, no quiero nada frío»: nothing of a kind wanted is why a line
/// goes, no order called off — the words are dropped (what goes is read from
/// the rest).
fn kind_not_wanted(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut k = 0;
    while k < words.len() {
        let nothing = words[k..].starts_with(&["no", "quiero", "nada"])
            || words[k..].starts_with(&["no", "queremos", "nada"]);
        let kind_len = nothing
            .then(|| {
                let after = words[k + 3..].join(" ");
                // («ya no quiero nada, frío está el día» calls it off.)
                let goes_on = |said: &str| {
                    let next = after[said.len()..].split_whitespace().next();
                    !matches!(next, Some("esta" | "hace" | "el" | "la" | "hoy"))
                };
                lexicon::KINDS
                    .iter()
                    .filter(|(said, _)| {
                        after == *said || (after.starts_with(&format!("{said} ")) && goes_on(said))
                    })
                    .map(|(said, _)| said.split(' ').count())
                    .max()
            })
            .flatten();
        match kind_len {
            Some(n) => {
                if out.last() == Some(&"ya") {
                    out.pop();
                }
                k += 3 + n;
            }
            None => {
                out.push(words[k]);
                k += 1;
            }
        }
    }
    out.join(" ")
}

/// Whether `text` says the order is all there («eso es todo», «listo, nada
/// más», «cuánto es»), whatever else it says beside (the way it goes).
pub fn says_done(text: &str) -> bool {
    let read = prepared(text);
    lexicon::DONE
        .iter()
        .any(|p| *p != "ya" && crate::text::contains_phrase(&read, p))
}

/// A message opening with «vale» and a mark or a word of going on («Vale,
/// otro americano», «vale pues dos»), read with «ok» for it: agreement, not
/// «¿cuánto vale?».
pub fn ok_for_vale(message: &str) -> std::borrow::Cow<'_, str> {
    let trimmed = message.trim_start();
    let Some(head) = trimmed.get(..4) else {
        return message.into();
    };
    let rest = &trimmed[4..];
    let goes_on = rest.starts_with([',', '.', '!', ';'])
        || rest.trim().is_empty()
        || [
            "pues", "entonces", "ok", "gracias", "perfecto", "listo", "bueno", "si", "sí",
        ]
        .iter()
        .any(|w| {
            rest.trim_start()
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .is_some_and(|first| first.eq_ignore_ascii_case(w))
        });
    if head.eq_ignore_ascii_case("vale") && goes_on {
        format!("ok{rest}").into()
    } else {
        message.into()
    }
}

/// A word that orders: «dame», «ponme», «tráeme», «quiero».
pub fn orders_word(word: &str) -> bool {
    lexicon::adds(word) || lexicon::ADD.contains(&word)
}

/// A word that takes something out of the cart («sácalo», «quita»).
pub fn removes_word(word: &str) -> bool {
    lexicon::removes(word)
}

/// «…Sí, confirmo, paso a recogerlo»: the order confirmed in so many words,
/// anywhere in the message, with nothing said against it.
pub fn says_confirmed(message: &str) -> bool {
    // («ok confirm. pick up»: the yes may be a sentence of its own, when
    // nothing in the whole message waits, doubts or takes it back —
    // «Confirmo. Pero espérame un rato…», «…but not confirmed yet».)
    confirmed_in(message)
        || message.split(['.', '!', ';', '\n']).nth(1).is_some()
            && message
                .split(['.', '!', ';', '\n'])
                .any(|part| !part.trim().is_empty() && confirmed_in(part))
            && {
                let text = prepared(message);
                let words = tokens(&text);
                !any(&text, lexicon::DENY)
                    && !any(&text, lexicon::CANCEL)
                    && !message.contains(['?', '¿'])
                    && !says_later(&words)
                    && !words.iter().any(|w| {
                        matches!(
                            *w,
                            "pero" | "espera" | "esperame" | "espere" | "not" | "yet" | "todavia"
                        )
                    })
            }
}

/// «luego te confirmo», «te confirmo la dirección», «ahorita confirmo con mi
/// esposa»: a confirmation promised for later.
fn says_later(words: &[&str]) -> bool {
    words.iter().any(|w| {
        matches!(
            *w,
            "luego" | "despues" | "manana" | "ahorita" | "rato" | "antes" | "cuando"
        )
    })
}

/// [`says_confirmed`] in one piece of a message.
fn confirmed_in(message: &str) -> bool {
    let text = prepared(message);
    let words = tokens(&text);
    let later = says_later(&words);
    // «confirmá y mandalo a San Jorge»: the shop told to confirm it, first
    // in its clause, the message going on with the way (never «confirma si
    // hay…», asked, nor «mi esposa confirma y te aviso», someone else's).
    // («sí, confírmalo, que lo traigan a Achumani», «Perfecto, confírmelo y
    // me lo manda…», «Yes, confirm please».)
    let told_to = |k: usize| {
        matches!(
            words[k],
            "confirma"
                | "confirmalo"
                | "confirmala"
                | "confirmelo"
                | "confirmenlo"
                | "confirmamelo"
                | "confirmen"
                | "confirm"
        ) && (k == 0
            || matches!(
                words[k - 1],
                "ya" | "bueno"
                    | "ok"
                    | "dale"
                    | "entonces"
                    | "listo"
                    | "pues"
                    | "va"
                    | "hacer"
                    | "si"
                    | "perfecto"
                    | "correcto"
                    | "bien"
            ))
            && words.get(k + 1).is_none_or(|next| {
                matches!(*next, "y" | "nomas" | "porfa" | "pues" | "entonces" | "ya")
                    // («confírmalo, que lo traigan…»: its object said, what
                    // follows is the way; «confirmen que les llegó…» asks.)
                    || (*next == "que" && words[k].ends_with("lo"))
                    // («confirm please»; never «confirma por favor si hay…».)
                    || (*next == "por"
                        && words.get(k + 2) == Some(&"favor")
                        && words.get(k + 3).is_none_or(|w| *w != "si"))
            })
            // («si confirma que hay brownie lo quiero»: a condition.)
            && !(k > 0
                && words[k - 1] == "si"
                && words.get(k + 1) == Some(&"que")
                && !words[k].ends_with("lo"))
    };
    words.iter().enumerate().any(|(k, w)| {
        (matches!(*w, "confirmo" | "confirmado" | "confirmamos" | "confirmed") || told_to(k))
            && !(k > 0 && matches!(words[k - 1], "te" | "le" | "les" | "lo" | "la"))
            && words.get(k + 1) != Some(&"con")
    }) && !later
        // («…but not confirmed yet».)
        && !words.iter().any(|w| matches!(*w, "not" | "yet"))
        && !any(&text, lexicon::DENY)
        && !any(&text, lexicon::CANCEL)
        && !message.contains(['?', '¿'])
}

/// See [`shop_phrases`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopPhrases {
    pub request: bool,
    pub unexplained: Vec<String>,
}

/// Whether `text` names one of the catalog's products.
pub fn names_a_product(text: &str, catalog: &[super::contract::CatalogEntry]) -> bool {
    let text = with_phrases(&normalize(text), THE_SHOP_NAMED);
    !mentions::find(&tokens(&text), catalog).is_empty()
}

/// «¿cómo llego a su café?», «¿cómo llego al café desde el Prado?»: the shop
/// itself, no coffee (folded text, as `with_phrases` reads it).
const THE_SHOP_NAMED: &[(&str, &str)] = &[
    (" su cafe ", " su local "),
    (" llego al cafe ", " llego al local "),
    (" llegar al cafe ", " llegar al local "),
    (" llegamos al cafe ", " llegamos al local "),
    (" tu cafe ", " tu local "),
    (" vuestro cafe ", " vuestro local "),
];

/// «2 ricos brownies», «one iced matcha» («1 frio matcha»): a word of praise, or
/// a kind the product named right after it is, said before it. A kind the
/// product is not («2 frios capuchinos») is no adjective of it.
fn praises_or_fits(word: &str, next: &str, catalog: &[super::contract::CatalogEntry]) -> bool {
    const PRAISE: &[&str] = &[
        "rico",
        "rica",
        "ricos",
        "ricas",
        "delicioso",
        "deliciosa",
        "deliciosos",
        "deliciosas",
        "sabroso",
        "sabrosa",
        "sabrosos",
        "sabrosas",
        "buen",
        "buena",
        "buenos",
        "buenas",
    ];
    if PRAISE.contains(&word) {
        return names_a_product(next, catalog);
    }
    let words = [next];
    let Some(id) = mentions::find(&words, catalog)
        .first()
        .and_then(|m| m.product())
    else {
        return false;
    };
    catalog
        .iter()
        .find(|e| e.product_id == id)
        .is_some_and(|e| {
            let said = mentions::singular(word);
            e.tags.iter().any(|t| {
                let tag = normalize(t);
                said == tag
                    || (said.strip_suffix('a').is_some()
                        && said.strip_suffix('a') == tag.strip_suffix('o'))
            })
        })
}

/// «recojo 10 min», «I pick up»: pickup said at the summary or after the order
/// in a shop that takes its orders at the counter (nothing to ask), taken as
/// said when only the way, a time and courtesy are said: nothing of a product,
/// a count, a change, a cancel, a question or another day («lo recojo
/// mañana», «¿a qué hora puedo recoger», «recojo, y uno más» are not).
/// After the order the way is the one it was made with: acknowledged, not set.
pub fn pickup_said(
    message: &str,
    state: State,
    catalog: &[super::contract::CatalogEntry],
) -> Option<Proposal> {
    let text = prepared(message);
    let words = tokens(&text);
    if !matches!(state, State::Checkout | State::AwaitingPayment)
        || delivery::mode_said(&text) != Some(Mode::Pickup)
        || message.contains(['?', '¿'])
        || !mentions::find(&words, catalog).is_empty()
        || any(&text, lexicon::CANCEL)
        || any(&text, lexicon::DENY)
    {
        return None;
    }
    const AROUND: &[&str] = &[
        "a", "al", "las", "la", "en", "min", "mins", "minutos", "minuto", "hora", "horas", "rato",
        "ratito", "toque", "yo", "nosotros", "mi", "ya", "voy", "vamos", "paso", "pasamos",
        "pasare", "lo", "la", "el", "de", "tienda", "local", "i", "will", "it", "we", "y", "por",
        "ahi", "unos", "como", "ahorita", "luego", "despues", "tarde",
    ];
    let mut covered = vec![false; words.len()];
    lexicon::cover(&words, delivery::PICKUP, &mut covered);
    lexicon::cover(&words, lexicon::FILLER, &mut covered);
    lexicon::cover(&words, lexicon::THANKS, &mut covered);
    lexicon::cover(&words, lexicon::CONFIRM, &mut covered);
    // A number is an hour or a wait («a las 5», «en 10 min»), never a count.
    let timed = |k: usize| {
        token_number(words[k]).is_some()
            && (k > 0 && matches!(words[k - 1], "a" | "las" | "en" | "la")
                || words
                    .get(k + 1)
                    .is_some_and(|n| matches!(*n, "min" | "mins" | "minutos" | "hora" | "horas")))
            || words[k].contains(':')
    };
    let quiet = (0..words.len()).all(|k| {
        let w = words[k];
        (covered[k] || AROUND.contains(&w) || timed(k))
            && !matches!(w, "mas" | "otro" | "otra" | "manana" | "pasado")
    });
    if !quiet || words.iter().any(|w| orders_or_takes_out(w) || swap_verb(w)) {
        return None;
    }
    Some(if state == State::AwaitingPayment {
        Proposal::new(vec![ProposedAction::new("REPLY")], messages::PICKUP_NOTED)
    } else {
        Proposal::new(
            vec![ProposedAction::new("SET_FULFILMENT").mode(Mode::Pickup)],
            "",
        )
    })
}

/// A follow-up rewritten as the standalone request it stands for, so a proposer
/// that does not see the cart or the offered choices reads it right: "el
/// segundo" → "quiero 1 Matcha", "ponme otro igual" → "quiero 1 más de Matcha",
/// "uno menos" → "quítame 1 de Matcha". `None` when the message stands alone.
pub fn rewrite(input: &ProposalInput) -> Option<String> {
    let text = said(input);
    let words = tokens(&text);
    let mut reader = Reader::new(input, &text, &words);
    let name = |id: ProductId| name_of(input, id).map(str::to_owned);
    if let Some(picked) = chosen_then_more(input) {
        return Some(picked);
    }
    if let Some(fitted) = kind_of_the_focus(input, &words) {
        return Some(fitted);
    }
    if let Some((id, quantity)) = reader.chosen() {
        return Some(format!("quiero {quantity} {}", name(id)?));
    }
    if let Some(swap) = swap_completed(input, &words) {
        return Some(swap);
    }
    if let Some(quoted) = quoted_then_ordered(input, &words) {
        return Some(quoted);
    }
    if let Some(taken) = as_it_comes(input, &words) {
        return Some(taken);
    }
    // «lo mismo de antes, lo que pedí al principio»: an order further back
    // than the last change, which the reading asks about.
    if any(
        &text,
        &[
            "al principio",
            "del principio",
            "mismo de antes",
            "misma de antes",
        ],
    ) {
        return None;
    }
    let whole_cart = [lexicon::CLEAR, lexicon::CANCEL, lexicon::DONE];
    // «y un agua sin gas»: the count is the water's, not the last line's.
    if !mentions::find(&words, &input.product_catalog).is_empty()
        || whole_cart.iter().any(|phrases| any(&text, phrases))
        || lexicon::clears(&text)
        || !unsold_foods(&input.customer_message, &input.product_catalog).is_empty()
    {
        return None;
    }
    let actions = reader
        .follow_up()
        .or_else(|| reader.of_focus())?
        .proposed_actions;
    // «Para mi amiga lo mismo» sets several lines: each is said.
    let said: Option<Vec<String>> = actions
        .iter()
        .map(|action| {
            let id = action.params.product_id.as_ref()?.as_i64()?;
            let product = name(id)?;
            let quantity = action.params.quantity.as_ref().and_then(|q| q.as_i64());
            let had = input.cart.quantity_of(id).unwrap_or(0);
            Some(match (action.action_type.as_str(), quantity) {
                ("ADD_TO_CART", Some(q)) if had == 0 => format!("quiero {q} {product}"),
                ("ADD_TO_CART", Some(q)) => format!("quiero {q} más de {product}"),
                ("UPDATE_QUANTITY", Some(q)) => format!("cambia {product} a {q}"),
                ("REMOVE_ITEM", _) if had > 0 => format!("quita {product}"),
                _ => return None,
            })
        })
        .collect();
    said.filter(|s| !s.is_empty()).map(|s| s.join(" y "))
}

/// «¿el matcha es calientito o frío?» … «ok dame uno frío y un brownie»: one
/// of a kind, named by nothing else, is the product just talked about when
/// that product is of the kind; it is written as that product.
fn kind_of_the_focus(input: &ProposalInput, words: &[&str]) -> Option<String> {
    let focus = input.focus?;
    let entry = input
        .product_catalog
        .iter()
        .find(|e| e.product_id == focus)?;
    let at = (1..words.len()).find(|&k| {
        token_number(words[k - 1]).is_some()
            && lexicon::KINDS
                .iter()
                .any(|(said, tag)| *said == words[k] && lexicon::is_of_kind(entry, tag))
            && !words
                .get(k + 1)
                .is_some_and(|next| names_a_product(next, &input.product_catalog))
    })?;
    // (Only when no other word of a kind is said: «uno frío y otro
    // caliente» is two things.)
    let kinds = words
        .iter()
        .filter(|w| lexicon::KINDS.iter().any(|(said, _)| said == *w))
        .count();
    if kinds != 1 || names_a_product(words[at], &input.product_catalog) {
        return None;
    }
    let mut out: Vec<&str> = words.to_vec();
    out[at] = &entry.name;
    Some(out.join(" "))
}

/// «el caliente, y también un brownie de paso» after «¿Cuál de estos
/// quieres?»: a pick among the choices offered (its first part, naming no
/// product), then more ordered; the pick is written as the product it picks
/// and the rest is read after it.
fn chosen_then_more(input: &ProposalInput) -> Option<String> {
    if input.choices.is_empty() {
        return None;
    }
    let raw = input.customer_message.as_str();
    let cut = raw
        .find([',', ';'])
        .or_else(|| raw.find(" y "))
        .or_else(|| raw.find(" e "))?;
    let (head, tail) = raw.split_at(cut);
    let tail = tail.trim_start_matches([',', ';', ' ']);
    // (The rest is another request: «y también un brownie», not «…, two.
    // And one croissant», whose count is the pick's.)
    let tail_words = tokens(&normalize(tail))
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    let joined = matches!(
        tail_words.first().map(String::as_str),
        Some("y" | "e" | "and" | "tambien" | "ademas" | "plus")
    );
    if !joined
        || !names_a_product(tail, &input.product_catalog)
        || names_a_product(head, &input.product_catalog)
    {
        return None;
    }
    let mut first = input.clone();
    first.customer_message = head.to_owned();
    let text = said(&first);
    let words = tokens(&text);
    let (id, quantity) = Reader::new(&first, &text, &words).chosen()?;
    Some(format!("quiero {quantity} {}, {tail}", name_of(input, id)?))
}

/// «un matcha caliente» … «No vendemos «matcha caliente»…» … «ah bueno,
/// entonces frío nomás está bien»: the product as the shop makes it (a tag of
/// its own, «normal», «como viene»), taken with the count asked before.
fn as_it_comes(input: &ProposalInput, words: &[&str]) -> Option<String> {
    let refused = last_bot_turn(input)?;
    let at = refused.text.find("No vendemos «")?;
    // (Only the refusal's own sentence: «…; anoté lo demás.»)
    let sentence = refused.text[at..]
        .split(['.', '\n'])
        .next()
        .unwrap_or_default();
    let variants: Vec<&str> = sentence
        .split('«')
        .skip(1)
        .filter_map(|part| part.split('»').next())
        .collect();
    let [variant] = variants.as_slice() else {
        return None;
    };
    let variant = normalize(variant);
    let variant_words = tokens(&variant);
    // (The variant's head is its product: «matcha caliente» is a matcha,
    // whatever «caliente» may also name.)
    let found = mentions::find(&variant_words, &input.product_catalog);
    let id = found.first().filter(|m| m.start == 0)?.product()?;
    let entry = input.product_catalog.iter().find(|p| p.product_id == id)?;
    let own = |w: &str| its_tag(entry, w);
    // (A tag of its own or «como viene»: «está bien nomás» alone may be
    // «never mind».)
    let as_made = words.iter().any(|w| own(w))
        || any(
            &words.join(" "),
            &[
                "como viene",
                "como lo hacen",
                "normal entonces",
                "normal nomas",
            ],
        );
    let agrees = words.iter().all(|w| {
        own(w)
            || matches!(
                *w,
                "ah" | "ya"
                    | "bueno"
                    | "ok"
                    | "dale"
                    | "entonces"
                    | "esta"
                    | "bien"
                    | "nomas"
                    | "normal"
                    | "asi"
                    | "como"
                    | "viene"
                    | "lo"
                    | "hacen"
                    | "pues"
                    | "va"
                    | "si"
                    | "sale"
                    | "igual"
                    | "el"
                    | "la"
                    | "uno"
                    | "una"
                    | "de"
                    | "porfa"
                    | "mejor"
                    | "vale"
                    | "listo"
                    | "perfecto"
                    | "que"
                    | "sea"
            )
    });
    if !as_made || !agrees || !mentions::find(words, &input.product_catalog).is_empty() {
        return None;
    }
    // How many: as the order before the refusal said it (an order, not
    // «¿tienen matcha caliente?»).
    let asked = shapes::earlier_turns(input).find(|h| h.role == "customer")?;
    if asked.text.contains('?') {
        return None;
    }
    let before = prepared(&asked.text);
    let said = tokens(&before);
    let n = mentions::find(&said, &input.product_catalog)
        .iter()
        .find(|m| m.product() == Some(id))
        .and_then(|m| counted_as(&said, m))
        .unwrap_or(1);
    Some(format!("quiero {n} {}", name_of(input, id)?))
}

/// A word of the product's own tags («frío» of a matcha tagged «frío»); short
/// words («sin», «con») never.
fn its_tag(entry: &super::contract::CatalogEntry, word: &str) -> bool {
    entry.tags.iter().any(|t| {
        normalize(t)
            .split(' ')
            .any(|x| x == word && x.chars().count() > 3)
    })
}

/// The count said right before a mention: «3 brownies», «un matcha».
fn counted_as(said: &[&str], m: &mentions::Mention) -> Option<i64> {
    let before = said[..m.start].last().copied()?;
    count_or_one(before).or(matches!(before, "un" | "una").then_some(1))
}

/// «agrégalo», «mándamelos»: an order of what was just talked about.
const IT_ORDERED: &[&str] = &[
    "agregalo",
    "agregalos",
    "agregamelo",
    "agregamelos",
    "ponlo",
    "ponlos",
    "ponmelo",
    "ponmelos",
    "mandalo",
    "mandalos",
    "mandamelo",
    "mandamelos",
    "damelo",
    "damelos",
    "pidelo",
    "pidelos",
];

/// «si pido 3 brownies y 2 limonadas, ¿cuánto me saldría?» … «ok, mándame eso
/// mismo»: what was only asked about is now ordered, with the counts the
/// question said (every product it named counted, none of it in the cart yet).
fn quoted_then_ordered(input: &ProposalInput, words: &[&str]) -> Option<String> {
    let that = words.windows(2).any(|w| {
        matches!(
            (w[0], w[1]),
            ("eso", "mismo") | ("eso", "entonces") | ("todo", "eso") | ("lo", "mismo")
        )
    }) || words.last() == Some(&"eso")
        || words.iter().any(|w| IT_ORDERED.contains(w));
    // A yes to the quote's own offer («Si lo quieres, dime «agrégalo»»).
    let yes = last_bot_turn(input).is_some_and(|h| h.text.contains(messages::QUOTE_OFFER))
        && is_yes(&input.customer_message);
    let that = that || yes;
    let orders = yes
        || words.iter().any(|w| lexicon::adds(w))
        || any(&words.join(" "), lexicon::ASKS_FOR)
        || words.iter().any(|w| {
            ["mand", "dam", "trae", "pon", "dale"]
                .iter()
                .any(|s| w.starts_with(s))
        });
    // Only the order and its pointer: «dale», «ok», «entonces», «porfa».
    let filler = |w: &str| {
        IT_ORDERED.contains(&w)
            || lexicon::adds(w)
            || w.starts_with("mand")
            || matches!(
                w,
                "eso"
                    | "mismo"
                    | "todo"
                    | "lo"
                    | "ok"
                    | "dale"
                    | "bueno"
                    | "listo"
                    | "entonces"
                    | "pues"
                    | "porfa"
                    | "por"
                    | "favor"
                    | "me"
                    | "nos"
                    | "si"
                    | "ya"
                    | "va"
                    | "damelo"
                    | "dame"
                    | "ponme"
                    | "traeme"
                    | "mandame"
                    | "perfecto"
                    | "genial"
                    | "sale"
                    | "vale"
                    | "asi"
                    | "quiero"
                    | "pideme"
                    | "hazme"
                    | "sii"
                    | "claro"
                    | "yes"
            )
    };
    if !that || !orders || !words.iter().all(|w| filler(w)) {
        return None;
    }
    let asked = shapes::earlier_turns(input).find(|h| h.role == "customer")?;
    let question = asked.text.contains('?')
        || any(
            &prepared(&asked.text),
            &[
                "si pido",
                "si pidiera",
                "si llevo",
                "cuanto seria",
                "cuanto saldria",
                "cuanto sale",
            ],
        );
    // (An order for another day asked about is not today's cart.)
    if !question || settle::for_later(&prepared(&asked.text)) {
        return None;
    }
    let text = prepared(&asked.text);
    let said = tokens(&text);
    let found = mentions::find(&said, &input.product_catalog);
    let mut items = Vec::new();
    for m in &found {
        let id = m.product()?;
        if input.cart.holds(id) {
            return None;
        }
        let n = counted_as(&said, m)?;
        items.push(format!("{n} {}", name_of(input, id)?));
    }
    (!items.is_empty()).then(|| format!("quiero {}", items.join(" y ")))
}

/// «el americano cámbialo por chai. o no, déjalo americano nomás. pero
/// agrégame un croissant»: a sentence that takes the one before it back («o
/// no, déjalo…», «mejor no, olvídalo») drops both; the rest is read.
fn taken_back(raw: &str) -> String {
    if !raw.contains(['.', '!', ';', '\n']) {
        return raw.to_owned();
    }
    // (A sentence has words: «...» is no sentence to take back.)
    let sentences: Vec<&str> = raw
        .split_inclusive(['.', '!', ';', '\n'])
        .filter(|s| {
            s.chars()
                .any(|c| !c.is_whitespace() && !matches!(c, '.' | '!' | ';' | '…'))
        })
        .collect();
    let takes_back = |s: &str| {
        let folded = normalize(s);
        let words = tokens(&folded);
        let lead = matches!(
            words.as_slice(),
            ["o", "no", ..] | ["mejor", "no", ..] | ["no", "mejor", "no", ..] | ["no", "no", ..]
        );
        let keeps = words.iter().any(|w| {
            matches!(
                *w,
                "dejalo" | "dejala" | "dejalos" | "dejalas" | "olvidalo" | "olvidala" | "olvida"
            )
        });
        // («…no no, déjalo en dos nomás» sets a count: a correction, read —
        // never «olvídalo, solo traigo 20 pesos».)
        let counted = words
            .windows(2)
            .any(|w| matches!(w[0], "en" | "sean" | "sea" | "a") && count(w[1]).is_some());
        lead && keeps && !counted
    };
    let mut kept: Vec<&str> = Vec::new();
    for sentence in sentences {
        if takes_back(sentence) && !kept.is_empty() {
            kept.pop();
        } else {
            kept.push(sentence);
        }
    }
    kept.concat().trim().to_owned()
}

/// «quiero dos matcha no espera, mejor tres... no no, dos matcha y una
/// limonada»: an order said again whole after «no no» (or «no espera», «mejor
/// dicho») replaces what came before it, when that named only products the
/// new one names again and removed or asked nothing.
fn started_over(input: &ProposalInput) -> Option<String> {
    let text = prepared(&input.customer_message);
    let words: Vec<&str> = text.split(' ').collect();
    let marker = words.windows(2).rposition(|w| {
        matches!(
            (w[0], w[1]),
            ("no", "no") | ("no", "espera") | ("no", "perdon") | ("mejor", "dicho")
        )
    });
    let at = marker?;
    let tail: Vec<&str> = words[at + 2..]
        .iter()
        .copied()
        .skip_while(|w| matches!(*w, "no" | "mejor" | "perdon" | "espera" | "digo"))
        .collect();
    let catalog = &input.product_catalog;
    let found = mentions::find(&tail, catalog);
    let again: Vec<ProductId> = found.iter().filter_map(|m| m.product()).collect();
    let whole = tail.first().is_some_and(|w| count(w).is_some())
        && found.len() == again.len()
        && found
            .iter()
            .all(|m| mentions::counted_before(&tail, m.start));
    let head = &words[..at];
    let before: Vec<ProductId> = mentions::find(head, catalog)
        .iter()
        .filter_map(|m| m.product())
        .collect();
    // (Only an order of lines not yet in the cart, said with no question,
    // no count set and no swap: «que sean tres matcha, no no, dos matcha»
    // with a matcha in the cart sets a line, never adds to it.)
    let only_ordered = !before.is_empty()
        && before.iter().all(|id| again.contains(id))
        && again.iter().all(|id| input.cart.quantity_of(*id).is_none())
        && !input.customer_message.contains(['?', '¿'])
        && !head.iter().any(|w| {
            lexicon::removes(w)
                || matches!(
                    *w,
                    "cuanto"
                        | "tienen"
                        | "tiene"
                        | "hay"
                        | "sean"
                        | "sea"
                        | "deja"
                        | "dejame"
                        | "dejalo"
                        | "solo"
                        | "cambia"
                        | "cambiame"
                        | "cambiale"
                        | "por"
                        | "vez"
                )
        });
    (whole && only_ordered).then(|| tail.join(" "))
}

/// «tres croissants, uno para cada uno de los del capuchino»: the people
/// named by what they ordered — «de los del capuchino» orders no capuchino.
fn people_by_their_order(input: &ProposalInput, text: String) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let Some(at) = words.windows(4).position(|w| {
        matches!(w[0], "de" | "para" | "a")
            && matches!(w[1], "los" | "las")
            && w[2] == "del"
            && !mentions::find(&[w[3]], &input.product_catalog).is_empty()
    }) else {
        return text;
    };
    let mut kept: Vec<&str> = words[..at].to_vec();
    kept.extend(&words[at + 4..]);
    kept.join(" ")
}

/// «a una de ellas cámbiale el brownie por cheesecake»: for one of the
/// people, one unit swapped → «cambiale un brownie por cheesecake».
fn one_of_them_swaps(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let Some(from) = words.windows(4).position(|w| {
        matches!(w[0], "a" | "para" | "pa")
            && matches!(w[1], "uno" | "una")
            && w[2] == "de"
            && matches!(w[3], "ellos" | "ellas" | "nosotros" | "nosotras")
    }) else {
        return text.to_owned();
    };
    // (In the same clause: no «y» between, and never «…a todas».)
    let swap = (from + 4..words.len().saturating_sub(1))
        .take_while(|&k| words[k] != "y")
        .find(|&k| {
            words[k].starts_with("cambi") && matches!(words[k + 1], "el" | "la" | "los" | "las")
        });
    let Some(at) = swap else {
        return text.to_owned();
    };
    if words[at..]
        .iter()
        .any(|w| matches!(*w, "todos" | "todas" | "demas"))
    {
        return text.to_owned();
    }
    let mut out: Vec<&str> = words[..from].to_vec();
    out.extend(&words[from + 4..=at]);
    out.push(if matches!(words[at + 1], "la" | "las") {
        "una"
    } else {
        "un"
    });
    out.extend(&words[at + 2..]);
    out.join(" ")
}

/// «uno de los capuchinos mi jefa lo quiere chai, cámbialo porfa»: one of a
/// line wanted as another product is that one swapped — read as «cámbialo
/// por chai» (the «cámbialo» said after it, then, is the same request).
fn one_wanted_as(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let one_of = words.windows(3).position(|w| {
        matches!(w[0], "uno" | "una") && w[1] == "de" && matches!(w[2], "los" | "las")
    });
    let Some(from) = one_of else {
        return text.to_owned();
    };
    let Some(at) = (from + 3..words.len().saturating_sub(2)).find(|&k| {
        matches!(words[k], "lo" | "la")
            && matches!(
                words[k + 1],
                "quiere" | "quieren" | "prefiere" | "prefieren"
            )
    }) else {
        return text.to_owned();
    };
    let mut out: Vec<&str> = words[..at].to_vec();
    out.extend(["cambialo", "por"]);
    let rest = &words[at + 2..];
    // («…lo quiere de chai»: the «de» before the product.)
    let rest = rest.strip_prefix(&["de"][..]).unwrap_or(rest);
    for w in rest {
        if !matches!(*w, "cambialo" | "cambiala" | "cambiamelo" | "cambiamela") {
            out.push(w);
        }
    }
    out.join(" ")
}

/// «agrega otra limonada, así pasamos los 200», «…para llegar al mínimo»,
/// «…y así llegamos al envío gratis»: the total the order aims at, a reason
/// told — dropped, so its figure is no count.
fn total_aimed_at(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let aims = |w: &str| {
        matches!(
            w,
            "pasamos"
                | "llegamos"
                | "completamos"
                | "alcanzamos"
                | "juntamos"
                | "superamos"
                | "paso"
                | "llego"
                | "completo"
                | "alcanzo"
                | "supero"
                | "pasar"
                | "llegar"
                | "completar"
                | "alcanzar"
                | "superar"
                | "juntar"
        )
    };
    // («…ya paso los 200»: «ya» only before the sum itself — «ya paso por
    // ahí a las 8» is a pickup.)
    let Some(at) = (1..words.len()).find(|&k| {
        aims(words[k])
            && (matches!(words[k - 1], "asi" | "para")
                || words[k - 1] == "ya"
                    && words[k + 1..]
                        .iter()
                        .take(2)
                        .any(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit())))
    }) else {
        return text.to_owned();
    };
    // What it aims at: a sum (said first, or after an article), the minimum
    // or free delivery, within a few words.
    let rest = &words[at + 1..];
    // («a las 8» is an hour, never a sum: only «a», «los», «el», «al», «de»
    // may come before the figure.)
    let end = rest.iter().take(4).enumerate().position(|(k, w)| {
        !w.is_empty()
            && w.chars().all(|c| c.is_ascii_digit())
            && rest[..k]
                .iter()
                .all(|b| matches!(*b, "a" | "los" | "el" | "al" | "de"))
            || matches!(*w, "minimo" | "gratis" | "monto")
    });
    let Some(end) = end else {
        return text.to_owned();
    };
    let mut end = at + 1 + end + 1;
    // («…los 200 bs», «…el envío gratis»: its unit or its words.)
    while words.get(end).is_some_and(|w| {
        matches!(
            *w,
            "bs" | "bolivianos" | "pesos" | "soles" | "gratis" | "de" | "envio"
        )
    }) {
        end += 1;
    }
    // («así llego a 12 empanadas»: a count of things, not a total — only a
    // sum that ends its clause is aimed at.)
    if words.get(end).is_some_and(|w| {
        !matches!(
            *w,
            "y" | "e"
                | "pero"
                | "porfa"
                | "por"
                | "entonces"
                | "nomas"
                | "listo"
                | "ok"
                | "gracias"
                | "ya"
                | "no"
                | "verdad"
                | "cierto"
        )
    }) {
        return text.to_owned();
    }
    let mut kept: Vec<&str> = words[..at - 1].to_vec();
    kept.extend(&words[end..]);
    kept.join(" ")
}

/// A folded text with the basic English and Portuguese of tourists read as the
/// Spanish they stand for («do you have», «vocês aceitam cartão»).
fn in_spanish(normalized: &str) -> String {
    lexicon::read_portuguese(&lexicon::read_english(normalized))
}

/// A folded question as the customer means it: chat spellings («asta q hora»)
/// and basic Portuguese («vocês aceitam cartão?») read as Spanish, for the
/// knowledge (which reads English words on its own).
pub fn question_in_spanish(normalized: &str) -> String {
    lexicon::read_portuguese(&lexicon::read_chat(normalized))
}

/// Foods and drinks `text` names that no product of `catalog` is, as the
/// customer wrote them («salteñas», not «saltenas»).
pub fn unsold_foods(text: &str, catalog: &[super::contract::CatalogEntry]) -> Vec<String> {
    let words = mentions::catalog_words(catalog);
    let in_catalog = |folded: &str| {
        let singular = mentions::singular(folded);
        words.iter().any(|(_, name, description)| {
            name.iter()
                .chain(description)
                .any(|w| w == singular || w == folded)
        }) || names_a_product(folded, catalog)
    };
    let mut out: Vec<String> = Vec::new();
    // «un jugo de naranja», «una torta de zanahoria»: a kind of food made of
    // something the shop never names is not sold, however the kind alone
    // reads («jugo» is the maracuyá's; «jugo de maracuyá» is sold).
    let raws: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|r| !r.is_empty())
        .collect();
    let mut flavoured = vec![false; raws.len()];
    for k in 0..raws.len().saturating_sub(2) {
        let head = normalize(raws[k]);
        let flavour = normalize(raws[k + 2]);
        if matches!(
            head.as_str(),
            "jugo"
                | "jugos"
                | "zumo"
                | "zumos"
                | "torta"
                | "tortas"
                | "tarta"
                | "tartas"
                | "pastel"
                | "pasteles"
                | "batido"
                | "batidos"
                | "licuado"
                | "licuados"
                | "helado"
                | "helados"
                | "agua"
                | "aguas"
                | "galleta"
                | "galletas"
                | "empanada"
                | "empanadas"
        ) && normalize(raws[k + 1]) == "de"
            && flavour.chars().count() >= 3
            && flavour.chars().all(char::is_alphabetic)
            && !matches!(
                flavour.as_str(),
                "las"
                    | "los"
                    | "una"
                    | "uno"
                    | "unos"
                    | "unas"
                    | "esos"
                    | "esas"
                    | "ese"
                    | "esa"
                    | "este"
                    | "esta"
                    | "mas"
                    | "casa"
                    | "hoy"
                    | "siempre"
            )
            && !in_catalog(&flavour)
        {
            let phrase = raws[k..k + 3].join(" ");
            if !out.iter().any(|o| normalize(o) == normalize(&phrase)) {
                out.push(phrase);
            }
            flavoured[k] = true;
            flavoured[k + 2] = true;
        }
    }
    for (k, raw) in raws.iter().enumerate() {
        if flavoured[k] {
            continue;
        }
        let raw = *raw;
        let folded = normalize(raw);
        // «latte» is sold when a product is a «Matcha latte».
        let singular = mentions::singular(&folded);
        let described = words
            .iter()
            .any(|(_, name, description)| name.iter().chain(description).any(|w| w == singular));
        if (lexicon::is_food(&folded) || lexicon::is_food(&raw.to_lowercase()))
            && !described
            && !names_a_product(&folded, catalog)
            && !out.iter().any(|o| normalize(o) == folded)
        {
            out.push(raw.to_owned());
        }
    }
    // (In the order they were said.)
    let folded = normalize(text);
    out.sort_by_key(|o| folded.find(&normalize(o)).unwrap_or(usize::MAX));
    out
}

/// The message as the rules read it: emoji as words, accents and case folded,
/// chat spellings as the words they stand for.
fn prepared(message: &str) -> String {
    // «Vale, pues un americano»: Spain's «vale» said first, as «ok», asks no
    // price.
    let message = ok_for_vale(message);
    // «½ docena», «1/2 docena»: half.
    let message = message
        .replace('½', " media ")
        .replace("1/2 doc", "media doc");
    // «-1 croissant», «+2 brownies»: one less, two more.
    let message = signed_counts(&message);
    let read = in_spanish(&lexicon::spelled_counts(&lexicon::read_chat(&normalize(
        &lexicon::read_emoji(&without_list_numbers(&clock_times(&message))),
    ))));
    // «¿cuántas calorías tiene más o menos?»: roughly, neither more nor less.
    // «que los cheesecakes vuelvan a ser 3»: set again; «volvé a poner el
    // brownie»: put back. («devuélveme lo del americano» may be a refund.)
    let phrases: &[(&str, &str)] = &[
        (" mas o menos ", " aproximadamente "),
        (" vuelvan a ser ", " sean "),
        (" vuelva a ser ", " sea "),
        (" vuelve a poner ", " pon "),
        (" volve a poner ", " pon "),
        (" vuelva a poner ", " ponga "),
        (" vuelvan a poner ", " pongan "),
        // «un americano y un croissant, como todos los días»: the habit told,
        // no «¿cómo?» («como siempre», «como de costumbre» may be a way it is
        // made: read as said).
        (" como todos los dias ", " "),
        (" como cada dia ", " "),
        // «…y un chocolate caliente, si fuera tan amable»: courtesy, no «fuera».
        (" si fuera tan amable ", " por favor "),
        (" su cafeteria ", " su local "),
        (" si fuera usted tan amable ", " por favor "),
        (" si fueras tan amable ", " por favor "),
        (" si fuese tan amable ", " por favor "),
        (" si es tan amable ", " por favor "),
        (" si eres tan amable ", " por favor "),
        (" si fueran tan amables ", " por favor "),
        (" si son tan amables ", " por favor "),
        // «uy, espera, que han cambiado los planes»: the plans changed, a story
        // told, nothing swapped.
        (" han cambiado los planes ", " "),
        (" cambiaron los planes ", " "),
        // «vacía el carrito, me equivoqué de chat»: the wrong conversation,
        // a reason told, nothing ordered.
        // «¿el capuchino lleva azúcar? es que lo tomo sin»: the reason asked.
        (" es que lo tomo sin azucar ", " "),
        (" es que lo tomo sin ", " "),
        (" lo tomo sin azucar ", " "),
        (" lo tomo sin ", " "),
        // «él dice que igual lo quiere»: kept as it is, nothing to change.
        (" igual lo quiere ", " "),
        (" igual la quiere ", " "),
        (" igual los quiere ", " "),
        (" igual las quiere ", " "),
        (" igual lo quiero ", " "),
        (" igual la quiero ", " "),
        // «la limo sí, vuelve a ponerla»: put it back, an order again.
        (" vuelve a ponerla ", " ponla "),
        (" vuelve a ponerlo ", " ponlo "),
        (" vuelve a ponerme ", " ponme "),
        (" vuelve a poner ", " pon "),
        (" vuelve a agregarla ", " agregala "),
        (" vuelve a agregarlo ", " agregalo "),
        (" vuelve a agregarme ", " agregame "),
        (" vuelve a agregar ", " agrega "),
        (" vuelve a sumar ", " suma "),
        (" me equivoque de chat ", " "),
        (" me equivoque de numero ", " "),
        (" me equivoque de conversacion ", " "),
        (" me equivoque de tienda ", " "),
        (" era para otro chat ", " "),
        (" era otro chat ", " "),
        // «antes de pedir tengo unas consultas»: questions announced, no order.
        (" antes de pedir ", " "),
        (" antes de ordenar ", " "),
        (" tengo unas consultas ", " "),
        (" tengo unas preguntas ", " "),
        (" tengo unas dudas ", " "),
        (" tengo una consulta ", " "),
        (" tengo una pregunta ", " "),
        (" tengo una duda ", " "),
        // «un brownie, no, qué estoy diciendo, un croissant»: a slip taken
        // back, the item after it instead.
        (" no que estoy diciendo ", " no mejor "),
        (" no que digo ", " no mejor "),
        (" no me equivoque ", " no mejor "),
        (" perdon me equivoque ", " no mejor "),
        (" que estoy diciendo ", " mejor "),
        // «soy de fuera», «fuera de la zona»: from elsewhere, nothing taken
        // out (that is «fuera el brownie»).
        (" de fuera ", " de afuera "),
        (" fuera de ", " afuera de "),
        // «para las mamás que se quedan: 3 capuchinos»: they stay, nothing
        // asked of what is left («¿quedan brownies?»).
        // «…que sean 4, se sumaron más»: more people came, a reason told —
        // no «suma».
        (" se sumaron mas ", " "),
        (" se sumaron ", " "),
        (" se sumo alguien ", " "),
        (" se unieron mas ", " "),
        (" se unieron ", " "),
        (" se apuntaron mas ", " "),
        (" se apuntaron ", " "),
        (" se quedan ", " permanecen "),
        (" se queda ", " permanece "),
    ];
    let text =
        something_else_called_off(&with_phrases(&with_phrases(&read, THE_SHOP_NAMED), phrases));
    let text = total_aimed_at(&text);
    let text = one_wanted_as(&one_of_them_swaps(&text));
    let text = notes_in_hand(&text);
    let text = kind_not_wanted(&text);
    let text = dislike_told(&text);
    // «…un chai y un cheesecake, a mi oficina como siempre»: the habit told
    // at the end, after the order («un capuchino como siempre» alone may be
    // how it is made, and is read as said).
    let text = text.as_str();
    let habit = ["como siempre", "como de costumbre"]
        .iter()
        .find_map(|h| {
            ["", " jaja", " jeje", " no"]
                .iter()
                .find_map(|tail| text.strip_suffix(&format!(" {h}{tail}")))
        })
        .filter(|before| before.split(' ').count() >= 4);
    let text = habit.unwrap_or(text);
    // «Pues nada. Añadid un zumo»: «well then», nothing refused («pues nada
    // más dos» keeps its «nada más»).
    let text = match text.strip_prefix("pues nada ") {
        Some(rest) if !rest.starts_with("mas") => rest,
        _ => text,
    };
    // «perdón, no 3 croissants, 2» («sorry not 3…»): the apology before a
    // correction says nothing more.
    let text = ["perdon no ", "disculpa no ", "disculpe no ", "ups no "]
        .iter()
        .find_map(|p| text.strip_prefix(p))
        .map_or(text.to_owned(), |rest| format!("no {rest}"));
    let text = text.as_str();
    times_told(text)
}

/// «se canceló la reunión, cancela el pedido»: something else called off in
/// the past is the story told, never this order («se canceló el pedido» and
/// «cancelaron mi orden» are read as said).
fn something_else_called_off(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut k = 0;
    while k < words.len() {
        let verb = match (words[k], words.get(k + 1)) {
            ("se", Some(&("cancelo" | "suspendio" | "postergo"))) => Some(2),
            ("cancelaron" | "suspendieron" | "postergaron", _) => Some(1),
            _ => None,
        };
        if let Some(n) = verb {
            let rest = &words[k + n..];
            let skip = usize::from(matches!(
                rest.first(),
                Some(&("el" | "la" | "los" | "las" | "mi" | "mis" | "nuestra" | "nuestro"))
            ));
            if let Some(thing) = rest.get(skip)
                && !matches!(
                    *thing,
                    "pedido" | "pedidos" | "orden" | "compra" | "carrito"
                )
                && thing.chars().count() > 2
            {
                k += n + skip + 1;
                continue;
            }
        }
        out.push(words[k]);
        k += 1;
    }
    out.join(" ")
}

/// «a las 9:45», «17:30»: a clock time said as «hora» before the folding
/// takes its colon (and its minutes would read as a count).
fn clock_times(message: &str) -> String {
    // (Every message and history line passes here: most have no colon.)
    if !message.contains(':') {
        return message.to_owned();
    }
    let chars: Vec<char> = message.chars().collect();
    let mut out = String::with_capacity(message.len());
    let mut k = 0;
    while k < chars.len() {
        let digits = chars[k..].iter().take_while(|c| c.is_ascii_digit()).count();
        let at_word = k == 0 || !chars[k - 1].is_alphanumeric();
        let clock = at_word
            && (1..=2).contains(&digits)
            && chars.get(k + digits) == Some(&':')
            && chars[k + digits + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count()
                == 2;
        if clock {
            out.push_str(" hora ");
            k += digits + 3;
        } else {
            out.push(chars[k]);
            k += 1;
        }
    }
    out
}

/// A folded text with the times of day and the waits it tells («paso a las
/// 10», «en 20 minutos») said as «hora»: never a count.
fn times_told(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let told = |k: usize| {
        let number = token_number(words[k]).is_some();
        let at_hour = k >= 2 && matches!(words[k - 1], "las" | "la") && words[k - 2] == "a";
        let a_wait = words.get(k + 1).is_some_and(|n| {
            matches!(
                *n,
                "min" | "mins" | "minutos" | "minuto" | "hora" | "horas" | "hs" | "am" | "pm"
            )
        });
        number && (at_hour || a_wait)
    };
    (0..words.len())
        .map(|k| if told(k) { "hora" } else { words[k] })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A folded text with each of `phrases` (said with a space either side) put
/// as what it means, trimmed.
pub(super) fn with_phrases(text: &str, phrases: &[(&str, &str)]) -> String {
    phrases
        .iter()
        .fold(format!(" {text} "), |text, (said, meant)| {
            text.replace(said, meant)
        })
        .trim()
        .to_owned()
}

/// «-1 croissant» is «quita 1 croissant» and «+2 brownies» «agrega 2
/// brownies»: a sign stuck to a count at the start of a word.
fn signed_counts(message: &str) -> String {
    if !message.contains(['-', '+']) {
        return message.to_owned();
    }
    message
        .split(' ')
        .map(|word| {
            let (sign, rest) = match word.chars().next() {
                Some('-') => ("quita", &word[1..]),
                Some('+') => ("agrega", &word[1..]),
                _ => return word.to_owned(),
            };
            if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()) {
                format!("{sign} {rest}")
            } else {
                word.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// «- capuchino 2\n- americano 3\n- brownie»: a list, one product a line,
/// each line's count its own — before the name or after it («Capuchino x4»,
/// «Té chai 2») — said as «2 capuchino y 3 americano y brownie», so no count
/// is read as the next line's. Lines naming no product, or several, stay as
/// written.
fn listed(message: &str, catalog: &[super::contract::CatalogEntry]) -> String {
    let message = without_list_numbers(message);
    let lines: Vec<&str> = message.lines().filter(|l| !l.trim().is_empty()).collect();
    let read: Vec<Option<String>> = lines
        .iter()
        .map(|line| {
            let line = line.trim_start_matches(|c: char| {
                matches!(c, '-' | '•' | '*' | '·') || c.is_whitespace()
            });
            // «Lic. Mamani: capuchino», «Vivi - matcha»: who it is for, then
            // the item.
            let line = match line
                .rsplit_once(':')
                .or_else(|| line.rsplit_once(" - "))
                .or_else(|| line.rsplit_once(" – "))
            {
                Some((who, what))
                    if !what.trim().is_empty()
                        && mentions::find(&tokens(&prepared(who)), catalog).is_empty() =>
                {
                    what
                }
                _ => line,
            };
            let text = prepared(line);
            let words = tokens(&text);
            let found = mentions::find(&words, catalog);
            let [m] = found.as_slice() else {
                return None;
            };
            m.product()?;
            let before = &words[..m.start];
            let after = &words[m.end..];
            let own = |w: &str| {
                token_number(w).or_else(|| {
                    w.strip_prefix('x')
                        .and_then(|n| n.parse::<i64>().ok())
                        .filter(|n| *n > 0)
                })
            };
            let n = match (before, after) {
                ([], []) => None,
                ([], ["x", n]) | ([n], []) | ([], [n]) => Some(own(n)?),
                _ => return None,
            };
            let name = words[m.start..m.end].join(" ");
            Some(match n {
                Some(n) => format!("{n} {name}"),
                None => name,
            })
        })
        .collect();
    if read.iter().filter(|r| r.is_some()).count() < 2 {
        return message;
    }
    let mut out = String::new();
    for (line, read) in lines.iter().zip(&read) {
        match read {
            Some(item) => {
                if out.trim_end().ends_with(|c: char| c.is_alphanumeric()) && !out.is_empty() {
                    out.push_str(" y ");
                } else if out.trim_end().ends_with(':') {
                    // «…lo que pidió cada uno:\ncapuchino»: the heading's last
                    // word is no count of the first item.
                    out.push_str(" y ");
                } else if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(item);
            }
            None => {
                // «jugo de naranja x1»: a short line among the items is one
                // of them, even when nothing sold is named.
                let item = line.split_whitespace().count() <= 4 && !line.trim_end().ends_with(':');
                if !out.is_empty() {
                    out.push_str(if item { " y " } else { ". " });
                }
                out.push_str(line.trim());
            }
        }
    }
    out
}

/// «1. cuatro americanos\n2. dos capuchinos»: the numbers of a numbered list
/// are no counts.
pub fn without_list_numbers(message: &str) -> String {
    if !message.contains('\n') {
        return message.to_owned();
    }
    without_names_per_line(&without_line_numbers(message))
}

/// «Marcelo - capuchino\nAndrea - matcha»: a list whose lines each start with
/// whom the line is for (a name of one to three words, then a dash or a
/// colon, then words of a thing) is the list of what comes after; two such
/// lines at least. What follows the mark must be a thing: never a count
/// («Capuchino - 2», «Té chai: x2»), a question («Brownie: ¿tiene nueces?») or
/// how it is made («Capuchino: sin azúcar»), which keep their products.
fn without_names_per_line(message: &str) -> String {
    let split = |line: &str| -> Option<(usize, usize)> {
        let (at, mark) = [" - ", " – ", " — ", ": ", " -", "- "]
            .iter()
            .filter_map(|mark| line.find(mark).map(|at| (at, mark.len())))
            .min()?;
        let who = line[..at].trim();
        let named = !who.is_empty()
            && who.split_whitespace().count() <= 3
            && who
                .chars()
                .all(|c| c.is_alphabetic() || c == ' ' || c == '.');
        let what = line[at + mark..].trim();
        let folded = normalize(what);
        let thing = !folded.is_empty()
            && !what.contains(['?', '¿'])
            && !folded.starts_with(|c: char| c.is_ascii_digit())
            && !tokens(&folded).first().is_some_and(|w| {
                token_number(w).is_some()
                    || (w.starts_with('x') && token_number(&w[1..]).is_some())
                    || matches!(
                        *w,
                        "sin" | "con" | "de" | "para" | "bien" | "muy" | "extra" | "poco" | "mas"
                    )
            });
        (named && thing).then_some((at, mark))
    };
    if message.lines().filter(|line| split(line).is_some()).count() < 2 {
        return message.to_owned();
    }
    message
        .lines()
        .map(|line| match split(line) {
            Some((at, mark)) => line[at + mark..].trim(),
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn without_line_numbers(message: &str) -> String {
    // Only numbers counting the lines 1, 2, 3…: «2- americanos\n1- brownie»
    // counts what it lists.
    let numbered: Vec<u32> = message
        .lines()
        .filter_map(|line| {
            let trimmed = line.trim_start();
            let digits: String = trimmed.chars().take_while(char::is_ascii_digit).collect();
            let marked = matches!(
                trimmed[digits.len()..].chars().next(),
                Some('.' | ')' | '-')
            );
            (marked && !digits.is_empty())
                .then(|| digits.parse().ok())
                .flatten()
        })
        .collect();
    let sequential =
        numbered.len() >= 2 && numbered.iter().enumerate().all(|(i, n)| *n == i as u32 + 1);
    if !sequential {
        return message.to_owned();
    }
    message
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
            let rest = &trimmed[digits..];
            match rest.chars().next() {
                Some('.' | ')' | '-') if digits > 0 && digits <= 2 => rest[1..].trim_start(),
                _ => line,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The message as the rules read it: folded, and with what points elsewhere
/// (a relayed request, a line by its place, «lo último», «los 3») said by name.
pub(super) fn said(input: &ProposalInput) -> String {
    let text = reported(prepared(&listed(
        &taken_back(&input.customer_message),
        &input.product_catalog,
    )));
    let text = outcome_restated(
        input,
        counts_in_order(input, asides_dropped(input, done_changing(text))),
    );
    let text = count_taken_back(input, set_again_later(input, text));
    let text = people_by_their_order(input, text);
    let text = one_made_a_way(input, text);
    let text = taken_out_in_the_same_breath(input, text);
    let text = craving_told(input, text);
    let text = liking_told(input, restated(input, picked_up_later(input, text)));
    let said = named_in_the_last_message(
        input,
        the_other_one(
            input,
            same_as_someone(
                input,
                greeting_asked(reason_told_after(
                    input,
                    first_asked(
                        input,
                        cheesecake_by_other_names(
                            input,
                            wants_the_same(input, those_of_the_focus(input, text)),
                        ),
                    ),
                )),
            ),
        ),
    );
    let said = restated_count(input, set_said_after(input, nth_line(input, said)));
    let said = restated_summary(
        input,
        said_again(
            input,
            named_twice(
                input,
                headed_by_kind(
                    input,
                    not_the_other_count(input, amounts_and_marks(input, said)),
                ),
            ),
        ),
    );
    let said = if_it_goes(
        input,
        same_for_another(input, another_for_someone(input, said)),
    );
    let said = half_of_another(
        input,
        one_each(
            input,
            instead_after(
                input,
                double_of(input, same_count_as_taken_out(input, not_put(input, said))),
            ),
        ),
    );
    what_it_is(
        input,
        none_of(
            input,
            not_this_one(
                input,
                each_of_a_kind(input, the_last_named(input, pointed_at_focus(input, said))),
            ),
        ),
    )
}

/// The rules' reading as [`propose`] settles it: confident only where the
/// proposal is the reading itself — a variant not sold, a doubt, a hypothesis
/// or a product taken back set it aside, and the words were not read whole.
/// What rules-first routing and the grounding's disagreement stand on.
pub fn settled(input: &ProposalInput) -> Reading {
    let mut reading = read(input);
    let proposal = settle(input, reading.clone());
    // (One line of a product said twice is the reading itself, said once.)
    if proposal != one_line_each(reading.proposal.clone()) {
        reading.confident = false;
    }
    reading.proposal = proposal;
    reading
}

pub fn read(input: &ProposalInput) -> Reading {
    // «NIT 4567821019, razón social Mamani Quispe. ¿Cuánto es el total?»: the
    // invoice's details are for the invoice; the request is the rest.
    if let Some(rest) = without_invoice_data(&input.customer_message) {
        return read(&ProposalInput {
            customer_message: rest,
            ..input.clone()
        });
    }
    // «dos para mí (uno ahora y otro para el camino)»: read without the split.
    if let Some(rest) = split_in_brackets(input) {
        return read(&ProposalInput {
            customer_message: rest,
            ..input.clone()
        });
    }
    // «oye y el brownie trae nuez verdad»: asked, as if with its «?».
    if let Some(asked) = asks_what_it_carries(input) {
        let mut reading = read_whole(input);
        reading.proposal = one(ProposedAction::new("SHOW_PRODUCT").product(asked));
        reading.confident = false;
        return reading;
    }
    // «Y para mí un té chai. ¿Cuánto sería?»: the order, then the total
    // asked in a sentence of its own — the order read alone, then the summary.
    if let Some(head) = before_the_total_asked(&input.customer_message) {
        let ordered = reworded(input, head);
        let mut reading = read_whole(&ordered);
        let cart_only = reading.proposal.proposed_actions.iter().all(|a| {
            matches!(
                a.action_type.as_str(),
                "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM"
            )
        });
        // (With five changes already, the summary waits for the next turn.)
        if reading.changes_anything()
            && cart_only
            && reading.proposal.proposed_actions.len() < crate::proposal::MAX_ACTIONS
        {
            reading
                .proposal
                .proposed_actions
                .push(ProposedAction::new("REVIEW_ORDER"));
            return reading;
        }
        // («del brownie solo uno y ya no le muevo más, total?»: the order
        // closed before the total asked is the summary already.)
        let actions = &reading.proposal.proposed_actions;
        if reading.changes_anything()
            && reading.confident
            && actions
                .last()
                .is_some_and(|a| a.action_type == "REVIEW_ORDER")
            && actions[..actions.len() - 1].iter().all(|a| {
                matches!(
                    a.action_type.as_str(),
                    "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM"
                )
            })
        {
            return reading;
        }
    }
    read_whole(input)
}

/// «y nada de limonada» → «y sin limonada»: none of a product is without it.
fn none_of(input: &ProposalInput, text: String) -> String {
    // («¿nada del brownie todavía?», «no me cobraste nada del brownie»: a
    // question or a story, never «sin».)
    if input.customer_message.contains(['?', '¿']) {
        return text;
    }
    let words = tokens(&text);
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut k = 0;
    while k < words.len() {
        // «…y nada de limonada», «nada del brownie»: none of it, as «sin».
        let told = k > 0
            && words[..k].iter().rev().take(3).any(|w| {
                matches!(
                    *w,
                    "todavia"
                        | "aun"
                        | "cobraste"
                        | "cobraron"
                        | "cobro"
                        | "se"
                        | "hay"
                        | "queda"
                        | "llego"
                        | "vino"
                        | "sabe"
                        | "sabemos"
                )
            });
        if words[k] == "nada"
            && !told
            && matches!(words.get(k + 1), Some(&("de" | "del")))
            && mentions::find(&words[k + 2..], &input.product_catalog)
                .first()
                .is_some_and(|m| {
                    m.start == 0 || (m.start == 1 && matches!(words[k + 2], "la" | "las" | "los"))
                })
        {
            out.push("sin");
            k += 2;
            continue;
        }
        out.push(words[k]);
        k += 1;
    }
    out.join(" ")
}

/// «un jugo de maracuyá», «un zumo de maracuyá» → «un maracuya»: what a
/// product is, by a word of its own description or name said before «de» and
/// its name, is that product (a food it is not, «un helado de maracuyá», is
/// kept for the variants to refuse).
fn what_it_is(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let catalog = &input.product_catalog;
    let mut drop = vec![false; words.len()];
    for m in mentions::find(&words, catalog) {
        let (Some(id), true) = (m.product(), m.start >= 3) else {
            continue;
        };
        if words[m.start - 1] != "de" || token_number(words[m.start - 3]).is_none() {
            continue;
        }
        let head = mentions::singular(words[m.start - 2]);
        // («una docena de galletas»: a unit is a count, never dropped.)
        let unit = matches!(
            head,
            "docena"
                | "par"
                | "media"
                | "caja"
                | "paquete"
                | "kilo"
                | "bolsa"
                | "porcion"
                | "vaso"
                | "taza"
                | "unidad"
                | "bandeja"
                | "litro"
        );
        let its_own = !unit
            && head.chars().count() > 3
            && catalog
                .iter()
                .find(|e| e.product_id == id)
                .is_some_and(|e| {
                    tokens(&normalize(&e.description))
                        .iter()
                        .chain(tokens(&normalize(&e.name)).iter())
                        .any(|w| mentions::singular(w) == head)
                });
        if its_own && mentions::find(&words[m.start - 2..m.start - 1], catalog).is_empty() {
            drop[m.start - 2] = true;
            drop[m.start - 1] = true;
        }
    }
    if !drop.contains(&true) {
        return text;
    }
    words
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(w, _)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

fn read_whole(input: &ProposalInput) -> Reading {
    let text = said(input);
    let words = tokens(&text);
    let mut reader = Reader::new(input, &text, &words);
    let proposal = reader.proposal();
    lexicon::cover(&words, lexicon::FILLER, &mut reader.covered);
    // «¿me pones un…?», «¿me regala dos…?»: a request said as a question.
    if proposal
        .proposed_actions
        .iter()
        .any(|a| a.action_type == "ADD_TO_CART")
    {
        lexicon::cover(&words, lexicon::ASKS_FOR, &mut reader.covered);
    }
    // («Genial. Oye, mejor que sean…»: approval beside a request asks nothing.)
    lexicon::cover(&words, lexicon::APPROVAL, &mut reader.covered);
    // «va, cheesecake uno», «sale, dos capuchinos»: an «okay» to lead.
    if words.len() > 1 && matches!(words.first(), Some(&("va" | "sale" | "vale"))) {
        reader.covered[0] = true;
    }
    // («Perdona, he contado mal, americanos son cuatro»: the mistake owned.)
    lexicon::cover(
        &words,
        &[
            "he contado mal",
            "conte mal",
            "contamos mal",
            "me equivoque",
        ],
        &mut reader.covered,
    );
    lexicon::cover(&words, lexicon::VOCATIVES, &mut reader.covered);
    // «para nosotras dos», «somos 4 amigas»: people, never a thing asked for.
    lexicon::cover(&words, PEOPLE, &mut reader.covered);
    lexicon::cover(&words, lexicon::TAKEAWAY, &mut reader.covered);
    // «ponle 3 nomás»: a line set, and the verb of putting is how it is said
    // (only beside «nomás/solo», where no more is meant).
    if let [only] = proposal.proposed_actions.as_slice()
        && only.action_type == "UPDATE_QUANTITY"
        && any(&text, ONLY)
    {
        lexicon::cover(
            &words,
            &[
                "ponle", "ponele", "pon", "ponme", "poneme", "pongale", "ponga", "dejale",
            ],
            &mut reader.covered,
        );
    }
    addresses(&words, &input.product_catalog, &mut reader.covered);
    people_named(&words, input, &mut reader.covered);
    // «2 iced matcha» («2 frío matcha»), «un chocolate bien caliente»: a word
    // of the product's own tags beside its name describes it.
    for m in mentions::find(&words, &input.product_catalog) {
        let Some(entry) = m
            .product()
            .and_then(|id| input.product_catalog.iter().find(|p| p.product_id == id))
        else {
            continue;
        };
        if m.start > 0 && its_tag(entry, words[m.start - 1]) {
            reader.covered[m.start - 1] = true;
        }
        if words.get(m.end).is_some_and(|w| its_tag(entry, w)) {
            reader.covered[m.end] = true;
        }
    }
    // «wait, …», «espera, cancela»: a pause first says nothing.
    let calls_off = proposal
        .proposed_actions
        .iter()
        .any(|a| matches!(a.action_type.as_str(), "CANCEL_ORDER" | "CLEAR_CART"));
    let cries = words
        .iter()
        // («jaja no espera, borra todo»: a laugh or a «no» before the pause
        // when everything is called off in so many words; «no, espera,
        // cancela» may take back only a part, and is asked.)
        .take_while(|w| {
            matches!(
                **w,
                "uy" | "ay" | "ah" | "oh" | "ups" | "uups" | "jaja" | "jajaja"
            ) || (**w == "no" && words.contains(&"todo"))
        })
        .count();
    if calls_off
        && matches!(
            words.get(cries),
            Some(&("espera" | "espere" | "pera" | "esperate"))
        )
    {
        reader.covered[..=cries].iter_mut().for_each(|c| *c = true);
    }
    // «uy me acaban de cambiar el vuelo…, cancela el pedido porfa, todavía
    // no pagué»: the order called off in so many words; the rest is why.
    if let [only] = proposal.proposed_actions.as_slice()
        && only.action_type == "CANCEL_ORDER"
        && !input.customer_message.contains('?')
        && (mentions::find(&words, &input.product_catalog).is_empty()
            || whole_order_called_off(&words, input).is_some())
        && (0..words.len().saturating_sub(2)).any(|at| {
            // An imperative, with no denial or condition before it and no
            // taking back after it («si cancelo…», «tampoco cancelen…», «…que
            // cancele el pedido pero…»).
            // («…mejor no, ya llegó mi hija. Cancele todo»: «mejor no» and
            // «ya no» say the order is no longer wanted.)
            CALLS_OFF.contains(&words[at])
                && matches!(words[at + 1], "el" | "mi" | "todo")
                && (words[at + 1] == "todo" || matches!(words[at + 2], "pedido" | "orden"))
                && !(at.saturating_sub(4)..at).any(|k| {
                    matches!(
                        words[k],
                        "no" | "ni" | "tampoco" | "nunca" | "si" | "antes" | "que" | "cuando"
                    ) && !(words[k] == "no" && k > 0 && matches!(words[k - 1], "mejor" | "ya"))
                        && !(words[k] == "que"
                            && words.get(k + 1..k + 3) == Some(&["mejor", "no"][..]))
                })
                && !words[at..].iter().any(|w| matches!(*w, "pero" | "mejor"))
        })
    {
        reader.covered.iter_mut().for_each(|c| *c = true);
    }
    preamble(
        &words,
        &reader.proposal_products(&proposal),
        input,
        &mut reader.covered,
    );
    let asks_back = proposal
        .proposed_actions
        .iter()
        .any(|a| a.action_type == "CLARIFY");
    let confident = !asks_back && !words.is_empty() && reader.covered.iter().all(|c| *c);
    let mut reading = Reading {
        proposal,
        confident,
        words: words.iter().map(|w| (*w).to_owned()).collect(),
        covered: reader.covered,
    };
    // Every word read, yet a count points back at something no action took.
    if reading.confident && reading.changes_anything() && !reading.unread_clause(input).is_empty() {
        reading.confident = false;
    }
    reading
}

/// «…a la oficina, por la calle 21», «a mi casa en la Av. Ecuador 1520»:
/// where it goes, never a count nor a thing asked for — the street word, its
/// number and up to two names after it, and the place it goes to.
fn addresses(words: &[&str], catalog: &[super::contract::CatalogEntry], covered: &mut [bool]) {
    const STREET: &[&str] = &[
        "calle",
        "avenida",
        "av",
        "nro",
        "numero",
        "piso",
        "depto",
        "departamento",
        "dpto",
        "edificio",
        "pasaje",
        "esquina",
        "bloque",
        "torre",
        "condominio",
        "urbanizacion",
        "zona",
    ];
    const PLACE: &[&str] = &[
        "oficina", "casa", "trabajo", "hotel", "depa", "chamba", "negocio",
    ];
    let products: Vec<usize> = mentions::find(words, catalog)
        .iter()
        .flat_map(|m| m.start..m.end)
        .collect();
    for (k, w) in words.iter().enumerate() {
        let led = k > 0 && matches!(words[k - 1], "a" | "al" | "la" | "mi" | "en" | "por" | "de");
        if PLACE.contains(w) && led {
            covered[k] = true;
        }
        if !STREET.contains(w) || !led {
            continue;
        }
        covered[k] = true;
        for j in k + 1..words.len().min(k + 4) {
            let next = words[j];
            let number = next.chars().all(|c| c.is_ascii_digit() || c == '#');
            if matches!(next, "y" | "e")
                || products.contains(&j)
                || (!number && (count(next).is_some() || lexicon::is_known(next)))
            {
                break;
            }
            covered[j] = true;
            if number {
                break;
            }
        }
    }
}

/// The names a message writes with a capital after its first word («la
/// Vane», «el Gonza y el Rodri»), folded: no product's name and no word the
/// shop's lexicon knows.
pub(super) fn names_written(
    message: &str,
    catalog: &[super::contract::CatalogEntry],
) -> Vec<String> {
    let catalog_words = mentions::catalog_words(catalog);
    let mut names: Vec<String> = message
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .skip(1)
        .filter(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars().skip(1).all(char::is_lowercase)
                && w.chars().count() > 2
        })
        .map(normalize)
        .filter(|w| {
            !lexicon::is_known(w)
                && !names_a_product(w, catalog)
                && !catalog_words
                    .iter()
                    .any(|(_, name, _)| name.iter().any(|n| n == w))
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// «la Vane quiere un capuchino, el Gonza y el Rodri un americano»: the
/// people named (written with a capital, after «el», «la», «para» or «y»,
/// never a product nor a word of the shop) and their «quiere» are who the
/// order is for, nothing asked for.
fn people_named(words: &[&str], input: &ProposalInput, covered: &mut [bool]) {
    let capitals = names_written(&input.customer_message, &input.product_catalog);
    if capitals.is_empty() {
        return;
    }
    for k in 1..words.len() {
        // (`names_written` already left out products and the lexicon's words.)
        let name = capitals.iter().any(|c| c == words[k])
            && matches!(
                words[k - 1],
                "el" | "la" | "para" | "pa" | "y" | "e" | "a" | "al"
            )
            && count(words[k]).is_none();
        // («lo mismo para la Caro» is read by what reads «lo mismo», or not
        // at all.)
        let same_for = words[k.saturating_sub(3)..k].contains(&"mismo");
        if !name || same_for {
            continue;
        }
        covered[k] = true;
        if let Some(verb) = words.get(k + 1)
            && matches!(*verb, "quiere" | "pide" | "prefiere" | "va" | "toma")
        {
            covered[k + 1] = true;
        }
    }
}

/// «de los yungas como yo, qué bien, entonces póngame otro americano»: talk
/// before «entonces» (or «así que», «por eso»), with no product, count or verb
/// of the shop in it, is the story, and the request starts after it.
fn preamble(words: &[&str], acted_on: &[usize], input: &ProposalInput, covered: &mut [bool]) {
    if let Some(end) = acted_on
        .iter()
        .min()
        .and_then(|first| preamble_end(words, *first, input))
    {
        covered[..end].iter_mut().for_each(|c| *c = true);
    }
}

/// Where the request starts after a story told first (see [`preamble`]): the
/// word after «entonces», when the story holds no product, count or verb of
/// the shop, and the first product is named at `first_named`.
fn preamble_end(words: &[&str], first_named: usize, input: &ProposalInput) -> Option<usize> {
    let at = (0..first_named.min(words.len())).rev().find(|&k| {
        matches!(words[k], "entonces")
            || (k + 1 < words.len()
                && matches!((words[k], words[k + 1]), ("asi", "que") | ("por", "eso")))
    })?;
    let head = &words[..at];
    let talk = head.iter().all(|w| {
        count(w).is_none()
            && !lexicon::adds(w)
            && !lexicon::removes(w)
            && !swap_verb(w)
            && !matches!(*w, "cancela" | "cancelar" | "quita" | "menos")
            && !w.starts_with("olvid")
    }) && mentions::find(head, &input.product_catalog).is_empty()
        && !any(&head.join(" "), lexicon::CANCEL)
        && !any(&head.join(" "), lexicon::CLEAR);
    talk.then_some(at + 1)
}

/// Actions that change the cart or the order.
const EFFECTS: &[&str] = &[
    "ADD_TO_CART",
    "REMOVE_ITEM",
    "UPDATE_QUANTITY",
    "CLEAR_CART",
    "CANCEL_ORDER",
    "CONFIRM_ORDER",
];

/// Whether `proposal` changes the cart or the order.
pub fn changes_anything(proposal: &Proposal) -> bool {
    proposal
        .proposed_actions
        .iter()
        .any(|a| EFFECTS.contains(&a.action_type.as_str()))
}

impl Reading {
    /// Words no reading explained that carry a request of their own: a quantity
    /// nothing took («2 medialunas»), the word a quantity was said for, or any
    /// word left over beside an action that empties the cart or calls the order off
    /// («déjalo así» is not «cancela»).
    fn unread_clause(&self, input: &ProposalInput) -> Vec<&str> {
        let unread = |i: usize| !self.covered[i];
        // Words that join or qualify a clause, never the thing asked for.
        let joining = |w: &str| {
            w.chars().count() <= 3
                || matches!(
                    w,
                    "porque"
                        | "para"
                        | "pero"
                        | "tambien"
                        | "entonces"
                        | "porfa"
                        | "favor"
                        | "nomas"
                        | "solo"
                        | "mejor"
                        | "ahora"
                        | "luego"
                        | "quiero"
                        | "nada"
                        | "todo"
                        | "todos"
                        | "gracias"
                        | "bueno"
                        | "listo"
                        | "dale"
                        // «unos brownies tres creo»: a hedge, no thing.
                        | "creo"
                        | "supongo"
                        | "calculo"
                        | "digamos"
                )
        };
        // A count («2», «tres») or a plural pointer («las»); an article («un»,
        // «la») is too often the start of something else («para una reunión»).
        let destructive = self
            .proposal
            .proposed_actions
            .iter()
            .any(|a| matches!(a.action_type.as_str(), "CANCEL_ORDER" | "CLEAR_CART"));
        // Beside a cancellation, «los turistas suspendieron el tour» is the
        // story told: only a count points at a thing there.
        let counted = |w: &str| count(w).is_some() || (!destructive && matches!(w, "los" | "las"));
        // («los dos que sean 3» acting on two lines points at them.)
        let lines_acted = self
            .proposal
            .proposed_actions
            .iter()
            .filter(|a| EFFECTS.contains(&a.action_type.as_str()))
            .count() as i64;
        let flagged = |i: usize| {
            let word = self.words[i].as_str();
            let before = i.checked_sub(1).map(|j| self.words[j].as_str());
            let after = self.words.get(i + 1).map(String::as_str);
            // «de los yungas», «para la reunión de las 4»: a place or a time
            // after a preposition, not a thing pointed at.
            let prepositional = i >= 2
                && matches!(
                    self.words[i - 2].as_str(),
                    "de" | "a" | "en" | "para" | "desde" | "hasta" | "por" | "con"
                )
                && matches!(before, Some("los" | "las" | "la" | "el"));
            // «somos 4 amigas», «para 6 personas»: people counted, not a thing.
            let people = PEOPLE.contains(&word)
                || (i >= 2
                    && matches!(self.words[i - 2].as_str(), "somos" | "seremos" | "estamos"));
            // «2 medialunas», «cambia las medialunas»: a thing counted or pointed
            // at that no product explained.
            let unknown_thing = !joining(word)
                && !prepositional
                && !people
                && before.is_some_and(counted)
                && after != Some("de")
                && !names_a_product(word, &input.product_catalog)
                && !after.is_some_and(|next| praises_or_fits(word, next, &input.product_catalog));
            // «medialunas tres»: a thing with its count after it («somos 4»
            // counts people).
            let counted_after = !joining(word)
                && !matches!(word, "somos" | "seremos" | "estamos" | "seran" | "sean")
                && !PEOPLE.contains(&word)
                && after.is_some_and(|a| {
                    count(a).is_some()
                        || (a.starts_with('x') && token_number(&a[1..]).is_some())
                })
                // «serían 2 chocolates»: the count is the next product's;
                // «son como doce niños», the people's.
                && self.words.get(i + 2).is_none_or(|next| {
                    !matches!(next.as_str(), "de" | "del")
                        && !names_a_product(next, &input.product_catalog)
                        && !PEOPLE.contains(&next.as_str())
                })
                && token_number(word).is_none()
                && !names_a_product(word, &input.product_catalog);
            // «…y un croasan»: an item of a list that no product explained.
            // («…y un jugo de naranja»: a flavour after «de» says which thing.)
            let flavoured = !matches!(word, "poco" | "poquito" | "chorrito" | "pizca" | "toque")
                && matches!(after, Some("de" | "del"))
                && self.words.get(i + 2).is_some_and(|next| {
                    settle::FLAVOURS.contains(&next.as_str())
                        && !names_a_product(next, &input.product_catalog)
                });
            let listed = (!joining(word) || !lexicon::is_known(word) && !SMALL.contains(&word))
                && matches!(before, Some("un" | "una"))
                && i >= 2
                && matches!(self.words[i - 2].as_str(), "y" | "e" | "mas" | "tambien")
                && (!matches!(after, Some("de" | "del")) || flavoured)
                && !names_a_product(word, &input.product_catalog);
            // «ponme el de antes», «lo anterior»: something pointed back at
            // that no action took.
            let earlier = !destructive
                && ((word == "antes"
                    && before == Some("de")
                    && i >= 2
                    && matches!(
                        self.words[i - 2].as_str(),
                        "el" | "la" | "lo" | "los" | "las" | "mismo" | "misma"
                    )
                    && after != Some("de"))
                    // «lo que pedí al principio»: the first order, not the last.
                    || (word == "principio" && matches!(before, Some("al" | "del")))
                    || (matches!(word, "anterior" | "anteriores")
                        && matches!(before, Some("el" | "la" | "lo" | "los" | "las")))
                    // «el primero que te pregunté», no turn naming it.
                    || (matches!(word, "primero" | "primera" | "segundo" | "segunda")
                        && matches!(before, Some("el" | "la" | "lo" | "del"))
                        && after == Some("que")));
            // «dame los 3»: a count that points back at something named before.
            let pointed = !prepositional
                && token_number(word).is_some_and(|n| n != lines_acted)
                && matches!(before, Some("los" | "las"))
                && after.is_none_or(|next| !names_a_product(next, &input.product_catalog));
            // «cambia uno de los cafés»: a part of a line that no action took.
            let partitive = matches!(word, "uno" | "una") && after == Some("de");
            // «déjalo así, ¿cuánto es?» beside a cancellation: anything else said.
            // A story told beside it («me habló mi hija, ya viene por mí») is
            // the reason, not another request: only the shop's own words, a
            // count or a product are.
            // «lo pido allá directo», «mejor lo compro después»: an order verb
            // put elsewhere or later is the story too.
            let elsewhere = self.words[i + 1..].iter().take(2).any(|w| {
                matches!(
                    w.as_str(),
                    "alla"
                        | "alli"
                        | "ahi"
                        | "directo"
                        | "despues"
                        | "luego"
                        | "manana"
                        | "otro"
                        | "otra"
                        | "cosa"
                        | "personalmente"
                )
            });
            let beside_a_cancel = destructive
                && !joining(word)
                && !elsewhere
                && (lexicon::is_known(word)
                    || token_number(word).is_some()
                    || names_a_product(word, &input.product_catalog)
                    || input.customer_message.contains('?'));
            // «sácale todo el hielo a la limonada», «ponle leche al chai»: a
            // thing done to a product, not the product in or out.
            let done_to = !joining(word)
                && !lexicon::is_known(word)
                && !names_a_product(word, &input.product_catalog)
                && {
                    let thing = match (after, self.words.get(i + 2).map(String::as_str)) {
                        (Some("al"), next) => next,
                        (Some("a"), Some("la" | "el" | "los" | "las")) => {
                            self.words.get(i + 3).map(String::as_str)
                        }
                        _ => None,
                    };
                    thing.is_some_and(|w| names_a_product(w, &input.product_catalog))
                };
            // «…y el capuchino que pedí ya no»: taken back at the end.
            let taken_back_last = word == "no" && before == Some("ya") && after.is_none();
            // «serían como 20 chocolates», «unos 15 más o menos»: a count
            // said as a guess is not yet the count to put in the cart.
            let hedged = (matches!(
                word,
                "como" | "aproximadamente" | "aprox" | "alrededor" | "casi"
            ) && (after.is_some_and(|a| count(a).is_some())
                // («son como doce niños»: the people guessed, not the count.)
                && !self.words.get(i + 2).is_some_and(|w| PEOPLE.contains(&w.as_str()))
                || (after == Some("de")
                    && self.words.get(i + 2).is_some_and(|a| count(a).is_some()))))
                // («más o menos» is read «aproximadamente» first.)
                || (word == "aproximadamente"
                    && before.is_some_and(|b| count(b).is_some()));
            // «… un americano y un croissant cada uno»: a count spread over
            // people no action counted.
            // («una de cada una», «uno para cada uno» say how the count
            // was made.)
            // («cada uno en su bolsita», «cada uno por separado» say how it
            // is packed.)
            let spread = word == "cada"
                && matches!(after, Some("uno" | "una" | "quien"))
                && !matches!(before, Some("de" | "para" | "pa"))
                && !self.words.get(i + 2).is_some_and(|w| {
                    matches!(
                        w.as_str(),
                        "en" | "con" | "por" | "separado" | "separados" | "aparte" | "envuelto"
                    )
                });
            // «… lo mismo para la Caro»: the same again for someone, never
            // done.
            let same_for = (1..=3).any(|back| {
                i > back
                    && matches!(self.words[i - back - 1].as_str(), "mismo" | "misma")
                    && matches!(self.words[i - back].as_str(), "para" | "pa")
                    && self.words[i - back + 1..i]
                        .iter()
                        .all(|w| matches!(w.as_str(), "el" | "la" | "mi" | "su" | "los" | "las"))
            });
            // «remove both», «quita esos dos»: something taken out that no
            // action took (the additions beside it were its replacement).
            let taken_out = !joining(word)
                && before.is_some_and(|b| b != "sin" && lexicon::REMOVE.contains(&b))
                && !lexicon::is_known(word)
                // («sácala jsjsjs»: laughter.)
                && !is_laughter(word)
                && !names_a_product(word, &input.product_catalog);
            // «otra lim»: more of something no product explained.
            let another_unknown = matches!(before, Some("otro" | "otra" | "otros" | "otras"))
                && word.chars().count() >= 3
                && word.chars().all(char::is_alphabetic)
                // («otra ronda», «otra tanda»: the line again; «otro lado»,
                // «otra cosa», «la otra vez»: no product meant.)
                && !matches!(
                    word,
                    "ronda"
                        | "tanda"
                        | "vuelta"
                        | "vez"
                        | "lado"
                        | "cosa"
                        | "dia"
                        | "rato"
                        | "momento"
                        | "parte"
                        | "lugar"
                        | "sitio"
                        | "persona"
                        | "opcion"
                        | "semana"
                        | "pedido"
                        | "orden"
                )
                // At the head of the message or of a request.
                && (i < 2
                    || matches!(self.words[i - 2].as_str(), "y" | "e" | "mas" | "ah")
                    || lexicon::adds(&self.words[i - 2]))
                && !lexicon::is_known(word)
                && !SMALL.contains(&word)
                && !is_laughter(word)
                && !names_a_product(word, &input.product_catalog);
            // «el té sácalo», «los brownies quítalos»: a verb of taking out
            // that no action read (its product was not found).
            let removal_unread = !destructive
                && lexicon::removes(word)
                && !word.starts_with("retir")
                // (A line taken out was its reading, and so is a product named
                // right after it: «tira um dos capuchinos».)
                && !self
                    .proposal
                    .proposed_actions
                    .iter()
                    .any(|a| a.action_type == "REMOVE_ITEM")
                && !self.words[i + 1..]
                    .iter()
                    .find(|w| {
                        !matches!(
                            w.as_str(),
                            "un" | "una" | "uno" | "de" | "del" | "el" | "la" | "los" | "las"
                        ) && count(w).is_none()
                    })
                    .is_some_and(|w| names_a_product(w, &input.product_catalog))
                && (["lo", "la", "los", "las", "le", "les"]
                    .iter()
                    .any(|end| word.ends_with(end))
                    || matches!(
                        word,
                        "quita" | "saca" | "borra" | "elimina" | "quite" | "saque" | "borre"
                    ));
            // «…dos nomás, no perdón, uno»: a count taken back that no action
            // read.
            let corrected = matches!(word, "perdon" | "digo" | "corrijo")
                && before == Some("no")
                && self
                    .words
                    .get(i + 1)
                    .is_some_and(|w| count(w).is_some() || matches!(w.as_str(), "uno" | "una"))
                && !self.covered[i + 1];
            // «dame uno frío y un brownie»: one of a kind, no product named.
            let kind_counted = before.is_some_and(|b| token_number(b).is_some())
                && lexicon::KINDS.iter().any(|(said, _)| *said == word)
                && !names_a_product(word, &input.product_catalog);
            unknown_thing
                || kind_counted
                || removal_unread
                || corrected
                || another_unknown
                || taken_out
                || spread
                || same_for
                || hedged
                || earlier
                || taken_back_last
                || counted_after
                || listed
                || pointed
                || partitive
                || beside_a_cancel
                || done_to
        };
        let points_back = |i: usize| {
            token_number(&self.words[i]).is_some_and(|n| n != lines_acted)
                && i > 0
                // «a las 4», «de las 5»: an hour.
                && !(i >= 2 && matches!(self.words[i - 2].as_str(), "de" | "a" | "para" | "desde" | "hasta"))
                && matches!(self.words[i - 1].as_str(), "los" | "las")
                && self
                    .words
                    .get(i + 1)
                    .is_none_or(|next| !names_a_product(next, &input.product_catalog))
                && self.proposal.proposed_actions.iter().all(|a| {
                    a.params.quantity.as_ref().and_then(|q| q.as_i64())
                        != token_number(&self.words[i])
                })
        };
        // «el americano» alone, with americano already in the cart: what about it
        // (one more, out, the answer to some question) is not said.
        let bare_definite = matches!(
            self.words.first().map(String::as_str),
            Some("el" | "la" | "los" | "las")
        ) && self.words.iter().all(|w| token_number(w).is_none())
            // («el capuchino otro más»: one more of it is said; «el otro
            // también» is still which.)
            && !self
                .words
                .iter()
                .any(|w| lexicon::adds(w) || lexicon::removes(w))
            && !self
                .words
                .windows(2)
                .any(|w| matches!(w[0].as_str(), "otro" | "otra") && w[1] == "mas")
            && matches!(
                self.proposal.proposed_actions.as_slice(),
                [a] if a.action_type == "ADD_TO_CART"
                    && a.product_id().is_some_and(|id| {
                        input.cart.holds(id)
                    })
            );
        if bare_definite {
            return self.words.iter().skip(1).map(String::as_str).collect();
        }
        // «2 de esos» with nothing shown before (or not taken): a count
        // pointed at something no action took (a filler word, read or not).
        // («dame 2 de esos brownies», «…los brownies, dame 2 de esos»: the
        // product is said, and an action took the count.)
        let those = |i: usize| {
            let Some(n) = count_of(&self.words, i) else {
                return false;
            };
            matches!(self.words[i].as_str(), "esos" | "esas" | "ese" | "esa")
                && self
                    .words
                    .get(i + 1)
                    .is_none_or(|next| !names_a_product(next, &input.product_catalog))
                && !self.proposal.proposed_actions.iter().any(|a| {
                    a.params.quantity.as_ref().and_then(|q| q.as_i64()) == Some(n)
                        && input
                            .focus
                            .is_none_or(|focus| a.product_id() == Some(focus))
                })
        };
        (0..self.words.len())
            .filter(|&i| (unread(i) && flagged(i)) || points_back(i) || those(i))
            .map(|i| self.words[i].as_str())
            .collect()
    }

    /// Words no reading explained (longer than a joining word).
    fn unread_words(&self) -> Vec<String> {
        self.words
            .iter()
            .zip(&self.covered)
            .filter(|(w, c)| !**c && w.chars().count() > 3)
            .map(|(w, _)| w.clone())
            .collect()
    }

    /// A message shaped as a question («¿me lo pueden calentar…?», «falta un
    /// croissant, ¿qué hago?») that the rules did not read whole and that asks for
    /// nothing in an order verb: a product it names is what it is about, not an
    /// order for one.
    fn asks_instead(&self, input: &ProposalInput) -> bool {
        let text = prepared(&input.customer_message);
        let adds = self
            .proposal
            .proposed_actions
            .iter()
            .any(|a| a.action_type == "ADD_TO_CART");
        let ordered = lexicon::ADD
            .iter()
            .filter(|p| !matches!(**p, "tambien" | "ademas" | "mas"))
            .any(|p| crate::text::contains_phrase(&text, p));
        // «4 limonadas y 4 croissants, ¿con yapa?» counts what it orders.
        let counts = self.words.iter().any(|w| count(w).is_some());
        adds && !ordered
            && !counts
            && (input.customer_message.contains('?') || any(&text, lexicon::ASKS))
            && !self.unread_words().is_empty()
    }

    fn changes_anything(&self) -> bool {
        changes_anything(&self.proposal)
    }

    /// «un chocolate caliente y un pan», «2 americanos y 2 empanadas»: a list
    /// whose every item is its own product, read whole, or an item that names
    /// nothing the shop sells. The products are added and the unknown items
    /// asked about; nothing else may be left unread, and only additions act.
    fn acts_on_part(&self, input: &ProposalInput) -> Option<Proposal> {
        let actions = &self.proposal.proposed_actions;
        if actions.is_empty() || actions.iter().any(|a| a.action_type != "ADD_TO_CART") {
            return None;
        }
        let words: Vec<&str> = self.words.iter().map(String::as_str).collect();
        let found = mentions::find(&words, &input.product_catalog);
        if found.iter().any(|m| m.product().is_none()) {
            return None;
        }
        let separator = |w: &str| matches!(w, "y" | "e" | "mas" | "tambien" | "ademas");
        // A list written one item a line: each line is an item.
        let lines: Vec<usize> = input
            .customer_message
            .lines()
            .map(|line| tokens(&prepared(line)).len())
            .filter(|n| *n > 0)
            .collect();
        let by_lines = lines.len() > 1 && lines.iter().sum::<usize>() == words.len();
        let mut line_ends = lines.iter().scan(0, |at, n| {
            *at += n;
            Some(*at)
        });
        let mut unknown: Vec<String> = Vec::new();
        let mut start = 0;
        while start < words.len() {
            let end = if by_lines {
                line_ends.next().unwrap_or(words.len())
            } else {
                (start + 1..words.len())
                    .find(|&k| separator(words[k]))
                    .unwrap_or(words.len())
            };
            let item = start..end;
            let named = found
                .iter()
                .any(|m| item.contains(&m.start) || item.contains(&(m.end - 1)));
            // («listo, me regala dos…»: an agreement said first is no item.)
            let agrees = |k: usize| {
                k == 0 && matches!(words[k], "listo" | "dale" | "ok" | "bueno" | "va" | "sale")
            };
            let unread: Vec<usize> = item
                .clone()
                .filter(|&k| !self.covered[k] && !separator(words[k]) && !agrees(k))
                .collect();
            if !named && !unread.is_empty() {
                // An item of its own: an article or a count, then at most three
                // words naming the thing («un pan», «2 empanadas de queso»).
                let mut rest = item.clone().skip_while(|&k| separator(words[k]));
                let counted = rest.next().is_some_and(|k| {
                    token_number(words[k]).is_some() || matches!(words[k], "unos" | "unas")
                });
                // «jugo de naranja x1»: one a line, counted after.
                let counted_after = words[end - 1]
                    .strip_prefix('x')
                    .is_some_and(|n| token_number(n).is_some());
                // («un tintico pa mi compañero»: whom it is for is no part of it.)
                // (The words between the first and the last unread one, so
                // «jugo de naranja» is said whole.)
                let thing: Vec<&str> = if counted {
                    let unread: Vec<usize> = rest
                        .take_while(|&k| !matches!(words[k], "para" | "pa"))
                        .filter(|&k| !self.covered[k])
                        .collect();
                    match (unread.first(), unread.last()) {
                        (Some(&first), Some(&last)) => words[first..=last].to_vec(),
                        _ => Vec::new(),
                    }
                } else {
                    (start..end - 1)
                        .map(|k| words[k])
                        .skip_while(|w| separator(w))
                        .collect()
                };
                if !(counted || counted_after) || thing.is_empty() || thing.len() > 3 || start == 0
                {
                    return None;
                }
                unknown.push(thing.join(" "));
            } else if named && !unread.is_empty() {
                return None;
            }
            start = end;
        }
        if unknown.is_empty() {
            return None;
        }
        let mut proposal = self.proposal.clone();
        proposal
            .proposed_actions
            .push(ProposedAction::new("CLARIFY"));
        proposal.response_text = messages::not_sold(&unknown);
        Some(proposal)
    }

    /// No wrong effect, ever: a reading that left words unexplained does not act
    /// on the cart or the order. The customer is told what was understood and
    /// which words were not, and asked to say it again; nothing changes.
    fn asked_back(self, input: &ProposalInput, unread: &[String]) -> Proposal {
        let name = |a: &ProposedAction| {
            a.params
                .product_id
                .as_ref()
                .and_then(|v| v.as_i64())
                .and_then(|id| name_of(input, id))
                .map(str::to_owned)
        };
        let understood: Vec<String> = self
            .proposal
            .proposed_actions
            .iter()
            .filter_map(|a| {
                let quantity = a.params.quantity.as_ref().and_then(|q| q.as_i64());
                Some(match (a.action_type.as_str(), name(a), quantity) {
                    ("ADD_TO_CART", Some(n), Some(q)) => format!("agregar {q} × {n}"),
                    ("REMOVE_ITEM", Some(n), _) => format!("quitar {n}"),
                    ("UPDATE_QUANTITY", Some(n), Some(q)) => format!("dejar {q} × {n}"),
                    ("CLEAR_CART", ..) => "vaciar el carrito".to_owned(),
                    ("CANCEL_ORDER", ..) => "cancelar el pedido".to_owned(),
                    ("CONFIRM_ORDER", ..) => "confirmar el pedido".to_owned(),
                    _ => return None,
                })
            })
            .collect();
        let unread: Vec<&str> = unread.iter().map(String::as_str).take(4).collect();
        let mut text = String::from("Para no equivocarme, todavía no cambié nada.");
        if !understood.is_empty() {
            text.push_str(&format!(" Entendí: {}", understood.join(", ")));
            if unread.is_empty() {
                text.push('.');
            } else {
                text.push_str(&format!("; pero no entendí «{}».", unread.join(" ")));
            }
        }
        text.push_str(
            " ¿Me lo escribes de nuevo, por partes? Por ejemplo: «2 capuchinos y 1 brownie».",
        );
        clarify(&text)
    }
}

struct Reader<'a> {
    input: &'a ProposalInput,
    text: &'a str,
    words: &'a [&'a str],
    /// Words explained so far.
    covered: Vec<bool>,
}

impl<'a> Reader<'a> {
    /// A reader of `words` (the tokens of `text`), none explained yet.
    fn new(input: &'a ProposalInput, text: &'a str, words: &'a [&'a str]) -> Self {
        Reader {
            input,
            text,
            words,
            covered: vec![false; words.len()],
        }
    }
}

fn one(action: ProposedAction) -> Proposal {
    Proposal::new(vec![action], "")
}

fn clarify(text: &str) -> Proposal {
    Proposal::new(vec![ProposedAction::new("CLARIFY")], text)
}

impl Reader<'_> {
    /// Where the products `proposal` acts on are named in the message.
    fn proposal_products(&self, proposal: &Proposal) -> Vec<usize> {
        let ids: Vec<i64> = proposal
            .proposed_actions
            .iter()
            .filter_map(|a| a.params.product_id.as_ref()?.as_i64())
            .collect();
        mentions::find(self.words, &self.input.product_catalog)
            .iter()
            .filter(|m| m.candidates.iter().any(|c| ids.contains(c)))
            .map(|m| m.start)
            .collect()
    }

    fn has(&mut self, phrases: &[&str]) -> bool {
        let found = any(self.text, phrases);
        if found {
            lexicon::cover(self.words, phrases, &mut self.covered);
        }
        found
    }

    fn state(&self) -> State {
        self.input.current_state
    }

    fn is_question(&self) -> bool {
        let raw = &self.input.customer_message;
        raw.contains('?') || raw.trim_start().starts_with('¿') || any(self.text, lexicon::QUESTION)
    }

    fn cart_quantity(&self, id: ProductId) -> i64 {
        self.input.cart.quantity_of(id).unwrap_or(0)
    }

    /// An indefinite plural before a product («unos croissants», «varias
    /// limonadas», «algunos de los brownies»), with no number anywhere in the
    /// message: the customer wants some, how many is not said.
    fn unsaid_quantity(&mut self) -> Option<Proposal> {
        const SOME: &[&str] = &["unos", "unas", "varios", "varias", "algunos", "algunas"];
        if self
            .words
            .iter()
            .any(|w| token_number(w).is_some() && !SOME.contains(w))
        {
            return None;
        }
        let at = self.words.iter().position(|w| SOME.contains(w))?;
        let next: Vec<&str> = self.words[at + 1..]
            .iter()
            .copied()
            .skip_while(|w| matches!(*w, "de" | "los" | "las" | "del"))
            .take(3)
            .collect();
        let found = mentions::find(&next, &self.input.product_catalog);
        let product = found.first()?.product()?;
        // «unos capuchinos y unos croissants»: each one's count asked, by name
        // («3 y 3» next answers in that order).
        let others: Vec<ProductId> = self
            .words
            .iter()
            .enumerate()
            .skip(at + 1)
            .filter(|(_, w)| SOME.contains(w))
            .filter_map(|(k, _)| {
                let next = &self.words[k + 1..self.words.len().min(k + 4)];
                mentions::find(next, &self.input.product_catalog)
                    .first()?
                    .product()
            })
            .filter(|id| *id != product)
            .collect();
        self.covered.iter_mut().for_each(|c| *c = true);
        if !others.is_empty() {
            let names: Vec<String> = std::iter::once(product)
                .chain(others)
                .filter_map(|id| name_of(self.input, id).map(str::to_owned))
                .collect();
            return Some(clarify(&messages::how_many_of(&names)));
        }
        // The product is the one asked about: «4» next is four of it.
        let mut asking = ProposedAction::new("CLARIFY");
        asking.params.candidates = Some(vec![serde_json::Value::from(product)]);
        Some(Proposal::new(vec![asking], messages::HOW_MANY))
    }

    /// «mándame brownies para la oficina»: a product asked for in the plural,
    /// with no count anywhere and not in the cart: how many is not said.
    fn bare_plural(&mut self, found: &[Mention]) -> Option<Proposal> {
        // «capuchinos para nosotros dos», «somos cinco»: a count of people is
        // no count of the product.
        let of_people = |k: usize| {
            (k > 0
                && (PEOPLE.contains(&self.words[k - 1])
                    || matches!(self.words[k - 1], "somos" | "seremos" | "estamos")))
                || self
                    .words
                    .get(k + 1)
                    .is_some_and(|next| PEOPLE.contains(next))
        };
        if self.words.iter().enumerate().any(|(k, w)| {
            token_number(w).is_some() && !of_people(k) && !matches!(*w, "un" | "una" | "uno")
        }) || self.is_question()
            || self
                .words
                .iter()
                .any(|w| lexicon::removes(w) || swap_verb(w))
            || self
                .words
                .iter()
                .any(|w| matches!(*w, "mas" | "otro" | "otra" | "otros" | "otras" | "no"))
            || any(self.text, lexicon::SET)
            || any(self.text, INSTEAD)
        {
            return None;
        }
        let m = found.iter().find(|m| {
            let Some(id) = m.product() else {
                return false;
            };
            let word = self.words[m.end - 1];
            let name = name_of(self.input, id).map(normalize).unwrap_or_default();
            let plural =
                word.ends_with('s') && mentions::singular(word) != word && !name.ends_with('s');
            let bare = m.start == 0
                || !matches!(
                    self.words[m.start - 1],
                    "un" | "una"
                        | "el"
                        | "la"
                        | "los"
                        | "las"
                        | "otro"
                        | "otra"
                        | "del"
                        | "de"
                        | "mis"
                        | "tus"
                        | "sus"
                        | "esos"
                        | "esas"
                        | "unos"
                        | "unas"
                );
            plural && bare
        })?;
        let product = m.product()?;
        self.covered.iter_mut().for_each(|c| *c = true);
        // «limonadas para todos, somos 4»: one each for the people counted —
        // when it is the message's only product and nobody is left out
        // («…para todos menos para mí»).
        if let Some(people) = self.people_counted()
            && found.len() == 1
            && !self
                .words
                .iter()
                .any(|w| matches!(*w, "menos" | "excepto" | "salvo" | "sin"))
            && any(
                self.text,
                &[
                    "para todos",
                    "para todas",
                    "para cada uno",
                    "para cada una",
                    "por persona",
                ],
            )
        {
            return Some(one(ProposedAction::new("ADD_TO_CART")
                .product(product)
                .quantity(people)));
        }
        let mut asking = ProposedAction::new("CLARIFY");
        asking.params.candidates = Some(vec![serde_json::Value::from(product)]);
        Some(Proposal::new(vec![asking], messages::HOW_MANY))
    }

    fn pickup_said(&self) -> Option<Proposal> {
        let input = self.input;
        // (A shop that delivers reads the way elsewhere, but an order to pick
        // up is told of its pickup here too.)
        let delivered = input.delivery.as_ref().is_some_and(|view| {
            self.state() != State::AwaitingPayment
                || view
                    .chosen
                    .as_ref()
                    .is_some_and(|c| c.mode == Mode::Delivery)
        });
        if delivered {
            return None;
        }
        pickup_said(
            &input.customer_message,
            self.state(),
            &input.product_catalog,
        )
    }

    /// «somos 4», «seremos cinco», «para 6 personas»: how many people the
    /// message counts, when it counts them once.
    fn people_counted(&self) -> Option<i64> {
        let mut counts: Vec<i64> = self
            .words
            .windows(2)
            .filter_map(|w| match w {
                ["somos" | "seremos" | "estamos", n] => count(n),
                [n, "personas" | "persons" | "people"] => count(n),
                _ => None,
            })
            .collect();
        // «somos 4 personas» counts the same four twice.
        counts.dedup();
        match counts.as_slice() {
            [people] if *people > 1 => Some(*people),
            _ => None,
        }
    }

    /// One `kind` action for every line of the cart, each with the quantity
    /// `quantity` makes of the line's; the whole message is read.
    fn every_line(&mut self, kind: &str, quantity: impl Fn(i64) -> i64) -> Proposal {
        self.covered.iter_mut().for_each(|c| *c = true);
        let actions = self
            .input
            .cart
            .lines
            .iter()
            .map(|l| {
                ProposedAction::new(kind)
                    .product(l.product_id)
                    .quantity(quantity(l.quantity))
            })
            .collect();
        Proposal::new(actions, "")
    }

    /// The product a bare follow-up means: the last line added to the cart.
    fn last_line(&self) -> Option<ProductId> {
        self.input.cart.lines.last().map(|l| l.product_id)
    }

    /// Whether the words take a line out or set it («quítalo», «que sean»,
    /// «déjalo en»), whichever line they mean.
    fn changes_a_line(&mut self) -> bool {
        self.has(lexicon::REMOVE)
            || self.has(&[
                "que sean",
                "que sea",
                "dejalo en",
                "dejalos en",
                "dejalas en",
            ])
            || self
                .words
                .iter()
                .any(|w| lexicon::removes(w) || lexicon::with_pronoun(w, lexicon::removes))
    }

    /// The cart lines the message points at by a word of what they are —
    /// a kind of the catalog («el dulce», «los calientes»), a word of a
    /// description («el de canela») or of a name («el té») — when no product
    /// is named.
    fn line_described(&self) -> Described {
        let catalog = &self.input.product_catalog;
        // «calientes» is «caliente»: a plural by its «s» or its «es».
        let same = |said: &str, known: &str| {
            said == known
                || said.strip_suffix('s') == Some(known)
                || mentions::singular(said) == mentions::singular(known)
        };
        let fits = |id: ProductId, word: &str| {
            catalog
                .iter()
                .find(|e| e.product_id == id)
                .is_some_and(|e| {
                    e.tags.iter().any(|t| same(word, &normalize(t)))
                        || tokens(&normalize(&e.description))
                            .iter()
                            .chain(tokens(&normalize(&e.name)).iter())
                            .any(|d| same(word, d))
                })
        };
        let pointed = |k: usize| {
            k > 0
                && (matches!(self.words[k - 1], "el" | "la" | "los" | "las")
                    || (k > 1
                        && self.words[k - 1] == "de"
                        && matches!(self.words[k - 2], "el" | "la" | "los" | "las")))
        };
        let said: Vec<&str> = self
            .words
            .iter()
            .enumerate()
            .filter(|(k, w)| {
                pointed(*k)
                    && w.chars().count() >= 2
                    && (!SMALL.contains(w) || **w == "te")
                    && count(w).is_none()
                    && catalog.iter().any(|e| fits(e.product_id, w))
            })
            .map(|(_, w)| *w)
            .collect();
        if said.is_empty() {
            return Described::Nothing;
        }
        let lines: Vec<ProductId> = self
            .input
            .cart
            .lines
            .iter()
            .map(|l| l.product_id)
            .filter(|id| said.iter().all(|w| fits(*id, w)))
            .collect();
        match lines.as_slice() {
            [] => Described::NoLine,
            [one] => Described::One(*one),
            _ => Described::Several(lines),
        }
    }

    fn proposal(&mut self) -> Proposal {
        let input = self.input;
        if input.detected_events.contains(&Event::EscalationRequested) {
            self.covered.iter_mut().for_each(|c| *c = true);
            return one(ProposedAction::new("ESCALATE"));
        }
        // «lo de siempre», «el mismo de ayer»: an order from before, which
        // this chat does not keep: asked, never guessed.
        if any(self.text, USUAL) && matches!(
            self.state(),
            State::Idle | State::Browsing | State::CartOpen
        )
            // («lo de siempre: 2 americanos y un croissant» says what it is.)
            && mentions::find(self.words, &input.product_catalog).is_empty()
        {
            self.covered.iter_mut().for_each(|c| *c = true);
            return clarify(messages::USUAL_NOT_KEPT);
        }
        // «unos croissants», «varios capuchinos»: how many is not said; a
        // question back beats a guess.
        if let Some(asked) = self.unsaid_quantity() {
            return asked;
        }
        // «Sí, confirmo. Pasamos a recogerlo a las 9:45»: at the summary, a
        // yes and how the order goes is both — the way first, then the yes.
        if let Some(proposal) = self.yes_and_the_way() {
            return proposal;
        }
        // Pickup or delivery, read whole: an address's numbers are no quantities.
        if let Some(action) = delivery::read(input) {
            self.covered.iter_mut().for_each(|c| *c = true);
            // («listo, eso es todo, a Obrajes»: the summary asked with it.)
            if self.state() == State::CartOpen && says_done(&input.customer_message) {
                return Proposal::new(vec![action, ProposedAction::new("REVIEW_ORDER")], "");
            }
            return one(action);
        }
        if let Some(proposal) = self.pickup_said() {
            self.covered.iter_mut().for_each(|c| *c = true);
            return proposal;
        }
        if let Some(proposal) = self.by_kind() {
            return proposal;
        }
        if let Some(proposal) = self.pick_choice() {
            return proposal;
        }
        if let Some(proposal) = self.take_out_of_asked() {
            return proposal;
        }
        if self.state() == State::Checkout
            && let Some(proposal) = self.answer_summary()
        {
            return proposal;
        }
        // "Ahora sí", "sí, confirmo" with the cart open (changed after the
        // summary): the summary again, the only way to a confirmation.
        if self.state() == State::CartOpen
            && !only_words_of(self.text, lexicon::DENY)
            && only_words_of(&self.text.replace("ahora", ""), lexicon::CONFIRM)
        {
            self.covered.iter_mut().for_each(|c| *c = true);
            return one(ProposedAction::new("REVIEW_ORDER"));
        }
        if let Some(proposal) = self.count_asked_for() {
            return proposal;
        }
        let clears = self.has(lexicon::CLEAR) || lexicon::clears(self.text);
        // «quita todo lo dulce», «saca todas las bebidas»: not the whole cart,
        // the lines of that kind — or, when no kind is named, asked.
        let qualified = self.words.windows(3).find_map(|w| match w {
            ["todo", "lo", x] | ["todos", "los", x] | ["todas", "las", x]
                if !matches!(*x, "que" | "demas" | "del" | "de") =>
            {
                Some(*x)
            }
            _ => None,
        });
        let tag = qualified.and_then(|kind| {
            lexicon::KINDS
                .iter()
                .find(|(said, _)| *said == kind || mentions::singular(kind) == *said)
                .map(|(_, tag)| *tag)
        });
        // («borra todo lo anterior» empties the cart.)
        if clears && qualified.is_some() && tag.is_some() {
            // «quita todo lo frío y ponme 2 capuchinos»: two requests, asked.
            if !mentions::find(self.words, &input.product_catalog).is_empty() {
                self.covered.iter_mut().for_each(|c| *c = true);
                return clarify(messages::CLARIFY_DEFAULT);
            }
            let lines: Vec<ProductId> = input
                .cart
                .lines
                .iter()
                .map(|l| l.product_id)
                .filter(|id| {
                    tag.is_some_and(|tag| {
                        input
                            .product_catalog
                            .iter()
                            .any(|e| e.product_id == *id && lexicon::is_of_kind(e, tag))
                    })
                })
                .collect();
            self.covered.iter_mut().for_each(|c| *c = true);
            if lines.is_empty() {
                return clarify(messages::WHICH_LINE);
            }
            let actions = lines
                .into_iter()
                .take(crate::proposal::MAX_ACTIONS)
                .map(|id| ProposedAction::new("REMOVE_ITEM").product(id))
                .collect();
            return Proposal::new(actions, "");
        }
        if clears {
            for (word, covered) in self.words.iter().zip(self.covered.iter_mut()) {
                if lexicon::removes(word)
                    || word.starts_with("vaci")
                    || matches!(*word, "todo" | "carrito" | "carro")
                {
                    *covered = true;
                }
            }
        }
        let found = mentions::find(self.words, &input.product_catalog);
        for m in &found {
            self.covered[m.start..m.end]
                .iter_mut()
                .for_each(|c| *c = true);
        }
        // "No sé si un cheesecake o mejor nada": thinking aloud is not ordering.
        if !found.is_empty() && self.has(HEDGES) && !self.words.iter().any(|w| lexicon::adds(w)) {
            return clarify(messages::CLARIFY_DEFAULT);
        }
        if clears {
            // "Empezar de nuevo con 2 matchas", "borra todo, mejor solo 2
            // americanos": empty the cart, then add to the empty one.
            let mut actions = Vec::new();
            if !input.cart.lines.is_empty() {
                actions.push(ProposedAction::new("CLEAR_CART"));
            }
            if found.iter().all(|m| m.product().is_some()) {
                let emptied = ProposalInput {
                    cart: Default::default(),
                    ..input.clone()
                };
                // The clearing words are spent: «borra» does not also remove.
                let mut spent = vec![false; self.words.len()];
                lexicon::cover(self.words, lexicon::CLEAR, &mut spent);
                let rest: Vec<&str> = self
                    .words
                    .iter()
                    .zip(&spent)
                    .map(|(w, s)| if *s { "_" } else { *w })
                    .collect();
                let text = rest.join(" ");
                let mut reader = Reader {
                    input: &emptied,
                    text: &text,
                    words: &rest,
                    covered: self.covered.clone(),
                };
                actions.extend(reader.product_actions(&found));
                self.covered = reader.covered;
            }
            if !actions.is_empty() {
                return Proposal::new(actions.into_iter().take(5).collect(), "");
            }
        }
        // «cambia el latte por un chai» and no latte is sold: what goes out is
        // unread, so adding the chai alone would go against the words.
        if let Some(proposal) = self.swap_of_an_unread_line(&found) {
            return proposal;
        }
        // «ya no quiero nada de comer»: nothing of a kind, not the order.
        let nothing_of = self
            .words
            .windows(2)
            .any(|w| w[0] == "nada" && matches!(w[1], "de" | "para"));
        if found.is_empty()
            && any(self.text, lexicon::CANCEL)
            && !self.negates_cancel()
            && !lexicon::wants_nothing_more(self.text)
            && !lexicon::pays_by_cancelling(self.words)
            && nothing_of
        {
            return clarify(messages::CLARIFY_DEFAULT);
        }
        // An order placed is called off only by name («cancela el pedido»,
        // «anúlalo»): «ya voy a cancelar», «cancelo al toque» are paying it in
        // Bolivia — asked, never guessed.
        let placed_order_named = any(
            self.text,
            &["pedido", "orden", "compra", "todo", "no quiero", "ya no"],
        ) || self.words.iter().any(|w| {
            w.starts_with("anul")
                || matches!(
                    *w,
                    "cancelalo" | "cancelala" | "cancelelo" | "cancelenlo" | "cancela"
                )
        });
        // («cancelar», said alone, is the word the bot itself offers.)
        let said_alone = self.words.len() <= 2;
        if found.is_empty()
            && self.state() == State::AwaitingPayment
            && any(self.text, lexicon::CANCEL)
            && !placed_order_named
            && !said_alone
        {
            return clarify(messages::CANCEL_OR_PAY);
        }
        if (found.is_empty() || whole_order_called_off(self.words, input).is_some())
            && any(self.text, lexicon::CANCEL)
            && !self.negates_cancel()
            && !lexicon::wants_nothing_more(self.text)
            && !lexicon::pays_by_cancelling(self.words)
        {
            // «ya no quiero el flan», «no quiero la de coco»: a thing pointed
            // at after «no quiero» that no product reads is something taken
            // out, unread — never the whole order called off.
            if self.unread_thing_not_wanted() {
                return clarify(if input.cart.lines.is_empty() {
                    messages::CLARIFY_DEFAULT
                } else {
                    messages::WHICH_LINE
                });
            }
            lexicon::cover(self.words, lexicon::CANCEL, &mut self.covered);
            return one(ProposedAction::new("CANCEL_ORDER"));
        }
        // «…que sea chai, a mi jefa no le gusta el café»: a word several
        // products share, in what is told about them beside an order of
        // others, is the reason, not a product asked for.
        let told: Vec<usize> = found
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                m.candidates.len() > 1
                    && self.words[m.start.saturating_sub(4)..m.start]
                        .iter()
                        .any(|w| {
                            matches!(
                                *w,
                                "gusta" | "gustan" | "toma" | "tomo" | "toman" | "porque"
                            ) || w.starts_with("alergic")
                        })
            })
            .map(|(i, _)| i)
            .collect();
        let found: Vec<Mention> =
            if !told.is_empty() && found.iter().any(|m| m.candidates.len() == 1) {
                for &i in &told {
                    let m = &found[i];
                    // With the words that tell it («no le gusta el»).
                    let from = (m.start.saturating_sub(4)..m.start)
                        .rev()
                        .take_while(|&k| !found.iter().any(|other| other.end == k + 1))
                        .last()
                        .unwrap_or(m.start);
                    self.covered[from..m.end].iter_mut().for_each(|c| *c = true);
                }
                found
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !told.contains(i))
                    .map(|(_, m)| m)
                    .collect()
            } else {
                found
            };
        // «quita el café», «ya no quiero el té» with one of them in the cart:
        // what is taken out can only be a line held.
        let mut found = found;
        let swaps = self.words.iter().any(|w| swap_verb(w)) || any(self.text, INSTEAD);
        // («un café sin azúcar» takes nothing out.)
        let takes_out = self.words.iter().any(|w| lexicon::removes(w))
            || lexicon::REMOVE
                .iter()
                .any(|p| *p != "sin" && crate::text::contains_phrase(self.text, p));
        if takes_out && !swaps {
            for m in found.iter_mut().filter(|m| m.candidates.len() > 1) {
                let held: Vec<ProductId> = m
                    .candidates
                    .iter()
                    .copied()
                    .filter(|id| input.cart.holds(*id))
                    .collect();
                if held.len() == 1 {
                    m.candidates = held;
                }
            }
        }
        // «el dulce de chocolate pa comer», «y pa tomar el de chocolate»: to
        // eat is no drink, to drink is one (by the catalog's «bebida» tag).
        // («para comer acá» says where, not what.)
        let here = self.has(&[
            "comer aca",
            "comer aqui",
            "comer ahi",
            "comer alla",
            "comer en",
            "tomar aca",
            "tomar aqui",
            "tomar ahi",
            "tomar alla",
            "tomar en",
        ]);
        let to_eat = !here && self.has(&["pa comer", "para comer", "de comer"]);
        let to_drink = !here
            && self.has(&[
                "pa tomar",
                "para tomar",
                "de tomar",
                "pa beber",
                "para beber",
            ]);
        if to_eat != to_drink {
            let drinks: Vec<ProductId> = input
                .product_catalog
                .iter()
                .filter(|e| e.tags.iter().any(|t| normalize(t) == "bebida"))
                .map(|e| e.product_id)
                .collect();
            // (Only where the catalog tags its drinks.)
            let tagged = !drinks.is_empty();
            for m in found
                .iter_mut()
                .filter(|m| tagged && m.candidates.len() > 1)
            {
                let fit: Vec<ProductId> = m
                    .candidates
                    .iter()
                    .copied()
                    .filter(|id| drinks.contains(id) == to_drink)
                    .collect();
                if !fit.is_empty() {
                    m.candidates = fit;
                }
            }
        }
        if let Some(ambiguous) = found.iter().find(|m| m.candidates.len() > 1) {
            // «cambia uno de los cafés por un matcha»: which is asked, but the
            // answer must say the change again — a bare pick would only add.
            let changes = self
                .words
                .iter()
                .any(|w| lexicon::removes(w) || swap_verb(w))
                || any(self.text, lexicon::REMOVE)
                || any(self.text, INSTEAD);
            if changes {
                let names: Vec<String> = ambiguous
                    .candidates
                    .iter()
                    .filter_map(|id| name_of(input, *id).map(str::to_owned))
                    .collect();
                return clarify(&messages::which_to_change(&names));
            }
            let mut asked = self.ask_which(ambiguous);
            // «2 cafés y 2 croissants»: a plain list's clear items are added
            // and the one that fits several products is asked.
            if let Some(mut added) = self.list_beside(&found, ambiguous) {
                added.append(&mut asked.proposed_actions);
                asked.proposed_actions = added;
                asked.response_text = messages::WHICH_ONE_BESIDE.into();
            }
            return asked;
        }
        if let Some(proposal) = self.pronoun_swap(&found) {
            return proposal;
        }
        if let Some(asked) = self.bare_plural(&found) {
            return asked;
        }
        // «Ana: capuchino … Carla: capuchino … Yo: capuchino»: one line of a
        // product ordered several times, before the five a proposal holds
        // are counted (a shorter list keeps each reading for the checks of
        // a count corrected inside it).
        let mut actions = self.product_actions(&found);
        if actions.len() > crate::proposal::MAX_ACTIONS {
            actions = one_line_each(Proposal::new(actions, "")).proposed_actions;
        }
        if !actions.is_empty() {
            // «ponme uno de matcha y es todo»: the items, then the summary.
            let tail_at = found.last().map_or(self.words.len(), |m| m.end);
            let tail = only_after_count(&self.words[tail_at..]);
            let products_left = |actions: &[ProposedAction], kept: usize| -> Vec<String> {
                actions
                    .iter()
                    .skip(kept)
                    .filter_map(|a| a.params.product_id.as_ref()?.as_i64())
                    .filter_map(|id| name_of(input, id).map(str::to_owned))
                    .collect()
            };
            let mut left_out: Vec<String> = Vec::new();
            let changes_cart = actions.iter().all(|a| {
                matches!(
                    a.action_type.as_str(),
                    "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM"
                )
            });
            // «ya, eso nomás, pero sácame el brownie»: closing said first, with
            // its exception after «pero».
            let head_at = found.first().map_or(0, |m| m.start);
            let head = self.words[..head_at].join(" ");
            let closes_first =
                any(&head, lexicon::CLOSES) && self.words[..head_at].contains(&"pero");
            if changes_cart && closes_first {
                let mut closing = vec![false; head_at];
                lexicon::cover(&self.words[..head_at], lexicon::CLOSES, &mut closing);
                lexicon::cover(&self.words[..head_at], &["pero", "ya"], &mut closing);
                for (k, c) in closing.into_iter().enumerate() {
                    self.covered[k] |= c;
                }
                left_out = products_left(&actions, 4);
                actions.truncate(4);
                actions.push(ProposedAction::new("REVIEW_ORDER"));
            } else if changes_cart
                // (Five products fill a proposal: the summary waits for «cuánto es».)
                && actions.len() < crate::proposal::MAX_ACTIONS
                && any(&tail, lexicon::CLOSES)
                // «nada más por ahora»: for now, more to come.
                && !any(&tail, &["por ahora", "por el momento", "de momento"])
            {
                let mut closing = vec![false; self.words.len() - tail_at];
                lexicon::cover(&self.words[tail_at..], lexicon::CLOSES, &mut closing);
                // «…y listo, ¿cuánto es?»: the total asked beside the close.
                lexicon::cover(&self.words[tail_at..], lexicon::DONE, &mut closing);
                lexicon::cover(&self.words[tail_at..], &["y"], &mut closing);
                for (k, c) in closing.into_iter().enumerate() {
                    self.covered[tail_at + k] |= c;
                }
                left_out = products_left(&actions, 4);
                actions.truncate(4);
                actions.push(ProposedAction::new("REVIEW_ORDER"));
            }
            // More than one proposal holds: the first five act, and the rest is
            // named back, never dropped in silence.
            let mut left = left_out;
            left.extend(products_left(&actions, crate::proposal::MAX_ACTIONS));
            let mut said = if left.is_empty() {
                String::new()
            } else {
                messages::more_than_five(&left)
            };
            // A count not said for one product of the list: asked of it.
            let unsaid: Vec<String> = actions
                .iter()
                .filter(|a| a.action_type == "CLARIFY")
                .filter_map(|a| a.params.candidates.as_ref()?.first()?.as_i64())
                .filter_map(|id| name_of(input, id).map(str::to_owned))
                .collect();
            if !unsaid.is_empty() {
                said = format!("{} {said}", messages::how_many_of(&unsaid))
                    .trim()
                    .to_owned();
            }
            return Proposal::new(
                actions
                    .into_iter()
                    .take(crate::proposal::MAX_ACTIONS)
                    .collect(),
                &said,
            );
        }
        if let Some(proposal) = self.follow_up() {
            return proposal;
        }
        if let Some(proposal) = self.of_focus() {
            return proposal;
        }
        // "¿Cuánto me sale?" with a cart and no product named: the total.
        let asks_total = self.is_question() && self.has(&["cuanto"]);
        // («Muchas gracias, muy amable»: thanks alone close nothing — the
        // customer may go on ordering.)
        let sounds_done = only_words_of(self.text, lexicon::DONE_WORDS)
            && !only_words_of(self.text, lexicon::THANKS);
        // «ya» closes when it leads or stands nearly alone («bueno ya»), not in
        // «qué rico todo, ya se me hace agua la boca».
        let other_done: Vec<&str> = lexicon::DONE
            .iter()
            .copied()
            .filter(|p| *p != "ya")
            .collect();
        // «ya, dame tres» orders: an order verb after the «ya» is no closing.
        let done = any(self.text, &other_done)
            || (any(self.text, &["ya"])
                && (self.words.first() == Some(&"ya") || self.words.len() <= 4)
                && !self.words.iter().any(|w| lexicon::adds(w))
                && !any(self.text, lexicon::ADD));
        if done {
            lexicon::cover(self.words, lexicon::DONE, &mut self.covered);
        }
        if done || (self.state() == State::CartOpen && (asks_total || sounds_done)) {
            lexicon::cover(self.words, lexicon::DONE_WORDS, &mut self.covered);
            lexicon::cover(self.words, lexicon::QUESTION, &mut self.covered);
            return match self.state() {
                State::CartOpen => one(ProposedAction::new("REVIEW_ORDER")),
                _ => one(ProposedAction::new("REPLY")),
            };
        }
        let greeted = input.detected_events.contains(&Event::GreetingReceived);
        // "¿Qué bebidas tienen?": what the shop has, whatever the words around it.
        let asks_offer = self.is_question()
            && self.has(&[
                "tienen", "tienes", "tendran", "tendras", "hay", "habra", "venden", "vendes",
                "ofrecen", "manejan",
            ]);
        // «hola, 2 por favor»: a count with no product asks which, greeting
        // or not.
        let counted = self.words.iter().any(|w| count(w).is_some());
        // «¿tienen salteñas?»: a food the catalog does not hold is not sold.
        let unsold = unsold_foods(&input.customer_message, &input.product_catalog);
        let ordering = self.words.iter().any(|w| lexicon::adds(w)) || any(self.text, lexicon::ADD);
        if (asks_offer || ordering) && !unsold.is_empty() {
            return clarify(&messages::not_sold_asked(&unsold));
        }
        if self.has(lexicon::CATALOG) || (greeted && !counted) || asks_offer {
            return one(ProposedAction::new("SHOW_CATALOG"));
        }
        if self.has(lexicon::THANKS) {
            return Proposal::new(
                vec![ProposedAction::new("REPLY")],
                messages::YOU_ARE_WELCOME,
            );
        }
        // «no, tres» right after one line was set: that line corrected.
        if let ["no", rest @ ..] = self.words
            && let Some(n) = only_count(rest)
            && rest.iter().all(|w| {
                count(w).is_some()
                    || matches!(*w, "mejor" | "perdon" | "eran" | "son" | "nomas" | "solo")
            })
            && let [line] = input.last_changed.as_slice()
            && input.cart.holds(*line)
            && !bot_asked_last(input)
        {
            self.covered.iter_mut().for_each(|c| *c = true);
            return one(ProposedAction::new("UPDATE_QUANTITY")
                .product(*line)
                .quantity(n));
        }
        if self.words.iter().any(|w| token_number(w).is_some()) {
            // «¿a cuánto el cheesecake y el brownie?» → «dame dos»: which of
            // the products just named, the count kept for the answer.
            let counts: Vec<i64> = self.words.iter().filter_map(|w| token_number(w)).collect();
            if input.choices_named
                && (2..=5).contains(&input.choices.len())
                && let [n] = counts.as_slice()
            {
                return which_of(&input.choices, Some(*n));
            }
            return clarify(messages::WHICH_PRODUCT);
        }
        clarify(messages::CLARIFY_DEFAULT)
    }

    /// «dame 2 de esos» … «¿De qué producto?» … «los brownies»: the product
    /// named now takes the count said before.
    fn count_asked_for(&mut self) -> Option<Proposal> {
        // The bot asked back (which product, whatever its words).
        let asked = self
            .input
            .recent_history
            .iter()
            .rev()
            .find(|h| h.role != "customer")
            .is_some_and(|h| h.text.contains('¿') || h.text.contains(messages::CLARIFY_DEFAULT));
        // («y un capuchino»: one, and another thing; its own article counts.)
        let article_before_name = self.words.windows(2).any(|w| {
            matches!(w[0], "un" | "una") && names_a_product(w[1], &self.input.product_catalog)
        });
        if !asked
            || self
                .words
                .iter()
                .any(|w| token_number(w).is_some() && !matches!(*w, "un" | "una"))
            || article_before_name
            || self.words.first() == Some(&"y")
        {
            return None;
        }
        let before = previous_message(self.input)?;
        let said = tokens(&before);
        if !mentions::find(&said, &self.input.product_catalog).is_empty()
            || said.iter().any(|w| lexicon::removes(w))
            || any(&before, lexicon::REMOVE)
        {
            return None;
        }
        let n = only_count(&said)?;
        let found = mentions::find(self.words, &self.input.product_catalog);
        let [mention] = found.as_slice() else {
            return None;
        };
        let id = mention.product()?;
        if self
            .words
            .iter()
            .any(|w| lexicon::removes(w) || matches!(*w, "no" | "nada"))
            || any(self.text, lexicon::REMOVE)
            || self.is_question()
        {
            return None;
        }
        self.covered.iter_mut().for_each(|c| *c = true);
        Some(one(ProposedAction::new("ADD_TO_CART")
            .product(id)
            .quantity(n)))
    }

    /// «ya no quiero el flan»: the only call-off is «no quiero», and what
    /// follows it points at a thing other than the order («el pedido», «nada»,
    /// «todo»).
    fn unread_thing_not_wanted(&self) -> bool {
        let called_off_by_name = self
            .words
            .iter()
            .any(|w| w.starts_with("cancel") || w.starts_with("anul") || w.starts_with("olvid"));
        let Some(at) = self.words.windows(2).position(|w| w == ["no", "quiero"]) else {
            return false;
        };
        let pointed = |k: usize| {
            matches!(
                self.words.get(k),
                Some(
                    &("el"
                        | "la"
                        | "los"
                        | "las"
                        | "ese"
                        | "esa"
                        | "esos"
                        | "esas"
                        | "este"
                        | "esta"
                        | "del"
                        | "un"
                        | "una")
                )
            )
        };
        let order = |w: &str| {
            matches!(
                w,
                "pedido"
                    | "pedidito"
                    | "orden"
                    | "compra"
                    | "carrito"
                    | "todo"
                    | "nada"
                    | "mas"
                    | "resto"
            )
        };
        !called_off_by_name && pointed(at + 2) && self.words.get(at + 3).is_some_and(|w| !order(w))
    }

    /// «no cancela todavía», «no quiero cancelar», «aún no canceles»: a
    /// cancelling word said in the negative.
    fn negates_cancel(&self) -> bool {
        let mut cancel = vec![false; self.words.len()];
        lexicon::cover(self.words, lexicon::CANCEL, &mut cancel);
        let Some(at) = cancel.iter().position(|c| *c) else {
            return false;
        };
        // «ya no, cancela» is no longer wanting, not a negation.
        // «no no, cancela todo»: a «no» said twice is a cry, not a negation.
        let imperative_cancel = (CALLS_OFF.contains(&self.words[at])
            || matches!(self.words[at], "cancelala" | "anulalo"))
            && !any(self.text, &["saber si", "se puede", "puedo", "podria"]);
        let said = self.input.customer_message.trim_start().to_lowercase();
        let twice = said
            .strip_prefix("no no")
            .is_some_and(|rest| rest.trim_start().starts_with([',', '.', '!', ';']));
        let answered = twice
            || said
                .strip_prefix("no")
                .is_some_and(|rest| rest.trim_start().starts_with([',', '.', '!', ';']));
        let skipped = if twice { 2 } else { usize::from(answered) };
        let before: Vec<&str> = self.words[skipped.min(at)..at]
            .iter()
            .copied()
            .filter(|w| {
                !lexicon::VOCATIVES.contains(w)
                    && !matches!(*w, "me" | "lo" | "la" | "le" | "el" | "mi")
            })
            .collect();
        // «ay no, cancela»: a cry, then the call-off — marked as such («ay no
        // cancela, ya te pagué» may be a plea not to).
        let cry = at >= 2
            && self.words[at - 1] == "no"
            && matches!(self.words[at - 2], "ay" | "uy" | "ah")
            && ["ay no", "uy no", "ah no"].iter().any(|cry| {
                said.strip_prefix(cry)
                    .is_some_and(|rest| rest.trim_start().starts_with([',', '.', '!', ';']))
            });
        let negated = !cry
            && match before.as_slice() {
                [.., "ya", "no"] => false,
                // «mejor no, cancela»: the order is what is no longer wanted
                // (the mark says so: «mejor no cancela nada» keeps it).
                [.., "mejor", "no"]
                    if imperative_cancel
                        && ["mejor no,", "mejor no.", "mejor no!", "mejor no;"]
                            .iter()
                            .any(|m| said.contains(m))
                        // («…, ya no quiero nada» after it still calls off.)
                        && !self.words[at + 1..].iter().take(2).any(|w| *w == "nada") =>
                {
                    false
                }
                [.., "no"]
                | [.., "nunca"]
                | [.., "no", "quiero" | "vayas" | "vaya" | "hace" | "hay"] => true,
                [.., "no", _, "a"] => true,
                _ => false,
            };
        // «nada, olvídalo, así está bien»: never mind the change, the cart stays.
        let keeps = any(
            self.text,
            &["asi esta bien", "asi nomas", "asi esta", "dejalo asi"],
        ) && self.words[at..at + 1]
            .iter()
            .any(|w| matches!(*w, "olvidalo" | "olvida"));
        negated
            || keeps
            || self.words[at..].iter().enumerate().any(|(k, w)| {
                matches!(*w, "todavia" | "aun" | "tampoco")
                    // «cancélalo, todavía no pagué»: the reason, not a «not
                    // yet» — after a cancel said as an order, never asked
                    // («quería saber si se puede cancelar todavía, no pagué»).
                    && !(imperative_cancel
                        && self.words[at + k + 1..]
                        .iter()
                        .take(3)
                        .any(|w| w.starts_with("pag") || matches!(*w, "cancele" | "cancelamos")))
            })
    }

    /// CHECKOUT: a yes said first, then pickup or delivery and nothing of a
    /// product. The way is set before the order is made; a way the shop does
    /// not offer is proposed alone (the backend says so) and nothing is
    /// confirmed on it.
    fn yes_and_the_way(&mut self) -> Option<Proposal> {
        let input = self.input;
        if self.state() != State::Checkout {
            return None;
        }
        // («Sim, confirmo. Vou buscar na loja»: in the Spanish it stands for.)
        let (rest, mode) = yes_then_the_way(&input.customer_message, &input.product_catalog)
            .or_else(|| {
                let folded = normalize(&input.customer_message);
                let spanish = in_spanish(&folded);
                (spanish != folded)
                    .then(|| yes_then_the_way(&spanish, &input.product_catalog))
                    .flatten()
            })?;
        let way = match &input.delivery {
            Some(view) => delivery::read_message(&rest, view, input.asked, State::Checkout)
                .unwrap_or_else(|| ProposedAction::new("SET_FULFILMENT").mode(mode)),
            None => ProposedAction::new("SET_FULFILMENT").mode(mode),
        };
        // «sí, paso a recoger, vivo en Sopocachi»: a zone named beside a
        // pickup reads as delivery; two ways are asked, never one chosen.
        if way.params.mode.as_ref().and_then(|m| m.as_str()) != Some(mode.as_str()) {
            return None;
        }
        let offered = match (&input.delivery, mode) {
            (Some(view), Mode::Pickup) => view.pickup,
            (Some(view), Mode::Delivery) => !view.zones.is_empty(),
            // A shop that asks nothing takes its orders at the counter.
            (None, Mode::Pickup) => true,
            (None, Mode::Delivery) => false,
        };
        self.covered.iter_mut().for_each(|c| *c = true);
        let mut actions = vec![way];
        if offered {
            actions.push(ProposedAction::new("CONFIRM_ORDER"));
        }
        Some(Proposal::new(actions, ""))
    }

    /// CHECKOUT: only a clear yes confirms ("sí", "listo, dale", "ok 👍"); a no or
    /// "espera" asks again. A yes mixed with anything else is not a yes.
    fn answer_summary(&mut self) -> Option<Proposal> {
        let denies = only_words_of(self.text, lexicon::DENY);
        // «¿correcto?», «¿así está bien?», «¿listo?»: a yes asked is a
        // question about the summary, never the confirmation; «ah ya,
        // perfecto», «ah ok» after an answer (not after the summary's
        // question) take the answer in, and «ok» to a question back answers
        // it. All are asked to confirm in so many words.
        let raw = &self.input.customer_message;
        let asked = raw.contains('?') || raw.trim_start().starts_with('¿');
        let words = tokens(self.text);
        let explicit = words.iter().any(|w| {
            w.starts_with("si") || w.starts_with("confirm") || matches!(*w, "claro" | "adelante")
        });
        let after_an_answer =
            last_bot_turn(self.input).is_some_and(|h| !prepared(&h.text).contains("confirm"));
        let acknowledges = !explicit
            && after_an_answer
            && (matches!(words.first(), Some(&("ah" | "aja" | "ahh"))) || self.input.asked_back);
        if !denies && (asked || acknowledges) && only_words_of(self.text, lexicon::CONFIRM) {
            self.covered.iter_mut().for_each(|c| *c = true);
            return Some(clarify(messages::CONFIRM_ASKED));
        }
        if !denies && only_words_of(self.text, lexicon::CONFIRM) {
            self.covered.iter_mut().for_each(|c| *c = true);
            return Some(one(ProposedAction::new("CONFIRM_ORDER")));
        }
        if denies {
            self.covered.iter_mut().for_each(|c| *c = true);
            return Some(clarify(messages::CONFIRM_OR_CANCEL));
        }
        // «Confirmamos. Pagamos por transferencia»: a yes said first, then
        // how it goes on — no product, count, change or doubt after it.
        let raw = &self.input.customer_message;
        let first = raw
            .split(['.', '!', ',', ';', '\n'])
            .next()
            .unwrap_or_default();
        let rest = prepared(&raw[first.len()..]);
        let first = prepared(first);
        // Only how it goes on: paying, picking up, thanks — never a doubt
        // («Sí. Déjame preguntarle a mi esposa», «Ok, un momento»).
        let rest_words = tokens(&rest);
        let calm = without_thanks(&rest_words).iter().all(|w| {
            lexicon::FILLER.contains(w)
                || lexicon::CONFIRM.contains(w)
                // «listo, confírmame y pásame el QR», «sí, todo bien»
                || matches!(
                    *w,
                    "pasame" | "mandame" | "enviame" | "el" | "la" | "los" | "datos" | "todo" | "bien"
                )
                || matches!(
                    *w,
                    "pagamos"
                        | "pago"
                        | "pagare"
                        | "pagaremos"
                        | "pagar"
                        | "transferencia"
                        | "transferimos"
                        | "transfiero"
                        | "qr"
                        | "efectivo"
                        | "tarjeta"
                        | "deposito"
                        | "cuenta"
                        | "recojo"
                        | "recogemos"
                        | "recoger"
                        | "recogerlo"
                        | "paso"
                        | "pasamos"
                        | "delivery"
                        | "envio"
                        | "perfecto"
                        | "listo"
                        | "dale"
                        | "genial"
                        | "excelente"
                        | "amable"
                        | "amables"
                        | "nit"
                        | "factura"
                        | "nombre"
                        | "via"
                        // «confirmo, pago al tiro», «…pago ahorita».
                        | "ahorita"
                        | "ahora"
                        | "al"
                        | "tiro"
                        | "altiro"
                        | "enseguida"
                        | "luego"
                        | "rato"
                        | "mismo"
                )
        }) && !names_a_product(&rest, &self.input.product_catalog);
        if !rest.trim().is_empty()
            && calm
            && !only_words_of(&first, lexicon::DENY)
            && only_words_of(&first, lexicon::CONFIRM)
        {
            self.covered.iter_mut().for_each(|c| *c = true);
            return Some(one(ProposedAction::new("CONFIRM_ORDER")));
        }
        None
    }

    /// A reply to the choices last offered: "2", "el segundo", "la última", or one
    /// of the offered products by name (with its quantity, if given).
    fn pick_choice(&mut self) -> Option<Proposal> {
        if self.number_or_count() {
            self.covered.iter_mut().for_each(|c| *c = true);
            return Some(clarify(messages::NUMBER_OR_COUNT));
        }
        let (product, quantity) = self.chosen()?;
        self.covered.iter_mut().for_each(|c| *c = true);
        Some(one(ProposedAction::new("ADD_TO_CART")
            .product(product)
            .quantity(quantity)))
    }

    /// «menú» → «chai» → «2»: once something is in the cart and the bot's
    /// last message was not the listing, a bare number could be the listing's
    /// second product or two of what was ordered.
    fn number_or_count(&self) -> bool {
        let bare_number = matches!(self.words, [w] if w.parse::<usize>().is_ok());
        let listing_last = shapes::last_bot_turn(self.input)
            .is_none_or(|h| h.text.contains(messages::PICK_BY_NUMBER));
        // «ya dame 3» right after the listing: three of something, or the
        // third? («dame el 3» picks.)
        let numbers = self.words.iter().filter(|w| count(w).is_some()).count();
        let asked_with_a_verb = numbers == 1
            && self.words.iter().any(|w| {
                matches!(
                    *w,
                    "dame" | "deme" | "quiero" | "ponme" | "mandame" | "traeme" | "pasame"
                )
            })
            && self.words.iter().all(|w| {
                count(w).is_some()
                    || matches!(
                        *w,
                        "ya" | "dame"
                            | "deme"
                            | "quiero"
                            | "ponme"
                            | "mandame"
                            | "traeme"
                            | "pasame"
                            | "porfa"
                            | "ok"
                            | "entonces"
                            | "bueno"
                            | "dale"
                    )
            });
        !self.input.choices.is_empty()
            && !self.input.choices_named
            && (bare_number && !self.input.cart.lines.is_empty() && !listing_last
                || asked_with_a_verb && listing_last && self.input.focus.is_none())
    }

    /// The product a reply picks from the offered choices, and how many.
    fn chosen(&self) -> Option<(ProductId, i64)> {
        let choices = &self.input.choices;
        if choices.is_empty() || self.number_or_count() {
            return None;
        }
        let asked = self.input.choice_quantity.unwrap_or(1);
        // «Ya no quiero la limonada» is no pick, nor «y para mí algo caliente»,
        // nor «una limonada menos».
        if self.words.iter().any(|w| {
            matches!(
                *w,
                "no" | "algo" | "alguna" | "algun" | "opciones" | "menos"
            ) || lexicon::removes(w)
        }) || asked_which_to_take_out(self.input)
        {
            return None;
        }
        let found = mentions::find(self.words, &self.input.product_catalog);
        // «el más baratito», «la más económica», «el más caro»: by price —
        // not asked («¿cuál es el más barato?» wants the answer first), and
        // with the count said beside it («el más baratito, que sean 3»).
        if found.is_empty()
            && self.words.contains(&"mas")
            && !self.is_question()
            && !self
                .words
                .iter()
                .any(|w| matches!(*w, "cual" | "cuanto" | "cuesta" | "sale" | "vale"))
        {
            // («el más barato», said as one: not «¿sale más caro?».)
            let said = |fits: &dyn Fn(&str) -> bool| {
                (2..self.words.len()).any(|k| {
                    matches!(self.words[k - 2], "el" | "la" | "lo")
                        && self.words[k - 1] == "mas"
                        && fits(self.words[k])
                })
            };
            let cheap = said(&|w| w.starts_with("barat") || w.starts_with("economic"));
            let dear = said(&|w| matches!(w, "caro" | "cara" | "carito" | "carita"));
            let offered: Vec<_> = self.offered().collect();
            let by_price = match (cheap, dear) {
                (true, false) => offered.iter().min_by_key(|e| e.price_minor),
                (false, true) => offered.iter().max_by_key(|e| e.price_minor),
                _ => None,
            };
            // (Only one at that price: two as cheap are still asked.)
            if let Some(entry) = by_price
                && offered
                    .iter()
                    .filter(|e| e.price_minor == entry.price_minor)
                    .count()
                    == 1
            {
                return Some((entry.product_id, only_count(self.words).unwrap_or(asked)));
            }
        }
        if found.is_empty()
            && let Some(picked) = self
                .picked_by_word()
                .or_else(|| self.picked_by_description())
        {
            return Some(picked);
        }
        if !found.is_empty() {
            // A name picks only among products the words fitted, and a question
            // about one is still a question.
            if !self.input.choices_named || self.is_question() {
                return None;
            }
            // «mejor que sean tres limonadas» with limonada in the cart changes
            // its line; the offer is not what it answers.
            let sets_line = any(self.text, lexicon::SET) || any(self.text, ONLY);
            let picked: Vec<(ProductId, usize, usize)> = found
                .iter()
                .filter_map(|m| m.product().map(|id| (id, m.start, m.end)))
                .filter(|(id, ..)| {
                    choices.contains(id) && !(sets_line && self.cart_quantity(*id) > 0)
                })
                .collect();
            return match (picked.as_slice(), found.len()) {
                ([(id, start, end)], 1) => Some((
                    *id,
                    quantity_before(&self.words[..*start])
                        .or_else(|| quantity_after(&self.words[*end..]))
                        // «el caliente, para tomar. dos por favor»
                        .or_else(|| only_count(self.words))
                        .unwrap_or(asked),
                )),
                _ => None,
            };
        }
        // "2", "el 2", "la segunda", "opción 3": one number or ordinal, little else
        // ("2 más" is two more of something, not the second; «dame 2 de esos»
        // two of something).
        if self
            .words
            .iter()
            .any(|w| matches!(*w, "mas" | "menos" | "otro" | "otra" | "otros" | "otras"))
            || self.words.windows(2).any(|w| {
                w[0] == "de"
                    && matches!(
                        w[1],
                        "esos" | "esas" | "estos" | "estas" | "ellos" | "ellas"
                    )
            })
        {
            return None;
        }
        let picks: Vec<usize> = self
            .words
            .iter()
            .filter_map(|w| {
                lexicon::ORDINALS
                    .iter()
                    .find(|(o, _)| o == w)
                    .map(|(_, n)| *n)
                    .or_else(|| w.parse::<usize>().ok())
            })
            .collect();
        let picking = |w: &&str| {
            lexicon::FILLER.contains(w)
                || matches!(
                    *w,
                    "opcion" | "numero" | "quiero" | "dame" | "ponme" | "ese" | "esa"
                )
        };
        // «el 2, dos por favor», «la primera, tres»: the place after an
        // article, and the one count said beside it.
        let placed: Vec<(usize, usize)> = (1..self.words.len())
            .filter(|i| matches!(self.words[i - 1], "el" | "la" | "opcion" | "numero"))
            .filter_map(|i| {
                let w = self.words[i];
                lexicon::ORDINALS
                    .iter()
                    .find(|(o, _)| *o == w)
                    .map(|(_, n)| *n)
                    .or_else(|| w.parse::<usize>().ok())
                    .map(|n| (i, n))
            })
            .collect();
        if let [(at, n)] = placed.as_slice() {
            let counts: Vec<i64> = (0..self.words.len())
                .filter(|i| i != at)
                .filter_map(|i| count(self.words[i]))
                .collect();
            let others = (0..self.words.len())
                .filter(|i| i != at && count(self.words[*i]).is_none())
                .any(|i| !picking(&self.words[i]));
            if let [quantity] = counts.as_slice()
                && !others
                && (1..=choices.len()).contains(n)
                && (1..=super::core::MAX_QUANTITY).contains(quantity)
            {
                return Some((choices[n - 1], *quantity));
            }
        }
        let rest = self.words.iter().filter(|w| {
            !picking(w)
                && w.parse::<usize>().is_err()
                && !lexicon::ORDINALS.iter().any(|(o, _)| o == *w)
        });
        if rest.count() > 0 {
            return None;
        }
        match picks.as_slice() {
            [usize::MAX] => choices.last().map(|id| (*id, asked)),
            [n] if (1..=choices.len()).contains(n) => Some((choices[n - 1], asked)),
            _ => None,
        }
    }

    /// The catalog entries of the choices last offered, in their order.
    fn offered(&self) -> impl Iterator<Item = &super::contract::CatalogEntry> + '_ {
        self.input.choices.iter().filter_map(|id| {
            self.input
                .product_catalog
                .iter()
                .find(|p| p.product_id == *id)
        })
    }

    /// «el que es con leche de almendras», «el negrito nomás, sin leche»:
    /// among the choices offered, the one whose description or tags hold the
    /// words said of it and none of those said to be without. Only words some
    /// choice holds count; one choice must be left.
    fn picked_by_description(&self) -> Option<(ProductId, i64)> {
        // («el que es con…» reads like «¿qué es?»: a mark asks here, or a
        // question word first, which the pointing below already rules out.)
        let raw = &self.input.customer_message;
        if raw.contains('?') || raw.trim_start().starts_with('¿') {
            return None;
        }
        // «el de canela no, el otro», «es alérgica a la canela»: a word said
        // against a product never picks it.
        if self.words.iter().any(|w| {
            matches!(*w, "no" | "menos" | "otro" | "otra" | "nunca" | "ni")
                || w.starts_with("alergi")
        }) {
            return None;
        }
        let pointed = self
            .words
            .iter()
            .find(|w| {
                !matches!(
                    **w,
                    "y" | "ya" | "entonces" | "bueno" | "pues" | "ok" | "mejor"
                )
            })
            .is_some_and(|w| matches!(*w, "el" | "la" | "los" | "las"));
        // (Name, description and tags: an allergen is never a reason to pick.)
        let texts: Vec<(ProductId, Vec<String>)> = self
            .offered()
            .map(|entry| {
                let all = format!(
                    "{} {} {}",
                    entry.name,
                    entry.description,
                    entry.tags.join(" ")
                );
                // («sin cafeína» in its tags: it does not hold caffeine.)
                let folded = normalize(&all);
                let all_words = tokens(&folded);
                let words = all_words
                    .iter()
                    .enumerate()
                    .filter(|(k, w)| **w != "sin" && (*k == 0 || all_words[k - 1] != "sin"))
                    .map(|(_, w)| mentions::singular(w).to_owned())
                    .collect();
                (entry.product_id, words)
            })
            .collect();
        let holds = |words: &[String], w: &str| words.iter().any(|t| t == mentions::singular(w));
        let mut left: Vec<ProductId> = texts.iter().map(|(id, _)| *id).collect();
        let mut signals = 0;
        for (k, w) in self.words.iter().enumerate() {
            // («sin leche»: the word right after «sin» rules out.)
            let without = k > 0 && self.words[k - 1] == "sin";
            if w.chars().count() < 4 || matches!(*w, "tiene" | "lleva" | "viene" | "trae" | "nomas")
            {
                continue;
            }
            let holding: Vec<ProductId> = texts
                .iter()
                .filter(|(_, words)| holds(words, w))
                .map(|(id, _)| *id)
                .collect();
            if holding.is_empty() || holding.len() == texts.len() && !without {
                continue;
            }
            signals += 1;
            if without {
                left.retain(|id| !holding.contains(id));
            } else {
                left.retain(|id| holding.contains(id));
            }
        }
        // Only a choice pointed at («el que…», «la de…»): «uno con leche»,
        // «uno sin cafeína» are new vague orders, asked (a product that
        // merely never mentions caffeine is no product without it).
        if !pointed {
            return None;
        }
        // («dame dos, uno sin leche»: which count is whose, asked.)
        if self.words.iter().filter(|w| count(w).is_some()).count() > 1 {
            return None;
        }
        let [id] = left.as_slice() else {
            return None;
        };
        (signals > 0).then(|| {
            let n = self
                .words
                .iter()
                .find_map(|w| count(w))
                .unwrap_or(self.input.choice_quantity.unwrap_or(1));
            (*id, n)
        })
    }

    /// «el de chocolate» offered the brownie and the Chocolate caliente: «el
    /// caliente, para tomar. dos por favor» picks the one whose name has a word
    /// said that no other choice's name has (even a word that alone names no
    /// product, like «caliente»). The count said, or the one asked.
    fn picked_by_word(&self) -> Option<(ProductId, i64)> {
        if self.is_question() {
            return None;
        }
        let names: Vec<(ProductId, Vec<String>)> = self
            .offered()
            .map(|entry| (entry.product_id, mentions::significant_words(&entry.name)))
            .collect();
        let fits = |word: &str| -> Vec<ProductId> {
            names
                .iter()
                .filter(|(_, name)| {
                    name.iter()
                        .any(|n| word.chars().count() >= 4 && word_matches(word, n))
                })
                .map(|(id, _)| *id)
                .collect()
        };
        let mut picked: Vec<ProductId> = self
            .words
            .iter()
            .filter_map(|w| match fits(w).as_slice() {
                [one] => Some(*one),
                _ => None,
            })
            .collect();
        picked.dedup();
        let [id] = picked.as_slice() else {
            return None;
        };
        // «caliente sí» right after that product was added from the list:
        // which one it is, said again, is no second pick.
        let ordering = self.words.iter().any(|w| {
            token_number(w).is_some() || lexicon::adds(w) || matches!(*w, "otro" | "otra" | "mas")
        });
        if !ordering && self.input.last_changed.contains(id) && self.input.cart.holds(*id) {
            return None;
        }
        // «un americano»: the article counts one, whatever was asked before.
        let n = self
            .words
            .iter()
            .find_map(|w| count(w))
            .or_else(|| {
                self.words
                    .windows(2)
                    .any(|w| matches!(w[0], "un" | "una") && fits(w[1]).as_slice() == [*id])
                    .then_some(1)
            })
            .unwrap_or(self.input.choice_quantity.unwrap_or(1));
        Some((*id, n))
    }

    /// A plain list of additions around an item that fits several products
    /// («2 cafés y 2 croissants»): the other items, each a product with its
    /// count or article, when nothing but those, joining words, courtesy and
    /// order verbs is said. The words are covered.
    fn list_beside(
        &mut self,
        found: &[Mention],
        ambiguous: &Mention,
    ) -> Option<Vec<ProposedAction>> {
        if found.len() < 2
            || self.input.customer_message.contains('?')
            || found
                .iter()
                .any(|m| m.start != ambiguous.start && m.candidates.len() != 1)
        {
            return None;
        }
        let mut covered = vec![false; self.words.len()];
        lexicon::cover(self.words, lexicon::FILLER, &mut covered);
        lexicon::cover(self.words, crate::detect::GREETINGS, &mut covered);
        lexicon::cover(self.words, lexicon::ADD, &mut covered);
        let mut actions = Vec::new();
        for m in found {
            covered[m.start..m.end].iter_mut().for_each(|c| *c = true);
            let at = m.start.checked_sub(1)?;
            let n = match self.words[at] {
                "un" | "una" | "uno" => 1,
                w => count(w)?,
            };
            covered[at] = true;
            if m.start != ambiguous.start {
                actions.push(
                    ProposedAction::new("ADD_TO_CART")
                        .product(m.product()?)
                        .quantity(n),
                );
            }
        }
        let plain = self
            .words
            .iter()
            .zip(&covered)
            .all(|(w, c)| *c || lexicon::adds(w) || matches!(*w, "y" | "e" | "mas" | "quiero"));
        if !plain {
            return None;
        }
        self.covered.iter_mut().for_each(|c| *c = true);
        Some(actions)
    }

    /// The words fit several products: ask which, offering them as choices.
    fn ask_which(&mut self, mention: &Mention) -> Proposal {
        which_of(
            &mention.candidates,
            quantity_before(&self.words[..mention.start]),
        )
    }

    /// A swap («cambia X por Y», «X x Y») whose X names no line of the cart:
    /// asked which line, nothing changed.
    fn swap_of_an_unread_line(&self, found: &[Mention]) -> Option<Proposal> {
        let input = self.input;
        if input.cart.lines.is_empty() || !self.words.iter().any(|w| swap_verb(w)) {
            return None;
        }
        let by = swap_joiner(self.words)?;
        let source_read = found
            .iter()
            .any(|m| m.start < by && m.candidates.iter().any(|id| input.cart.holds(*id)));
        let target = found.iter().any(|m| m.start > by);
        // Something named between the verb and «por» that is not a line.
        let named_between = self.words[..by]
            .iter()
            .enumerate()
            .skip_while(|(_, w)| !swap_verb(w))
            .skip(1)
            .any(|(_, w)| !STOPWORDS_AROUND.contains(w));
        (!source_read && target && named_between).then(|| {
            let names: Vec<String> = input
                .cart
                .lines
                .iter()
                .filter_map(|l| name_of(input, l.product_id).map(str::to_owned))
                .collect();
            clarify(&messages::which_to_change(&names))
        })
    }

    /// What the message asks of each product it names, clause by clause.
    fn product_actions(&mut self, found: &[Mention]) -> Vec<ProposedAction> {
        let words = self.words;
        // «two lemonades and one croissant, that's all — how much?»: the
        // question is the total after the order, not about a product.
        let asks_the_total = any(self.text, lexicon::CLOSES)
            && any(
                self.text,
                &[
                    "cuanto es",
                    "cuanto seria",
                    "cuanto sale",
                    "cuanto te debo",
                    "cuanto le debo",
                    "cuanto da",
                    "cuanto queda",
                ],
            );
        // «ah, ¿no hay? entonces maracuyá x1»: a question before, the products
        // after it, is no question about them.
        let raw = &self.input.customer_message;
        // The words of the question, when what follows it is the order.
        let asked_before = raw
            .rfind('?')
            .filter(|&at| {
                let (asked, rest) = raw.split_at(at);
                names_a_product(rest, &self.input.product_catalog)
                    && !names_a_product(asked, &self.input.product_catalog)
            })
            .map(|at| tokens(&prepared(&raw[..at])).len())
            .filter(|&n| n <= words.len());
        let question = (raw.contains('?') || raw.trim_start().starts_with('¿'))
            && !asks_the_total
            && asked_before.is_none();
        // Where the closing words begin after the last product: the last
        // product's clause ends there.
        let closing_at = asks_the_total
            .then(|| {
                let last = found.last().map_or(0, |m| m.end);
                let mut closing = vec![false; words.len()];
                lexicon::cover(words, lexicon::CLOSES, &mut closing);
                (last..words.len()).find(|&k| closing[k])
            })
            .flatten();
        let mut actions: Vec<ProposedAction> = Vec::new();
        // The quantity a product takes when the customer swaps it for another.
        let mut swapped_quantity: Option<i64> = None;
        // Whether the line swapped out had its count said («los dos
        // croissants por un brownie»): «un» after it is then one.
        let mut swapped_counted = false;
        // «que sean 3 limonadas y 2 croissants»: the «que sean» sets every line
        // of the list, until a clause brings a verb of its own.
        let mut setting = false;
        // «matcha dos croissant tres»: when every product is followed by its
        // count and the first has none before it, a count between two products is
        // the earlier one's, not the later one's.
        let counted_after = |m: &Mention| {
            words
                .get(m.end)
                .is_some_and(|w| token_number(w).is_some() && !matches!(*w, "un" | "una"))
        };
        // «capuchinos cuatro, americanos dos y un chai»: a product with no
        // count before it owns the count right after it when what follows
        // keeps that shape to the end of the list — the next product is also
        // counted after, or has its own count before it.
        let products: Vec<usize> = (0..found.len())
            .filter(|&k| found[k].product().is_some())
            .collect();
        let chain = |from: usize| {
            for pair in products[from..].windows(2) {
                let (k, next) = (found[pair[0]].end + 1, &found[pair[1]]);
                if quantity_before(&words[k.min(next.start)..next.start]).is_some() {
                    return true;
                }
                if !counted_after(next) {
                    return false;
                }
            }
            true
        };
        // «capuchinos 4, brownie», «brownies 2 capuchino»: a count closed by
        // a comma, or a plural's count before a singular, is the one before's.
        let closed_by_comma = |count_word: &str| {
            self.input.customer_message.split_whitespace().any(|chunk| {
                chunk.ends_with(',') && normalize(chunk.trim_end_matches(',')) == count_word
            })
        };
        let plural = |m: &Mention| words.get(m.end - 1).is_some_and(|w| w.ends_with('s'));
        let its_own = |p: usize| {
            let (k, Some(&next)) = (products[p], products.get(p + 1)) else {
                return false;
            };
            closed_by_comma(words[found[k].end]) || plural(&found[k]) && !plural(&found[next])
        };
        let mut owns_after = vec![false; found.len()];
        let mut start = 0;
        for (p, &k) in products.iter().enumerate() {
            owns_after[k] = products.len() > 1
                && quantity_before(&words[start.min(found[k].start)..found[k].start]).is_none()
                && counted_after(&found[k])
                && (chain(p) || its_own(p));
            start = found[k].end + usize::from(owns_after[k]);
        }
        for (i, mention) in found.iter().enumerate() {
            let Some(id) = mention.product() else {
                continue;
            };
            let mut clause_start = if i == 0 {
                // «ah no tienen salteñas, entonces cuatro croissants»: the
                // story or question before «entonces» is not this clause.
                let told = preamble_end(words, mention.start, self.input).unwrap_or(0);
                asked_before.unwrap_or(0).max(told).min(mention.start)
            } else {
                found[i - 1].end
            };
            if i > 0 && owns_after[i - 1] {
                clause_start = (clause_start + 1).min(mention.start);
            }
            let clause_end = found
                .get(i + 1)
                .map_or(closing_at.unwrap_or(words.len()), |m| m.start);
            let before = &words[clause_start..mention.start];
            let mut after = &words[mention.end..clause_end];
            let mut cut_short = false;
            let next = found.get(i + 1).and_then(|m| m.product());
            // "Agrega un americano y quita los brownies": what follows «y»
            // belongs to the next product.
            if next.is_some()
                && let Some(cut) = after.iter().position(|w| {
                    matches!(
                        *w,
                        "y" | "pero" | "tambien" | "ademas" | "luego" | "entonces"
                    )
                })
            {
                after = &after[..cut];
                cut_short = true;
            }
            // «2 matchas, 1 brownie»: a count right before the next product
            // that this one does not own is the next one's («matcha 2
            // brownies 3 croissants» counts each «2» once).
            if !owns_after[i]
                && !cut_short
                && next.is_some()
                && let [last] = after
                && count(last).is_some()
            {
                after = &[];
                cut_short = true;
            }
            let clause_end = mention.end + after.len();
            let clause = words[clause_start..clause_end].join(" ");
            let mut covered = vec![false; clause_end - clause_start];
            // «y lo mismo (pero) de chocolate»: the quantity of the line before.
            let same = any(&before.join(" "), &["lo mismo", "igual"]);
            if same {
                lexicon::cover(
                    &clause.split(' ').collect::<Vec<_>>(),
                    &["lo mismo", "igual", "pero"],
                    &mut covered,
                );
            }
            let in_cart = self.cart_quantity(id);
            // "ok no brownie then", "el brownie no": not this one.
            if refuses(before) && !before.iter().any(|w| lexicon::adds(w)) {
                self.mark_clause(clause_start, &mark_phrase(&clause, &["no", "ya no"]));
                // «sacá las maracuyás, no los croissants»: right after a
                // removal, «no los X» spares X.
                let spares = actions
                    .last()
                    .is_some_and(|a| a.action_type == "REMOVE_ITEM")
                    && before
                        .iter()
                        .all(|w| matches!(*w, "no" | "el" | "la" | "los" | "las" | "pero" | "y"));
                if in_cart > 0 && !spares {
                    actions.push(ProposedAction::new("REMOVE_ITEM").product(id));
                }
                continue;
            }
            let cover_words = |covered: &mut Vec<bool>, phrases: &[&str]| {
                lexicon::cover(&clause.split(' ').collect::<Vec<_>>(), phrases, covered);
            };
            // "Cambia el americano por un chai", "en vez del croissant mejor un
            // brownie", "los matchas cámbialos por capuchinos": one out, the
            // other in, with the same quantity unless one is said.
            if in_cart > 0 && next.is_some() && swaps(before, after) {
                cover_words(&mut covered, SWAP_WORDS);
                // «cambia un americano por un capuchino» with two americanos,
                // «cambie uno de los tés chai por…»: that many out, not the line.
                let part = quantity_before(before).or_else(|| {
                    before
                        .iter()
                        .rev()
                        .find(|w| !matches!(**w, "de" | "del" | "el" | "la" | "los" | "las"))
                        .filter(|w| matches!(**w, "un" | "una" | "uno"))
                        .map(|_| 1)
                });
                // «de los capuchinos cambia uno por un americano»: the part
                // said after the line it is taken from.
                let partitive = matches!(
                    before,
                    [
                        ..,
                        "de",
                        "los" | "las" | "esos" | "esas" | "estos" | "estas"
                    ] | [.., "del"]
                );
                let part = part.or_else(|| {
                    let upto = after
                        .iter()
                        .position(|w| matches!(*w, "por" | "x" | "en"))
                        .unwrap_or(after.len());
                    after[..upto]
                        .iter()
                        .find_map(|w| match *w {
                            "uno" | "una" => Some(1),
                            w => count(w),
                        })
                        .filter(|_| partitive)
                });
                cover_words(&mut covered, &["un", "una", "uno", "de", "los", "las"]);
                self.mark_clause(clause_start, &covered);
                swapped_counted = quantity_before(before).is_some_and(|n| n > 1);
                match part {
                    Some(n) if n < in_cart => {
                        actions.push(decrease(id, in_cart, n));
                        swapped_quantity = Some(n);
                    }
                    _ => {
                        actions.push(ProposedAction::new("REMOVE_ITEM").product(id));
                        swapped_quantity = Some(in_cart);
                    }
                }
                continue;
            }
            // "Un capuchino… no, mejor que sea chai": the first is taken back.
            // «tres medialunas digo croissants»: the same product named again
            // is a better name, not a change of mind.
            let renamed = mentions::find(after, &self.input.product_catalog)
                .iter()
                .any(|m| m.candidates == [id]);
            if in_cart == 0 && next.is_some() && takes_back(after) && !renamed {
                cover_words(&mut covered, CORRECTION_WORDS);
                self.mark_clause(clause_start, &covered);
                continue;
            }
            // Cut at «y», the words after this product are all its own.
            let followed = next.is_some() && !cut_short;
            // «un matcha menos y una limonada más»: «más» and «menos» move a
            // line by what is said; no «que sean» carries over them.
            let own_verb = any(&clause, lexicon::ADD)
                || clause.split(' ').any(|w| {
                    lexicon::adds(w) || lexicon::removes(w) || matches!(w, "mas" | "menos")
                });
            let carried = setting && !own_verb;
            // («bájale a 1 maracuyá y 2 brownies», «mejor 1 maracuyá y 2
            // brownies»: each line to its own count.)
            setting = carried
                || any(&clause, ONLY)
                || any(&clause, lexicon::RESTATING)
                || (in_cart > 0
                    && !own_verb
                    && any(&clause, lexicon::SET)
                    && clause.split(' ').any(|w| count(w).is_some()));
            let ordering = words
                .iter()
                .any(|w| lexicon::adds(w) || matches!(*w, "mas" | "otro" | "otra"))
                || any(self.text, lexicon::ADD);
            let action = clause_action(
                &clause,
                (before, after),
                (id, in_cart),
                (question, followed, carried, ordering),
                &mut covered,
            );
            self.mark_clause(clause_start, &covered);
            let Some(mut action) = action else {
                continue;
            };
            // «quita los brownies y también uno de los capuchinos»: a clause
            // with no verb of its own after a removal takes one out too.
            let removing_before = actions.last().is_some_and(|a| {
                a.action_type == "REMOVE_ITEM"
                    || (a.action_type == "UPDATE_QUANTITY"
                        && a.params
                            .product_id
                            .as_ref()
                            .and_then(|v| v.as_i64())
                            .is_some_and(|p| a.quantity_given() < Some(self.cart_quantity(p))))
            });
            // «dos americanos y un croissant, sin brownie esta vez» with no
            // brownie in the cart: said to shape the order, nothing to take out.
            let only_sin = clause.split(' ').any(|w| w == "sin")
                && !clause
                    .split(' ')
                    .any(|w| w != "sin" && (lexicon::removes(w) || lexicon::REMOVE.contains(&w)));
            if action.action_type == "REMOVE_ITEM"
                && in_cart == 0
                && only_sin
                && actions
                    .last()
                    .is_some_and(|a| a.action_type == "ADD_TO_CART")
            {
                continue;
            }
            // («también» alone is no verb of adding here.)
            let verb_of_its_own = clause
                .split(' ')
                .any(|w| lexicon::adds(w) || lexicon::removes(w) || swap_verb(w) || w == "mas");
            // (Not what a swap brings in: «cambia el brownie por otro
            // cheesecake».)
            let brought_in = before.iter().any(|w| matches!(*w, "por" | "x" | "mejor"))
                || swap_joiner(words).is_some_and(|by| by < mention.start);
            if removing_before
                && !brought_in
                && !verb_of_its_own
                && in_cart > 0
                && action.action_type == "ADD_TO_CART"
                && !any(&clause, lexicon::SET)
            {
                action = match quantity_before(before).or_else(|| quantity_after(after)) {
                    Some(n) => decrease(id, in_cart, n),
                    None if before.iter().any(|w| matches!(*w, "uno" | "una")) => {
                        decrease(id, in_cart, 1)
                    }
                    None => ProposedAction::new("REMOVE_ITEM").product(id),
                };
            }
            // «los dos capuchinos, cámbialos por dos chais» with a chai already
            // in the cart: what comes in is added to its line, not set.
            if swapped_quantity.is_some()
                && action.action_type == "UPDATE_QUANTITY"
                && let Some(q) = action.params.quantity.as_ref().and_then(|q| q.as_i64())
            {
                swapped_quantity = None;
                action = ProposedAction::new("ADD_TO_CART").product(id).quantity(q);
            }
            if action.action_type == "ADD_TO_CART" {
                let said = quantity_before(before).or_else(|| quantity_after(after));
                // "uff qué caro el cheesecake, en otro lado está a 20": a bare
                // name among words the rules cannot read is not an order.
                // A list shares the verb said before it.
                let said_before = words[..clause_end].join(" ");
                let verb =
                    said_before.split(' ').any(lexicon::adds) || any(&said_before, lexicon::ADD);
                // «dos croissants, no perdón, un solo croissant»: the earlier
                // naming, taken back, is read with it.
                let named_before = (clause_start..mention.start).any(|k| {
                    mentions::find(&words[k..=k], &self.input.product_catalog)
                        .iter()
                        .any(|m| m.candidates == [id])
                });
                if named_before {
                    for k in clause_start..mention.start {
                        let w = words[k];
                        if count(w).is_some()
                            || CORRECTION_WORDS.contains(&w)
                            || ONLY.contains(&w)
                            || mentions::find(&words[k..=k], &self.input.product_catalog)
                                .iter()
                                .any(|m| m.candidates == [id])
                        {
                            self.covered[k] = true;
                        }
                    }
                }
                let unread = (clause_start..clause_end)
                    .filter(|k| !self.covered[*k])
                    .filter(|k| {
                        !lexicon::FILLER.contains(&words[*k]) && !SMALL.contains(&words[*k])
                    })
                    .count();
                if !verb && !same && said.is_none() && unread >= 2 {
                    return vec![ProposedAction::new("CLARIFY")];
                }
                // "2 matchas y lo mismo de brownie", "y lo mismo de croissant":
                // the quantity of the line just ordered («igual quiero 3
                // brownies»: a count of its own is no copy).
                let copied = if same && said.is_none() {
                    actions
                        .iter()
                        .rev()
                        .find(|a| a.action_type == "ADD_TO_CART")
                        .and_then(|a| a.params.quantity.as_ref()?.as_i64())
                        // «otra ronda igual de brownies»: as many as its own line.
                        .or_else(|| (in_cart > 0).then_some(in_cart))
                        .or_else(|| self.input.cart.lines.last().map(|l| l.quantity))
                } else {
                    None
                };
                // «Cambia los capuchinos por un chai»: «un» is an article there.
                let article = before
                    .iter()
                    .rev()
                    .find(|w| !matches!(**w, "de" | "del" | "el" | "la" | "los" | "las"))
                    .is_some_and(|w| matches!(*w, "un" | "una" | "uno"));
                let swapped = swapped_quantity.take().filter(|_| {
                    said.is_none()
                        || (article && quantity_after(after).is_none() && !swapped_counted)
                });
                let quantity = copied.or(swapped);
                // «4 americanos y brownies»: a product asked for in the plural
                // with no count of its own, not in the cart — how many is
                // asked, the rest of the list still acts.
                let counted = said.is_some()
                    || corrected_quantity(after, 0).is_some()
                    || verb_quantity(after, followed).is_some();
                let name = name_of(self.input, id).map(normalize).unwrap_or_default();
                let word = words[mention.end - 1];
                let plural =
                    word.ends_with('s') && mentions::singular(word) != word && !name.ends_with('s');
                let bare = before.last().is_none_or(|w| {
                    !matches!(
                        *w,
                        "un" | "una"
                            | "el"
                            | "la"
                            | "los"
                            | "las"
                            | "unos"
                            | "unas"
                            | "mis"
                            | "esos"
                            | "esas"
                            | "del"
                            | "de"
                            | "otro"
                            | "otra"
                            | "otros"
                            | "otras"
                    )
                });
                if !counted
                    && quantity.is_none()
                    && plural
                    && bare
                    && in_cart == 0
                    && !same
                    && !found
                        .iter()
                        .any(|m| m.start != mention.start && m.candidates == [id])
                {
                    let mut asking = ProposedAction::new("CLARIFY");
                    asking.params.candidates = Some(vec![serde_json::Value::from(id)]);
                    actions.push(asking);
                    continue;
                }
                if let Some(q) = quantity {
                    if same {
                        self.mark_clause(
                            clause_start,
                            &mark_phrase(&clause, &["lo mismo", "igual"]),
                        );
                    }
                    action = ProposedAction::new("ADD_TO_CART").product(id).quantity(q);
                }
            }
            // «¿cuánto vale el brownie y el capuchino?», «tienen limonada y
            // maracuyá»: a product joined to one just asked about, with no
            // count or verb of its own, is asked about too.
            let joined = before.iter().all(|w| {
                matches!(
                    *w,
                    "y" | "e" | "o" | "el" | "la" | "los" | "las" | "tambien"
                )
            });
            if action.action_type == "ADD_TO_CART"
                && !own_verb
                && joined
                && quantity_before(before).is_none()
                && quantity_after(after).is_none()
                && actions
                    .last()
                    .is_some_and(|a: &ProposedAction| a.action_type == "SHOW_PRODUCT")
            {
                action = ProposedAction::new("SHOW_PRODUCT").product(id);
            }
            actions.push(action);
        }
        // «dos cafés americanos no perdón tres americanos»: a product named
        // again in its own correction is one line, not two.
        if self.words.iter().any(|w| CORRECTION_WORDS.contains(w)) {
            actions.dedup_by(|later, earlier| {
                later.action_type == "ADD_TO_CART"
                    && earlier.action_type == "ADD_TO_CART"
                    && later.params.product_id == earlier.params.product_id
                    && later.params.quantity == earlier.params.quantity
            });
        }
        // «dos que sean chai y los otros dos que sean matcha»: the rest of a
        // line that no action set is not said; asked, never guessed.
        let rest_of_a_line = any(self.text, &["los otros", "las otras"]);
        if rest_of_a_line
            && !actions
                .iter()
                .any(|a| matches!(a.action_type.as_str(), "UPDATE_QUANTITY" | "REMOVE_ITEM"))
        {
            return vec![ProposedAction::new("CLARIFY")];
        }
        actions
    }

    /// Marks the words `covered` (of the clause starting at `start`) as read.
    fn mark_clause(&mut self, start: usize, covered: &[bool]) {
        for (k, c) in covered.iter().enumerate() {
            if *c {
                self.covered[start + k] = true;
            }
        }
    }

    /// «Algo frío», «una bebida sin cafeína», «¿qué postres tienen?»: the
    /// products whose tags fit every kind asked, as numbered choices (one fits:
    /// that product; none: nothing here). Products named after «que no sea» are
    /// left out.
    fn by_kind(&mut self) -> Option<Proposal> {
        let kinds: Vec<&str> = lexicon::KINDS
            .iter()
            .filter(|(said, _)| crate::text::contains_phrase(self.text, said))
            .map(|(_, tag)| *tag)
            .collect();
        if kinds.is_empty() {
            return None;
        }
        // «los calientes sácalos», «el dulce que sean 2»: lines of the cart
        // pointed at by their kind, not a request for something of it.
        if self.changes_a_line() && !matches!(self.line_described(), Described::Nothing) {
            return None;
        }
        let found = mentions::find(self.words, &self.input.product_catalog);
        // A kind word inside a product's own name («chocolate caliente») names
        // that product; a vague request says «algo», «alguna», «qué … tienen».
        let vague = self.words.iter().any(|w| {
            matches!(
                *w,
                "algo" | "alguna" | "algun" | "alguno" | "opciones" | "que" | "cual" | "cuales"
            ) || w.starts_with("recomien")
                || w.starts_with("recomend")
                || w.starts_with("sugier")
        });
        if !vague {
            return None;
        }
        let excluded: Vec<ProductId> = match self.words.windows(2).position(|w| {
            matches!(
                w,
                ["no", "sea"] | ["que", "no"] | ["excepto", _] | ["menos", _]
            )
        }) {
            Some(at) => found
                .iter()
                .filter(|m| m.start > at)
                .flat_map(|m| m.candidates.clone())
                .collect(),
            None => Vec::new(),
        };
        if found.iter().any(|m| {
            !m.candidates.iter().all(|id| excluded.contains(id))
                && !self.words[m.start..m.end]
                    .iter()
                    .all(|w| lexicon::KINDS.iter().any(|(said, _)| said == w))
        }) {
            return None;
        }
        let fits = |entry: &super::contract::CatalogEntry| {
            kinds.iter().all(|kind| lexicon::is_of_kind(entry, kind))
        };
        // «caliente y sin cafeína» where no product is tagged both: a product
        // the shop does not say has it («con cafeína») may still be what is
        // asked; it is offered as an option, never said to be without.
        let may_fit = |entry: &super::contract::CatalogEntry| {
            kinds.iter().all(|kind| {
                lexicon::is_of_kind(entry, kind)
                    || kind.strip_prefix("sin ").is_some_and(|what| {
                        !lexicon::is_of_kind(entry, &format!("con {what}"))
                            && !lexicon::declares(entry, what)
                            && lexicon::is_of_kind(entry, "bebida")
                    })
                    // «con cafeína» in a shop that tags no drink so: a
                    // drink not said to be without it.
                    || kind.strip_prefix("con ").is_some_and(|what| {
                        !lexicon::is_of_kind(entry, &format!("sin {what}"))
                            && lexicon::is_of_kind(entry, "bebida")
                    })
            })
        };
        let choose = |test: &dyn Fn(&super::contract::CatalogEntry) -> bool| -> Vec<ProductId> {
            self.input
                .product_catalog
                .iter()
                .filter(|p| test(p) && !excluded.contains(&p.product_id))
                .map(|p| p.product_id)
                .collect()
        };
        let mut fitting = choose(&fits);
        let mut nearly = false;
        if fitting.is_empty() {
            fitting = choose(&may_fit);
            nearly = true;
        }
        self.covered.iter_mut().for_each(|c| *c = true);
        match fitting.as_slice() {
            // None fits, or more than a list of choices holds: the catalog.
            [] => None,
            many if many.len() > 5 => None,
            [one_product] if !nearly => Some(one(
                ProposedAction::new("SHOW_PRODUCT").product(*one_product)
            )),
            // Said as it is: not marked against what was asked, not marked
            // with it either.
            [one_product] => {
                let entry = self
                    .input
                    .product_catalog
                    .iter()
                    .find(|p| p.product_id == *one_product)?;
                let mut action = ProposedAction::new("CLARIFY");
                action.params.candidates = Some(vec![serde_json::Value::from(*one_product)]);
                let text = format!(
                    "Ninguno está marcado como {}. {} no está marcado en contra ({}). ¿Cuántos quieres?",
                    kinds.join(" y "),
                    entry.name,
                    entry.description.trim_end_matches('.')
                );
                Some(Proposal::new(vec![action], text))
            }
            many => {
                let mut action = ProposedAction::new("CLARIFY");
                action.params.candidates =
                    Some(many.iter().map(|id| serde_json::Value::from(*id)).collect());
                let text = if nearly {
                    messages::NEARLY_FIT
                } else {
                    messages::THESE_FIT
                };
                Some(Proposal::new(vec![action], text))
            }
        }
    }

    /// «cámbialo por un chocolate caliente»: the swap's first product is a
    /// pronoun — the product just talked about, if it is in the cart, or the
    /// cart's only line; with several lines and none talked about, which one is
    /// asked.
    fn pronoun_swap(&mut self, found: &[mentions::Mention]) -> Option<Proposal> {
        let at = self
            .words
            .iter()
            .position(|w| lexicon::with_pronoun(w, swap_verb))?;
        let by = self.words[at + 1..]
            .iter()
            .position(|w| matches!(*w, "por" | "x"))
            .map(|p| at + 1 + p)?;
        // Only what comes after the «por»: a product named before it is the
        // swap's own (read by the usual swap).
        if found.iter().any(|m| m.start < by) {
            return None;
        }
        let [new] = found else {
            return None;
        };
        let new_id = new.product()?;
        let lines = &self.input.cart.lines;
        let target = match self.input.focus {
            Some(focus) if lines.iter().any(|l| l.product_id == focus) => focus,
            _ => match lines.as_slice() {
                [only] => only.product_id,
                [] => return None,
                _ => {
                    let names: Vec<String> = lines
                        .iter()
                        .filter_map(|l| name_of(self.input, l.product_id).map(str::to_owned))
                        .collect();
                    self.covered.iter_mut().for_each(|c| *c = true);
                    return Some(clarify(&messages::which_to_change(&names)));
                }
            },
        };
        if target == new_id {
            return None;
        }
        let had = self.cart_quantity(target);
        let said = self.words[by + 1..new.start].iter().find_map(|w| count(w));
        self.covered[at] = true;
        self.covered[by] = true;
        for k in new.start..new.end {
            self.covered[k] = true;
        }
        for k in by + 1..new.start {
            if token_number(self.words[k]).is_some() {
                self.covered[k] = true;
            }
        }
        Some(Proposal::new(
            vec![
                ProposedAction::new("REMOVE_ITEM").product(target),
                ProposedAction::new("ADD_TO_CART")
                    .product(new_id)
                    .quantity(said.unwrap_or(had)),
            ],
            "",
        ))
    }

    /// The answer to «¿De cuál producto quito uno?»: one less of the line named.
    fn take_out_of_asked(&mut self) -> Option<Proposal> {
        // Asked which, or the customer's last message took one out without
        // saying of what («quita uno» … «uno de los croissants»).
        let unnamed_removal = said_just_before(self.input, |text| {
            let words = tokens(text);
            // «quita uno», not «el último sácalo» (a line, already taken out).
            (lexicon::any(text, lexicon::REMOVE) || words.iter().any(|w| lexicon::removes(w)))
                && words.iter().any(|w| token_number(w).is_some())
                && mentions::find(&words, &self.input.product_catalog).is_empty()
        }) && !any(self.text, &["que sean", "que sea", "mejor", "en total"]);
        let own_verb = self
            .words
            .iter()
            .any(|w| lexicon::adds(w) || lexicon::removes(w))
            || any(self.text, lexicon::ADD);
        if !(asked_which_to_take_out(self.input) || unnamed_removal && !own_verb) {
            return None;
        }
        let found = mentions::find(self.words, &self.input.product_catalog);
        let [mention] = found.as_slice() else {
            return None;
        };
        let id = mention.product()?;
        let in_cart = self.cart_quantity(id);
        if in_cart == 0 {
            return None;
        }
        let n = self.words.iter().find_map(|w| count(w)).unwrap_or(1);
        self.covered.iter_mut().for_each(|c| *c = true);
        // «un brownie, que sean 2»: the line to that many, not that many out.
        if any(
            self.text,
            &[
                "que sean",
                "que sea",
                "dejalo en",
                "dejalos en",
                "dejalas en",
            ],
        ) {
            return Some(one(ProposedAction::new("UPDATE_QUANTITY")
                .product(id)
                .quantity(n)));
        }
        Some(one(decrease(id, in_cart, n)))
    }

    /// No product named, a quantity, just after asking about a product: "ok dame
    /// 2", "quiero 1", "2 porfa" are that product.
    fn of_focus(&mut self) -> Option<Proposal> {
        let focus = self.input.focus?;
        // «Buenísimo, así nomás, cuánto es»: the total, not the product's price.
        if any(self.text, lexicon::DONE) && !self.input.cart.lines.is_empty() {
            return None;
        }
        if self.is_question() && self.has(lexicon::QUESTION) {
            // "¿Y de qué es?", "¿cuánto cuesta?": still about it.
            self.covered.iter_mut().for_each(|c| *c = true);
            return Some(one(ProposedAction::new("SHOW_PRODUCT").product(focus)));
        }
        // «dame ese», «uno de esos también»: the product just shown.
        let pointer = |w: &str| matches!(w, "ese" | "esa" | "esos" | "esas");
        let pointed = self.words.iter().position(|w| pointer(w));
        let (at, n) = match self
            .words
            .iter()
            .enumerate()
            .find_map(|(k, w)| token_number(w).map(|n| (k, n)))
        {
            Some(found) => found,
            None => (pointed?, 1),
        };
        if pointed.is_some()
            && !self
                .words
                .iter()
                .any(|w| lexicon::adds(w) || lexicon::ADD.contains(w) || token_number(w).is_some())
        {
            return None;
        }
        // «dale, súmame uno y ciérrame el pedido»: the item, then the summary.
        let mut closing = vec![false; self.words.len()];
        lexicon::cover(self.words, lexicon::CLOSES, &mut closing);
        let closes = closing.iter().any(|c| *c);
        // «poneme uno pa mi viejo»: who it is for, after the count, is no request.
        let for_whom = self
            .words
            .iter()
            .enumerate()
            .skip(at + 1)
            .find(|(_, w)| matches!(**w, "para" | "pa" | "pal"))
            .map(|(k, _)| k)
            .filter(|&k| {
                self.words[k..].iter().all(|w| {
                    token_number(w).is_none() && !names_a_product(w, &self.input.product_catalog)
                })
            });
        let rest_known = self.words.iter().enumerate().all(|(k, w)| {
            k == at
                || closing[k]
                || for_whom.is_some_and(|from| k >= from)
                || pointed.is_some() && (pointer(w) || matches!(*w, "de" | "ya" | "tambien"))
                || lexicon::FILLER.contains(w)
                || lexicon::ADD.contains(w)
                || lexicon::adds(w)
                || matches!(
                    *w,
                    "entonces"
                        | "ok"
                        | "va"
                        | "dale"
                        | "bueno"
                        | "listo"
                        | "ta"
                        | "bien"
                        | "sale"
                        | "pues"
                        | "perfecto"
                        | "ah"
                        | "ahh"
                        | "oh"
                        | "orale"
                        | "vale"
                        | "si"
                        | "perdon"
                        | "disculpa"
                        | "disculpe"
                        | "cierto"
                        | "claro"
                )
        });
        if !rest_known || self.is_question() {
            return None;
        }
        self.covered.iter_mut().for_each(|c| *c = true);
        let mut actions = vec![
            ProposedAction::new("ADD_TO_CART")
                .product(focus)
                .quantity(n),
        ];
        if closes {
            actions.push(ProposedAction::new("REVIEW_ORDER"));
        }
        Some(Proposal::new(actions, ""))
    }

    /// No product named: "otro", "uno más", "uno menos", "la mitad", "quítalo" are
    /// about the last line of the cart.
    fn follow_up(&mut self) -> Option<Proposal> {
        // «solo tengo un billete de 200»: the note the customer pays with is
        // counted, no line.
        let a_note = self.words.windows(2).any(|w| {
            matches!(w[0], "un" | "una")
                && matches!(w[1], "billete" | "billetito" | "cheque" | "cupon" | "vale")
        });
        if a_note
            && !self
                .words
                .iter()
                .any(|w| count(w).is_some() && !matches!(*w, "un" | "una"))
        {
            return None;
        }
        // «el dulce quítalo», «el de canela», «el té que sean 3»: a line said
        // by what it is, not the last one.
        // (Only when the line is changed: «solo las bebidas, es todo» closes.)
        let changing = self.changes_a_line() || self.words.iter().any(|w| count(w).is_some());
        let described = if changing {
            self.line_described()
        } else {
            Described::Nothing
        };
        let id = match described {
            Described::Nothing => self.last_line()?,
            Described::One(id) => id,
            Described::Several(ids) => {
                let removes = self.has(lexicon::REMOVE)
                    || self
                        .words
                        .iter()
                        .any(|w| lexicon::with_pronoun(w, lexicon::removes) || lexicon::removes(w));
                let plural = self.words.iter().any(|w| matches!(*w, "los" | "las"));
                if removes && plural && !self.words.iter().any(|w| count(w).is_some()) {
                    self.covered.iter_mut().for_each(|c| *c = true);
                    let actions = ids
                        .into_iter()
                        .take(5)
                        .map(|id| ProposedAction::new("REMOVE_ITEM").product(id))
                        .collect();
                    return Some(Proposal::new(actions, ""));
                }
                return Some(clarify(messages::WHICH_LINE));
            }
            Described::NoLine => return Some(clarify(messages::WHICH_LINE)),
        };
        // The last change set several lines: «otro» could be any of them.
        let changed: Vec<ProductId> = self
            .input
            .last_changed
            .iter()
            .copied()
            .filter(|p| self.cart_quantity(*p) > 0)
            .collect();
        // «uno más de cada uno», naming nothing: one more (or the count said)
        // of every line.
        // «¿cuánto cuesta cada uno?» asks a price and «cada uno paga lo suyo»
        // tells who pays: only «más», a count or an order verb adds.
        let adds_each = self.words.iter().any(|w| {
            *w == "mas" || lexicon::adds(w) || count(w).is_some() || matches!(*w, "otro" | "otra")
        }) || self.has(lexicon::ADD);
        let negated = self
            .words
            .iter()
            .any(|w| matches!(*w, "no" | "menos" | "excepto" | "salvo"));
        if self.has(&["de cada uno", "de cada una", "cada uno", "cada una"])
            && adds_each
            && !negated
            && !self.is_question()
            && !self.has(lexicon::REMOVE)
            && self.input.cart.lines.len() > 1
        {
            // «somos seis personas, así que uno más de cada uno»: the count said
            // with «más» or «de cada», not the story's.
            let n = self
                .words
                .windows(2)
                .find(|w| matches!(w[1], "mas" | "de"))
                .and_then(|w| count(w[0]))
                .unwrap_or(1);
            // «dos de cada uno mejor», «que sean dos de cada uno»: every line
            // set to that many, not more of each.
            let sets = (self.has(&["mejor", "que sean", "que sea", "solo", "nomas"])
                || self.words.first() == Some(&"mejor"))
                && !self
                    .words
                    .iter()
                    .any(|w| matches!(*w, "mas" | "otro" | "otra") || lexicon::adds(w));
            let kind = if sets {
                "UPDATE_QUANTITY"
            } else {
                "ADD_TO_CART"
            };
            return Some(self.every_line(kind, |_| n));
        }
        // «duplica todo», «el doble de todo»: every line twice as many.
        let doubles = self.words.iter().any(|w| w.starts_with("duplic"))
            || self.has(&["el doble", "doble de todo"]);
        // «duplica todo menos el brownie», «el pedido de ayer era el doble»:
        // not every line, or not now.
        let told = self
            .words
            .iter()
            .any(|w| matches!(*w, "era" | "eran" | "ayer" | "fue" | "fueron"));
        if doubles
            && self.has(&["todo", "todos", "pedido", "todo el pedido"])
            && !negated
            && !told
            && !self.is_question()
            && !self.input.cart.lines.is_empty()
            && self.input.cart.lines.len() <= crate::proposal::MAX_ACTIONS
        {
            return Some(self.every_line("UPDATE_QUANTITY", |q| q * 2));
        }
        // «Para mi esposa lo mismo», «repite el pedido», no number said: the
        // lines the last change set, again, as many of each.
        // «para mi esposa lo mismo», «lo mismo para él»: the order again for
        // someone; «me da lo mismo» is indifference and «repíteme el pedido»
        // asks to hear it.
        // («lo mismo para mis dos compañeras»: the count is of the people it
        // is for, each to have the same.)
        let persons = self.words.windows(2).enumerate().find_map(|(k, w)| {
            let n = match w {
                [
                    "para" | "pa",
                    "mis" | "los" | "sus" | "nuestros" | "nuestras",
                ] => self.words.get(k + 2).copied()?,
                ["para" | "pa", n] => n,
                _ => return None,
            };
            token_number(n).filter(|n| *n > 1)
        });
        let counted_any = persons.is_none() && self.words.iter().any(|w| token_number(w).is_some());
        // «(para mi mamá) lo mismo que mi hermana», «igual que el Jorge»: the
        // lines of someone named, which the cart does not keep apart; never
        // the last line again. («igual que el anterior», «lo mismo que
        // recién», «lo mismo que pedí» name what was ordered, not someone.)
        let like_someone = shapes::same_as_at(self.words)
            .is_some_and(|(_, person, _)| shapes::names_someone(person));
        // («lo mismo que yo, capuchino y brownie» says what it is.)
        let names_them = !mentions::find(self.words, &self.input.product_catalog).is_empty();
        if like_someone && !counted_any && !names_them {
            return Some(clarify(messages::SAME_AS_WHOM));
        }
        let for_someone = self
            .words
            .windows(3)
            .any(|w| matches!(w, ["para" | "pa", _, "lo"] | ["lo", "mismo", "para" | "pa"]))
            || self
                .words
                .windows(4)
                .any(|w| matches!(w, ["para" | "pa", _, _, "lo"]));
        if !counted_any
            && !self.has(lexicon::REMOVE)
            && !self.has(lexicon::INDIFFERENT)
            && (for_someone
                || self.text == "lo mismo"
                || self.text == "y lo mismo"
                // «otra vez lo mismo que pedí recién»: the order again.
                || self.has(&["otra vez", "de nuevo", "que pedi", "que pedimos"]))
            && self.has(&["lo mismo"])
        {
            // «y lo mismo para mi hermano» when the cart holds more than the
            // last change: the whole order or its last part? Asked.
            let more_than_the_last = self
                .input
                .cart
                .lines
                .iter()
                .any(|l| !changed.contains(&l.product_id));
            // (Counted people and a line of more than one: one round for
            // several already, each one's share unknown — asked.)
            let shared = persons.is_some() && changed.iter().any(|p| self.cart_quantity(*p) > 1);
            if (for_someone || persons.is_some())
                && !changed.is_empty()
                && (more_than_the_last || shared)
            {
                return Some(clarify(messages::SAME_AS_WHOM));
            }
            let again: Vec<ProductId> = if changed.is_empty() {
                vec![id]
            } else {
                changed.clone()
            };
            let actions = again
                .iter()
                .map(|p| {
                    ProposedAction::new("ADD_TO_CART")
                        .product(*p)
                        .quantity(self.cart_quantity(*p) * persons.unwrap_or(1))
                })
                .collect();
            return Some(Proposal::new(actions, ""));
        }
        // «un capuchino y un chocolate» → «otro capuchino» → «y el otro, el
        // chocolate, que sea con…» → «otro más»: the last line changed or
        // the one just talked about? Asked.
        let talked_about: Vec<ProductId> = shapes::earlier_turns(self.input)
            .find(|h| h.role == "customer")
            .map(|h| products_in(&h.text, &self.input.product_catalog))
            .unwrap_or_default()
            .into_iter()
            .filter(|p| !changed.contains(p) && self.cart_quantity(*p) > 0)
            .collect();
        let either: Vec<ProductId> = changed.iter().chain(&talked_about).copied().collect();
        if (changed.len() > 1 || !changed.is_empty() && !talked_about.is_empty())
            && self.has(&[
                "otro",
                "otra",
                "uno mas",
                "una mas",
                "uno menos",
                "una menos",
            ])
        {
            let mut action = ProposedAction::new("CLARIFY");
            action.params.candidates = Some(
                either
                    .iter()
                    .map(|id| serde_json::Value::from(*id))
                    .collect(),
            );
            return Some(Proposal::new(vec![action], messages::WHICH_ONE));
        }
        let id = match changed.as_slice() {
            [only] => *only,
            _ => id,
        };
        // «un suco igual», «otro jugo»: a thing named that no product explains
        // is not the last line.
        let named_otherwise = self.words.windows(2).any(|pair| {
            let (thing, other) = match pair {
                [thing, "igual" | "igualito" | "igualita"] => (*thing, true),
                ["otro" | "otra", thing] => (*thing, true),
                _ => ("", false),
            };
            other
                && thing.chars().count() > 3
                && !lexicon::is_known(thing)
                && !lexicon::adds(thing)
                && !matches!(
                    thing,
                    "otro" | "otra" | "mismo" | "misma" | "igual" | "para" | "mas" | "porfa"
                )
        });
        if named_otherwise {
            return Some(clarify(messages::CLARIFY_DEFAULT));
        }
        let quantity = self.cart_quantity(id);
        let more = [
            "otro",
            "otra",
            "otro igual",
            "otra igual",
            "igualito",
            "igualita",
            "uno mas",
            "una mas",
            "lo mismo",
            "igual",
            "repite",
        ];
        let less = ["uno menos", "una menos"];
        let remove = [
            "quitalo",
            "quitala",
            "sacalo",
            "sacala",
            "borralo",
            "borrala",
            "eliminalo",
            "eliminala",
            "ese no",
            "esa no",
        ];
        if self.has(&less) {
            lexicon::cover(self.words, lexicon::REMOVE, &mut self.covered);
            return Some(one(decrease(id, quantity, 1)));
        }
        if self.has(&["la mitad", "mitad"]) {
            lexicon::cover(self.words, lexicon::SET, &mut self.covered);
            return Some(one(ProposedAction::new("UPDATE_QUANTITY")
                .product(id)
                .quantity((quantity / 2).max(1))));
        }
        // («sí, retiro»: I pick it up, with no product named.)
        let remove_verb = self
            .words
            .iter()
            .position(|w| lexicon::removes(w) && !delivery::picks_up(w));
        if self.has(&remove) || (remove_verb.is_some() && !counted_any && self.words.len() <= 3) {
            if let Some(k) = remove_verb {
                self.covered[k] = true;
            }
            return Some(one(ProposedAction::new("REMOVE_ITEM").product(id)));
        }
        // «los dos que sean 2», «ambos sin…»: both lines, when there are two.
        let both = self.has(&["los dos", "las dos", "ambos", "ambas"]);
        if both && self.has(lexicon::SET) && !self.has(lexicon::REMOVE) {
            // The count set («que sean 3», «a 3», «en 3»), not «los dos» itself.
            let n = self.words.windows(2).find_map(|w| {
                matches!(w[0], "sean" | "sea" | "a" | "en")
                    .then(|| count(w[1]))
                    .flatten()
            });
            self.covered.iter_mut().for_each(|c| *c = true);
            if let (Some(n), 2) = (n, self.input.cart.lines.len()) {
                return Some(self.every_line("UPDATE_QUANTITY", |_| n));
            }
            return Some(clarify(messages::WHICH_LINE));
        }
        // «ya son muchos, deja 2» after a change to several lines: which one
        // is not said.
        if changed.len() > 1
            && self.has(lexicon::SET)
            && self.words.iter().any(|w| count(w).is_some())
        {
            return Some(clarify(messages::WHICH_LINE));
        }
        // "no, mejor 2", "que sean 3": the last line to that many.
        if let Some((_, n)) = self
            .words
            .iter()
            .find_map(|w| token_number(w).map(|n| (*w, n)))
            && self.has(lexicon::SET)
            && !self.has(lexicon::REMOVE)
        {
            self.words
                .iter()
                .enumerate()
                .filter(|(_, w)| token_number(w).is_some() || **w == "no")
                .for_each(|(k, _)| self.covered[k] = true);
            return Some(one(ProposedAction::new("UPDATE_QUANTITY")
                .product(id)
                .quantity(n)));
        }
        // "sácame uno", "quita 2": fewer of the last line.
        let counted = self
            .words
            .iter()
            .find_map(|w| token_number(w).map(|n| (*w, n)));
        let removing = self.has(lexicon::REMOVE) || self.words.iter().any(|w| lexicon::removes(w));
        if let Some((_, n)) = counted
            && removing
        {
            self.words
                .iter()
                .enumerate()
                .filter(|(_, w)| token_number(w).is_some())
                .for_each(|(k, _)| self.covered[k] = true);
            // «Quita uno» with several lines: which one is not said.
            if self.input.cart.lines.len() > 1 {
                return Some(clarify(messages::WHICH_TO_TAKE_OUT));
            }
            return Some(one(decrease(id, quantity, n)));
        }
        let counted_more = self
            .words
            .windows(2)
            .any(|w| token_number(w[0]).is_some() && w[1] == "mas");
        // «me da lo mismo», «igual da»: indifference, not one more; «gracias
        // igual», «igual gracias»: thanks all the same.
        let indifferent = any(self.text, lexicon::INDIFFERENT)
            || (any(self.text, &["gracias igual", "igual gracias"])
                && !self
                    .words
                    .iter()
                    .any(|w| lexicon::adds(w) || count(w).is_some()));
        if !indifferent && (self.has(&more) || counted_more) {
            lexicon::cover(self.words, lexicon::ADD, &mut self.covered);
            let n = self.words.iter().find_map(|w| count(w)).unwrap_or(1);
            self.words
                .iter()
                .enumerate()
                .filter(|(_, w)| token_number(w).is_some())
                .for_each(|(k, _)| self.covered[k] = true);
            return Some(one(ProposedAction::new("ADD_TO_CART")
                .product(id)
                .quantity(n)));
        }
        None
    }
}

/// Whether a word is laughter («jsjsjs», «jajaja», «xd»).
fn is_laughter(word: &str) -> bool {
    word.chars().all(|c| "jashexdk".contains(c))
}
