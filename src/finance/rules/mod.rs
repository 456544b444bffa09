//! The offline finance proposer: everyday Mexican Spanish read by rules ("gasté
//! 250 en el súper", "¿cuánto llevo en comida este mes?", "pon mi presupuesto en
//! 8000", "¿me alcanza para unos tenis de 1800?", "le debo 3000 a Juan, pago
//! mínimo 500 el día 15"). It answers with the same `FinanceProposal` an LLM
//! would, and its proposals face the same matrix. When it is not sure it asks.

mod query;
pub mod remind;
mod words;

use serde_json::json;

use super::contract::{FinanceInput, FinanceProposal, RawFinanceAction};
use crate::finance::core::FinanceState;
use crate::finance::core::amount::{self, Found};
use crate::finance::core::category::{self, Category};
use crate::finance::core::date::{self, Direction};
use crate::finance::core::draft::{Field, Intent};
use crate::finance::core::tools::ToolName;
use crate::finance::messages;
use crate::text::{contains_phrase, normalize};
use words::{Token, any, tokenize};

pub fn propose(input: &FinanceInput) -> FinanceProposal {
    let planned = input
        .draft
        .as_ref()
        .is_some_and(|d| d.intent == Intent::SimulatePurchase);
    let direction = if planned {
        Direction::Future
    } else {
        Direction::Past
    };
    let message = Message::read(&input.customer_message, input.today, direction);
    // «¿y si fuera una de doce mil quinientos?» right after a simulation (or its
    // question for the bank balance): another purchase simulated, not an answer.
    if what_if(&message) && follows_simulation(input) {
        let proposal = simulate(&message, input);
        return FinanceProposal {
            origin: Some(crate::proposal::Origin::Named("rules")),
            ..proposal
        };
    }
    let proposal = match (input.current_state, &input.draft) {
        (FinanceState::Clarifying, Some(draft)) if moved_to(&message, draft).is_some() => {
            let target = moved_to(&message, draft).map(|c| c.key);
            one(action("CORRECT_CATEGORY").with(|p| p.category = target.map(|k| json!(k))))
        }
        (FinanceState::Clarifying, Some(draft))
            if !starts_anew(&message, draft, &input.descriptions) =>
        {
            patch(&message, draft.intent, &draft.questions)
        }
        _ => fresh(&message, input),
    };
    FinanceProposal {
        origin: Some(crate::proposal::Origin::Named("rules")),
        ..proposal
    }
}

/// «ponlo en regalos» at a confirmation prompt (a movement's draft with
/// nothing left to ask): the category it is moved to.
fn moved_to(message: &Message, draft: &crate::finance::core::Draft) -> Option<&'static Category> {
    (draft.questions.is_empty()
        && draft.intent == Intent::LogTransaction
        && puts_elsewhere(message)
        && message.amounts.is_empty())
    .then(|| corrected_category(&message.tokens))
    .flatten()
}

/// «y si fuera…», «¿y si son los de 2500?»: a purchase supposed, with its amount.
fn what_if(message: &Message) -> bool {
    // «¿y unos audífonos de 2,500?»: a thing and its price, not a balance.
    // («¿y cuánto he ganado los últimos 3 meses?» asks the person's data.)
    let priced_thing = message.question()
        && message.norm.starts_with("y ")
        && !message
            .norm
            .split(' ')
            .any(|w| matches!(w, "cuanto" | "cuanta" | "cuantos" | "cuantas" | "promedio"))
        && message
            .tokens
            .iter()
            .any(|t| words::ARTICLES.contains(&t.norm.as_str()));
    !message.amounts.is_empty()
        && !message.has(words::BALANCE)
        && !message.norm.split(' ').any(|w| w == "tengo")
        && (priced_thing
            || message.norm.starts_with("y si ")
            || message.norm.starts_with("si fuera")
            || message.norm.starts_with("y si fuera")
            || message.norm.starts_with("y que tal si")
            || message.norm.starts_with("que tal si"))
}

/// Whether the last thing the bot did was simulate a purchase or ask for the
/// balance one needs.
fn follows_simulation(input: &FinanceInput) -> bool {
    input.draft.as_ref().is_some_and(|d| {
        d.intent == Intent::SimulatePurchase
            || d.resume
                .as_ref()
                .is_some_and(|r| r.intent == Intent::SimulatePurchase)
    }) || input
        .recent_history
        .iter()
        .rev()
        .find(|h| h.role == "bot")
        .is_some_and(|h| normalize(&h.text).contains("alcanza"))
}

/// Whether a folded word names money after its figure («300 varos», «2 lucas»,
/// «50 euros»): the figure is an amount, not a count of things.
pub fn is_money_word(word: &str) -> bool {
    matches!(
        word,
        "pesos"
            | "peso"
            | "pesitos"
            | "mxn"
            | "varos"
            | "baros"
            | "lucas"
            | "dolares"
            | "dolar"
            | "usd"
            | "dls"
            | "euros"
            | "centavos"
            // A traveller's money, said after its figure.
            | "soles"
            | "bolivianos"
            | "quetzales"
    )
}

/// Whether a folded message states a bank balance («tengo 14,300 en el banco»).
pub fn says_a_balance(folded: &str) -> bool {
    any(folded, words::BALANCE)
}

/// Whether `text` asks to erase the person's data («borra mis datos», «quiero que
/// eliminen toda mi información»): an erasing verb, one's data, and no amount.
/// Nothing else, whoever proposes it, may stage an erasure.
pub fn asks_to_erase(text: &str) -> bool {
    let norm = normalize(text);
    any(&norm, words::ERASE) && any(&norm, words::MY_DATA) && amount::amounts_in(&norm).is_empty()
}

/// Whether `text` asks for a copy of the person's data («mándame mis datos»,
/// «quiero descargar mi historial»): a verb of sending or downloading and one's
/// data, no amount, and not an erasure.
pub fn asks_for_my_data(text: &str) -> bool {
    let norm = normalize(text);
    any(&norm, words::SEND_ME)
        && any(&norm, words::MY_DATA)
        && amount::amounts_in(&norm).is_empty()
        && !asks_to_erase(text)
}

/// «solo anota la venta de 320 mil, lo del mercado lo anoto después»: a part
/// the user says they will log later, with no figure of its own, is left out.
fn without_deferred(raw: &str) -> String {
    const LATER: &[&str] = &[
        "lo anoto despues",
        "lo anoto luego",
        "lo anoto mas tarde",
        "lo apunto despues",
        "lo apunto luego",
        "lo registro despues",
        "lo registro luego",
        "eso despues",
        "eso luego",
    ];
    let parts: Vec<&str> = raw.split(',').collect();
    if parts.len() < 2 {
        return raw.to_owned();
    }
    let kept: Vec<&str> = parts
        .iter()
        .enumerate()
        .filter(|(k, part)| {
            *k == 0
                || part.chars().any(|c| c.is_ascii_digit())
                || !LATER.iter().any(|p| any(&normalize(part), &[p]))
        })
        .map(|(_, part)| *part)
        .collect();
    kept.join(",")
}

/// A message read once: its text, normalized form, tokens, and the date phrase it
/// holds (cut out before amounts are read, so "el 15" is not fifteen pesos).
struct Message {
    raw: String,
    norm: String,
    /// The normalized text without its date phrase.
    rest: String,
    date: Option<chrono::NaiveDate>,
    amounts: Vec<Found>,
    /// The amounts said in another currency («15 dólares»).
    foreign: Vec<Found>,
    tokens: Vec<Token>,
    today: chrono::NaiveDate,
}

/// «vendí 3 pasteles, me dieron 1,350»: beside another amount, a small number
/// right before a thing counted («3 pasteles», «2 kilos») counts it; it is no
/// money.
fn without_counts(amounts: Vec<Found>, rest: &str) -> Vec<Found> {
    if amounts.len() < 2 {
        return amounts;
    }
    let folded = normalize(rest);
    let words = crate::text::tokens(&folded);
    // Only right after a verb of selling or buying («vendí 3 pasteles»): «y 50
    // propinas en el bar» is money.
    let counts = |f: &Found| {
        f.cents < 100 * 100
            && f.end == f.start + 1
            && f.start
                .checked_sub(1)
                .and_then(|k| words.get(k))
                .is_some_and(|before| {
                    matches!(
                        *before,
                        "vendi"
                            | "vendimos"
                            | "compre"
                            | "compramos"
                            | "lleve"
                            | "llevamos"
                            | "fueron"
                    )
                })
            && words.get(f.end).is_some_and(|next| {
                next.len() > 2
                    && next.ends_with('s')
                    && next.chars().all(char::is_alphabetic)
                    && !is_money_word(next)
            })
    };
    // «una lámpara y dos cojines, 1,150»: a number said in words right before
    // the things it counts is a count whatever verb comes before it.
    let counted = |f: &Found| {
        f.cents < 100 * 100
            && f.end == f.start + 1
            && words
                .get(f.start)
                .is_some_and(|w| w.chars().all(char::is_alphabetic))
            && words.get(f.end).is_some_and(|next| {
                next.len() > 2
                    && next.ends_with('s')
                    && next.chars().all(char::is_alphabetic)
                    && !is_money_word(next)
            })
    };
    // «el de la coca me fió 12 cajas, le debo 2400»: a figure of goods
    // counted by their unit is a count.
    let units = |f: &Found| words.get(f.end).is_some_and(|next| counts_goods(next));
    let kept: Vec<Found> = amounts
        .iter()
        .copied()
        .filter(|f| !counts(f) && !counted(f) && !units(f))
        .collect();
    if kept.is_empty() { amounts } else { kept }
}

/// «12 cajas», «3 kilos»: a unit goods are counted by, after a figure.
fn counts_goods(word: &str) -> bool {
    matches!(
        word,
        "caja"
            | "cajas"
            | "kilo"
            | "kilos"
            | "kg"
            | "kgs"
            | "litro"
            | "litros"
            | "unidades"
            | "piezas"
            | "paquetes"
            | "bolsas"
            | "docenas"
            | "botellas"
            | "sacos"
            | "costales"
            | "latas"
            | "bultos"
            | "rejas"
            | "cartones"
    )
}

/// «me cobraron 15 dólares de Figma»: a figure in another currency is no
/// amount of this ledger (kept in pesos); no rate is guessed, so the draft
/// asks how much it was in pesos. Beside a figure in pesos («150 dólares →
/// 2,710 pesos») the pesos are the amount.
fn foreign(amounts: &[Found], rest: &str) -> Vec<Found> {
    let folded = normalize(rest);
    let words = crate::text::tokens(&folded);
    amounts
        .iter()
        .copied()
        .filter(|f| {
            words.get(f.end).is_some_and(|next| {
                matches!(
                    *next,
                    "dolares" | "dolar" | "usd" | "dls" | "euros" | "euro" | "eur"
                )
            })
        })
        .collect()
}

/// «dos mil y pico», «500 y tantos», «mil y feria»: a figure with an unknown
/// remainder is no amount; the draft asks for the exact one.
fn without_vague(amounts: Vec<Found>, rest: &str) -> Vec<Found> {
    let folded = normalize(rest);
    let words = crate::text::tokens(&folded);
    let unsure = any(
        &folded,
        &[
            "no me acuerdo",
            "ni me acuerdo",
            "no recuerdo",
            "no estoy seguro",
            "no estoy segura",
            "no se bien",
            "no se cuanto",
            "no se exacto",
        ],
    );
    amounts
        .into_iter()
        .filter(|f| {
            let after = |k: usize| words.get(f.end + k).copied();
            let before = |k: usize| f.start.checked_sub(k).and_then(|at| words.get(at).copied());
            // «no me acuerdo bien, como 800»: a figure guessed at, said
            // unsure, is no amount either («gasté como 300» alone stands).
            let guessed = matches!(before(1), Some("como" | "aproximadamente" | "aprox"))
                || (before(3) == Some("mas")
                    && before(2) == Some("o")
                    && before(1) == Some("menos"))
                || (matches!(before(2), Some("alrededor" | "cerca")) && before(1) == Some("de"));
            let vague = (guessed && unsure)
                || (after(0) == Some("y")
                    && match after(1) {
                        Some("pico" | "picos" | "piquito" | "tantos" | "feria" | "cacho") => true,
                        // «300 y algo», not «300 y algo de propina» (a second thing).
                        Some("algo") => !matches!(after(2), Some("de" | "del" | "mas")),
                        _ => false,
                    });
            !vague
        })
        .collect()
}

impl Message {
    fn read(raw: &str, today: chrono::NaiveDate, direction: Direction) -> Message {
        let raw = &without_deferred(raw);
        // «q no me pase d 800»: chat spellings read as their words.
        let norm = words::chat_spelled(&normalize(raw));
        let (date, rest) = date::take_date(raw, today, direction);
        let rest = words::chat_spelled(&rest);
        let amounts = without_vague(without_counts(amount::amounts_in(&rest), &rest), &rest);
        let foreign = foreign(&amounts, &rest);
        Message {
            raw: raw.to_owned(),
            norm,
            rest,
            date,
            amounts,
            foreign,
            tokens: tokenize(raw),
            today,
        }
    }

    fn has(&self, phrases: &[&str]) -> bool {
        any(&self.norm, phrases)
    }

    /// Whether the message is about a debt. «pagué Figma con la tarjeta»: a
    /// card a purchase was paid with is how it was paid, not the card's debt
    /// («pagué la tarjeta», «abono a la tarjeta» are).
    fn tells_a_debt(&self) -> bool {
        let said: Vec<&str> = self.norm.split(' ').collect();
        let mut kept: Vec<&str> = Vec::with_capacity(said.len());
        let mut i = 0;
        while i < said.len() {
            let means = said[i] == "con"
                && said[i + 1..]
                    .iter()
                    .take(2)
                    .find(|w| !matches!(**w, "la" | "mi" | "una" | "su"))
                    .is_some_and(|w| *w == "tarjeta");
            if means {
                // Skip «con [la] tarjeta [de crédito|débito]».
                i += 1;
                while i < said.len() && said[i] != "tarjeta" {
                    i += 1;
                }
                i += 1;
                if said.get(i) == Some(&"de")
                    && said
                        .get(i + 1)
                        .is_some_and(|w| matches!(*w, "credito" | "debito"))
                {
                    i += 2;
                }
                continue;
            }
            // «pagué el internet que debía»: a bill paid late is spending; a
            // debt has someone owed («lo que le debía»).
            // («lo que debo» is the debt itself.)
            if matches!(said[i], "debia" | "debiamos" | "debo" | "debemos")
                && i > 1
                && said[i - 1] == "que"
                && said[i - 2] != "lo"
                // («los 500 que debía a mi primo» names who is owed.)
                && !matches!(said.get(i + 1), Some(&("a" | "al")))
            {
                i += 1;
                continue;
            }
            // «1,450 de la mensualidad del inglés»: a school's or a service's
            // monthly fee is spending.
            let of = || said[i + 1..(i + 5).min(said.len())].join(" ");
            if matches!(said[i], "mensualidad" | "mensualidades")
                && (category::mentioned(&of()).is_some_and(|(c, _)| {
                    matches!(
                        c.key,
                        "educacion" | "servicios" | "suscripciones" | "entretenimiento" | "salud"
                    )
                }) || names_a_school_subject(&of()))
            {
                i += 1;
                continue;
            }
            kept.push(said[i]);
            i += 1;
        }
        any(&kept.join(" "), words::DEBT)
    }

    fn question(&self) -> bool {
        words::is_question(&self.raw, &self.norm)
    }

    /// Money coming in (see [`words::receives`]).
    fn income(&self) -> bool {
        words::receives(&self.norm)
    }

    /// The amount a log or a purchase is about: the one marked as money ("$250",
    /// "250 pesos"), else the largest.
    fn main_amount(&self) -> Option<i64> {
        let rest: Vec<&str> = self.rest.split(' ').collect();
        // (A figure in another currency is no amount here: asked in pesos.)
        let own: Vec<&Found> = self
            .amounts
            .iter()
            .filter(|f| !self.foreign.contains(f))
            .collect();
        if own.is_empty() && !self.foreign.is_empty() {
            return None;
        }
        let marked = own.iter().find(|f| {
            rest.get(f.end)
                .is_some_and(|w| matches!(*w, "pesos" | "peso" | "mxn" | "varos" | "baros"))
        });
        let dollar = self
            .raw
            .find('$')
            .and_then(|at| amount::amounts_in(&self.raw[at..]).first().map(|f| f.cents));
        marked
            .map(|f| f.cents)
            .or(dollar.filter(|c| own.iter().any(|f| f.cents == *c)))
            .or_else(|| own.iter().map(|f| f.cents).max())
    }

    fn category(&self) -> Option<&'static Category> {
        let Some((mut found, mut word)) = category::mentioned(&self.rest) else {
            // «1,450 de la mensualidad del inglés»: a school subject is schooling.
            // (Only a fee: «el maestro de obra» is no school.)
            let folded = normalize(&self.rest);
            return (any(&folded, &["mensualidad", "mensualidades", "colegiatura"])
                && names_a_school_subject(&folded))
            .then(|| category::by_key("educacion"))
            .flatten();
        };
        // «pagué el súper de la quincena»: the pay named in a spending says
        // when, not what; the thing paid for is the category.
        if found.is_income()
            && self.has(words::SPEND)
            && !self.income()
            && let Some(spent) = category::mentioned(&without_phrase(&self.rest, word))
                .filter(|(c, _)| !c.is_income())
        {
            (found, word) = spent;
        }
        // «libros para la escuela», «los libros de inglés del niño»: books for
        // school are schooling, not leisure reading.
        if matches!(word, "libro" | "libros")
            && let Some(school) = category::by_key("educacion")
            && (school
                .words
                .iter()
                .any(|w| contains_phrase(&normalize(&self.rest), w))
                || any(&normalize(&self.rest), words::SCHOOL_SUBJECTS))
        {
            return Some(school);
        }
        // «6,500 entre camión y hotel»: the bus of a trip is part of the trip;
        // not «368 de casetas por el viaje», where the trip is what it was for.
        if found.key == "transporte"
            && let Some(trip) = category::by_key("viajes")
            && trip
                .words
                .iter()
                .any(|w| paid_for(&normalize(&self.rest), w))
        {
            return Some(trip);
        }
        Some(found)
    }
}

/// «del inglés», «de matemáticas»: a school subject named (folded text).
fn names_a_school_subject(folded: &str) -> bool {
    any(&folded.replace("del ", "de "), words::SCHOOL_SUBJECTS)
}

/// `text` folded, without the whole-word phrase `phrase`.
fn without_phrase(text: &str, phrase: &str) -> String {
    let folded = normalize(text);
    let mut out: Vec<&str> = Vec::new();
    let said: Vec<&str> = folded.split(' ').collect();
    let len = phrase.split(' ').count();
    let mut at = 0;
    while at < said.len() {
        if at + len <= said.len() && said[at..at + len].join(" ") == phrase {
            at += len;
            continue;
        }
        out.push(said[at]);
        at += 1;
    }
    out.join(" ")
}

/// Whether `phrase` is in `folded` as something paid for, not only as the
/// purpose of it («por el viaje», «para las vacaciones», «pal viaje»).
fn paid_for(folded: &str, phrase: &str) -> bool {
    let words: Vec<&str> = folded.split(' ').collect();
    let len = phrase.split(' ').count();
    (0..words.len().saturating_sub(len - 1)).any(|at| {
        words[at..at + len].join(" ") == phrase && {
            let mut before = words[..at].iter().rev();
            let mut word = before.next().copied();
            if word.is_some_and(|w| words::ARTICLES.contains(&w)) {
                word = before.next().copied();
            }
            !matches!(word, Some("por" | "para" | "pa" | "pal" | "porque"))
        }
    })
}

fn action(name: &str) -> RawFinanceAction {
    RawFinanceAction::new(name)
}

fn one(action: RawFinanceAction) -> FinanceProposal {
    FinanceProposal::new(vec![action], "")
}

fn clarify() -> FinanceProposal {
    one(action("CLARIFY"))
}

/// CLARIFYING: the reply patches the draft's open fields; it never starts over.
fn patch(message: &Message, intent: Intent, questions: &[Field]) -> FinanceProposal {
    // («no, déjalo en 180»: a figure with it corrects the draft.)
    if (message.has(words::CANCEL) && message.amounts.is_empty()) || message.norm == "no" {
        return one(action("CANCEL"));
    }
    // «traigo como 600 en efectivo» asked for the bank balance: cash in hand
    // is not the balance the design counts; the question stands.
    // «en efectivo traigo 1,200 y en BBVA tengo 10,450»: the figure said
    // apart from the cash is the balance.
    let mut account_amount = None;
    let parts: Vec<Message> = clauses(&message.raw)
        .iter()
        .map(|c| Message::read(c, message.today, Direction::Past))
        .collect();
    if intent == Intent::SetBankBalance && parts.iter().any(says_cash) {
        let account: Vec<i64> = parts
            .iter()
            .filter(|c| !says_cash(c))
            .filter_map(|c| c.main_amount())
            .collect();
        match account.as_slice() {
            [one] => account_amount = Some(*one),
            _ => {
                return FinanceProposal::new(
                    vec![action("CLARIFY")],
                    messages::CASH_IS_NOT_BALANCE,
                );
            }
        }
    }
    let mut patch = action("PATCH_DRAFT");
    let mut found = false;
    let p = &mut patch.params;
    if intent == Intent::ManageDebt {
        let debt = read_debt(message);
        if questions.contains(&Field::DebtName) && debt.name.is_none() {
            let name = message
                .raw
                .trim()
                .trim_start_matches("con ")
                .trim_start_matches("a ");
            // «si» answering «¿Con quién es la deuda?» names nobody.
            let token = crate::finance::core::confirm::answer(name)
                != crate::finance::core::confirm::Answer::Other;
            if !name.is_empty()
                && !token
                && message.amounts.is_empty()
                && name.chars().count() <= 60
            {
                p.debt_name = Some(json!(name));
                found = true;
            }
        }
        found |= debt.fill(p);
    } else {
        if let Some(cents) = account_amount.or_else(|| message.main_amount()) {
            p.amount_cents = Some(json!(cents));
            found = true;
        }
        if let Some(date) = message.date {
            p.date = Some(json!(date.to_string()));
            found = true;
        }
        if let Some(category) = category::named(&message.rest).or_else(|| message.category()) {
            p.category = Some(json!(category.key));
            found = true;
        }
        if message.income() {
            p.kind = Some(json!("income"));
        }
    }
    if found { one(patch) } else { clarify() }
}

/// «cuánto me queda por pagarle», «cuánto le falta a lo que debo», «cuánto
/// me resta de pagar»: what is still to pay, of a debt.
fn left_to_pay(message: &Message) -> bool {
    let words: Vec<&str> = message.norm.split(' ').collect();
    let left = words.iter().position(|w| {
        matches!(
            *w,
            "queda" | "quedan" | "falta" | "faltan" | "resta" | "restan"
        )
    });
    // («cuánto me queda después de pagar la renta», «cuánto me falta para
    // pagar el viaje» ask other things.)
    let pays =
        |w: &str| w.starts_with("pagar") || w.starts_with("liquidar") || w.starts_with("saldar");
    left.is_some_and(|at| match &words[at + 1..] {
        [first, ..] if pays(first) => true,
        ["por" | "de", then, ..] => pays(then),
        _ => false,
    }) && message.has(&["cuanto", "cuanta"])
}

/// A message cut into its clauses at commas, «;» and « y » (not inside
/// «1,200» nor «ochenta y dos»).
fn clauses(raw: &str) -> Vec<String> {
    cut_at_joins(raw, &["y"])
}

/// A message cut at commas, «;» and the joining words `joins` said as words
/// of their own, in any case (never inside «1,200» nor at the «y» of
/// «ochenta y dos»); the pieces keep their words, each once spaced.
fn cut_at_joins(raw: &str, joins: &[&str]) -> Vec<String> {
    cut_outside_numbers(raw, &[',', ';'])
        .split(';')
        .flat_map(|piece| {
            let words: Vec<&str> = piece.split_whitespace().collect();
            let mut out = vec![String::new()];
            for (at, w) in words.iter().enumerate() {
                let joins_a_number = at > 0
                    && words.get(at + 1).is_some_and(|next| {
                        amount::joins_number(&normalize(words[at - 1]), &normalize(next))
                    });
                if joins.iter().any(|j| w.eq_ignore_ascii_case(j)) && !joins_a_number {
                    out.push(String::new());
                } else {
                    let last = out.last_mut().expect("never empty");
                    if !last.is_empty() {
                        last.push(' ');
                    }
                    last.push_str(w);
                }
            }
            out
        })
        .filter(|c| !c.trim().is_empty())
        .collect()
}

/// Whether a message speaks of cash in hand («en efectivo», «en la cartera»)
/// and not of an account («traigo 4 mil en la tarjeta» is the bank).
fn says_cash(message: &Message) -> bool {
    message.has(&[
        "efectivo",
        "en la cartera",
        "en mi cartera",
        "en la bolsa",
        "en mi bolsa",
        "en la mano",
        "en mano",
        "en el bolsillo",
        "en la billetera",
        "en billetes",
        "cash",
    ]) && !message.has(words::BALANCE)
        && !message.has(&["banco", "cuenta", "tarjeta", "debito", "nomina", "ahorros"])
}

/// Whether a message in CLARIFYING is a complete new request rather than the
/// answer to the open question: a question about their money, a budget or a
/// purchase to simulate while the draft is something else, or another expense
/// or income with its amount while the draft already has one.
fn starts_anew(
    message: &Message,
    draft: &crate::finance::core::Draft,
    merchants: &[String],
) -> bool {
    // «en qué se me está yendo más el varo este mes», «cuál fue mi categoría
    // más cara el mes pasado»: a question about one's movements over a period
    // it names is never the answer to the draft's question (no draft asks a
    // period) — unless it names the category asked («¿en ropa, la semana
    // pasada?»).
    let answers_category =
        draft.questions.contains(&Field::Category) && message.category().is_some();
    let plans_a_query = message.question()
        && message.amounts.is_empty()
        && !answers_category
        && query::read(message, merchants, None)
            .is_some_and(|read| !read.follow_up && read.named_span);
    let asks_about_money = message.question()
        && (message.has(words::TOTALS)
            || message.tells_a_debt()
            || left_to_pay(message)
            || message.has(words::BUDGET)
            || message.has(words::BALANCE)
            || message.has(words::TRENDS)
            || message.has(words::PREDICT)
            || message.has(words::ANOMALIES)
            || message.has(words::SEARCH)
            // «y cuánto llevamos gastado en salud»: how much, of spending.
            || (message.has(&["cuanto", "cuanta", "cuantos", "cuantas"])
                && message
                    .norm
                    .split(' ')
                    .any(|w| w.starts_with("gast") || w.starts_with("llev"))));
    let other = |intent: Intent| draft.intent != intent;
    let logs = message.has(&[
        "anota",
        "anotame",
        "apunta",
        "apuntame",
        "registra",
        "registrame",
        "agrega",
        "agregame",
    ]);
    // «no, fueron 540» while asked the category: the amount taken back, a patch.
    let takes_back = message.norm.starts_with("no ")
        || message.has(&["me equivoque", "perdon", "corrijo", "mas bien"]);
    let writes_again = (message.has(words::SPEND) || message.income() || logs)
        && !takes_back
        && !message.amounts.is_empty()
        && (other(Intent::LogTransaction) || draft.amount_cents.is_some());
    // «mejor apunta que le pagué a Juan 500 de lo que le debo» while asked the
    // amount of a purchase: a debt, with its amount, is a request of its own.
    let debt_anew =
        message.tells_a_debt() && !message.amounts.is_empty() && other(Intent::ManageDebt);
    // «tengo 14,300 en el banco» while a purchase waits: the balance is its own
    // request, unless a simulation asked for it.
    let balance_anew = message.has(words::BALANCE)
        && !message.amounts.is_empty()
        && other(Intent::SetBankBalance)
        && other(Intent::SimulatePurchase)
        && draft.resume.is_none();
    // «olvídalo, mejor anota 180 del Uber»: the draft dropped in words and a
    // whole new write said after it.
    // («no, déjalo en 180» corrects the draft: not this.)
    let drops_and_writes = message.has(&["olvidalo", "olvida", "mejor no"])
        && !takes_back
        && (message.has(words::SPEND) || message.income() || logs)
        && !message.amounts.is_empty()
        && message.category().is_some();
    asks_about_money
        || drops_and_writes
        || plans_a_query
        || ((message.has(words::BUDGET) || caps_spending(message))
            && !message.amounts.is_empty()
            && other(Intent::SetBudget))
        || (message.has(words::SIMULATE) && other(Intent::SimulatePurchase))
        || writes_again
        || debt_anew
        || balance_anew
}

/// «máximo 4 lucas en el súper por mes», «hasta 3000 al mes en comida», «a lo
/// mucho 500 a la semana en antojos»: a ceiling on a figure, and nothing spent
/// — a cap (a budget), whatever word names it. «Hasta» and «a lo mucho» say a
/// cap only with a period («al mes»); «gasté máximo 300» is a spending.
fn caps_spending(message: &Message) -> bool {
    let words = crate::text::tokens(&message.rest);
    let figure_after = |at: usize| {
        message.amounts.iter().any(|f| {
            f.start > at && f.start <= at + 2 && (f.start == at + 1 || words[at + 1] == "de")
        })
    };
    let periodic = message.has(&[
        "al mes",
        "por mes",
        "cada mes",
        "mensual",
        "mensuales",
        "a la semana",
        "por semana",
        "cada semana",
        "semanal",
        "a la quincena",
        "por quincena",
        // «que este mes no me pase de 2500 en el súper».
        "este mes",
        "en el mes",
    ]);
    // «mejor mil quinientos mensuales de ropa»: a figure a month for a
    // category, with no verb of spending or earning — a cap.
    let verbless = periodic
        && (message.norm.starts_with("mejor ")
            || message.has(&["ponle", "ponme", "que sean", "que sea"]))
        && !message.has(&["es", "son", "esta", "sale", "cuesta", "cuestan", "vale"])
        && !message.amounts.is_empty()
        && words.len() <= 10
        && message.category().is_some_and(|c| !c.is_income())
        && !message.has(words::SPEND)
        && !words::receives(&message.norm)
        && !message.has(&["pago", "pagamos", "cuesta", "cuestan", "sale", "cobran"]);
    // «quiero que lo máximo que me gaste en ubers sean 1200 por mes»: the
    // most one means to spend, a month — a cap, whatever verb follows.
    // (Of spending only: «lo máximo que gano…», «lo más que puedo ahorrar…»,
    // «lo máximo que me cobran de luz…» tell, they set nothing.)
    let most_wished = periodic
        && !message.amounts.is_empty()
        && words.windows(3).enumerate().any(|(at, w)| {
            w[0] == "lo"
                && matches!(w[1], "maximo" | "mas")
                && w[2] == "que"
                && words[at + 3..]
                    .iter()
                    .take(3)
                    .any(|v| v.starts_with("gast"))
        });
    if most_wished && !message.question() && !message.income() {
        return true;
    }
    // «quiero gastar no más de 400 en comer fuera»: spending wished capped,
    // said as a wish (no period needed).
    let wished = words.windows(2).enumerate().any(|(at, w)| {
        matches!(
            w[0],
            "quiero" | "quisiera" | "pienso" | "planeo" | "debo" | "deberia"
        ) && matches!(w[1], "gastar" | "gastarme")
            && words[at + 2..].iter().take(4).enumerate().any(|(k, v)| {
                let here = at + 2 + k;
                (*v == "maximo" && figure_after(here))
                    || (*v == "mas" && here >= 1 && words[here - 1] == "no" && figure_after(here))
            })
    });
    if wished && !message.question() && !message.income() && message.category().is_some() {
        return true;
    }
    let said_cap = verbless
        || words.iter().enumerate().any(|(at, w)| match *w {
            "maximo" => figure_after(at),
            "hasta" => periodic && figure_after(at),
            // «en ropa no más de 800 al mes».
            // (Not what one spends or gives: «se me van no más de…», «le doy no
            // más de…».)
            "mas" if at >= 1 && words[at - 1] == "no" => {
                periodic
                    && figure_after(at)
                    && !words[..at - 1].iter().any(|w| {
                        matches!(
                            *w,
                            "van"
                                | "va"
                                | "gasto"
                                | "gastamos"
                                | "doy"
                                | "damos"
                                | "pago"
                                | "pagamos"
                        )
                    })
            }
            "mucho" if at >= 2 && words[at - 1] == "lo" && words[at - 2] == "a" => {
                periodic && figure_after(at)
            }
            // «que el súper no pase de 5 mil al mes».
            "pase" | "pasen" | "pasemos" | "pasarme" | "pasarnos"
                if at >= 1 && (words[at - 1] == "no" || (at >= 2 && words[at - 2] == "no")) =>
            {
                periodic && figure_after(at)
            }
            _ => false,
        });
    let spent = words::SPEND
        .iter()
        .filter(|w| **w != "gasto")
        .any(|w| contains_phrase(&message.norm, w));
    // («pago hasta 5 mil al mes de renta», «el banco me cobra máximo 300»:
    // what is paid or charged, told.)
    let charged = message.has(&[
        "pago", "pagamos", "cobra", "cobran", "cuesta", "cuestan", "sale", "salen",
    ]);
    said_cap && !spent && !charged && !message.income()
}

/// IDLE: what the user asks for.
fn fresh(message: &Message, input: &FinanceInput) -> FinanceProposal {
    let norm = message.norm.as_str();
    if norm.is_empty() {
        return clarify();
    }
    // «Borra mis datos»: confirmed like any write, exact token only.
    if asks_to_erase(&message.raw) {
        return one(action("ERASE_MY_DATA"));
    }
    if let Some(both) = logged_and_asked(message, input) {
        return both;
    }
    // «pagué la renta, fueron 10,500, me equivoqué»: a movement told again
    // with its amount is logged, not a category corrected.
    // («y el internet de la casa 650, eso va en servicios»: a thing and its
    // figure, then where it goes — a new movement; «el gasto de 650 va en
    // servicios» points at one logged.)
    let rest_words = crate::text::tokens(&message.rest);
    let figure_of_a_thing = message.amounts.iter().any(|a| {
        a.start == 0
            || !matches!(
                rest_words.get(a.start - 1).copied(),
                Some("de" | "los" | "las" | "el" | "la" | "unos" | "unas" | "por" | "en")
            )
    });
    // (Said as a correction, it is one: «me equivoqué, 650 eran servicios»,
    // «corrige: lo del internet 650 va en servicios».)
    let corrects = message.has(&[
        "me equivoque",
        "corrige",
        "corregir",
        "corrijo",
        "eso era",
        "era de",
        "era en",
        "no era",
        "eran",
        "estaba mal",
        "no es",
    ]);
    let told_again = !message.amounts.is_empty()
        && (message.has(words::SPEND) || (figure_of_a_thing && !corrects));
    if (message.has(words::CORRECTION) || puts_elsewhere(message))
        && !told_again
        && let Some(target) = corrected_category(&message.tokens)
    {
        return one(action("CORRECT_CATEGORY").with(|p| p.category = Some(json!(target.key))));
    }
    // «si me compro unas zapatillas de 95.000 el viernes, ¿llego a fin de
    // mes?»: a purchase put as a condition and asked about is simulated («sí
    // me compro los tenis», said, tells one).
    // («si me compro algo de 100 cada semana, ¿cuánto gasto al año?» asks a
    // figure of the ledger.)
    let conditional_purchase = message.question()
        && !message.amounts.is_empty()
        && !message.has(&["cuanto", "cuanta", "cuantos", "cuantas"])
        && ["si me compro ", "si compro ", "si me gasto ", "si gasto "]
            .iter()
            .any(|p| message.norm.starts_with(p));
    if message.has(words::SIMULATE) || conditional_purchase {
        return simulate(message, input);
    }
    let asks = message.question();
    // «Rogelio me debe 2,500», «¿cuánto me deben?»: money owed to the person is
    // kept apart from their debts (asked, it is shown with them); never logged
    // as an expense.
    let owed_to_me = message.has(&[
        "me debe",
        "me deben",
        "me debes",
        "me quedo a deber",
        "me quedaron a deber",
        // «¿cuánto me falta cobrarle a Julio?»: what is still to collect.
        "me falta cobrar",
        "me falta cobrarle",
        "me falta cobrarles",
        "falta cobrarle",
        "tengo que cobrarle",
        "tengo por cobrar",
    ]) && !message.has(&["le debo", "les debo", "debo"])
        && !message.has(words::SPEND)
        // «le presté 800 a mi sobrina», «le di prestados 500»: money lent, owed
        // back (whatever verb of giving it takes).
        || message.has(LENT)
        // «la doña Marta se llevó fiado 60 de pan»: sold on credit, owed.
        || message.has(CREDIT_GIVEN);
    // «ya me devolvió 1000 el Javi», «Marcos me pagó 700, el resto el
    // viernes»: someone who owes the person paid part of it back — what they
    // owe is lowered by the sum (a sum with no one who owes it is income).
    let pays_back = message.has(&[
        "me pago",
        "me pagaron",
        "me ha pagado",
        "me devolvio",
        "me devolvieron",
        "me ha devuelto",
        "me regreso",
        "me regresaron",
        "me abono",
        "me deposito",
        "me transfirio",
    ]);
    // (Money lent in the same message is no money paid back: «mi jefe me
    // pagó 2000 y le presté 500 a Javi».)
    let lends = message.has(LENT);
    let debtor = input.owed_to_me.iter().find(|n| named_in(norm, n));
    if pays_back
        && !lends
        && !asks
        && !message.amounts.is_empty()
        && (debtor.is_some() || owed_to_me)
    {
        return paid_back(message, debtor);
    }
    if owed_to_me {
        if asks && message.amounts.is_empty() {
            return query(&[ToolName::GetDebts], message);
        }
        // «mi primo ya me pagó lo que le presté», «la Fer ya no me debe
        // nada»: paid back with no sum said — no new sum owed; said how to set
        // what is left.
        let repaid = pays_back
            || message.has(&[
                "ya no me debe",
                "ya no me deben",
                "no me debe",
                "no me deben",
            ]);
        if repaid {
            return FinanceProposal::new(vec![action("REPLY")], messages::REPAID_OWED);
        }
        return receivable(message);
    }
    let owed = input
        .debts
        .iter()
        .any(|d| !d.is_empty() && contains_phrase(norm, &normalize(d)));
    // («hoy le pasé 2500 a Caro» and the debt is «la Caro»: her own name,
    // with a verb of paying said to her — never «pagué 450 de tacos con
    // Luis».)
    let owed_by_name = input.debts.iter().any(|d| named_in(norm, d));
    let paid_to = &[
        "le pague",
        "le di",
        "le deposite",
        "le pase",
        "le transferi",
        "le devolvi",
        "le regrese",
        "le abone",
        "le mande",
    ];
    // «¿y ahora cuánto me queda por pagarle?»: what is left to pay is a debt's
    // balance, asked.
    if asks && message.amounts.is_empty() && left_to_pay(message) {
        return query(&[ToolName::GetDebts], message);
    }
    if message.tells_a_debt()
        || (owed && (message.has(&["pague"]) || message.has(paid_to)))
        || (owed_by_name && message.has(paid_to))
    {
        if asks && message.amounts.is_empty() {
            return query(&[ToolName::GetDebts], message);
        }
        return manage_debt(message);
    }
    // «uy ¿me pasé? ¿cuánto me pasé?»: over the cap, asked.
    if asks
        && message.amounts.is_empty()
        && message.has(&[
            "me pase",
            "me excedi",
            "me sobrepase",
            "me he pasado",
            "nos pasamos",
        ])
    {
        return query(&[ToolName::GetBudgetStatus], message);
    }
    if message.has(words::BUDGET) || caps_spending(message) {
        // «que no me pase de 800 al mes»: a wish with «que», not a question
        // («que límite tengo…», «q cuánto llevo…» still ask).
        let wish = !message.raw.contains(['?', '¿'])
            && message.norm.starts_with("que ")
            && message.has(&[
                "no me pase",
                "no pase",
                "no pasen",
                "no me pasen",
                "no nos pasemos",
            ])
            && !message.has(&[
                "cuanto", "cuanta", "cual", "cuales", "tengo", "llevo", "llevamos",
            ]);
        let asks = asks && !wish;
        // «ponele un límite a lo que gasto en salidas»: a cap asked to be set,
        // its figure still to say — the draft asks it.
        let sets = message.has(&[
            "pon",
            "ponme",
            "ponle",
            "ponele",
            "poneme",
            "fija",
            "fijame",
            "fijale",
            "cambia",
            "quiero poner",
            "quiero ponerme",
            // «y otro tope para lo del súper», «un límite al súper»: a cap
            // wanted, its figure still to say.
            "ponerle",
            "ponerme",
            "otro tope",
            "otro limite",
            "otro presupuesto",
            "un tope",
            "un limite",
            "nuevo tope",
            "nuevo limite",
            "nuevo presupuesto",
        ]);
        if message.amounts.is_empty() && sets && !asks && message.category().is_some() {
            return set_budget(message);
        }
        if message.amounts.is_empty() || asks && !message.has(&["pon", "ponme", "fija", "cambia"]) {
            return query(&[ToolName::GetBudgetStatus], message);
        }
        return set_budget(message);
    }
    // («me depositaron 12 mil en bbva» is an income, not the balance; «tengo
    // 12 mil en la cuenta de nómina» is what there is.)
    let holds = message
        .norm
        .split(' ')
        .any(|w| matches!(w, "tengo" | "tenemos" | "hay" | "quedan"));
    // «¿cuánto tengo disponible?», «ahorita tengo 3900, actualízalo»: what
    // one holds, asked or updated, is the balance even with no bank named.
    // (Only «tengo» right before the one figure, with no category, no
    // obligation and nothing else counted: not «tengo 3000 disponible para la
    // comida», «tengo que actualizar…», «tengo 2 tarjetas, actualiza…».)
    let rest_words = crate::text::tokens(&message.rest);
    let held_figure = match message.amounts.as_slice() {
        [] => true,
        [one] => one.start > 0 && rest_words.get(one.start - 1) == Some(&"tengo"),
        _ => false,
    };
    let holds_now = holds
        && held_figure
        && message.category().is_none()
        && !message.has(&["tengo que"])
        && message.norm.split(' ').any(|w| {
            matches!(
                w,
                "disponible" | "actualiza" | "actualizalo" | "actualizame" | "actualizar"
            )
        });
    if (message.has(words::BALANCE) || holds_now)
        && !message.has(words::SPEND)
        && (holds || !message.income())
    {
        if message.amounts.is_empty() || asks {
            return query(&[ToolName::GetBankBalance], message);
        }
        return one(action("SET_BANK_BALANCE").with(|p| {
            p.amount_cents = message.main_amount().map(|c| json!(c));
        }));
    }
    // «el lunes le compré un regalo a mi nieto»: a purchase told without
    // its amount is a write to complete, not a question about the past.
    if !asks
        && message.amounts.is_empty()
        && message.category().is_some_and(|c| !c.is_income())
        && message.has(&["compre", "pague", "gaste", "me gaste"])
        // («no compré nada de ropa», «todavía no pagué la luz»: nothing
        // bought.)
        && !message.has(&["no compre", "no pague", "no gaste", "no me gaste", "nada"])
        // («gasté más en X que el mes pasado o menos», «compara lo que
        // gasté…»: questions without their mark.)
        && !message.has(&[
            "compara", "comparado", "vs", "o menos", "o mas", "lo que", "cuanto", "cuanta", "mas que",
            "menos que", "que el mes", "que la semana", "cuando", "donde", "en que", "ultima vez",
            "quiero saber",
        ])
        && !message.has(words::TOTALS)
    {
        return log(message, false);
    }
    let older = analysis(message, asks);
    if let Some(read) = query::read(message, &input.descriptions, input.last_query.as_ref()) {
        // A category's total over a period the older tool reads is its to answer,
        // even when the message has none of its words («¿y en septiembre?»).
        let offered = older.clone().or_else(|| {
            (read.said_span && read.others.is_empty())
                .then(|| vec![ToolName::AnalyzeSpendingPattern])
        });
        let requests = match offered
            .as_deref()
            .filter(|_| read.others.is_empty())
            .map(|tools| (tools, query::older_answer(tools, &read)))
        {
            // The older tool, asked for the plan's own category and period.
            Some((_, Some(requests))) if !requests.is_empty() => Some(requests),
            // The older tools as the message asks them.
            Some((_, None)) if older.is_some() => None,
            _ => Some(std::iter::once(read.request).chain(read.others).collect()),
        };
        if let Some(requests) = requests {
            return one(action("QUERY_DATA").with(|p| p.tools = Some(requests)));
        }
    }
    if let Some(tools) = older {
        return query(&tools, message);
    }
    let income = message.income();
    let spends = message.has(words::SPEND);
    // «Me pagaron 8000 del proyecto y gasté 500 en gasolina», «me cobraron 299
    // de Spotify y 149 de iCloud»: several writes, each confirmed on its own, in
    // the order said.
    // «10 bs fotocopias, 3.50 un api con pastel y 2 el trufi»: a list of
    // spendings with no verb at all, each naming what it was for.
    // (Never someone else's: «mi hermano 200 en gasolina y 50 en comida».)
    let someone_else = matches!(
        message.tokens.first().map(|t| t.norm.as_str()),
        Some("mi" | "mis" | "su" | "sus")
    );
    let listed = (!income && !spends && message.amounts.len() >= 2 && !asks && !someone_else)
        .then(|| movements_from(&message.raw, Some(false)))
        .filter(|parts| {
            parts.len() >= 2
                && parts
                    .iter()
                    .all(|(part, _)| category::mentioned(part).is_some())
        });
    if ((income || spends) || listed.is_some()) && message.amounts.len() >= 2 && !asks {
        let parts = listed.unwrap_or_else(|| movements_from(&message.raw, None));
        if parts.len() >= 2 {
            let limit = crate::shop::core::MAX_ACTIONS;
            let writes: Vec<RawFinanceAction> = parts
                .iter()
                .take(limit)
                .enumerate()
                .map(|(at, (part, income))| {
                    (
                        at,
                        Message::read(part, input.today, Direction::Past),
                        income,
                    )
                })
                .flat_map(|(at, part, income)| {
                    let mut logged = log(&part, *income);
                    // «vendí la lavadora vieja en 2000 y compré una nueva en
                    // 8500»: «una nueva» is another of the thing just named.
                    if !*income
                        && at > 0
                        && part.category().is_none()
                        && part.has(&[
                            "uno nuevo",
                            "una nueva",
                            "unos nuevos",
                            "unas nuevas",
                            "el nuevo",
                            "la nueva",
                            "otro",
                            "otra",
                        ])
                        && let Some(thing) = category::mentioned(&parts[at - 1].0)
                            .map(|(c, _)| c)
                            .filter(|c| !c.is_income())
                    {
                        for a in &mut logged.proposed_actions {
                            a.params.category = Some(json!(thing.key));
                        }
                    }
                    // «ayer pagué 500 de luz y 300 de agua»: the date said once is
                    // every movement's.
                    // Only a date said with the first movement («ayer pagué 500
                    // de luz y 300 de agua»); «…y ayer 300» is the second's own.
                    let said_first = Message::read(&parts[0].0, input.today, Direction::Past)
                        .date
                        .is_some();
                    if part.date.is_none()
                        && said_first
                        && let Some(date) = message.date
                    {
                        for a in &mut logged.proposed_actions {
                            a.params.date = Some(json!(date.to_string()));
                        }
                    }
                    logged.proposed_actions
                })
                .collect();
            // More than a turn stages: the backend tells the person to send
            // the rest (`messages::MORE_MOVEMENTS`, in `plan::propose`).
            return FinanceProposal::new(writes, "");
        }
    }
    if !message.amounts.is_empty() && (!asks || spends || income) {
        return log(message, income);
    }
    // «antier fui a la farmacia por las medicinas»: an errand to a place of a
    // category is a purchase whose amount is asked.
    let errand = message.has(&[
        "fui a",
        "fui al",
        "fuimos a",
        "fuimos al",
        "pase a",
        "pase al",
    ]) && message.category().is_some();
    // «y también en la farmacia el jarabe para Emi»: one more purchase told
    // after another, at a place of a category; its amount is asked.
    let one_more = (norm.starts_with("tambien ") || norm.starts_with("y tambien "))
        && message
            .category()
            .is_some_and(|c| !c.is_income() && c.key != "otros");
    if (spends || income || errand || one_more) && !asks {
        // "Gasté en el súper" without an amount: start the draft, ask the rest.
        return log(message, income);
    }
    if message.has(words::HELP) || is_greeting(norm) {
        return one(action("REPLY"));
    }
    if message.has(words::THANKS) {
        return FinanceProposal::new(vec![action("REPLY")], "¡Con gusto!");
    }
    clarify()
}

fn is_greeting(norm: &str) -> bool {
    words::GREETINGS
        .iter()
        .any(|g| norm == *g || norm.starts_with(&format!("{g} ")))
}

/// Which analysis tools a question asks for, if it is one.
fn analysis(message: &Message, asks: bool) -> Option<Vec<ToolName>> {
    let mut tools = Vec::new();
    if message.has(words::ANOMALIES) {
        tools.push(ToolName::DetectAnomalies);
    }
    if message.has(words::PREDICT) {
        tools.push(ToolName::PredictMonthlySpending);
    }
    if message.has(words::TRENDS) {
        tools.push(ToolName::GetSpendingTrends);
    }
    let totals = message.has(words::TOTALS);
    let listing = message.has(words::SEARCH) && !message.has(&["cuanto", "cuanta"]);
    if listing && tools.is_empty() {
        tools.push(ToolName::SearchExpenses);
    }
    if totals && !listing && tools.is_empty() {
        tools.push(ToolName::AnalyzeSpendingPattern);
    }
    if tools.is_empty() && asks && message.amounts.is_empty() && message.category().is_some() {
        // "¿y en transporte?": a total for that category.
        tools.push(ToolName::AnalyzeSpendingPattern);
    }
    (!tools.is_empty()).then_some(tools)
}

fn period(message: &Message) -> Option<&'static str> {
    let n = &message.norm;
    if any(n, &["este mes", "en el mes", "del mes", "mes actual"]) {
        Some("current_month")
    } else if any(n, &["mes pasado", "mes anterior", "el otro mes"]) {
        Some("last_month")
    } else if any(
        n,
        &[
            "ultimos 30 dias",
            "ultimo mes",
            "30 dias",
            "ultimas semanas",
        ],
    ) {
        Some("last_30_days")
    } else if any(
        n,
        &[
            "ultimos 3 meses",
            "ultimos tres meses",
            "90 dias",
            "trimestre",
        ],
    ) {
        Some("last_90_days")
    } else {
        None
    }
}

/// A named month ("en octubre") as a period.
fn month_period(message: &Message) -> Option<String> {
    let words: Vec<&str> = message.norm.split(' ').collect();
    words.windows(2).find_map(|w| {
        let month = (matches!(w[0], "en" | "de" | "del")).then(|| date::month_named(w[1]))??;
        let today = message.today;
        let year = if month > chrono::Datelike::month(&today) {
            chrono::Datelike::year(&today) - 1
        } else {
            chrono::Datelike::year(&today)
        };
        Some(format!("{year}-{month:02}"))
    })
}

fn query(tools: &[ToolName], message: &Message) -> FinanceProposal {
    let category = message.category();
    let period = period(message)
        .map(str::to_owned)
        .or_else(|| month_period(message));
    let requests: Vec<serde_json::Value> = tools
        .iter()
        .map(|tool| {
            let mut request = json!({"name": tool.as_str()});
            if let Some(c) = category {
                request["category"] = json!(c.key);
            }
            if let Some(p) = &period {
                request["period"] = json!(p);
            }
            if *tool == ToolName::SearchExpenses {
                request["query"] = json!(search_query(message, category));
            }
            request
        })
        .collect();
    one(action("QUERY_DATA").with(|p| p.tools = Some(requests)))
}

/// What to search for: the message without its search verbs and fillers.
fn search_query(message: &Message, category: Option<&'static Category>) -> String {
    let skip = [
        "busca",
        "buscame",
        "muestrame",
        "ensename",
        "lista",
        "listame",
        "mis",
        "gastos",
        "gasto",
        "de",
        "en",
        "los",
        "las",
        "el",
        "la",
        "que",
        "gaste",
        "cuando",
        "compre",
        "pague",
        "del",
        "mes",
        "este",
        "pasado",
    ];
    let rest: Vec<&str> = message
        .tokens
        .iter()
        .filter(|t| !skip.contains(&t.norm.as_str()))
        .map(|t| t.raw.as_str())
        .collect();
    match (rest.is_empty(), category) {
        (true, Some(c)) => c.label.to_owned(),
        _ => rest.join(" "),
    }
}

fn log(message: &Message, income: bool) -> FinanceProposal {
    let (description, merchant) = describe(message);
    // «gané 1200 con el taxi»: what an income came from is no expense
    // category. An income is pay when it says so, else another income — shown
    // in the confirmation, where «no, fue sueldo» corrects it before any write.
    let named = message.category().filter(|c| c.is_income() == income);
    let category = named.or_else(|| {
        income
            .then(|| {
                // «me pagaron» is how pay arrives, not what it was: a category
                // named in the message (a freelance, a sale) wins over it.
                if any(
                    &message.norm,
                    &[
                        "quincena",
                        "sueldo",
                        "nomina",
                        "salario",
                        "me pagaron",
                        "aguinaldo",
                    ],
                ) {
                    category::by_key("salario")
                } else {
                    category::by_key("otros_ingresos")
                }
            })
            .flatten()
    });
    // «pagamos el alquiler 2800 con mi pareja, anota solo mi mitad»: the
    // person's half of the figure said (an odd cent has no half said: asked).
    let half = message.amounts.len() == 1 && amount::half_of_a_shared_total(&message.raw);
    // «vendí 12 kilos de papa a 8 el kilo»: the total the units make — only
    // when the price is the one figure of money said («…, total 140 con
    // rebaja» is the total).
    let by_unit = amount::by_the_unit(&message.raw)
        .first()
        .copied()
        .filter(|_| message.amounts.len() == 1);
    let amount = by_unit
        .or_else(|| message.main_amount())
        .and_then(|c| match half {
            true if c % 2 == 0 => Some(c / 2),
            true => None,
            false => Some(c),
        });
    one(action("LOG_TRANSACTION").with(|p| {
        p.kind = Some(json!(if income { "income" } else { "expense" }));
        p.amount_cents = amount.map(|c| json!(c));
        p.category = category.map(|c| json!(c.key));
        p.date = message.date.map(|d| json!(d.to_string()));
        p.description = description.map(|d| json!(d));
        p.merchant = merchant.map(|m| json!(m));
    }))
}

/// «gasté 25 en salteñas, ¿cuánto llevo en comida esta semana?»: movements
/// told first, then a question about the spending — each part read alone:
/// the question answered, the movements drafted for confirmation.
fn logged_and_asked(message: &Message, input: &FinanceInput) -> Option<FinanceProposal> {
    if !message.question() || message.amounts.is_empty() {
        return None;
    }
    let pieces = cut_at_joins(&message.raw, &["y"]);
    (1..pieces.len()).find_map(|k| {
        let told = pieces[..k].join(", ");
        let asked = pieces[k..].join(", ");
        let told_msg = Message::read(&told, input.today, Direction::Past);
        let asked_msg = Message::read(&asked, input.today, Direction::Past);
        if told_msg.question()
            || !asked_msg.question()
            || !asked_msg.amounts.is_empty()
            || !(told_msg.has(words::SPEND)
                || told_msg.income()
                || told_msg.has(&["anota", "anotame", "apunta", "apuntame", "registra"]))
        {
            return None;
        }
        let query = fresh(&asked_msg, input);
        let logged = fresh(&told_msg, input);
        let kinds = |p: &FinanceProposal, kind: &str| {
            !p.proposed_actions.is_empty()
                && p.proposed_actions.iter().all(|a| a.action_type == kind)
        };
        (kinds(&query, "QUERY_DATA") && kinds(&logged, "LOG_TRANSACTION")).then(|| {
            let actions = query
                .proposed_actions
                .into_iter()
                .chain(logged.proposed_actions)
                .take(crate::shop::core::MAX_ACTIONS)
                .collect();
            FinanceProposal::new(actions, "")
        })
    })
}

/// «pagué la renta 3500 el internet 399»: movements run on with nothing
/// between them, cut where one's figure ends and the next begins — after the
/// figure when it follows its name («renta 3500»), before the next figure when
/// figures lead («300 de luz 200 de agua»). Only where every part names a
/// category of its own (never «compré 2 kilos de carne 350»).
fn run_on(piece: &str) -> Vec<String> {
    let words: Vec<&str> = piece.split_whitespace().collect();
    let one_token_each = words
        .iter()
        .all(|w| crate::text::tokens(&normalize(w)).len() == 1);
    let norm: Vec<String> = words.iter().map(|w| normalize(w)).collect();
    let found = amount::amounts_in(&norm.join(" "));
    if !one_token_each || found.len() < 2 {
        return vec![piece.to_owned()];
    }
    let mut cuts = Vec::new();
    for pair in found.windows(2) {
        let (first, next) = (&pair[0], &pair[1]);
        if next.start <= first.end {
            continue;
        }
        // (Past the figure's own money word: «500 pesos de luz».)
        let mut after = first.end;
        while after < next.start && is_money_word(&norm[after]) {
            after += 1;
        }
        // («el gimnasio 450, no perdón, fue 500»: the second corrects the
        // first — one movement.)
        let corrects = norm[first.end..next.start].iter().any(|w| {
            matches!(
                w.as_str(),
                "perdon"
                    | "digo"
                    | "corrijo"
                    | "mejor"
                    | "osea"
                    | "sea"
                    | "bueno"
                    | "error"
                    | "equivoque"
                    | "espera"
                    | "ah"
                    | "bien"
                    | "quise"
                    | "fue"
                    | "era"
            )
        });
        if corrects {
            continue;
        }
        let leads = after < next.start
            && matches!(
                norm[after].as_str(),
                "de" | "del" | "en" | "para" | "pa" | "por"
            );
        cuts.push(if leads { next.start } else { first.end });
    }
    let mut parts = Vec::new();
    let mut from = 0;
    for cut in cuts.into_iter().chain([words.len()]) {
        if cut > from {
            parts.push(words[from..cut].join(" "));
            from = cut;
        }
    }
    let named = |part: &String| {
        category::mentioned(part).is_some() && !amount::amounts_in(&normalize(part)).is_empty()
    };
    if parts.len() > 1 && parts.iter().all(named) {
        parts
    } else {
        vec![piece.to_owned()]
    }
}

#[cfg(test)]
fn movements(raw: &str) -> Vec<(String, bool)> {
    movements_from(raw, None)
}

/// The movements of a message, each with its amount and whether it is money
/// coming in: the text is cut at «y», commas and «pero» (not inside «1,200»); a
/// piece with no amount joins the one before it, and a piece with an amount of
/// money but no verb of its own («… y 149 de iCloud») is a movement in the
/// direction of the one before it. A count of things («y 2 refrescos») is no
/// money and joins too. A message with no verb at all goes `default` (a list
/// of spendings: «10 bs fotocopias, 2 el trufi»).
fn movements_from(raw: &str, default: Option<bool>) -> Vec<(String, bool)> {
    let paired = respectively(raw);
    let raw = paired.as_deref().unwrap_or(raw);
    // (Cut at words, never at a byte of a lower-cased copy.)
    // («spent 120 on groceries and 45 on uber»: English joins the same.)
    let split: Vec<String> = cut_at_joins(raw, &["y", "pero", "and"])
        .iter()
        .flat_map(|piece| run_on(piece))
        .collect();
    let verb = |norm: &str| {
        if words::receives(norm) {
            Some(true)
        } else {
            any(norm, words::SPEND).then_some(false)
        }
    };
    // An amount read as money: said with its mark, or followed by what it was
    // for («149 de iCloud», «200 en gasolina»), not by a count's noun.
    let money = |text: &str| {
        let norm = normalize(text);
        let tokens = crate::text::tokens(&norm);
        amount::amounts_in(&norm).iter().any(|f| {
            text.contains('$')
                || tokens.get(f.end).is_none_or(|next| {
                    is_money_word(next)
                        || matches!(*next, "de" | "del" | "en" | "por" | "para" | "pa" | "on")
                        // («3.50 un api», «2 el trufi»: a figure, then the
                        // thing it paid; a count goes straight to its noun.)
                        || (default.is_some()
                            && matches!(*next, "el" | "la" | "un" | "una")
                            && category::mentioned(text).is_some())
                })
        })
    };
    let mut groups: Vec<(String, Option<bool>)> = Vec::new();
    let pieces: Vec<String> = split
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    for (at, piece) in pieces.iter().enumerate() {
        let piece = piece.clone();
        let norm = normalize(&piece);
        let own = verb(&norm);
        let has_amount = !amount::amounts_in(&norm).is_empty();
        // «…, y Dani ya me transfirió su mitad, 930»: a verb of its own whose
        // figure follows bare after a comma starts a movement.
        let figure_follows = pieces.get(at + 1).is_some_and(|next| {
            let next = normalize(next);
            verb(&next).is_none() && !amount::amounts_in(&next).is_empty()
        });
        match groups.last_mut() {
            Some((last, direction)) => {
                let last_complete =
                    direction.is_some() && !amount::amounts_in(&normalize(last)).is_empty();
                let opens = own.is_some() && figure_follows;
                if last_complete && !has_amount && opens {
                    groups.push((piece, own));
                } else if last_complete && has_amount && (own.is_some() || money(&piece)) {
                    // «…7,200, y de ahí saqué 2,300 para el súper»: money put
                    // to a spending purpose goes out, whatever came in before.
                    let spent_on = || {
                        category::mentioned(&piece).is_some_and(|(c, _)| !c.is_income())
                            && any(&norm, &["para", "pa", "en"])
                    };
                    let direction = own.or_else(|| {
                        if *direction == Some(true) && spent_on() {
                            Some(false)
                        } else {
                            *direction
                        }
                    });
                    groups.push((piece, direction));
                } else {
                    last.push(' ');
                    last.push_str(&piece);
                    *direction = direction.or(own);
                }
            }
            None => groups.push((piece, own.or(default))),
        }
    }
    groups
        .into_iter()
        .map(|(text, direction)| (text, direction == Some(true)))
        .collect()
}

/// «me cobraron netflix y spotify, 26.900 y 16.900»: two things, then their
/// two figures in the same order — each figure said beside its thing.
fn respectively(raw: &str) -> Option<String> {
    let (head, tail) = raw.rsplit_once(',')?;
    let (first, second) = tail.trim().split_once(" y ")?;
    let bare = |figure: &str| {
        let norm = normalize(figure);
        let found = amount::amounts_in(&norm);
        found.len() == 1 && crate::text::tokens(&norm).len() <= 2
    };
    if !bare(first) || !bare(second) || !amount::amounts_in(&normalize(head)).is_empty() {
        return None;
    }
    let (left, right) = head.rsplit_once(" y ")?;
    let last_of_left = left.split_whitespace().last()?;
    category::mentioned(&normalize(right))?;
    category::mentioned(&normalize(last_of_left))?;
    Some(format!(
        "{left} {} y {right} {}",
        first.trim(),
        second.trim_end_matches(['.', '!']).trim()
    ))
}

/// The concept of a movement as written ("súper", "Tacos El Güero") and its
/// merchant key for learned rules.
fn describe(message: &Message) -> (Option<String>, Option<String>) {
    let tokens = &message.tokens;
    let is_amount = |t: &Token| {
        t.norm.chars().next().is_some_and(|c| c.is_ascii_digit())
            || amount::amounts_in(&t.norm).len() == 1 && t.norm != "un" && t.norm != "una"
    };
    let skip = |t: &Token| {
        is_amount(t)
            || words::SPEND.contains(&t.norm.as_str())
            || words::INCOME
                .iter()
                .any(|w| w.split(' ').any(|x| x == t.norm))
            || matches!(
                t.norm.as_str(),
                "pesos"
                    | "peso"
                    | "mxn"
                    // «anota 15 lucas»: the verb of noting and the slang for
                    // money are no concept.
                    | "lucas"
                    | "luca"
                    | "varos"
                    | "bolas"
                    | "soles"
                    | "bs"
                    | "anota"
                    | "anotame"
                    | "apunta"
                    | "apuntame"
                    | "registra"
                    | "registrame"
                    | "me"
                    | "se"
                    | "hoy"
                    | "ayer"
                    | "antier"
                    | "de"
                    | "en"
                    | "un"
                    | "una"
            )
    };
    let start = tokens
        .iter()
        .position(|t| words::PREPOSITIONS.contains(&t.norm.as_str()))
        .map(|i| i + 1);
    let picked: Vec<&Token> = match start {
        Some(start) => tokens[start..]
            .iter()
            .skip_while(|t| words::ARTICLES.contains(&t.norm.as_str()))
            .take_while(|t| !words::STOPS.contains(&t.norm.as_str()) && !is_amount(t))
            .take(5)
            .collect(),
        None => tokens.iter().filter(|t| !skip(t)).take(4).collect(),
    };
    let mut picked = picked;
    // «libros para la escuela en 1,249.90»: a concept never ends on «en» or «la».
    while picked.last().is_some_and(|t| {
        words::PREPOSITIONS.contains(&t.norm.as_str()) || words::ARTICLES.contains(&t.norm.as_str())
    }) {
        picked.pop();
    }
    if picked.is_empty() {
        return (None, None);
    }
    let description = picked
        .iter()
        .map(|t| t.raw.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let norm = normalize(&description);
    let merchant = match category::mentioned(&norm) {
        // A category's own name is a concept, not a merchant.
        Some((c, word)) if word == c.key || normalize(c.label) == norm => None,
        Some((_, word)) if norm.split(' ').count() == 1 || norm == word => Some(word.to_owned()),
        _ => Some(norm.split(' ').take(3).collect::<Vec<_>>().join(" ")),
    };
    (Some(description), merchant)
}

fn simulate(message: &Message, input: &FinanceInput) -> FinanceProposal {
    // «¿me alcanza pa un viaje de 6 mil? tengo veinte mil en el banco»: the
    // balance said beside the purchase answers the question the simulation
    // would ask (it is confirmed before it is stored, like any balance).
    if message.amounts.len() >= 2
        && let Some((purchase, balance)) = purchase_and_balance(&message.raw)
    {
        let purchase = Message::read(&purchase, input.today, Direction::Future);
        let mut proposal = simulate(&purchase, input);
        proposal
            .proposed_actions
            .push(action("PATCH_DRAFT").with(|p| p.amount_cents = Some(json!(balance))));
        return proposal;
    }
    let future = Message::read(&message.raw, input.today, Direction::Future);
    let (description, _) = describe(&future);
    one(action("SIMULATE_PURCHASE").with(|p| {
        p.amount_cents = future.main_amount().map(|c| json!(c));
        p.category = future.category().map(|c| json!(c.key));
        p.date = future.date.map(|d| json!(d.to_string()));
        p.description = description.map(|d| json!(d));
    }))
}

/// `raw` with each of `marks` that is not inside a number («1,200», «20.000»)
/// turned into «;», where the caller cuts.
fn cut_outside_numbers(raw: &str, marks: &[char]) -> String {
    let chars: Vec<char> = raw.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let between_digits = i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
            if marks.contains(&c) && !between_digits {
                ';'
            } else {
                c
            }
        })
        .collect()
}

/// A message's purchase clause and the bank balance said in another clause.
fn purchase_and_balance(raw: &str) -> Option<(String, i64)> {
    // «tengo 20.000 en el banco»: a point between digits is no full stop.
    let cut = cut_outside_numbers(raw, &['.']);
    let clauses: Vec<&str> = cut
        .split(['?', '¿', ';'])
        .flat_map(|c| c.split(", "))
        .flat_map(|c| c.split(" y "))
        .filter(|c| !c.trim().is_empty())
        .collect();
    let says_balance = |c: &str| {
        let norm = normalize(c);
        (any(&norm, words::BALANCE) || norm.starts_with("tengo ") || norm.contains(" tengo "))
            && amount::amounts_in(&norm).len() == 1
    };
    let at = clauses.iter().position(|c| says_balance(c))?;
    let balance = amount::amounts_in(clauses[at]).first()?.cents;
    let purchase: Vec<&str> = clauses
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, c)| *c)
        .collect();
    let purchase = purchase.join(" ");
    (!amount::amounts_in(&purchase).is_empty()).then_some((purchase, balance))
}

fn set_budget(message: &Message) -> FinanceProposal {
    one(action("SET_BUDGET").with(|p| {
        p.amount_cents = message.main_amount().map(|c| json!(c));
        p.category = message.category().map(|c| json!(c.key));
    }))
}

/// Debt fields read from a message.
#[derive(Default)]
struct DebtRead {
    name: Option<String>,
    balance: Option<i64>,
    minimum: Option<i64>,
    due_day: Option<i64>,
    payment: Option<i64>,
}

impl DebtRead {
    fn fill(&self, p: &mut super::contract::RawFinanceParams) -> bool {
        let mut found = false;
        let mut set = |slot: &mut Option<serde_json::Value>, value: Option<serde_json::Value>| {
            if value.is_some() {
                *slot = value;
                found = true;
            }
        };
        set(&mut p.debt_name, self.name.as_ref().map(|n| json!(n)));
        set(
            &mut p.debt_balance,
            self.balance.map(|c| json!(cents_to_pesos(c))),
        );
        set(
            &mut p.debt_minimum,
            self.minimum.map(|c| json!(cents_to_pesos(c))),
        );
        set(&mut p.debt_due_day, self.due_day.map(|d| json!(d)));
        set(
            &mut p.debt_payment,
            self.payment.map(|c| json!(cents_to_pesos(c))),
        );
        found
    }
}

/// Cents as a peso string the contract reads back exactly.
fn cents_to_pesos(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

fn manage_debt(message: &Message) -> FinanceProposal {
    let debt = read_debt(message);
    let mut manage = action("MANAGE_DEBT");
    debt.fill(&mut manage.params);
    one(manage)
}

/// «la Fer me debe 120 del uber», «le presté 500 a mi primo Toño»: what
/// someone owes the person, with who (said before «me debe» or after «a»).
fn receivable(message: &Message) -> FinanceProposal {
    let read = read_debt(message);
    let tokens = &message.tokens;
    let owes = (1..tokens.len()).find(|&k| {
        (tokens[k - 1].norm == "me"
            && matches!(
                tokens[k].norm.as_str(),
                "debe" | "deben" | "debes" | "quedo" | "quedaron"
            ))
            // («la doña Marta se llevó fiado…»: who, before «se llevó».)
            || (tokens[k - 1].norm == "se" && matches!(tokens[k].norm.as_str(), "llevo" | "llevaron"))
    });
    // (Who «me debe» is someone, whatever the case it is written in: «y la
    // fer me debe 120»; never the words of time or stance beside it — «la Fer
    // todavía me debe», «en total me deben».)
    let stance = |w: &str| {
        matches!(
            w,
            "todavia"
                | "aun"
                | "ya"
                | "tambien"
                | "siempre"
                | "verdad"
                | "total"
                | "en"
                | "pues"
                | "como"
                | "casi"
                | "solo"
                | "nomas"
                | "igual"
        )
    };
    let name = read.name.clone().or_else(|| {
        let mut end = owes? - 1;
        while end > 0 && stance(&tokens[end - 1].norm) {
            end -= 1;
        }
        // «Un cliente, Marcos Pérez, todavía me debe…»: a name set off by
        // commas on both sides (never the message's first words, «Oye, me
        // debe…»), every word of it capitalised.
        let set_off = (end >= 2 && tokens[end - 1].ends_clause)
            .then(|| {
                let opening = (0..end - 1).rev().find(|&k| tokens[k].ends_clause)?;
                let name = &tokens[opening + 1..end];
                (name.len() <= 3
                    && name
                        .iter()
                        .all(|t| t.raw.chars().next().is_some_and(char::is_uppercase)))
                .then(|| name.iter().map(|t| t.raw.as_str()).collect::<Vec<_>>())
            })
            .flatten();
        let name = match set_off {
            Some(words) => words,
            None => phrase_before(&tokens[..end])
                .0
                .into_iter()
                .filter(|w| !stance(&normalize(w)))
                .collect(),
        };
        (!name.is_empty()).then(|| name.join(" "))
    });
    // («le di prestados 500»: the sum given is the sum owed.)
    let owed = DebtRead {
        name,
        balance: read.balance.or(read.payment),
        ..DebtRead::default()
    };
    let mut manage = action("MANAGE_DEBT");
    owed.fill(&mut manage.params);
    manage.params.debt_owed_to_me = Some(json!(true));
    one(manage)
}

/// «le presté 800 a mi sobrina», «le di prestados 500»: money lent, owed back
/// (whatever verb of giving it takes).
const LENT: &[&str] = &[
    "le preste",
    "les preste",
    "le prestamos",
    "les prestamos",
    "le di prestado",
    "le di prestados",
    "le di prestada",
    "le di prestadas",
    "le he prestado",
    "les he prestado",
    "le hemos prestado",
    "le deje prestado",
    "le deje prestados",
];

/// «se llevó fiado», «le fié 60»: sold on credit — owed to the person.
const CREDIT_GIVEN: &[&str] = &[
    "se llevo fiado",
    "se llevaron fiado",
    "le fie",
    "les fie",
    "le di fiado",
    "les di fiado",
    "le vendi fiado",
    "les vendi fiado",
    "le deje fiado",
    // (Never «me quedo debiendo»: unaccented, «quedo» is the person still
    // owing as much as «quedó», someone who owes them.)
    "me quedaron debiendo",
];

/// The verb after «me» of someone paying the person back («me devolvió», «me
/// ha (pagado)»).
const PAID_ME: &[&str] = &[
    "pago",
    "pagaron",
    "ha",
    "han",
    "devolvio",
    "devolvieron",
    "regreso",
    "regresaron",
    "abono",
    "deposito",
    "transfirio",
];

/// «ya me devolvió 1000 el Javi»: a sum paid back by someone who owed it —
/// who, the stored name the message points to, else as a receivable reads it.
fn paid_back(message: &Message, debtor: Option<&String>) -> FinanceProposal {
    let tokens = &message.tokens;
    // («Pedro me pagó los 500…»: who, just before «me» and the verb.)
    let before_me = || {
        let me = (0..tokens.len().saturating_sub(1))
            .find(|&k| tokens[k].norm == "me" && PAID_ME.contains(&tokens[k + 1].norm.as_str()))?;
        let name = phrase_before(&tokens[..me]).0;
        (!name.is_empty()).then(|| name.join(" "))
    };
    let name = debtor
        .cloned()
        .or_else(|| read_debt(message).name)
        .or_else(before_me)
        .or_else(|| {
            let p = receivable(message);
            let name = p.proposed_actions.first()?.params.debt_name.clone()?;
            name.as_str().map(str::to_owned)
        });
    // The sum said after the verb of paying back, not the largest («Javi me
    // devolvió 400 de los 1000 que me debe» paid 400).
    let words = crate::text::tokens(&message.rest);
    let paid_at = (0..words.len().saturating_sub(1))
        .find(|&k| words[k] == "me" && PAID_ME.contains(&words[k + 1]));
    let paid = paid_at
        .and_then(|at| message.amounts.iter().find(|f| f.start > at))
        .map(|f| f.cents)
        .or_else(|| message.main_amount());
    let mut manage = action("MANAGE_DEBT");
    let p = &mut manage.params;
    p.debt_name = name.map(|n| json!(n));
    p.debt_payment = paid.map(|c| json!(cents_to_pesos(c)));
    p.debt_owed_to_me = Some(json!(true));
    one(manage)
}

/// A stored name (a debt, someone who owes the person) the message points to:
/// the whole name, or a word of it that names the person rather than their
/// relation («Javi» for «mi primo Javi», «Caro» for «la Caro»).
fn named_in(norm: &str, stored: &str) -> bool {
    let whole = normalize(stored);
    if whole.is_empty() {
        return false;
    }
    // (Only a word written with a capital is a person's own name: «Javi» of
    // «mi primo Javi», never «trabajo» of «mi compa del trabajo».)
    let capitalised: Vec<String> = stored
        .split_whitespace()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .map(normalize)
        .collect();
    contains_phrase(norm, &whole)
        || capitalised.iter().map(String::as_str).any(|w| {
            w.chars().count() >= 3
                && !matches!(
                    w,
                    "mi" | "mis"
                        | "la"
                        | "el"
                        | "los"
                        | "las"
                        | "don"
                        | "dona"
                        | "senor"
                        | "senora"
                        | "primo"
                        | "prima"
                        | "tio"
                        | "tia"
                        | "hermano"
                        | "hermana"
                        | "amigo"
                        | "amiga"
                        | "vecino"
                        | "vecina"
                        | "compadre"
                        | "comadre"
                        | "cunado"
                        | "cunada"
                        | "suegro"
                        | "suegra"
                        | "jefe"
                        | "jefa"
                        | "papa"
                        | "mama"
                        | "hijo"
                        | "hija"
                        | "novio"
                        | "novia"
                        | "banco"
                        | "tarjeta"
                        | "credito"
                        | "prestamo"
                )
                && contains_phrase(norm, w)
        })
}

fn read_debt(message: &Message) -> DebtRead {
    let tokens = &message.tokens;
    let norms: Vec<&str> = tokens.iter().map(|t| t.norm.as_str()).collect();
    let amount_at = |i: usize| -> Option<(i64, usize)> { amount::read_at(&norms, i) };
    let mut read = DebtRead::default();
    let paid = any(
        &message.norm,
        &[
            "pague",
            "abone",
            "abono",
            "le di",
            "le deposite",
            "pago de",
            "le pase",
            "le transferi",
            "le devolvi",
            "le regrese",
            "le mande",
        ],
    ) && !contains_phrase(&message.norm, "pago minimo");
    let mut i = 0;
    while i < norms.len() {
        let word = norms[i];
        let next = norms.get(i + 1).copied();
        let day_follows = word == "dia"
            || (word == "el"
                && next.is_some_and(|n| n.parse::<u32>().is_ok())
                && read.minimum.is_some());
        if day_follows && let Some(day) = next.and_then(|d| d.parse::<i64>().ok()) {
            read.due_day = Some(day);
            i += 2;
            continue;
        }
        if matches!(word, "minimo" | "mensualidad" | "minima")
            && let Some((cents, end)) = (i + 1..(i + 3).min(norms.len())).find_map(&amount_at)
        {
            read.minimum = Some(cents);
            i = end;
            continue;
        }
        // («me fió 12 cajas, le debo 2400»: goods counted, not money.)
        if let Some((cents, end)) =
            amount_at(i).filter(|(_, end)| !norms.get(*end).is_some_and(|w| counts_goods(w)))
        {
            if paid && read.payment.is_none() {
                read.payment = Some(cents);
            } else if read.balance.is_none() {
                read.balance = Some(cents);
            }
            i = end;
            continue;
        }
        // «a la tarjeta de Liverpool»: the card is named below, with its «de».
        let card_follows = tokens[i + 1..]
            .iter()
            .find(|t| !words::ARTICLES.contains(&t.norm.as_str()))
            .is_some_and(|t| t.norm == "tarjeta");
        // («A Toño ya le di 1,500»: a name said first is capitalised.)
        // («al proveedor don Efraín le debo 1,200»: whom, said first, taken
        // up again by «le».)
        let named_first = i == 0
            && ((word == "a"
                && tokens
                    .get(1)
                    .is_some_and(|t| t.raw.chars().next().is_some_and(char::is_uppercase)))
                || (matches!(word, "a" | "al")
                    && any(
                        &message.norm,
                        &["le debo", "le debemos", "les debo", "les debemos"],
                    )));
        if matches!(word, "a" | "al" | "con")
            && read.name.is_none()
            && (i > 0 || named_first)
            && !card_follows
        {
            let mut clause_over = false;
            let name: Vec<&str> = tokens[i + 1..]
                .iter()
                .skip_while(|t| words::ARTICLES.contains(&t.norm.as_str()))
                // «a Chayo, anótelo por favor»: the name ends with its clause.
                .take_while(|t| {
                    let open = !clause_over;
                    clause_over |= t.ends_clause;
                    open && !asks_to_note(&t.norm)
                })
                .take_while(|t| {
                    // «a mi tía lo de los boletos»: the name ends where what is
                    // owed begins.
                    !matches!(
                        t.norm.as_str(),
                        "pago"
                            | "el"
                            | "y"
                            | "de"
                            | "del"
                            | "por"
                            | "minimo"
                            | "dia"
                            | "que"
                            | "lo"
                            | "la"
                            | "los"
                            | "las"
                            | "en"
                            | "para"
                            | "pa"
                            | "porque"
                            | "desde"
                            | "ya"
                            // «a mi hermano mientras no me pagaban».
                            | "mientras"
                            | "cuando"
                            | "pero"
                            | "hasta"
                    ) && t.norm.parse::<f64>().is_err()
                        && amount::amounts_in(&t.norm).is_empty()
                        // («al banco le debo 5000»: «le» takes the name up again.)
                        && !matches!(t.norm.as_str(), "le" | "les")
                })
                .take(3)
                .map(|t| t.raw.as_str())
                .collect();
            // «devolverlo a fin de mes», «a plazos»: when, or how, not whom.
            let when = name.first().is_some_and(|w| {
                matches!(
                    normalize(w).as_str(),
                    "fin"
                        | "fines"
                        | "finales"
                        | "principio"
                        | "principios"
                        | "inicio"
                        | "inicios"
                        | "mediados"
                        | "partir"
                        | "plazos"
                        | "cuotas"
                        | "mes"
                        | "semana"
                        | "quincena"
                        | "tiempo"
                        | "mas"
                        // («al final le debo 300 a Juan»: at the end, not whom.)
                        | "final"
                        | "rato"
                        | "ratito"
                        | "menos"
                        | "mejor"
                        | "contrario"
                        | "momento"
                )
            });
            if !name.is_empty() && !when {
                read.name = Some(name.join(" "));
            }
        }
        // «me prestó mi compadre Toño 3 mil»: who lent is who is owed.
        if word.starts_with("presto") && i > 0 && norms[i - 1] == "me" && read.name.is_none() {
            let name: Vec<&str> = tokens[i + 1..]
                .iter()
                .skip_while(|t| words::ARTICLES.contains(&t.norm.as_str()))
                .take_while(|t| {
                    t.norm.parse::<f64>().is_err()
                        && amount::amounts_in(&t.norm).is_empty()
                        && !matches!(
                            t.norm.as_str(),
                            "y" | "de" | "para" | "pa" | "que" | "el" | "la"
                        )
                })
                .take(3)
                .map(|t| t.raw.trim_end_matches([',', '.']))
                .collect();
            // «me prestó la cantidad de diez mil»: what was lent, not who.
            let money = name.first().is_some_and(|w| {
                matches!(
                    normalize(w).as_str(),
                    "cantidad"
                        | "suma"
                        | "monto"
                        | "dinero"
                        | "lana"
                        | "varo"
                        | "varos"
                        | "feria"
                        | "plata"
                        | "efectivo"
                        | "total"
                )
            });
            if !name.is_empty() && !money {
                read.name = Some(name.join(" "));
            } else if let Some(lender) = lender_before(&tokens[..i - 1]) {
                // «mi hermano Toño me prestó 3 mil»: the lender said first.
                read.name = Some(lender);
            } else if let Some(lender) = lender_after(&tokens[i + 1..]) {
                // «me prestó dinero mi mamá», «me prestó 500 mi tía»: the
                // lender said after what was lent.
                read.name = Some(lender);
            }
        }
        if word == "tarjeta" && read.name.is_none() {
            let mut clause_over = false;
            let mut name: Vec<&str> = tokens[i..]
                .iter()
                .take_while(|t| {
                    let open = !clause_over;
                    clause_over |= t.ends_clause;
                    open && !asks_to_note(&t.norm)
                })
                .take_while(|t| {
                    t.norm.parse::<f64>().is_err()
                        && amount::amounts_in(&t.norm).is_empty()
                        && !words::STOPS.contains(&t.norm.as_str())
                        && !matches!(
                            t.norm.as_str(),
                            "pago" | "el" | "y" | "con" | "minimo" | "dia" | "que" | "por"
                        )
                })
                .take(5)
                .map(|t| t.raw.as_str())
                .collect();
            // «la tarjeta de crédito de»: no name ends on «de».
            while name.len() > 1
                && name
                    .last()
                    .is_some_and(|w| matches!(normalize(w).as_str(), "de" | "del"))
            {
                name.pop();
            }
            read.name = Some(name.join(" "));
        }
        i += 1;
    }
    read
}

/// «anótelo», «apúntalo», «regístralo», «porfa»: asking to note it, never
/// part of a name.
fn asks_to_note(word: &str) -> bool {
    ["anot", "apunt", "regist", "porfa", "gracias"]
        .iter()
        .any(|stem| word.starts_with(stem))
}

/// Whether a folded word puts a movement somewhere: a verb of placing with
/// its object («ponlo», «pásala», «cámbialos», «muévelo», «mételas»).
fn places(word: &str) -> bool {
    ["lo", "la", "los", "las"].iter().any(|clitic| {
        word.strip_suffix(clitic).is_some_and(|verb| {
            matches!(verb, "pon" | "pasa" | "cambia" | "mueve" | "manda" | "mete")
        })
    })
}

/// Whether the message moves a movement to a category («ponla en regalos»).
fn puts_elsewhere(message: &Message) -> bool {
    let words: Vec<&str> = message.norm.split(' ').collect();
    // «cambia ese último gasto a entretenimiento», «pasa el gasto de ayer a
    // salud»: the movement named, then where it goes.
    let movement_moved = words.iter().enumerate().any(|(at, w)| {
        matches!(
            *w,
            "cambia" | "pasa" | "mueve" | "pon" | "cambiame" | "pasame"
        ) && words[at + 1..].iter().take(3).any(|m| {
            matches!(
                *m,
                "gasto" | "movimiento" | "registro" | "ultimo" | "ultima" | "compra"
            )
        }) && words[at + 1..]
            .iter()
            .take(6)
            .any(|m| matches!(*m, "a" | "en"))
    });
    movement_moved
        || words
            .windows(2)
            .any(|w| places(w[0]) && matches!(w[1], "en" | "a"))
}

/// Who lent, said before «me prestó» («mi hermano Toño», «el banco»): the
/// words right before it, back to its article or where the clause starts
/// («y», «que», a greeting, a date or a figure), at most three, without the
/// article.
fn lender_before(tokens: &[Token]) -> Option<String> {
    let (name, article) = phrase_before(tokens);
    // Someone: «mi hermano Toño», «el banco», «la Vero», «Toño» — never «la
    // luz» in «para pagar la luz me prestó 300 mi tía».
    let someone = matches!(article, Some("mi" | "mis" | "el"))
        || name
            .iter()
            .all(|w| w.chars().next().is_some_and(char::is_uppercase));
    (!name.is_empty() && someone).then(|| name.join(" "))
}

/// The words right before a verb, back to their article or where the clause
/// starts, at most three, without the article (which is returned apart).
fn phrase_before(tokens: &[Token]) -> (Vec<&str>, Option<&str>) {
    let mut name: Vec<&str> = Vec::new();
    let mut article = None;
    for t in tokens.iter().rev() {
        let word = t.norm.as_str();
        // The phrase starts at its article («mi hermano Toño»).
        if words::ARTICLES.contains(&word) {
            article = Some(word);
            break;
        }
        // («como no tenía efectivo, me prestó…»: a comma ends the clause.)
        if t.ends_clause {
            break;
        }
        let ends_clause = !word.chars().all(char::is_alphabetic)
            || words::STOPS.contains(&word)
            || words::GREETINGS.contains(&word)
            || matches!(
                word,
                "que"
                    | "pues"
                    | "oye"
                    | "oiga"
                    | "ya"
                    | "tambien"
                    | "anoche"
                    | "apunta"
                    | "anota"
                    | "registra"
                    | "se"
                    | "le"
                    | "como"
                    | "cuando"
                    | "buenas"
                    | "buenos"
                    | "dias"
                    | "tardes"
                    | "noches"
            );
        if ends_clause || name.len() == 3 {
            break;
        }
        name.push(t.raw.as_str());
    }
    name.reverse();
    (name, article)
}

/// Who lent, said after what was lent («me prestó dinero mi mamá», «me
/// prestó 500 pesos mi tía Rosa»): past the money (its words, figures,
/// «pesos», «de»), a phrase led by «mi» / «mis» / «su», or a capitalised
/// name after «el» / «la» («la Vero»), up to where the clause ends; never
/// a time («la semana pasada»).
fn lender_after(tokens: &[Token]) -> Option<String> {
    let money_words = [
        "cantidad", "suma", "monto", "dinero", "lana", "varo", "varos", "feria", "plata",
        "efectivo", "total", "de", "pesos", "peso", "mil", "lucas", "una", "un", "poco", "poquito",
        "como",
    ];
    let rest: Vec<&Token> = tokens
        .iter()
        .skip_while(|t| {
            !t.ends_clause
                && (money_words.contains(&t.norm.as_str())
                    || t.norm.parse::<f64>().is_ok()
                    || !amount::amounts_in(&t.norm).is_empty())
        })
        .collect();
    let (lead, tail) = rest.split_first()?;
    let possessive = matches!(lead.norm.as_str(), "mi" | "mis" | "su");
    let named = matches!(lead.norm.as_str(), "el" | "la")
        && tail
            .first()
            .is_some_and(|t| t.raw.chars().next().is_some_and(char::is_uppercase));
    if !possessive && !named {
        return None;
    }
    let mut clause_over = false;
    let name: Vec<&str> = tail
        .iter()
        .take_while(|t| {
            let open = !clause_over;
            clause_over |= t.ends_clause;
            open && t.norm.chars().all(char::is_alphabetic)
                && !words::STOPS.contains(&t.norm.as_str())
                && !asks_to_note(&t.norm)
                && !matches!(
                    t.norm.as_str(),
                    "y" | "de" | "para" | "pa" | "que" | "porque" | "hace" | "ayer" | "hoy"
                )
        })
        .take(3)
        .map(|t| t.raw.trim_end_matches([',', '.']))
        .collect();
    (!name.is_empty()).then(|| name.join(" "))
}

/// The category a correction moves to: the one named and not negated ("eso era
/// transporte, no comida"; "no era comida sino transporte").
fn corrected_category(tokens: &[Token]) -> Option<&'static Category> {
    let norms: Vec<&str> = tokens.iter().map(|t| t.norm.as_str()).collect();
    let mut target = None;
    for i in 0..norms.len() {
        let Some(category) = (1..=3)
            .rev()
            .filter(|len| i + len <= norms.len())
            .find_map(|len| category::named(&norms[i..i + len].join(" ")))
        else {
            continue;
        };
        let before = |k: usize| i.checked_sub(k).map(|j| norms[j]);
        // «ponlo en ropa», «mejor ponla en regalos»: where the movement is put
        // is the new category, whatever else the message names.
        // «…fue una chaqueta, va en ropa»: where it goes, said last.
        if matches!(before(1), Some("en" | "a")) && before(2).is_some_and(places)
            || before(1) == Some("en") && matches!(before(2), Some("va" | "van" | "iba" | "iban"))
        {
            return Some(category);
        }
        let negated = before(1) == Some("no")
            || (before(2) == Some("no")
                && matches!(
                    before(1),
                    Some("era" | "eran" | "es" | "son" | "fue" | "fueron" | "en" | "de")
                ))
            || (before(3) == Some("no") && before(2) == Some("va") && before(1) == Some("en"));
        if negated {
            continue;
        }
        if before(1) == Some("sino") {
            return Some(category);
        }
        target.get_or_insert(category);
    }
    target
}

#[cfg(test)]
mod tests;
