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
mod memo;
mod mentions;
mod order_status;

#[cfg(test)]
mod tests;

use crate::shop::core::{Event, ProductId, State};
use crate::shop::messages;
use crate::text::{normalize, token_number, tokens};

use super::contract::{Proposal, ProposalInput, ProposedAction};
use lexicon::any;
use mentions::Mention;

pub use memo::CatalogMemo;
pub use mentions::{singular, word_matches};
pub use order_status::asks_order_status;

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
    settle(input, read(input))
}

/// What [`propose`] makes of the rules' reading of the message.
fn settle(input: &ProposalInput, mut reading: Reading) -> Proposal {
    // «entonces 2 capuchinos», «total 4», «o sea 3 capuchinos y 1 brownie»,
    // «capuchinos: 5», «igual quiero 3 brownies» with those lines in the
    // cart: the count said again is what the line becomes, never more of it.
    // «quítale uno a los capuchinos», «sácale una a las limonadas»: one
    // unit off the line, never the whole line.
    if let Some((id, off)) = one_taken_off(input) {
        for action in &mut reading.proposal.proposed_actions {
            let this = action.params.product_id.as_ref().and_then(|v| v.as_i64()) == Some(id);
            if this && action.action_type == "REMOVE_ITEM" {
                let left = input.cart.quantity_of(id).unwrap_or(0) - off;
                if left > 0 {
                    *action = ProposedAction::new("UPDATE_QUANTITY")
                        .product(id)
                        .quantity(left);
                }
            }
        }
    }
    if restates_the_cart(input) {
        for action in &mut reading.proposal.proposed_actions {
            let in_cart = action
                .params
                .product_id
                .as_ref()
                .and_then(|v| v.as_i64())
                .is_some_and(|id| input.cart.holds(id));
            if action.action_type == "ADD_TO_CART" && in_cart {
                action.action_type = "UPDATE_QUANTITY".into();
            }
        }
    }
    // «caliente sí» right after a chocolate caliente was added: which one,
    // said again, is no second one.
    if let Some(shown) = said_which_again(input, &reading.proposal) {
        return shown;
    }
    // «solo quiero el cheesecake, lo demás no»: the lines named stay, the rest
    // go out.
    if let Some(kept) = keeps_only(input) {
        return kept;
    }
    // «no tomo café, mejor chocolate», «y una limonada... mejor maracuyá»,
    // «los croissants eran brownies»: a product said instead of another
    // replaces it — or, when which one is not clear, is asked.
    if let Some(instead) = said_instead(input, &reading.proposal) {
        return instead;
    }
    // «ayer pedí un capuchino y me llegó frío»: an order told in the past is
    // the story of a complaint, not a new one.
    let changes_lines = reading.proposal.proposed_actions.iter().any(|a| {
        matches!(
            a.action_type.as_str(),
            "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM"
        )
    });
    if changes_lines && told_in_the_past(&prepared(&input.customer_message)) {
        return clarify(messages::CLARIFY_DEFAULT);
    }
    // «no sé si cancelar», «¿cancelo?», «mi amigo dice que cancele pero yo
    // quiero», «muy caro, olvídalo»: calling everything off in words that
    // doubt it, ask it or may mean only the last thing is asked, never done.
    if calls_off_unsure(input, &reading.proposal) {
        return clarify(messages::CANCEL_ASKED);
    }
    // «mi jefe dijo que no le pida dos», «no quiero que sean tres», «quería
    // un matcha pero al final no», «duplica todo menos el brownie»: a change
    // said with a doubt or a negation around it is asked, never made.
    // («no me pongas el cheesecake», with one in the cart, is read as its
    // removal, no doubt.)
    let taken_out = || {
        let message = prepared(&input.customer_message);
        not_put(input, message.clone()) != message
    };
    if reading.changes_anything()
        && (doubts(&input.customer_message)
            || corrected_within(input, &reading.proposal)
            || unsure_of_what(input, &reading.proposal)
            || kind_heading(&tokens(&prepared(&input.customer_message)), input)
                .is_some_and(|(_, said, summed)| said != summed)
            || same_as_whom(input)
            || nothing_of_a_product(input)
            || retracts(input, &reading.proposal))
        && !taken_out()
    {
        return clarify(messages::CLARIFY_DEFAULT);
    }
    // «unas salteñas de pollo y cuatro maracuyá»: what the shop sells is
    // taken, and the foods it does not sell are said so, never dropped in
    // silence, when they are all the reading left.
    let unsold = unsold_foods(&input.customer_message, &input.product_catalog);
    // «y un agua sin gas» after americanos: the count is the water's, which is
    // not sold — never a change to a line the message does not name.
    if !unsold.is_empty() && reading.changes_anything() {
        let named = products_in(&input.customer_message, &input.product_catalog);
        let unnamed_change = reading.proposal.proposed_actions.iter().any(|a| {
            EFFECTS.contains(&a.action_type.as_str())
                && a.params
                    .product_id
                    .as_ref()
                    .and_then(|v| v.as_i64())
                    .is_some_and(|id| !named.contains(&id))
        });
        if unnamed_change {
            let mut asked = clarify(messages::CLARIFY_DEFAULT);
            asked.response_text = messages::not_sold_asked(&unsold);
            return asked;
        }
    }
    // «un cheesecake de maracuyá», «un croissant de chocolate», «un capuchino
    // con chocolate»: a product made the way of another is a variant the shop
    // does not sell — said so, never read as the two products.
    let (sold, variants): (Vec<Variant>, Vec<Variant>) =
        unsold_variants(input).into_iter().partition(|v| v.sold);
    // «un brownie de chocolate»: the chocolate is the brownie's, no drink.
    let reading = if sold.is_empty() {
        reading
    } else {
        let text = prepared(&input.customer_message);
        let words = tokens(&text);
        let described: Vec<ProductId> = sold.iter().map(|v| v.products[1]).collect();
        let elsewhere: Vec<ProductId> = mentions::find(&words, &input.product_catalog)
            .iter()
            .filter(|m| !sold.iter().any(|v| m.start > v.start && m.end <= v.end))
            .filter_map(|m| m.product())
            .collect();
        let mut reading = reading;
        reading.proposal.proposed_actions.retain(|a| {
            a.params
                .product_id
                .as_ref()
                .and_then(|v| v.as_i64())
                .is_none_or(|id| !described.contains(&id) || elsewhere.contains(&id))
        });
        reading
    };
    if !variants.is_empty() {
        let spans: Vec<(usize, usize)> = variants.iter().map(|v| (v.start, v.end)).collect();
        let text = prepared(&input.customer_message);
        let words = tokens(&text);
        let elsewhere: Vec<ProductId> = mentions::find(&words, &input.product_catalog)
            .iter()
            .filter(|m| !spans.iter().any(|(s, e)| m.start >= *s && m.end <= *e))
            .filter_map(|m| m.product())
            .collect();
        let inside: Vec<ProductId> = variants.iter().flat_map(|v| v.products).collect();
        let mut proposal = reading.proposal.clone();
        proposal.proposed_actions.retain(|a| {
            a.params
                .product_id
                .as_ref()
                .and_then(|v| v.as_i64())
                .is_none_or(|id| !inside.contains(&id) || elsewhere.contains(&id))
                && a.action_type != "CLARIFY"
        });
        let said: Vec<String> = variants.iter().map(|v| v.said.clone()).collect();
        let kept = changes_anything(&proposal);
        proposal
            .proposed_actions
            .push(ProposedAction::new("CLARIFY"));
        proposal.response_text = if kept {
            messages::not_sold_beside(&said)
        } else {
            messages::not_sold_asked(&said)
        };
        return proposal;
    }
    let only_additions = reading
        .proposal
        .proposed_actions
        .iter()
        .all(|a| a.action_type == "ADD_TO_CART");
    if !unsold.is_empty() && reading.changes_anything() && only_additions {
        let foods: Vec<String> = unsold.iter().map(|f| normalize(f)).collect();
        let is_food = |w: &str| {
            foods
                .iter()
                .any(|f| mentions::singular(f) == mentions::singular(w))
        };
        // «salteñas de pollo»: what follows a food says which, and is its.
        let text = prepared(&input.customer_message);
        let said = tokens(&text);
        let qualifies = |w: &str| {
            said.iter()
                .enumerate()
                .any(|(k, s)| *s == w && (1..=3).any(|back| k >= back && is_food(said[k - back])))
        };
        // «empanadas tres y brownie uno»: a count said for the food asks
        // back (below) instead.
        let counted_food = said.iter().enumerate().any(|(k, w)| {
            is_food(w)
                && [k.checked_sub(1), Some(k + 1)]
                    .into_iter()
                    .flatten()
                    .any(|j| said.get(j).is_some_and(|n| count(n).is_some()))
        });
        // «sin api», «no tienen salteñas, entonces…»: a food the customer
        // already knows is not sold needs no telling.
        let known_unsold = said.iter().enumerate().any(|(k, w)| {
            is_food(w)
                && said[k.saturating_sub(3)..k]
                    .iter()
                    .any(|b| matches!(*b, "sin" | "no" | "ni"))
        });
        let explained = !counted_food
            && !known_unsold
            && reading
                .unread_words()
                .iter()
                .all(|w| is_food(w) || qualifies(w));
        if explained {
            let mut proposal = reading.proposal;
            proposal
                .proposed_actions
                .push(ProposedAction::new("CLARIFY"));
            proposal.response_text = messages::not_sold_beside(&unsold);
            return proposal;
        }
    }
    // «y si pido 3 cheesecakes?», «me gusta el matcha», «quiero ver el
    // cheesecake»: a product named in a hypothesis, an opinion or a wish to
    // see it is shown, never put in the cart.
    if let Some(shown) = shown_not_ordered(input, &reading.proposal) {
        return shown;
    }
    // «…quite el croissant y ponga un brownie no no el brownie también tiene
    // huevo…»: a product ordered and then taken back with «no no» is asked.
    if reading.changes_anything() && taken_back(input) {
        return clarify(messages::CLARIFY_DEFAULT);
    }
    if reading.confident || !reading.changes_anything() {
        return reading.proposal;
    }
    if reading.asks_instead(input) {
        let unread = reading.unread_words();
        return reading.asked_back(input, &unread);
    }
    let unread: Vec<String> = reading
        .unread_clause(input)
        .into_iter()
        .map(str::to_owned)
        .collect();
    if unread.is_empty() {
        return reading.proposal;
    }
    if let Some(partial) = reading.acts_on_part(input) {
        return partial;
    }
    reading.asked_back(input, &unread)
}

/// The cart lines a message points at by what they are (see
/// `Reader::line_described`).
enum Described {
    /// No word of a kind, a description or a name.
    Nothing,
    /// Words that fit no line of the cart.
    NoLine,
    One(ProductId),
    Several(Vec<ProductId>),
}

/// A product asked for made the way of another («cheesecake de maracuyá»).
struct Variant {
    said: String,
    start: usize,
    end: usize,
    products: [ProductId; 2],
    /// The first product's description holds the second's name («brownie de
    /// chocolate»): it is the first product as sold.
    sold: bool,
}

/// Products said «de» or «con» another product right after («cheesecake de
/// maracuyá», «capuchino con chocolate»; «brownie de chocolate», whose
/// description holds the second one's name, is the brownie as sold).
fn unsold_variants(input: &ProposalInput) -> Vec<Variant> {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    let catalog = mentions::catalog_words(&input.product_catalog);
    // «un brownie sin nueces», «un chai sin leche»: without what its
    // description says it is made with; «un americano doble», «un capuchino
    // helado»: a way the catalog does not sell.
    let mut out: Vec<Variant> = found
        .iter()
        .filter_map(|m| {
            let id = m.product()?;
            let description = &catalog.iter().find(|(p, ..)| *p == id)?.2;
            let after = &words[m.end..];
            // «un brownie, pero sin nueces».
            let but = usize::from(after.first() == Some(&"pero"));
            let without = match &after[but..] {
                ["sin", "el" | "la" | "los" | "las", w, ..] | ["sin", w, ..] => Some(*w),
                _ => None,
            }
            .filter(|w| {
                w.chars().count() >= 4 && description.iter().any(|d| d == mentions::singular(w))
            });
            let sized = after
                .first()
                .filter(|w| MODIFIERS.contains(w) && !description.iter().any(|d| d == **w));
            let end = m.end + if without.is_some() { 2 + but } else { 1 };
            (without.is_some() || sized.is_some()).then(|| Variant {
                said: words[m.start..end.min(words.len())].join(" "),
                start: m.start,
                end: end.min(words.len()),
                products: [id, id],
                sold: false,
            })
        })
        .collect();
    out.extend(found.iter().filter_map(|m| {
        let id = m.product()?;
        let entry = input.product_catalog.iter().find(|p| p.product_id == id)?;
        let description = &catalog.iter().find(|(p, ..)| *p == id)?.2;
        let after = &words[m.end..words.len().min(m.end + 4)];
        let end = |n: usize| (m.end + n).min(words.len());
        let unsold_way = way_not_sold(entry, description, after)?;
        Some(Variant {
            said: words[m.start..end(unsold_way)].join(" "),
            start: m.start,
            end: end(unsold_way),
            products: [id, id],
            sold: false,
        })
    }));
    // «un pie de limón», «un helado de maracuyá», «pan de chocolate», «un té
    // de limón»: a food the shop does not make, in the flavour of a product it
    // sells, is not that product (while «jugo de maracuyá» is the maracuyá:
    // its description says so).
    out.extend(found.iter().filter_map(|m| {
        let id = m.product()?;
        if m.start < 2 || !matches!(words[m.start - 1], "de" | "con" | "sabor") {
            return None;
        }
        let food = words[m.start - 2];
        let (_, name, description) = catalog.iter().find(|(p, ..)| *p == id)?;
        let its_own = name
            .iter()
            .chain(description)
            .any(|w| w == mentions::singular(food));
        let a_food = lexicon::is_food(food) || matches!(food, "te" | "mousse" | "tarta" | "postre");
        (a_food && !its_own && !found.iter().any(|o| o.end == m.start - 1)).then(|| Variant {
            said: words[m.start - 2..m.end].join(" "),
            start: m.start - 2,
            end: m.end,
            products: [id, id],
            sold: false,
        })
    }));
    out.extend(found.windows(2).filter_map(|pair| {
        let (a, b) = (&pair[0], &pair[1]);
        let (first, second) = (a.product()?, b.product()?);
        if first == second || b.start != a.end + 1 || !matches!(words[a.end], "de" | "con") {
            return None;
        }
        let description = &catalog.iter().find(|(id, ..)| *id == first)?.2;
        let held = words[b.start..b.end]
            .iter()
            .any(|w| description.iter().any(|d| d == mentions::singular(w)));
        Some(Variant {
            said: words[a.start..b.end].join(" "),
            start: a.start,
            end: b.end,
            products: [first, second],
            sold: held,
        })
    }));
    out
}

/// How many of the words after a product ask for it a way the catalog does
/// not sell, by its tags and description: «un brownie vegano», «un
/// cheesecake sin gluten», «un matcha caliente», «un americano frío», «un
/// capuchino sin lactosa» or «con leche de avena» (milk it is made with, not
/// of almonds), «una limonada de frutilla» (a flavour its description lacks).
fn way_not_sold(
    entry: &super::contract::CatalogEntry,
    description: &[String],
    after: &[&str],
) -> Option<usize> {
    let tagged = |tag: &str| {
        entry
            .tags
            .iter()
            .any(|t| crate::text::normalize(t) == crate::text::normalize(tag))
    };
    let holds = |word: &str| description.iter().any(|d| d == mentions::singular(word));
    // Only the words said right after it, an article or «pero» between.
    let skip = after
        .iter()
        .take_while(|w| matches!(**w, "pero" | "que" | "sea" | "bien"))
        .count();
    let said = &after[skip..];
    let n = |k: usize| Some(skip + k);
    match said {
        ["vegano" | "vegana" | "veganos" | "veganas", ..] if !tagged("vegano") => n(1),
        ["sin", "gluten", ..] if !tagged("sin gluten") => n(2),
        ["sin", "cafeina", ..] | ["descafeinado" | "descafeinada", ..] if tagged("con cafeína") => {
            n(2)
        }
        [
            "frio" | "fria" | "frios" | "frias" | "helado" | "helada" | "heladito",
            ..,
        ] if tagged("caliente") && !tagged("frío") => n(1),
        ["con", "hielo", ..] if tagged("caliente") && !tagged("frío") => n(2),
        ["caliente" | "calientes" | "calientito" | "calentito", ..]
            if tagged("frío") && !tagged("caliente") =>
        {
            n(1)
        }
        ["sin", "lactosa", ..] | ["deslactosado" | "deslactosada", ..] | ["sin", "leche", ..]
            if holds("leche") && !holds("almendra") && !holds("almendras") =>
        {
            n(2)
        }
        ["con" | "de", "leche", "de", milk, ..]
            if !holds(milk) && !milk.starts_with("almendra") =>
        {
            n(4)
        }
        [
            "con" | "de",
            "leche",
            "deslactosada" | "descremada" | "light",
            ..,
        ] => n(3),
        ["de" | "con", "soya" | "soja" | "avena", ..] => n(2),
        ["de" | "sabor", flavour, ..] | ["con", flavour, ..]
            if FLAVOURS.contains(flavour) && !holds(flavour) =>
        {
            n(2)
        }
        _ => None,
    }
}

/// Flavours a customer may ask a product in («limonada de frutilla»).
const FLAVOURS: &[&str] = &[
    "frutilla",
    "fresa",
    "mango",
    "durazno",
    "pina",
    "coco",
    "vainilla",
    "caramelo",
    "menta",
    "limon",
    "naranja",
    "mora",
    "frambuesa",
    "arandano",
    "canela",
    "avellana",
    "manzana",
    "banana",
    "platano",
    "sandia",
    "tamarindo",
    "maracuya",
    "chocolate",
];

/// Sizes and ways a drink may be asked for that the catalog does not sell
/// unless a description says so.
/// (A size, «un americano grande», is the one size sold.)
const MODIFIERS: &[&str] = &[
    "doble",
    "triple",
    "helado",
    "helada",
    "frappe",
    "light",
    "descafeinado",
    "descafeinada",
];

/// Words that put what follows in a hypothesis: «y si pido 3?», «cuánto me
/// saldría», «hay descuento si llevo 10», «de haber sabido pedía 2».
const HYPOTHETICAL: &[&str] = &[
    "si pido",
    "si pedimos",
    "si pidiera",
    "si pidieramos",
    "si llevo",
    "si llevamos",
    "si llevara",
    "si compro",
    "si compramos",
    "si compraba",
    "si encargo",
    "si encargamos",
    "si quisiera",
    "si quisieramos",
    "que pasa si",
    "saldria",
    "saldrian",
    "costaria",
    "costarian",
    "convendria",
    "conviene",
    "de haber sabido",
    // «¿cuánto serían 2 brownies más?»: the price of an order, asked first.
    "cuanto serian",
    "cuanto seria",
    "cuanto sale",
    "cuanto salen",
    "cuanto cuesta",
    "cuanto cuestan",
    "cuanto vale",
    "cuanto valen",
    "cuanto costaria",
    "cuanto me sale",
    "cuanto me salen",
    "hubiera",
    "hubieramos",
];

/// A condition the rules cannot weigh: «si es menos de 30 lo quiero», «si el
/// matcha es caliente quiero uno», «capaz pido uno después», «a menos que…».
/// («si hay», «si tienen» ask for what is in stock, and are read as orders.)
const CONDITIONS: &[&str] = &[
    "si es",
    "si son",
    "si esta",
    "si estan",
    "si cuesta",
    "si cuestan",
    "si sale",
    "si salen",
    "si vale",
    "si llega",
    "si llegan",
    "si viene",
    "si vienen",
    "si alcanza",
    "si lleva",
    "si llevan",
    "si el",
    "si la",
    "si los",
    "si las",
    "a menos que",
    "en caso de que",
    "en caso que",
    "suponiendo que",
    "supongamos que",
    "mas tarde",
    "capaz",
    "talvez",
    "de repente",
];

/// Courtesy said like a condition: «si es posible», «si es que se puede».
const COURTESY_CONDITIONS: &[&str] = &[
    "si es posible",
    "si es que",
    "si es para",
    "si es mucha molestia",
    "si no es molestia",
];

/// Words of liking or hearsay, not of ordering: «me gusta el matcha», «amo los
/// brownies», «mi amiga me recomendó el chai».
const OPINION: &[&str] = &[
    "gusta",
    "gustan",
    "encanta",
    "encantan",
    "encanto",
    "amo",
    "adoro",
    "odio",
    "recomendo",
    "recomendaron",
    "recomendaste",
    "interesa",
    "interesan",
    "dicen que",
];

/// Words of wanting to see: «quiero ver el cheesecake», «me muestras el
/// matcha», «a ver el chai».
const SEEING: &[&str] = &[
    "ver",
    "a ver",
    "mostrar",
    "muestra",
    "muestras",
    "muestrame",
    "mostras",
    "mostrame",
    "ensena",
    "ensenas",
    "ensename",
    "ensenan",
    "foto",
    "conocer",
];

/// The products a proposal would add, shown instead, when the words around
/// them hypothesise («y si pido 3?»), give an opinion («me gusta el matcha»),
/// ask to see («me muestras el matcha») or compare («el chai o el capuchino,
/// cuál es más rico»). An opinion or a wish to see beside a count or an
/// order verb («me encantan, ponme 2») still orders.
fn shown_not_ordered(input: &ProposalInput, proposal: &Proposal) -> Option<Proposal> {
    // The lines the proposal would change: a hypothesis moves none of them.
    let added: Vec<ProductId> = proposal
        .proposed_actions
        .iter()
        .filter(|a| {
            matches!(
                a.action_type.as_str(),
                "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM"
            )
        })
        .filter_map(|a| a.params.product_id.as_ref().and_then(|v| v.as_i64()))
        .collect();
    if added.is_empty() {
        return None;
    }
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let counted = words.iter().any(|w| count(w).is_some());
    let verb = words.iter().any(|w| lexicon::adds(w)) || any(&text, lexicon::ADD);
    let found = mentions::find(&words, &input.product_catalog);
    // Where each marker's words are, so a product is read with the marker
    // said right before it (not «…a mi jefa no le gusta el café» beside a
    // swap).
    let marked = |phrases: &[&str]| {
        let mut at = vec![false; words.len()];
        lexicon::cover(&words, phrases, &mut at);
        at
    };
    let every_added_after = |at: &[bool], window: usize| {
        added.iter().all(|id| {
            found
                .iter()
                .filter(|m| m.product() == Some(*id))
                .any(|m| (m.start.saturating_sub(window)..m.start).any(|k| at[k]))
        })
    };
    let hypothetical = every_added_after(&marked(HYPOTHETICAL), words.len())
        || any(&text, &["algun dia"])
        || (any(&text, CONDITIONS) && !any(&text, COURTESY_CONDITIONS));
    // «el americano es de los yungas»: a product said to be something, not
    // asked for.
    let said_of = !counted
        && !verb
        && added.iter().all(|id| {
            found.iter().any(|m| {
                m.product() == Some(*id)
                    && (m.start == 0 || matches!(words[m.start - 1], "el" | "la" | "los" | "las"))
                    && words.get(m.end).is_some_and(|w| {
                        matches!(
                            *w,
                            "es" | "son" | "esta" | "estan" | "viene" | "vienen" | "era"
                        )
                    })
            })
        });
    let opinion = !counted && !verb && every_added_after(&marked(OPINION), 4);
    let seeing = !counted
        && !words.iter().any(|w| lexicon::adds(w))
        && every_added_after(&marked(SEEING), 3);
    let compared = words.contains(&"cual")
        && found
            .windows(2)
            .any(|pair| words[pair[0].end..pair[1].start].contains(&"o"));
    let only_additions = proposal
        .proposed_actions
        .iter()
        .all(|a| matches!(a.action_type.as_str(), "ADD_TO_CART" | "SHOW_PRODUCT"));
    // «y el chai» right after a product was shown: and what about the chai.
    let and_this = input.focus.is_some_and(|f| !added.contains(&f))
        && !counted
        && !verb
        && matches!(words.first(), Some(&("y" | "e")))
        && matches!(words.get(1), Some(&("el" | "la" | "los" | "las")))
        && words.len() <= 4
        && found.len() == 1;
    // (A swap asked, «¿y si mejor lo cambio por una limonada?», is asked back
    // below, never shown.)
    let asked = !proposal
        .proposed_actions
        .iter()
        .any(|a| a.action_type == "REMOVE_ITEM")
        && !words.iter().any(|w| swap_verb(w))
        && {
            let asked = asked_not_requested(input);
            added.iter().all(|id| asked.contains(id))
        };
    if !(hypothetical
        || asked
        || (only_additions && (opinion || seeing || compared || said_of || and_this)))
    {
        return None;
    }
    let shown: Vec<ProposedAction> = proposal
        .proposed_actions
        .iter()
        .filter(|a| {
            matches!(
                a.action_type.as_str(),
                "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM" | "SHOW_PRODUCT"
            )
        })
        .filter_map(|a| a.params.product_id.as_ref().and_then(|v| v.as_i64()))
        .fold(Vec::new(), |mut ids: Vec<ProductId>, id| {
            if !ids.contains(&id) {
                ids.push(id);
            }
            ids
        })
        .into_iter()
        .take(5)
        .map(|id| ProposedAction::new("SHOW_PRODUCT").product(id))
        .collect();
    Some(Proposal::new(shown, ""))
}

/// The products named inside a question that asks for nothing («¿puedo pedir
/// 20 americanos para el viernes?», «quiero saber el precio de 2 matchas?»,
/// «¿3 limonadas o 4?», «entonces 4 limonadas, ¿sí?» — a tag question asks the
/// sentence before it). A question asked of the shop («¿me das 2
/// capuchinos?», «¿me pones un brownie, porfa?») is a request, not counted.
fn asked_not_requested(input: &ProposalInput) -> Vec<ProductId> {
    const TAGS: &[&str] = &[
        "si", "no", "verdad", "cierto", "ok", "va", "ya", "correcto", "vale", "dale", "bueno",
    ];
    let raw = &input.customer_message;
    // «quiero saber el precio de 2 matchas», «quería preguntar si 2
    // cheesecakes alcanzan para 8»: a question said without its mark.
    let text = prepared(raw);
    let says_it_asks = any(
        &text,
        &[
            "quiero saber",
            "queria saber",
            "quisiera saber",
            "quiero preguntar",
            "queria preguntar",
            "quisiera preguntar",
            "queria consultar",
            "quiero consultar",
            "quisiera consultar",
            "para saber",
        ],
    );
    let raw = if says_it_asks && !raw.contains('?') {
        std::borrow::Cow::Owned(format!("¿{raw}?"))
    } else {
        std::borrow::Cow::Borrowed(raw.as_str())
    };
    if !raw.contains('?') {
        return Vec::new();
    }
    // A question opened with «¿» is the whole of it; one without, its last
    // clause («casero, 4 limonadas y 4 croissants, con yapa ya?» asks for the
    // yapa). A tag («¿sí?», «, no?») asks the clause before it.
    let is_tag = |text: &str| {
        let words = tokens(text);
        !words.is_empty() && words.iter().all(|w| TAGS.contains(w))
    };
    // Every sentence or clause said, and whether it is asked.
    let mut said: Vec<(String, bool)> = Vec::new();
    let mut piece = String::new();
    let mut opened = false;
    for c in raw.chars() {
        match c {
            '?' => {
                let clauses: Vec<&str> = if opened {
                    vec![piece.as_str()]
                } else {
                    piece.split(',').collect()
                };
                let (last, before) = clauses.split_last().unwrap_or((&"", &[]));
                for clause in before {
                    said.push((prepared(clause), false));
                }
                let last = prepared(last);
                if is_tag(&last) {
                    if let Some(asked) = said.last_mut() {
                        asked.1 = true;
                    }
                } else {
                    said.push((last, true));
                }
                piece.clear();
                opened = false;
            }
            '.' | '!' | '\n' | ';' | '¿' => {
                if !piece.trim().is_empty() {
                    said.push((prepared(&piece), false));
                    piece.clear();
                }
                opened = c == '¿';
            }
            _ => piece.push(c),
        }
    }
    said.push((prepared(&piece), false));
    let questions: Vec<String> = said
        .iter()
        .filter(|(_, q)| *q)
        .map(|(t, _)| t.clone())
        .collect();
    let told = said
        .iter()
        .filter(|(_, q)| !q)
        .map(|(t, _)| t.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    // «¿tienen chai? dame 2», «y del cheesecake hay? si hay también uno»: a
    // request told beside the question is the order.
    let told_words = tokens(&told);
    if told_words
        .iter()
        .any(|w| lexicon::adds(w) || token_number(w).is_some() || *w == "dame")
    {
        return Vec::new();
    }
    questions
        .iter()
        .filter(|q| {
            let words = tokens(q);
            let requested = words.windows(2).any(|w| {
                matches!(w[0], "me" | "nos")
                    && (lexicon::adds(w[1])
                        || ["da", "trae", "pon", "pas", "prepar", "vend", "sirv", "hac", "dej"]
                            .iter()
                            .any(|stem| w[1].starts_with(stem)))
            }) || words.iter().any(|w| {
                matches!(
                    *w,
                    "puedes" | "podes" | "podrias" | "podria" | "puede" | "pueden" | "podrian"
                        | "porfa" | "porfavor" | "please" | "plis" | "xfa" | "dame" | "danos"
                        | "deme"
                ) || (lexicon::adds(w) && !w.ends_with('o') && !w.ends_with("ar") && !w.ends_with("ir"))
            }) || any(q, &["por favor"])
                // «quiero 2 capuchinos?», not «quiero saber el precio de 2…».
                || words.windows(2).any(|w| {
                    matches!(w[0], "quiero" | "quisiera" | "queria" | "queremos")
                        && !matches!(w[1], "saber" | "preguntar" | "consultar" | "ver" | "conocer")
                });
            !requested
        })
        .flat_map(|q| {
            mentions::find(&tokens(q), &input.product_catalog)
                .into_iter()
                .filter_map(|m| m.product())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// «ponga un brownie no no el brownie…»: a product named again right after a
/// doubled «no» that follows its first naming.
fn taken_back(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    words.windows(2).enumerate().any(|(k, w)| {
        if w != ["no", "no"] {
            return false;
        }
        // (A product named twice is found once per search: each side apart.)
        let before = mentions::find(&words[..k], &input.product_catalog);
        let after = mentions::find(&words[k + 2..], &input.product_catalog);
        after.first().is_some_and(|m| {
            m.start <= 1
                && m.product().is_some()
                && before.iter().any(|b| b.product() == m.product())
        })
    })
}

/// «…y una maracuyá, ah no, mejor la maracuyá no», «quería un chai, pero leí
/// que tiene cafeína, así que mejor una limonada», «el brownie después lo
/// veo»: a product taken back in words the reading does not follow; asked.
fn retracts(input: &ProposalInput, proposal: &Proposal) -> bool {
    // Only when the reading still changes a product named before the words
    // that take it back («agrega una limonada, ah no, mejor maracuyá» read as
    // the maracuyá alone is right).
    let changed: Vec<ProductId> = proposal
        .proposed_actions
        .iter()
        .filter(|a| EFFECTS.contains(&a.action_type.as_str()))
        .filter_map(|a| a.params.product_id.as_ref().and_then(|v| v.as_i64()))
        .collect();
    const TAKEN_BACK: &[&str] = &[
        "ah no",
        "mejor no",
        "pensandolo bien",
        "al reves",
        "asi que mejor",
        "pero mejor",
        "mejor ya no",
    ];
    // «el brownie después lo veo»: put off, said right after the product.
    const PUT_OFF: &[&str] = &["despues lo veo", "lo veo despues", "luego lo veo"];
    // Sentence by sentence: «…nada más por ahora. Ah y para el niño algo, pero
    // eso después lo veo» puts off something else.
    input
        .customer_message
        .split(['.', '!', '?', ';', '\n'])
        .any(|sentence| {
            let text = prepared(sentence);
            let words = tokens(&text);
            let found = mentions::find(&words, &input.product_catalog);
            let changes = |m: &mentions::Mention| m.product().is_some_and(|id| changed.contains(&id));
            let marked = |phrases: &[&str]| {
                let mut at = vec![false; words.len()];
                lexicon::cover(&words, phrases, &mut at);
                at.iter().position(|c| *c)
            };
            marked(TAKEN_BACK).is_some_and(|at| found.iter().any(|m| m.end <= at && changes(m)))
                || marked(PUT_OFF)
                    .is_some_and(|at| found.iter().any(|m| m.end <= at && at <= m.end + 2 && changes(m)))
                // «la maracuyá no»: a product named again with a bare no after it.
                || found.iter().enumerate().any(|(k, m)| {
                    words.get(m.end) == Some(&"no")
                        && words.get(m.end + 1).is_none_or(|w| !lexicon::adds(w))
                        && found[..k].iter().any(|e| e.candidates == m.candidates)
                        && changes(m)
                })
        })
}

/// «nada de croissant», «nada de brownie por ahora»: a product refused by
/// name (not «ya nada de comer», «no hay nada de nada»).
fn nothing_of_a_product(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    words.windows(2).enumerate().any(|(k, w)| {
        w == ["nada", "de"]
            && mentions::find(&words[k + 2..], &input.product_catalog)
                .first()
                .is_some_and(|m| m.start <= 1 && m.product().is_some())
    })
}

/// Whether a change is said with a doubt or a negation around it that the
/// reading does not follow (see [`propose`]).
fn doubts(message: &str) -> bool {
    let text = prepared(message);
    let words = tokens(&text);
    // Within a clause: «todavía no, agrega un chai» is a no, then an order.
    let negated_order = message.split([',', '.', ';', '!', '?', '\n']).any(|part| {
        let part = prepared(part);
        let words = tokens(&part);
        // An order verb, not «no toma nada con cafeína», «que no tenga».
        let orders = |w: &str| {
            lexicon::adds(w)
                && !["ten", "tom", "llev", "com", "beb"]
                    .iter()
                    .any(|stem| w.starts_with(stem))
        };
        // «todavía no agrégame…»: not yet, then the order.
        let not =
            |k: usize| words[k] == "no" && (k == 0 || !matches!(words[k - 1], "todavia" | "aun"));
        (0..words.len().saturating_sub(1)).any(|k| not(k) && orders(words[k + 1]))
            || (0..words.len().saturating_sub(2)).any(|k| {
                not(k)
                    && matches!(words[k + 1], "me" | "le" | "te" | "nos" | "les")
                    && orders(words[k + 2])
            })
    }) || any(
        &text,
        &[
            "no quiero que",
            "no quiere que",
            "no queremos que",
            // «no quiero otro brownie», «no me pongas otro chai»: no more of
            // it, which changes nothing the rules can name.
            "no quiero otro",
            "no quiero otra",
            "no me pongas otro",
            "no me pongas otra",
            "no pongas otro",
            "no pongas otra",
            "no me agregues otro",
            "no me agregues otra",
            "no agregues otro",
            "no agregues otra",
            "tampoco quiero",
            "tampoco me pongas",
        ],
    );
    let taken_back_after = words.iter().position(|w| *w == "pero").is_some_and(|at| {
        let after = &words[at + 1..];
        after.last() == Some(&"no")
            || any(
                &after.join(" "),
                &[
                    "esta bien asi",
                    "asi esta bien",
                    "asi nomas",
                    "dejalo asi",
                    "ya esta bien",
                ],
            )
    });
    // «no más uno para cada uno» is «only»: no negation.
    let negation = words
        .iter()
        .enumerate()
        .any(|(k, w)| *w == "no" && words.get(k + 1) != Some(&"mas"));
    let each = any(&text, &["cada uno", "cada una"]) && (message.contains('?') || negation);
    let all_but = (words.iter().any(|w| w.starts_with("duplic")) || words.contains(&"doble"))
        && words
            .iter()
            .any(|w| matches!(*w, "menos" | "excepto" | "salvo"));
    negated_order || taken_back_after || each || all_but
}

/// «solo quiero el cheesecake, lo demás no», «deja el brownie y quita lo
/// demás», «el resto sácalo»: every line of the cart but the ones named goes
/// out (a count said for a named one sets it). `None` unless every product
/// named is in the cart and the rest is said to go.
fn keeps_only(input: &ProposalInput) -> Option<Proposal> {
    let text = prepared(&input.customer_message);
    let rest_goes = any(
        &text,
        &[
            "lo demas no",
            "el resto no",
            "lo demas quitalo",
            "lo demas sacalo",
            "lo demas borralo",
            "quita lo demas",
            "saca lo demas",
            "borra lo demas",
            "quita el resto",
            "saca el resto",
            "el resto quitalo",
            "el resto sacalo",
        ],
    );
    // Only what is kept is named: «solo quiero el brownie», «déjame el
    // brownie»; never beside a verb that takes out or adds («saca el
    // capuchino, lo demás no» leaves the rest alone), a question or a doubt.
    let words = tokens(&text);
    let keeps = words.iter().any(|w| {
        matches!(
            *w,
            "solo" | "solamente" | "nomas" | "unicamente" | "quiero" | "quedo"
        ) || w.starts_with("dej")
    });
    let other_verb = words.iter().any(|w| {
        (lexicon::removes(w) || lexicon::adds(w) || lexicon::with_pronoun(w, lexicon::removes))
            && !matches!(*w, "quiero" | "quedo")
            && !w.starts_with("dej")
    });
    if !rest_goes
        || !keeps
        || other_verb
        || input.customer_message.contains('?')
        || doubts(&input.customer_message)
        || any(&text, HEDGES)
    {
        return None;
    }
    let found = mentions::find(&words, &input.product_catalog);
    let kept: Vec<(ProductId, Option<i64>)> = found
        .iter()
        .map(|m| {
            let id = m.product()?;
            input.cart.holds(id).then_some(())?;
            Some((id, m.start.checked_sub(1).and_then(|p| count(words[p]))))
        })
        .collect::<Option<Vec<_>>>()?;
    if kept.is_empty() {
        return None;
    }
    let mut actions: Vec<ProposedAction> = input
        .cart
        .lines
        .iter()
        .filter(|l| !kept.iter().any(|(id, _)| *id == l.product_id))
        .map(|l| ProposedAction::new("REMOVE_ITEM").product(l.product_id))
        .collect();
    actions.extend(kept.iter().filter_map(|(id, n)| {
        let n = (*n)?;
        (input.cart.quantity_of(*id) != Some(n)).then(|| {
            ProposedAction::new("UPDATE_QUANTITY")
                .product(*id)
                .quantity(n)
        })
    }));
    if actions.is_empty() || actions.len() > crate::proposal::MAX_ACTIONS {
        return None;
    }
    Some(Proposal::new(actions, ""))
}

/// The line and how many of it a swap takes out when a part is said before
/// its verb: «uno cámbialo», «2 de ellas cámbialas», «uno de esos
/// cámbialo». The line is the one the words before name, or the only line the
/// last change set.
fn swapped_part(
    input: &ProposalInput,
    words: &[&str],
    verb: Option<usize>,
    by: usize,
    new_id: ProductId,
) -> Option<(ProductId, i64)> {
    let verb = verb.filter(|v| *v < by)?;
    let part = |w: &str| count(w).or(matches!(w, "uno" | "una").then_some(1));
    const THEM: &[&str] = &[
        "ellos", "ellas", "esos", "esas", "estos", "estas", "los", "las",
    ];
    let n = match &words[..verb] {
        [.., n, "de", them] if THEM.contains(them) => part(n)?,
        [.., n, "de", them, _] if THEM.contains(them) => part(n)?,
        [.., n] => part(n)?,
        _ => return None,
    };
    let named: Vec<ProductId> = words[..verb]
        .iter()
        .filter_map(|w| one_product(w, input))
        .filter(|id| input.cart.holds(*id) && *id != new_id)
        .collect();
    let old = match named.as_slice() {
        [one, rest @ ..] if rest.iter().all(|r| r == one) => *one,
        [] => match input.last_changed.as_slice() {
            [one] if input.cart.holds(*one) && *one != new_id => *one,
            _ => return None,
        },
        _ => return None,
    };
    (input.cart.quantity_of(old)? > n).then_some((old, n))
}

/// «caliente sí», «el caliente» right after a «Chocolate caliente» was
/// added: only words of that product's name besides its first, with a yes,
/// say which one it is — shown, never added again.
fn said_which_again(input: &ProposalInput, proposal: &Proposal) -> Option<Proposal> {
    let [action] = proposal.proposed_actions.as_slice() else {
        return None;
    };
    let id = action.params.product_id.as_ref()?.as_i64()?;
    if action.action_type != "ADD_TO_CART" || !input.last_changed.contains(&id) {
        return None;
    }
    let name = normalize(name_of(input, id)?);
    let rest: Vec<&str> = name.split(' ').skip(1).collect();
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let of_name = words.iter().filter(|w| rest.contains(w)).count();
    let only = words.iter().all(|w| {
        rest.contains(w)
            || matches!(
                *w,
                "si" | "el" | "la" | "ese" | "esa" | "ok" | "eso" | "asi"
            )
    });
    (of_name > 0 && only).then(|| one(ProposedAction::new("SHOW_PRODUCT").product(id)))
}

/// The one product a single word names, if it names exactly one.
fn one_product(word: &str, input: &ProposalInput) -> Option<ProductId> {
    match mentions::find(&[word], &input.product_catalog).as_slice() {
        [m] => m.product(),
        _ => None,
    }
}

/// Whether the bot's last turn asked the customer something.
fn bot_asked_last(input: &ProposalInput) -> bool {
    earlier_turns(input)
        .find(|h| h.role != "customer")
        .is_some_and(|h| h.text.contains('?'))
}

/// What a product is, by its tags: a drink, a dessert or a savoury bite.
fn kind_of(input: &ProposalInput, id: ProductId) -> Option<&'static str> {
    let entry = input.product_catalog.iter().find(|e| e.product_id == id)?;
    ["bebida", "postre", "salado"]
        .into_iter()
        .find(|kind| lexicon::is_of_kind(entry, kind))
}

/// «no tomo café, mejor chocolate», «mi hermano dice que mejor maracuyá», «y
/// una limonada... mejor maracuyá», «me equivoqué, los croissants eran
/// brownies»: a product said after «mejor», «que sea» or «eran», where the
/// reading only adds it, stands instead of another. Which one: the product
/// said just before in the message, a line of the cart the words name (a
/// kind such as «café» counts), or the only line of the same kind; when none
/// or several fit, the customer is asked. `None` when the message is no such
/// replacement.
fn said_instead(input: &ProposalInput, proposal: &Proposal) -> Option<Proposal> {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let changes: Vec<&ProposedAction> = proposal
        .proposed_actions
        .iter()
        .filter(|a| EFFECTS.contains(&a.action_type.as_str()))
        .collect();
    let swap_said = words.iter().position(|w| swap_verb(w));
    // (A swap read takes its old line out.)
    if changes.is_empty()
        || !changes.iter().all(|a| {
            matches!(a.action_type.as_str(), "ADD_TO_CART" | "UPDATE_QUANTITY")
                || (swap_said.is_some() && a.action_type == "REMOVE_ITEM")
        })
    {
        return None;
    }
    let found = mentions::find(&words, &input.product_catalog);
    // «pon una limonada en su lugar», «dame un chai en vez de eso»: the one
    // product named is what comes in.
    let in_its_place = any(&text, &["en su lugar", "en lugar de eso", "en vez de eso"]);
    // «no, dos cheesecakes» right after a change: the change corrected.
    // (Not when the bot's last turn asked something: the «no» answers it.)
    let leading_no =
        words.first() == Some(&"no") && !input.last_changed.is_empty() && !bot_asked_last(input);
    // («…mejor sácalo» then «en su lugar pon una limonada»: the place is
    // empty, the new one is added.)
    let just_removed = !input.last_changed.is_empty()
        && input.last_changed.iter().all(|id| !input.cart.holds(*id));
    if in_its_place && just_removed {
        return None;
    }
    let marker = if in_its_place || leading_no {
        let [only] = found.as_slice() else {
            return None;
        };
        let article = only.start > 0
            && (matches!(words[only.start - 1], "un" | "una")
                || count(words[only.start - 1]).is_some());
        let at = only.start - usize::from(article);
        if leading_no
            && !in_its_place
            && words[1..at]
                .iter()
                .any(|w| !matches!(*w, "son" | "eran" | "era" | "es" | "mejor"))
        {
            return None;
        }
        (at, at)
    } else {
        (0..words.len()).find_map(|k| match (words[k], words.get(k + 1)) {
            // «mejor que sea capuchino»: one marker.
            ("mejor", Some(&"que")) if matches!(words.get(k + 2), Some(&("sea" | "sean"))) => {
                Some((k, k + 3))
            }
            ("mejor", next) if next != Some(&"dicho") && next != Some(&"no") => Some((k, k + 1)),
            ("que", Some(&("sea" | "sean"))) => Some((k, k + 2)),
            ("eran" | "era", _) => Some((k, k + 1)),
            // «cámbiale uno por cheesecake»: what it is swapped for.
            ("por" | "x", _) if swap_said.is_some_and(|v| v < k) => Some((k, k + 1)),
            _ => None,
        })?
    };
    // (Found in the words after on their own: a product named before too is
    // found only once in the whole message.)
    let after_marker = mentions::find(&words[marker.1..], &input.product_catalog);
    let [new] = after_marker.as_slice() else {
        return None;
    };
    let new_start = marker.1 + new.start;
    let new_id = new.product()?;
    // Only an article or a count between the marker and the product — or
    // «otro», one more of it («…que sea otro capuchino»).
    let between_new = &words[marker.1..new_start];
    let another = matches!(between_new, ["otro" | "otra"]);
    if !another
        && (between_new.len() > 1
            || between_new.iter().any(|w| {
                !matches!(*w, "un" | "una" | "el" | "la" | "los" | "las") && count(w).is_none()
            }))
    {
        return None;
    }
    // «mejor agrégame un brownie», «también»: an addition after all.
    let adds = |w: &&str| {
        lexicon::adds(w) && !matches!(*w, "quiero" | "queria" | "sea" | "sean")
            || matches!(*w, "tambien" | "ademas" | "mas" | "otro" | "otra")
    };
    if words[new_start..].iter().any(adds) || words[marker.0..marker.1].iter().any(adds) {
        return None;
    }
    let add_of = |id: ProductId| {
        changes.iter().find(|a| {
            a.action_type == "ADD_TO_CART"
                && a.params.product_id.as_ref().and_then(|v| v.as_i64()) == Some(id)
        })
    };
    // «mejor un chocolate»: the article counts one.
    let own_count = between_new.iter().find_map(|w| count(w)).or_else(|| {
        between_new
            .iter()
            .any(|w| matches!(*w, "un" | "una"))
            .then_some(1)
    });
    // (Found in the words before on their own: a product named again after
    // the marker is found only there in the whole message.)
    let before_marker = mentions::find(&words[..marker.0], &input.product_catalog);
    let named_before: Vec<&mentions::Mention> = before_marker.iter().collect();
    // Said just before, in this message: that one is taken back.
    // (The nearest word before the marker that names one product: the
    // message's mentions of one product are found once, where it is counted.)
    let one_named = |w: &str| one_product(w, input);
    let nearest = (0..marker.0)
        .rev()
        .find_map(|k| one_named(words[k]).map(|id| (k, id)));
    if add_of(new_id).is_some()
        && let Some((last_at, old)) = nearest
        && old != new_id
        && let Some(added) = add_of(old)
    {
        // Pauses only between, or a «no» right before the marker («…para mi
        // hijo, no, mejor un chocolate»).
        let pause = |w: &&str| {
            matches!(
                *w,
                "no" | "bueno"
                    | "perdon"
                    | "mmm"
                    | "ah"
                    | "eh"
                    | "o"
                    | "pensandolo"
                    | "bien"
                    | "espera"
                    | "pera"
                    | "sin"
            )
        };
        // (The old one named again is part of the taking back: «…un brownie.
        // no espera, sin brownie, mejor…».)
        let pause = |w: &&str| {
            pause(w)
                || mentions::find(&[*w], &input.product_catalog)
                    .first()
                    .is_some_and(|m| m.product() == Some(old))
        };
        let between = &words[last_at + 1..marker.0];
        let denied = between
            .iter()
            .rev()
            .take_while(|w| pause(w))
            .any(|w| *w == "no");
        if !between.iter().all(pause) && !denied {
            return None;
        }
        let q = own_count
            .or_else(|| added.params.quantity.as_ref()?.as_i64())
            .unwrap_or(1);
        // «un capuchino, un chocolate… el chocolate no, que sea otro
        // capuchino»: one more on top of the capuchino already asked for.
        let q = q + if another {
            add_of(new_id)
                .and_then(|a| a.params.quantity.as_ref()?.as_i64())
                .unwrap_or(0)
        } else {
            0
        };
        let mut out = proposal.clone();
        out.proposed_actions.retain(|a| {
            let id = a.params.product_id.as_ref().and_then(|v| v.as_i64());
            id != Some(old) && id != Some(new_id)
        });
        out.proposed_actions.push(
            ProposedAction::new("ADD_TO_CART")
                .product(new_id)
                .quantity(q),
        );
        return Some(out);
    }
    // «de esos dos croissants, uno cámbialo por brownie», «2 de ellas
    // cámbialas por maracuyá»: that many of the line, not the line.
    if let Some((old, n)) = swapped_part(input, &words, swap_said, marker.0, new_id) {
        let had = input.cart.quantity_of(old).unwrap_or(0);
        let out = if n < had {
            ProposedAction::new("UPDATE_QUANTITY")
                .product(old)
                .quantity(had - n)
        } else {
            ProposedAction::new("REMOVE_ITEM").product(old)
        };
        return Some(Proposal::new(
            vec![
                out,
                ProposedAction::new("ADD_TO_CART")
                    .product(new_id)
                    .quantity(own_count.unwrap_or(n.min(had))),
            ],
            "",
        ));
    }
    if !in_its_place && words.iter().any(adds) {
        return None;
    }
    // («un croissant... no, que sean dos croissants», «una limonada, ah no,
    // mejor maracuyá»: what it replaces is said in the message, and read.)
    if input.cart.holds(new_id)
        || input.cart.lines.is_empty()
        || named_before
            .iter()
            .any(|m| m.product().is_some_and(|id| !input.cart.holds(id)))
    {
        return None;
    }
    // What the reading added is the new product, or a line the words name as
    // the old one («los croissants eran brownies» read as more croissants).
    let misread = |id: ProductId| {
        id == new_id
            || (input.cart.holds(id) && named_before.iter().any(|m| m.candidates.contains(&id)))
    };
    if !changes.iter().all(|a| {
        a.params
            .product_id
            .as_ref()
            .and_then(|v| v.as_i64())
            .is_some_and(misread)
    }) {
        return None;
    }
    // The new one added and a named line changed: a swap already read
    // («cambiá un americano por un capuchino», «los otros dos que sean
    // brownies»).
    if add_of(new_id).is_some()
        && changes.iter().any(|a| {
            a.params
                .product_id
                .as_ref()
                .and_then(|v| v.as_i64())
                .is_some_and(|id| id != new_id)
        })
    {
        return None;
    }
    // «cámbiale uno por…»: one unit of the old line.
    let one_unit = swap_said.is_some()
        && words[..marker.0]
            .iter()
            .any(|w| matches!(*w, "uno" | "una" | "1"));
    // A line of the cart the words before name, a kind («café») included.
    let named_lines: Vec<ProductId> = named_before
        .iter()
        .flat_map(|m| m.candidates.iter().copied())
        .filter(|id| input.cart.holds(*id) && *id != new_id)
        .collect();
    let changed: Vec<ProductId> = input
        .last_changed
        .iter()
        .copied()
        .filter(|id| input.cart.holds(*id) && *id != new_id)
        .collect();
    // (Said for someone, «y para mi hijo mejor un chocolate», or «en cambio»
    // beside another's order: no line of the cart is meant.)
    let for_someone = words.iter().any(|w| matches!(*w, "para" | "pa"))
        || any(&text, &["en cambio"])
        || words.first() == Some(&"y");
    let fitting: Vec<ProductId> = if leading_no && !in_its_place {
        changed
    } else if named_before.is_empty() && for_someone {
        Vec::new()
    } else if named_before.is_empty() {
        let kind = kind_of(input, new_id);
        input
            .cart
            .lines
            .iter()
            .map(|l| l.product_id)
            .filter(|id| kind.is_some() && kind_of(input, *id) == kind)
            .collect()
    } else {
        named_lines
    };
    match fitting.as_slice() {
        [old] => {
            let had = input.cart.quantity_of(*old).unwrap_or(1);
            let out = if one_unit && had > 1 {
                ProposedAction::new("UPDATE_QUANTITY")
                    .product(*old)
                    .quantity(had - 1)
            } else {
                ProposedAction::new("REMOVE_ITEM").product(*old)
            };
            let q = own_count.unwrap_or(if one_unit { 1 } else { had });
            Some(Proposal::new(
                vec![
                    out,
                    ProposedAction::new("ADD_TO_CART")
                        .product(new_id)
                        .quantity(q),
                ],
                "",
            ))
        }
        _ => {
            // The lines of its kind when there are some, else every line.
            let lines: Vec<ProductId> = if fitting.len() > 1 {
                fitting
            } else {
                input.cart.lines.iter().map(|l| l.product_id).collect()
            };
            let names: Vec<String> = lines
                .iter()
                .filter_map(|id| name_of(input, *id).map(str::to_owned))
                .collect();
            Some(clarify(&messages::instead_of_which(
                &names,
                name_of(input, new_id).unwrap_or_default(),
            )))
        }
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

/// A plain yes (to an offer of a person, for instance).
pub fn is_yes(text: &str) -> bool {
    let text = prepared(text);
    only_words_of(&text, lexicon::CONFIRM)
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
                // «confirmo nomás»: just that.
                | "nomas"
                | "favor"
                | "porfa"
                | "gracias"
                | "muchas"
                | "mil"
                | "y"
                | "ya"
                | "pues"
                | "entonces"
                | "ah"
                | "oh"
                | "ahh"
                | "mmm"
                | "bueno"
        )
    })
}

/// The products `text` names (a word several products share names none).
pub fn products_named(text: &str, catalog: &crate::shop::catalog::CatalogIndex) -> Vec<ProductId> {
    let entries: Vec<super::contract::CatalogEntry> = catalog
        .active()
        .map(|p| super::contract::CatalogEntry {
            product_id: p.id,
            name: p.name.clone(),
            price_minor: p.price_minor,
            description: p.description.clone(),
            tags: p.tags.clone(),
        })
        .collect();
    products_in(text, &entries)
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

/// See [`shop_phrases`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopPhrases {
    pub request: bool,
    pub unexplained: Vec<String>,
}

/// Whether `text` names one of the catalog's products.
pub fn names_a_product(text: &str, catalog: &[super::contract::CatalogEntry]) -> bool {
    let text = normalize(text);
    !mentions::find(&tokens(&text), catalog).is_empty()
}

/// A follow-up rewritten as the standalone request it stands for, so a proposer
/// that does not see the cart or the offered choices reads it right: "el
/// segundo" → "quiero 1 Matcha", "ponme otro igual" → "quiero 1 más de Matcha",
/// "uno menos" → "quítame 1 de Matcha". `None` when the message stands alone.
pub fn rewrite(input: &ProposalInput) -> Option<String> {
    let text = said(input);
    let words = tokens(&text);
    let mut reader = Reader {
        input,
        text: &text,
        words: &words,
        covered: vec![false; words.len()],
    };
    let name = |id: ProductId| name_of(input, id).map(str::to_owned);
    if let Some((id, quantity)) = reader.chosen() {
        return Some(format!("quiero {quantity} {}", name(id)?));
    }
    if let Some(swap) = swap_completed(input, &words) {
        return Some(swap);
    }
    let whole_cart = [lexicon::CLEAR, lexicon::CANCEL, lexicon::DONE];
    // «y un agua sin gas»: the count is the water's, not the last line's.
    if !mentions::find(&words, &input.product_catalog).is_empty()
        || whole_cart.iter().any(|phrases| any(&text, phrases))
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
    let mut out: Vec<String> = Vec::new();
    for raw in text.split(|c: char| !c.is_alphanumeric()) {
        let folded = normalize(raw);
        // «latte» is sold when a product is a «Matcha latte».
        let singular = mentions::singular(&folded);
        let described = words
            .iter()
            .any(|(_, name, description)| name.iter().chain(description).any(|w| w == singular));
        if lexicon::is_food(&folded)
            && !described
            && !names_a_product(&folded, catalog)
            && !out.iter().any(|o| normalize(o) == folded)
        {
            out.push(raw.to_owned());
        }
    }
    out
}

/// The message as the rules read it: emoji as words, accents and case folded,
/// chat spellings as the words they stand for.
fn prepared(message: &str) -> String {
    // «½ docena», «1/2 docena»: half.
    let message = message
        .replace('½', " media ")
        .replace("1/2 doc", "media doc");
    // «-1 croissant», «+2 brownies»: one less, two more.
    let message = signed_counts(&message);
    in_spanish(&lexicon::spelled_counts(&lexicon::read_chat(&normalize(
        &lexicon::read_emoji(&without_list_numbers(&message)),
    ))))
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
    let said = the_other_one(
        input,
        same_as_someone(
            input,
            greeting_asked(reported(prepared(&listed(
                &input.customer_message,
                &input.product_catalog,
            )))),
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
            instead_after(input, double_of(input, not_put(input, said))),
        ),
    );
    not_this_one(
        input,
        each_of_a_kind(input, the_last_named(input, pointed_at_focus(input, said))),
    )
}

/// The rules' reading as [`propose`] settles it: confident only where the
/// proposal is the reading itself — a variant not sold, a doubt, a hypothesis
/// or a product taken back set it aside, and the words were not read whole.
/// What rules-first routing and the grounding's disagreement stand on.
pub fn settled(input: &ProposalInput) -> Reading {
    let mut reading = read(input);
    let proposal = settle(input, reading.clone());
    if proposal != reading.proposal {
        reading.confident = false;
        reading.proposal = proposal;
    }
    reading
}

pub fn read(input: &ProposalInput) -> Reading {
    let text = said(input);
    let words = tokens(&text);
    let mut reader = Reader {
        input,
        text: &text,
        words: &words,
        covered: vec![false; words.len()],
    };
    let proposal = reader.proposal();
    lexicon::cover(&words, lexicon::FILLER, &mut reader.covered);
    lexicon::cover(&words, lexicon::VOCATIVES, &mut reader.covered);
    // «para nosotras dos», «somos 4 amigas»: people, never a thing asked for.
    lexicon::cover(&words, PEOPLE, &mut reader.covered);
    lexicon::cover(&words, lexicon::TAKEAWAY, &mut reader.covered);
    // «wait, …», «espera, cancela»: a pause first says nothing.
    let calls_off = proposal
        .proposed_actions
        .iter()
        .any(|a| matches!(a.action_type.as_str(), "CANCEL_ORDER" | "CLEAR_CART"));
    if calls_off && matches!(words.first(), Some(&("espera" | "espere" | "pera"))) {
        reader.covered[0] = true;
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
                && !names_a_product(word, &input.product_catalog);
            // «medialunas tres»: a thing with its count after it («somos 4»
            // counts people).
            let counted_after = !joining(word)
                && !matches!(word, "somos" | "seremos" | "estamos" | "seran" | "sean")
                && !PEOPLE.contains(&word)
                && after.is_some_and(|a| {
                    count(a).is_some()
                        || (a.starts_with('x') && token_number(&a[1..]).is_some())
                })
                // «serían 2 chocolates»: the count is the next product's.
                && self.words.get(i + 2).is_none_or(|next| {
                    !matches!(next.as_str(), "de" | "del")
                        && !names_a_product(next, &input.product_catalog)
                })
                && token_number(word).is_none()
                && !names_a_product(word, &input.product_catalog);
            // «…y un croasan»: an item of a list that no product explained.
            let listed = (!joining(word) || !lexicon::is_known(word) && !SMALL.contains(&word))
                && matches!(before, Some("un" | "una"))
                && i >= 2
                && matches!(self.words[i - 2].as_str(), "y" | "e" | "mas" | "tambien")
                && !matches!(after, Some("de" | "del"))
                && !names_a_product(word, &input.product_catalog);
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
            unknown_thing
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
            && !self
                .words
                .iter()
                .any(|w| lexicon::adds(w) || lexicon::removes(w))
            && matches!(
                self.proposal.proposed_actions.as_slice(),
                [a] if a.action_type == "ADD_TO_CART"
                    && a.params.product_id.as_ref().and_then(|v| v.as_i64()).is_some_and(|id| {
                        input.cart.holds(id)
                    })
            );
        if bare_definite {
            return self.words.iter().skip(1).map(String::as_str).collect();
        }
        (0..self.words.len())
            .filter(|&i| (unread(i) && flagged(i)) || points_back(i))
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
            let unread: Vec<usize> = item
                .clone()
                .filter(|&k| !self.covered[k] && !separator(words[k]))
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
                let thing: Vec<&str> = if counted {
                    rest.filter(|&k| !self.covered[k])
                        .map(|k| words[k])
                        .collect()
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
        self.covered.iter_mut().for_each(|c| *c = true);
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
            k > 0 && (PEOPLE.contains(&self.words[k - 1]) || self.words[k - 1] == "somos")
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
        let mut asking = ProposedAction::new("CLARIFY");
        asking.params.candidates = Some(vec![serde_json::Value::from(product)]);
        Some(Proposal::new(vec![asking], messages::HOW_MANY))
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
        // «unos croissants», «varios capuchinos»: how many is not said; a
        // question back beats a guess.
        if let Some(asked) = self.unsaid_quantity() {
            return asked;
        }
        // Pickup or delivery, read whole: an address's numbers are no quantities.
        if let Some(action) = delivery::read(input) {
            self.covered.iter_mut().for_each(|c| *c = true);
            return one(action);
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
        if found.is_empty()
            && any(self.text, lexicon::CANCEL)
            && !self.negates_cancel()
            && !lexicon::wants_nothing_more(self.text)
            && !lexicon::pays_by_cancelling(self.words)
        {
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
            return self.ask_which(ambiguous);
        }
        if let Some(proposal) = self.pronoun_swap(&found) {
            return proposal;
        }
        if let Some(asked) = self.bare_plural(&found) {
            return asked;
        }
        let mut actions = self.product_actions(&found);
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
                && any(&tail, lexicon::CLOSES)
                // «nada más por ahora»: for now, more to come.
                && !any(&tail, &["por ahora", "por el momento", "de momento"])
            {
                let mut closing = vec![false; self.words.len() - tail_at];
                lexicon::cover(&self.words[tail_at..], lexicon::CLOSES, &mut closing);
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
        let sounds_done = only_words_of(self.text, lexicon::DONE_WORDS);
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
        let negated = match before.as_slice() {
            [.., "ya", "no"] => false,
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
            || self.words[at..]
                .iter()
                .any(|w| matches!(*w, "todavia" | "aun" | "tampoco"))
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
        let after_an_answer = self
            .input
            .recent_history
            .iter()
            .rev()
            .find(|h| h.role == "bot")
            .is_some_and(|h| !prepared(&h.text).contains("confirm"));
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
        let calm = tokens(&rest).iter().all(|w| {
            lexicon::FILLER.contains(w)
                || lexicon::THANKS.contains(w)
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
        let (product, quantity) = self.chosen()?;
        self.covered.iter_mut().for_each(|c| *c = true);
        Some(one(ProposedAction::new("ADD_TO_CART")
            .product(product)
            .quantity(quantity)))
    }

    /// The product a reply picks from the offered choices, and how many.
    fn chosen(&self) -> Option<(ProductId, i64)> {
        let choices = &self.input.choices;
        if choices.is_empty() {
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
        if found.is_empty()
            && let Some(picked) = self.picked_by_word()
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

    /// «el de chocolate» offered the brownie and the Chocolate caliente: «el
    /// caliente, para tomar. dos por favor» picks the one whose name has a word
    /// said that no other choice's name has (even a word that alone names no
    /// product, like «caliente»). The count said, or the one asked.
    fn picked_by_word(&self) -> Option<(ProductId, i64)> {
        if self.is_question() {
            return None;
        }
        let names: Vec<(ProductId, Vec<String>)> = self
            .input
            .choices
            .iter()
            .filter_map(|id| {
                let entry = self
                    .input
                    .product_catalog
                    .iter()
                    .find(|p| p.product_id == *id)?;
                Some((*id, mentions::significant_words(&entry.name)))
            })
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

    /// The words fit several products: ask which, offering them as choices.
    fn ask_which(&mut self, mention: &Mention) -> Proposal {
        let mut action = ProposedAction::new("CLARIFY");
        action.params.candidates = Some(
            mention
                .candidates
                .iter()
                .map(|id| serde_json::Value::from(*id))
                .collect(),
        );
        let before = &self.words[..mention.start];
        if let Some(q) = quantity_before(before) {
            action = action.quantity(q);
        }
        Proposal::new(vec![action], messages::WHICH_ONE)
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
        let products: Vec<&Mention> = found.iter().filter(|m| m.product().is_some()).collect();
        let postfix = products.len() > 1
            && products.iter().all(|m| counted_after(m))
            && quantity_before(&words[..products[0].start]).is_none();
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
            if postfix && i > 0 && counted_after(&found[i - 1]) {
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
            // «2 matchas, 1 brownie»: a count right before the next product,
            // after one counted before its name, is the next one's.
            if !postfix
                && !cut_short
                && next.is_some()
                && quantity_before(before).is_some()
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
                cover_words(&mut covered, &["un", "una", "uno", "de", "los", "las"]);
                self.mark_clause(clause_start, &covered);
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
            setting = carried || any(&clause, ONLY) || any(&clause, lexicon::RESTATING);
            let action = clause_action(
                &clause,
                (before, after),
                (id, in_cart),
                (question, followed, carried),
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
                            .is_some_and(|p| {
                                a.params.quantity.as_ref().and_then(|v| v.as_i64())
                                    < Some(self.cart_quantity(p))
                            }))
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
                let swapped = swapped_quantity
                    .take()
                    .filter(|_| said.is_none() || (article && quantity_after(after).is_none()));
                let quantity = copied.or(swapped);
                // «4 americanos y brownies»: a product asked for in the plural
                // with no count of its own, not in the cart — how many is
                // asked, the rest of the list still acts.
                let counted = said.is_some()
                    || corrected_quantity(after).is_some()
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
        let counted_any = self.words.iter().any(|w| token_number(w).is_some());
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
                        .quantity(self.cart_quantity(*p))
                })
                .collect();
            return Some(Proposal::new(actions, ""));
        }
        if changed.len() > 1
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
                changed
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
        let remove_verb = self.words.iter().position(|w| lexicon::removes(w));
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
        // «me da lo mismo», «igual da»: indifference, not one more.
        let indifferent = any(self.text, lexicon::INDIFFERENT);
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

/// One line less, or the line out when it would reach nothing.
fn decrease(id: ProductId, quantity: i64, by: i64) -> ProposedAction {
    if quantity > by {
        ProposedAction::new("UPDATE_QUANTITY")
            .product(id)
            .quantity(quantity - by)
    } else {
        ProposedAction::new("REMOVE_ITEM").product(id)
    }
}

/// The words, without the «nada más» / «nomás» that follow a count («que sean
/// dos nada más» is «only two», not «that's all»).
fn only_after_count(words: &[&str]) -> String {
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut k = 0;
    while k < words.len() {
        let after_count = k > 0 && count(words[k - 1]).is_some();
        match (words[k], words.get(k + 1)) {
            ("nada" | "no", Some(&"mas")) if after_count => k += 2,
            ("nomas", _) if after_count => k += 1,
            (w, _) => {
                out.push(w);
                k += 1;
            }
        }
    }
    out.join(" ")
}

/// Words that make a quantity the line's whole quantity: «solo 1», «que sean 3».
const ONLY: &[&str] = &[
    "solo",
    "nomas",
    "nada mas",
    "dejalo en",
    "dejala en",
    "dejalos en",
    "dejalas en",
    "dejame en",
    "que sean",
    "que sea",
];

/// Words that swap one product for another.
const SWAP_WORDS: &[&str] = &[
    "por",
    "a",
    "mejor",
    "cambialo",
    "cambiala",
    "cambialos",
    "cambialas",
    "cambia",
    "cambiame",
    "cambiamelo",
    "cambie",
    "en vez de",
    "en vez del",
    "en lugar de",
    "en lugar del",
];

/// Whether the bot's last message asked which line to take one out of.
pub fn asked_which_to_take_out(input: &ProposalInput) -> bool {
    input
        .recent_history
        .iter()
        .rev()
        .find(|h| h.role != "customer")
        .is_some_and(|h| h.text.contains(messages::WHICH_TO_TAKE_OUT))
}

/// Whether the customer's previous message (before this one) says `what`.
pub(super) fn said_just_before(input: &ProposalInput, what: impl Fn(&str) -> bool) -> bool {
    previous_message(input).is_some_and(|text| what(&text))
}

/// «cambia el latte por un chai» … «¿Cuál de ellos: Capuchino o Chocolate?» …
/// «el capuchino, perdón»: the line named now is what the swap asked before
/// takes out («cambia Capuchino por un chai»).
fn swap_completed(input: &ProposalInput, words: &[&str]) -> Option<String> {
    let asked = input
        .recent_history
        .iter()
        .rev()
        .find(|h| h.role == "bot")
        .is_some_and(|h| h.text.starts_with(messages::WHICH_TO_CHANGE));
    let asked_instead = input
        .recent_history
        .iter()
        .rev()
        .find(|h| h.role == "bot")
        .is_some_and(|h| h.text.starts_with(messages::INSTEAD_OF));
    if !asked && !asked_instead {
        return None;
    }
    let named: Vec<ProductId> = mentions::find(words, &input.product_catalog)
        .into_iter()
        .filter_map(|m| m.product())
        .collect();
    let [line] = named.as_slice() else {
        return None;
    };
    // Only a bare answer naming the line («el capuchino, perdón»): another
    // verb («mejor quita el capuchino») is a request of its own.
    let named_words: usize = mentions::find(words, &input.product_catalog)
        .iter()
        .map(|m| m.end - m.start)
        .sum();
    let others = words
        .iter()
        .filter(|w| !STOPWORDS_AROUND.contains(w) && !lexicon::FILLER.contains(w))
        .filter(|w| !matches!(**w, "perdon" | "ese" | "esa" | "ah" | "ahh" | "si"))
        .count();
    if !input.cart.holds(*line) || others > named_words {
        return None;
    }
    let before = previous_message(input)?;
    let said: Vec<&str> = tokens(&before);
    // «mejor maracuyá» … «¿En lugar de cuál pongo Maracuya…?» … «la
    // limonada»: the product said before comes in for that line.
    if asked_instead {
        let [new] = mentions::find(&said, &input.product_catalog)
            .iter()
            .filter_map(|m| m.product())
            .filter(|id| id != line)
            .collect::<Vec<_>>()[..]
        else {
            return None;
        };
        return Some(format!(
            "cambia {} por {}",
            name_of(input, *line)?,
            name_of(input, new)?
        ));
    }
    let by = swap_joiner(&said)?;
    let target = said[by + 1..].join(" ");
    if mentions::find(&said[by + 1..], &input.product_catalog).is_empty() {
        return None;
    }
    Some(format!("cambia {} por {target}", name_of(input, *line)?))
}

/// The customer's previous message (before this one), prepared.
fn previous_message(input: &ProposalInput) -> Option<String> {
    earlier_turns(input)
        .find(|h| h.role == "customer")
        .map(|h| prepared(&h.text))
}

/// The conversation before this message, newest first (the history may
/// already end with the message itself).
pub(super) fn earlier_turns(
    input: &ProposalInput,
) -> impl Iterator<Item = &crate::proposal::HistoryEntry> {
    let current = input
        .recent_history
        .last()
        .is_some_and(|h| h.role == "customer" && h.text == input.customer_message);
    input.recent_history.iter().rev().skip(usize::from(current))
}

/// «wena, ¿qué tal?, 3 maracuyá…»: «qué tal» after a greeting asks how one is,
/// not about a product.
fn greeting_asked(text: String) -> String {
    let words = tokens(&text);
    let at = words
        .iter()
        .take(3)
        .position(|w| crate::detect::GREETINGS.contains(w) || *w == "hola");
    match at {
        Some(at)
            if words.get(at + 1..at + 3) == Some(&["que", "tal"][..]) && words.len() > at + 3 =>
        {
            let mut out: Vec<&str> = words[..=at].to_vec();
            out.extend(&words[at + 3..]);
            out.join(" ")
        }
        _ => text,
    }
}

/// «el cliente dice que los americanos sean 2», «mi mamá me escribe que
/// agregue un brownie»: what someone else said, relayed; the request is what
/// follows «que».
fn reported(text: String) -> String {
    let words = tokens(&text);
    let relays = |w: &str| {
        matches!(
            w,
            "dice" | "dicen" | "dijo" | "escribe" | "escribio" | "pide" | "pidio"
        )
    };
    let Some(verb) = words.iter().take(6).position(|w| relays(w)) else {
        return text;
    };
    let Some(that) = words[verb + 1..]
        .iter()
        .take(3)
        .position(|w| *w == "que")
        .map(|k| verb + 1 + k)
    else {
        return text;
    };
    // Nothing but who relays it before the verb: no product, no count.
    let lead_in = words[..verb]
        .iter()
        .all(|w| count(w).is_none() && !lexicon::adds(w));
    // «…dijo que no le pida dos», «…que quería un matcha pero al final no»,
    // «…que quite el brownie, pero yo sí lo quiero»: a negation, a past wish
    // or a contrast is the story, not the request.
    let rest = &words[that + 1..];
    let doubtful = rest.first() == Some(&"no")
        || rest
            .iter()
            .any(|w| matches!(*w, "pero" | "queria" | "quiso" | "quisiera"));
    if !lead_in || that + 1 >= words.len() || doubtful {
        return text;
    }
    words[that + 1..].join(" ")
}

/// «que el chai sean dos», «los americanos sean 2»: a line's count set after
/// its name, read as «que sean 2 americanos».
fn set_said_after(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    // «no quiero que los capuchinos sean tres», «¿…sean tres?», «sean 3 o 4»:
    // a doubt or a negation is no count set.
    if input.customer_message.contains('?')
        || words
            .iter()
            .any(|w| matches!(*w, "no" | "o" | "quizas" | "tal"))
    {
        return text;
    }
    let found = mentions::find(&words, &input.product_catalog);
    // «los capuchinos súbelos a cuatro», «las limonadas bájalas a 1», «los
    // capuchinos que sean 2 más»: a line, then what it becomes.
    for m in &found {
        let Some(id) = m.product() else { continue };
        if !input.cart.holds(id) {
            continue;
        }
        let name = words[m.start..m.end].join(" ");
        let rest = &words[m.end..];
        let said = match rest {
            // («ponlos en 2 bolsas»: bags, not a count of the line.)
            [verb, "a" | "en", n, tail @ ..]
                if count(n).is_some()
                    && tail.first().is_none_or(|w| {
                        lexicon::FILLER.contains(w) || matches!(*w, "nomas" | "porfa")
                    })
                    && ["sub", "baj", "dej", "pon", "aument", "reduc"]
                        .iter()
                        .any(|stem| verb.starts_with(stem)) =>
            {
                Some((format!("que sean {n} {name}"), tail))
            }
            ["que", "sean" | "sea", n, "mas", tail @ ..]
            | ["sean" | "sea", n, "mas", tail @ ..]
                if count(n).is_some() =>
            {
                Some((format!("{n} {name} mas"), tail))
            }
            _ => None,
        };
        if let Some((said, tail)) = said {
            let mut start = m.start;
            while start > 0 && matches!(words[start - 1], "el" | "la" | "los" | "las") {
                start -= 1;
            }
            let mut out: Vec<String> = words[..start].iter().map(|w| (*w).to_owned()).collect();
            out.push(said);
            out.extend(tail.iter().map(|w| (*w).to_owned()));
            return out.join(" ");
        }
    }
    // «la limonada que sean 2», not yet in the cart: «que» may stand between.
    // (A line in the cart is set by the line's own reading.)
    let said_at = |m: &mentions::Mention| {
        let new = m.product().is_some_and(|id| !input.cart.holds(id));
        m.end + usize::from(new && words.get(m.end) == Some(&"que"))
    };
    let Some(m) = found.iter().find(|m| {
        m.product().is_some()
            && matches!(words.get(said_at(m)), Some(&("sea" | "sean")))
            && words
                .get(said_at(m) + 1)
                .is_some_and(|w| token_number(w).is_some())
    }) else {
        return text;
    };
    let at = said_at(m);
    let mut start = m.start;
    while start > 0 && matches!(words[start - 1], "el" | "la" | "los" | "las") {
        start -= 1;
    }
    if start > 0 && words[start - 1] == "que" {
        start -= 1;
    }
    let mut out: Vec<&str> = words[..start].to_vec();
    out.extend(["que", "sean", words[at + 1]]);
    out.extend(&words[m.start..m.end]);
    out.extend(&words[at + 2..]);
    out.join(" ")
}

/// The product of item `n` of the numbered list the customer's message before
/// this one was («1. cuatro americanos» … «3. seis croissants»), when that item
/// names exactly one product that is in the cart.
fn listed_item(input: &ProposalInput, n: usize) -> Option<ProductId> {
    let before = input
        .recent_history
        .iter()
        .rev()
        .filter(|h| h.role == "customer")
        .find(|h| h.text != input.customer_message)?;
    let marker = |line: &str, n: usize| {
        line.trim_start()
            .strip_prefix(&n.to_string())
            .is_some_and(|rest| rest.starts_with(['.', ')', '-', ':']))
    };
    let items: Vec<&str> = before
        .text
        .lines()
        .filter(|l| marker(l, 1) || marker(l, 2))
        .collect();
    if items.len() < 2 {
        return None;
    }
    let item = before.text.lines().find(|l| marker(l, n))?;
    let item = prepared(
        item.trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit()),
    );
    let named: Vec<ProductId> = mentions::find(&tokens(&item), &input.product_catalog)
        .into_iter()
        .filter_map(|m| m.product())
        .collect();
    match named.as_slice() {
        [id] if input.cart.holds(*id) => Some(*id),
        _ => None,
    }
}

/// «eran tres capuchinos, no dos» with two in the cart: the count restated,
/// the cart's denied — the line becomes three.
fn restated_count(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    let Some(m) = found.iter().find(|m| {
        let Some(id) = m.product() else {
            return false;
        };
        let in_cart = input.cart.quantity_of(id);
        // «eran tres capuchinos, no dos», «son tres»: said as what was meant;
        // «me cobraste tres» complains, «tres capuchinos, no, dos» corrects
        // the other way.
        words[..m.start]
            .iter()
            .any(|w| matches!(*w, "eran" | "era" | "son" | "fueron"))
            && !words.iter().any(|w| w.starts_with("cobr"))
            && !words[m.end..].contains(&"pero")
            && m.start > 0
            && count(words[m.start - 1]).is_some()
            && words.get(m.end) == Some(&"no")
            && words.get(m.end + 1).and_then(|w| count(w)).is_some()
            && words.get(m.end + 1).and_then(|w| count(w)) == in_cart
            && count(words[m.start - 1]) != in_cart
            && words
                .get(m.end + 2)
                .is_none_or(|w| matches!(*w, "y" | "e" | "pero"))
    }) else {
        return not_that_many(&words, &found)
            .or_else(|| after_the_line(input, &words, &found))
            .unwrap_or(text);
    };
    let mut out: Vec<&str> = words[..m.start - 1].to_vec();
    out.extend(["que", "sean", words[m.start - 1]]);
    out.extend(&words[m.start..m.end]);
    out.extend(&words[m.end + 2..]);
    out.join(" ")
}

/// Numbers that are no counts, and counts written with a mark: «brownies por
/// 48 bs», «si es menos de 30 lo quiero» are money (said «monto»);
/// «capuchino x 3» is «capuchino x3»; «2x limonada» is «2 limonada».
fn amounts_and_marks(input: &ProposalInput, text: String) -> String {
    const MONEY: &[&str] = &[
        "bs",
        "bob",
        "bolivianos",
        "boliviano",
        "pesos",
        "soles",
        "dolares",
        "dolar",
        "lucas",
        "mangos",
        "pesitos",
    ];
    let words = tokens(&text);
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut k = 0;
    while k < words.len() {
        let w = words[k];
        let number = token_number(w).is_some() && !matches!(w, "un" | "una" | "uno");
        // «1 capuchino, 2 no, 3 brownies», «dos, digo, tres brownies»: a
        // count taken back for the one said right after it.
        let gap = words[k + 1..]
            .iter()
            .take_while(|n| matches!(**n, "no" | "digo" | "perdon" | "mejor" | "bueno"))
            .count();
        // (Where the count meant comes before a name: «…, 2... no, mejor 3»
        // after the name is read with the name.)
        if count(w).is_some()
            && gap > 0
            && words.get(k + 1 + gap).is_some_and(|n| count(n).is_some())
            && words
                .get(k + 2 + gap)
                .is_some_and(|n| names_a_product(n, &input.product_catalog))
        {
            k += 1 + gap;
            continue;
        }
        let money = number
            && (words.get(k + 1).is_some_and(|n| MONEY.contains(n))
                || (k > 0 && matches!(words[k - 1], "bs" | "bob"))
                || (k > 1 && matches!((words[k - 2], words[k - 1]), ("menos" | "mas", "de"))));
        if money {
            out.push("monto".into());
        } else if w == "x"
            && words.get(k + 1).is_some_and(|n| n.parse::<u32>().is_ok())
            // «cámbiame los 2 crosant x 2 cheesecake»: «x» is «por», a swap.
            && !(words.iter().any(|w| swap_verb(w))
                && words
                    .get(k + 2)
                    .is_some_and(|next| names_a_product(next, &input.product_catalog)))
        {
            out.push(format!("x{}", words[k + 1]));
            k += 1;
        } else if let Some(n) = w.strip_suffix('x').filter(|n| n.parse::<u32>().is_ok()) {
            out.push(n.to_owned());
        } else {
            out.push(w.to_owned());
        }
        k += 1;
    }
    out.join(" ")
}

/// «serían 6 capuchinos, no 8»: the count denied after a counted product is
/// no count of its own.
fn not_the_other_count(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let [.., "no", last] = words.as_slice() else {
        return text;
    };
    if count(last).is_none() {
        return text;
    }
    let end = words.len() - 2;
    let counted = mentions::find(&words[..end], &input.product_catalog)
        .iter()
        .any(|m| m.end == end && m.start > 0 && count(words[m.start - 1]).is_some());
    if !counted {
        return text;
    }
    words[..end].join(" ")
}

/// «lemonade, limonada, two», «brownie brownie 2»: a product's name said
/// twice in a row (in two languages, or for emphasis) names it once.
fn named_twice(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let one = |w: &str| {
        let found = mentions::find(&[w], &input.product_catalog);
        match found.as_slice() {
            [m] => m.product(),
            _ => None,
        }
    };
    // Two spellings of one product (a translation) name it once; the same word
    // said twice («chai, chai, croissant») counts two.
    let twice: Vec<usize> = (0..words.len().saturating_sub(1))
        .filter(|&k| {
            one(words[k]).is_some()
                && one(words[k]) == one(words[k + 1])
                && words[k] != words[k + 1]
        })
        .collect();
    let same: Vec<usize> = (0..words.len().saturating_sub(1))
        .filter(|&k| one(words[k]).is_some() && words[k] == words[k + 1])
        .filter(|&k| k == 0 || count(words[k - 1]).is_none())
        .collect();
    if twice.is_empty() && !same.is_empty() {
        let mut out: Vec<String> = Vec::new();
        let mut k = 0;
        while k < words.len() {
            let mut n = 1;
            while same.contains(&(k + n - 1)) && words.get(k + n) == Some(&words[k]) {
                n += 1;
            }
            if n > 1 {
                out.push(n.to_string());
            }
            out.push(words[k].to_owned());
            k += n;
        }
        return out.join(" ");
    }
    if twice.is_empty() {
        return text;
    }
    words
        .iter()
        .enumerate()
        .filter(|(k, _)| !twice.contains(k))
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// «brownie y brownie», «un americano, otro americano y un brownie»: one
/// product said again, joined only by «y», «otro» or an article, is one more
/// of it — said as one count.
fn said_again(input: &ProposalInput, text: String) -> String {
    const JOIN: &[&str] = &["y", "e", "otro", "otra", "un", "una"];
    let words = tokens(&text);
    let one = |w: &str| one_product(w, input);
    let named: Vec<Option<ProductId>> = words.iter().map(|w| one(w)).collect();
    // Each run: where its count starts, the first name's words, the last's,
    // the sum.
    let mut runs: Vec<(usize, usize, usize, usize, i64)> = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let Some(id) = named[k] else {
            k += 1;
            continue;
        };
        let name = name_of(input, id).map(normalize).unwrap_or_default();
        let of_name = |w: &str| name.split(' ').any(|n| n == w);
        let (mut last, mut again) = (k, 0);
        loop {
            let gap = words[last + 1..]
                .iter()
                .take_while(|w| JOIN.contains(w) || (of_name(w) && one(w) != Some(id)))
                .count();
            let next = last + 1 + gap;
            // Joined by «y» or «otro», not set side by side («brownie brownie»
            // is read elsewhere).
            let joined = words[last + 1..next].iter().any(|w| JOIN.contains(w));
            if joined && named.get(next) == Some(&Some(id)) {
                last = next;
                again += 1;
            } else {
                break;
            }
        }
        if again > 0 {
            // «un té chai y otro té chai»: the name from its first word.
            let mut start = k;
            while start > 0 && of_name(words[start - 1]) && named[start - 1].is_none() {
                start -= 1;
            }
            let (from, n) = counted_from(&words, start);
            runs.push((from, start, k, last, n + again));
        }
        k = last + 1;
    }
    if runs.is_empty() {
        return text;
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut copied = 0;
    for (from, start, first, last, n) in runs {
        out.extend(words[copied..from].iter().map(|w| (*w).to_owned()));
        out.push(n.to_string());
        out.extend(words[start..=first].iter().map(|w| (*w).to_owned()));
        copied = last + 1;
    }
    out.extend(words[copied..].iter().map(|w| (*w).to_owned()));
    out.join(" ")
}

/// Words that head a list by its kind: «3 cafés: 2 capuchinos y un americano».
const HEADINGS: &[&str] = &[
    "cafes",
    "bebidas",
    "postres",
    "cosas",
    "productos",
    "items",
    "jugos",
    "dulces",
    "tes",
    "frios",
    "calientes",
    "tragos",
    "refrescos",
];

/// «3 cafés: 2 capuchinos y un americano», «2 postres, un brownie y un
/// cheesecake»: a count of a kind, then what it is made of. Where the heading
/// stands, its count, and the counts of the products after it summed.
fn kind_heading(words: &[&str], input: &ProposalInput) -> Option<(usize, i64, i64)> {
    let at = words
        .windows(2)
        .position(|w| count(w[0]).is_some() && HEADINGS.contains(&w[1]))?;
    let rest = &words[at + 2..];
    let found = mentions::find(rest, &input.product_catalog);
    let first = found.first()?;
    // The parts follow right away («…: 2 capuchinos», «…, o sea un chai y…»),
    // never as the rest of the heading's own name («2 cafés americanos», «dos
    // tés chai»).
    // («2 jugos de maracuyá» is one product.)
    if first.start == 0 || first.start > 3 {
        return None;
    }
    let counted_first =
        matches!(rest[first.start - 1], "un" | "una") || count(rest[first.start - 1]).is_some();
    if !counted_first
        || rest[..first.start]
            .iter()
            .any(|w| matches!(*w, "de" | "del"))
    {
        return None;
    }
    // («dos cafés y dos brownies»: brownies are no coffee.)
    let heading = words[at + 1];
    let tag = lexicon::KINDS
        .iter()
        .find(|(said, _)| *said == heading || mentions::singular(heading) == *said)
        .map(|(_, tag)| *tag);
    let family = mentions::find(&[heading], &input.product_catalog)
        .first()
        .map(|m| m.candidates.clone())
        .filter(|c| c.len() > 1);
    let of_kind = |id: ProductId| match (&family, tag) {
        (Some(members), _) => members.contains(&id),
        (None, Some(tag)) => input
            .product_catalog
            .iter()
            .any(|e| e.product_id == id && lexicon::is_of_kind(e, tag)),
        (None, None) => true,
    };
    if !found.iter().all(|m| m.product().is_some_and(of_kind)) {
        return None;
    }
    let summed = found
        .iter()
        .map(|m| {
            m.start
                .checked_sub(1)
                .and_then(|p| count(rest[p]))
                .unwrap_or(1)
        })
        .sum();
    Some((at, count(words[at])?, summed))
}

/// A kind's count said before the products that make it up is no order of
/// its own: «3 cafés: 2 capuchinos y un americano» is read without «3 cafés».
/// (When the parts do not add up to it, the message is asked about.)
fn headed_by_kind(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    match kind_heading(&words, input) {
        Some((at, said, summed)) if said == summed => {
            let mut out: Vec<&str> = words[..at].to_vec();
            out.extend(&words[at + 2..]);
            out.join(" ")
        }
        _ => text,
    }
}

/// Where the count of the product named at `start` begins and what it is:
/// «2 brownies» is 2 from the «2», «un brownie» or «el brownie» 1 from the
/// article, a bare «brownie» 1 from the name.
fn counted_from(words: &[&str], start: usize) -> (usize, i64) {
    match start.checked_sub(1).map(|p| (p, words[p])) {
        Some((p, w)) if count(w).is_some() => (p, count(w).unwrap_or(1)),
        Some((p, "un" | "una" | "uno" | "el" | "la")) => (p, 1),
        _ => (start, 1),
    }
}

/// «un capuchino y un croissant, y lo mismo para mi amigo»: what the message
/// ordered, once more for someone — each count doubled.
fn same_for_another(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(3)
        .position(|w| w[0] == "lo" && w[1] == "mismo" && matches!(w[2], "para" | "pa"))
    else {
        return text;
    };
    let found = mentions::find(&words, &input.product_catalog);
    // («…para mis dos hermanos», «un capuchino para mí, un chocolate para mi
    // hijo y lo mismo para mi hija»: how many, or which, is not plain.)
    let whom = &words[at + 3..];
    let several = whom.iter().any(|w| {
        count(w).is_some() || matches!(*w, "mis" | "sus" | "los" | "las" | "todos" | "cada")
    }) || words[..at]
        .iter()
        .filter(|w| matches!(**w, "para" | "pa"))
        .count()
        > 1;
    if found.is_empty()
        || several
        || found.iter().any(|m| m.start > at || m.product().is_none())
        || words[..at]
            .iter()
            .any(|w| matches!(*w, "no" | "quita" | "saca"))
    {
        return text;
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut copied = 0;
    for m in &found {
        let (from, n) = counted_from(&words, m.start);
        out.extend(words[copied..from].iter().map(|w| (*w).to_owned()));
        out.push((2 * n).to_string());
        out.extend(words[m.start..m.end].iter().map(|w| (*w).to_owned()));
        copied = m.end;
    }
    let mut end = at;
    while end > copied && matches!(words[end - 1], "y" | "e") {
        end -= 1;
    }
    out.extend(words[copied..end].iter().map(|w| (*w).to_owned()));
    out.join(" ")
}

/// «un capuchino para mí y otro para mi esposo»: «otro» with no product
/// after it, for someone, is one more of the product just named.
fn another_for_someone(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words.iter().enumerate().position(|(k, w)| {
        matches!(*w, "otro" | "otra")
            && k > 0
            && matches!(words.get(k + 1), Some(&("para" | "pa" | "pal")))
    }) else {
        return text;
    };
    let found = mentions::find(&words[..at], &input.product_catalog);
    let Some(last) = found.last() else {
        return text;
    };
    // «una maracuyá y un capuchino, y otra para mi hija»: «otra» agrees with
    // the article of the product it stands for; «el otro para…» says whose.
    let article = last.start.checked_sub(1).map(|p| words[p]);
    let agrees = match words[at] {
        "otro" => article != Some("una"),
        _ => article == Some("una"),
    };
    if last.product().is_none()
        || !agrees
        || matches!(words[at - 1], "el" | "la")
        || words[last.end..at]
            .iter()
            .any(|w| matches!(*w, "no" | "sin"))
    {
        return text;
    }
    let mut out: Vec<&str> = words[..at].to_vec();
    out.push("1");
    out.extend(&words[last.start..last.end]);
    out.extend(&words[at + 1..]);
    out.join(" ")
}

/// «un capuchino, y si me alcanza agrego un brownie»: what the customer
/// would add if money or time allow is not asked for yet — read without it.
fn if_it_goes(input: &ProposalInput, text: String) -> String {
    // «sí» folds to «si»: only where the message wrote no «sí».
    if input.customer_message.to_lowercase().contains("sí") {
        return text;
    }
    let words = tokens(&text);
    let Some(at) = words.iter().position(|w| *w == "si") else {
        return text;
    };
    let then = words[at + 1..]
        .iter()
        .take(3)
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let hedged = any(
        &then,
        &[
            "alcanza",
            "sobra",
            "puedo",
            "podemos",
            "no es mucho",
            "no es caro",
            "sale barato",
            "no cuesta",
            "tengo plata",
            "tengo dinero",
            "queda plata",
            "me animo",
            "da tiempo",
            "hay tiempo",
        ],
    );
    let ordered_before = mentions::find(&words[..at], &input.product_catalog)
        .iter()
        .any(|m| m.product().is_some());
    // («…si me da tiempo paso a recogerlo, y 2 brownies»: only an order
    // after the hedge waits, and only when nothing else follows it.)
    let after = &words[at + 1..];
    let verb_after = after.iter().position(|w| lexicon::adds(w));
    let more_after = verb_after.is_some_and(|v| {
        after[v + 1..]
            .iter()
            .any(|w| matches!(*w, "y" | "e" | "tambien" | "ademas"))
    });
    if verb_after.is_none() || more_after {
        return text;
    }
    if !hedged || !ordered_before {
        return text;
    }
    let mut kept = &words[..at];
    while let [rest @ .., "y" | "e" | "pero"] = kept {
        kept = rest;
    }
    kept.join(" ")
}

/// «no eran tres capuchinos, eran dos», «no son 4 brownies sino 3», «no
/// quiero 2 limonadas, quiero 1»: the count denied, then the one meant — the
/// line to that many.
fn not_that_many(words: &[&str], found: &[mentions::Mention]) -> Option<String> {
    found.iter().find_map(|m| {
        let before = &words[..m.start];
        let [.., "no", verb, said] = before else {
            return None;
        };
        if !matches!(
            *verb,
            "eran" | "era" | "son" | "es" | "quiero" | "queria" | "pedi"
        ) || count(said).is_none()
        {
            return None;
        }
        let mut k = m.end;
        while words.get(k).is_some_and(|w| {
            matches!(
                *w,
                "eran" | "era" | "son" | "es" | "sino" | "solo" | "quiero" | "queria" | "nomas"
            )
        }) {
            k += 1;
        }
        let meant = words.get(k).filter(|w| count(w).is_some())?;
        let mut out: Vec<&str> = before[..before.len() - 3].to_vec();
        out.extend(["que", "sean", meant]);
        out.extend(&words[m.start..m.end]);
        out.extend(&words[k + 1..]);
        Some(out.join(" "))
    })
}

/// «sí sí perfecto, 2 capuchinos y la limonada» at the summary: a yes that
/// says the cart again — every product named is in it, with the count it holds
/// or none — is the yes alone, never the order twice.
fn restated_summary(input: &ProposalInput, text: String) -> String {
    if !matches!(input.current_state, State::Checkout | State::CartOpen) {
        return text;
    }
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    if found.is_empty() {
        return text;
    }
    let mut covered = vec![false; words.len()];
    for m in &found {
        let Some(id) = m.product() else {
            return text;
        };
        let held = input.cart.quantity_of(id);
        let said = quantity_before(&words[..m.start]);
        // (With the cart open, each line's count is said: «2 capuchinos».)
        let unsaid = said.is_none() && input.current_state == State::CartOpen;
        if held.is_none() || unsaid || said.is_some_and(|n| Some(n) != held) {
            return text;
        }
        covered[m.start..m.end].iter_mut().for_each(|c| *c = true);
    }
    let yes: Vec<&str> = words
        .iter()
        .zip(&covered)
        .filter(|(_, c)| !**c)
        .map(|(w, _)| *w)
        .filter(|w| {
            count(w).is_none()
                && !matches!(
                    *w,
                    "y" | "e" | "el" | "la" | "los" | "las" | "un" | "una" | "de" | "del"
                )
        })
        .collect();
    let yes = yes.join(" ");
    // With the cart open, only beside a close («perfecto, 2 capuchinos y 2
    // brownies entonces, ¿cuánto es?»): said alone it may be more of the same.
    let changes = tokens(&yes).iter().any(|w| {
        count(w).is_some()
            || lexicon::adds(w)
            || lexicon::removes(w)
            || lexicon::with_pronoun(w, lexicon::removes)
    }) || any(&yes, lexicon::SET)
        || any(&yes, lexicon::REMOVE);
    let closes = input.current_state == State::CartOpen
        && !changes
        && (any(&yes, lexicon::CLOSES)
            || any(&yes, &["cuanto es", "cuanto seria", "cuanto sale", "total"]));
    let confirms = input.current_state == State::Checkout
        && only_words_of(&yes, lexicon::CONFIRM)
        && !only_words_of(&yes, lexicon::DENY);
    if confirms || closes { yes } else { text }
}

/// «no me pongas el cheesecake» with a cheesecake in the cart: take it out.
fn not_put(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words.iter().position(|w| *w == "no") else {
        return text;
    };
    let mut k = at + 1;
    if words
        .get(k)
        .is_some_and(|w| matches!(*w, "me" | "le" | "nos" | "les"))
    {
        k += 1;
    }
    let Some(verb) = words.get(k) else {
        return text;
    };
    let putting = matches!(
        *verb,
        "pongas"
            | "pongan"
            | "ponga"
            | "agregues"
            | "agregue"
            | "agreguen"
            | "pidas"
            | "traigas"
            | "traigan"
            | "sirvas"
            | "incluyas"
    );
    if !putting {
        return text;
    }
    // «no me pongas otro chai»: no more of it, not none.
    if words
        .get(k + 1)
        .is_some_and(|w| matches!(*w, "otro" | "otra" | "otros" | "otras" | "mas"))
    {
        return text;
    }
    let found = mentions::find(&words[k + 1..], &input.product_catalog);
    let Some(m) = found.first().filter(|m| m.start <= 1) else {
        return text;
    };
    let in_cart = m.product().is_some_and(|id| input.cart.holds(id));
    if !in_cart || found.len() > 1 {
        return text;
    }
    let mut said: Vec<&str> = words[..at].to_vec();
    said.push("quita");
    said.extend(&words[k + 1..]);
    said.join(" ")
}

/// The product named right after `from` in `words` (an article between at
/// most): its id, and where its name starts and ends in `words`.
fn named_right_after(
    input: &ProposalInput,
    words: &[&str],
    from: usize,
) -> Option<(ProductId, usize, usize)> {
    let found = mentions::find(&words[from..], &input.product_catalog);
    let m = found.first().filter(|m| m.start <= 1)?;
    Some((m.product()?, from + m.start, from + m.end))
}

/// «el doble de americanos», «ponme el doble de brownies»: a line in the cart
/// made twice as many.
fn double_of(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(3)
        .position(|w| w[0] == "el" && w[1] == "doble" && matches!(w[2], "de" | "del"))
    else {
        return text;
    };
    let Some((id, start, _)) = named_right_after(input, &words, at + 3) else {
        return text;
    };
    let Some(quantity) = input.cart.quantity_of(id) else {
        return text;
    };
    let twice = (quantity * 2).to_string();
    let mut said: Vec<&str> = words[..at].to_vec();
    said.extend(["que", "sean", twice.as_str()]);
    said.extend(&words[start..]);
    said.join(" ")
}

/// «póngame un cheesecake en lugar de los brownies»: the swap said with what
/// comes in first. Said the other way round when what goes out is in the
/// cart; when it is not, only what comes in is asked for.
fn instead_after(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words.windows(3).position(|w| {
        w[0] == "en" && matches!(w[1], "lugar" | "vez") && matches!(w[2], "de" | "del")
    }) else {
        return text;
    };
    let before = mentions::find(&words[..at], &input.product_catalog);
    if before.is_empty() {
        return text;
    }
    let Some((id, _, end)) = named_right_after(input, &words, at + 3) else {
        return text;
    };
    let in_cart = input.cart.holds(id);
    let mut said: Vec<&str> = Vec::new();
    if in_cart {
        said.extend(&words[at..end]);
        said.extend(&words[..at]);
    } else {
        said.extend(&words[..at]);
    }
    said.extend(&words[end..]);
    said.join(" ")
}

/// «somos 8, uno para cada uno», «croissants, uno para cada quien, o sea
/// cinco»: one each of as many as the people counted is that count.
fn one_each(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(3)
        .position(|w| matches!(w[0], "uno" | "una") && w[1] == "para" && w[2] == "cada")
    else {
        return each_of_the_people(input, text);
    };
    // «cada uno», «cada quien», «cada niña»: one word after «cada».
    let after = at + 4;
    if words.len() < after {
        return text;
    }
    let restated = (words.get(after..after + 2) == Some(&["o", "sea"][..]))
        .then(|| words.get(after + 2).and_then(|w| count(w)))
        .flatten();
    let people = words.windows(2).position(|w| {
        matches!(w[0], "somos" | "seremos" | "son" | "vamos") && count(w[1]).is_some()
    });
    let mut out: Vec<String> = Vec::new();
    match (restated, people) {
        (Some(n), _) => {
            out.extend(words[..at].iter().map(|w| (*w).to_owned()));
            out.push(n.to_string());
            out.extend(words[after + 3..].iter().map(|w| (*w).to_owned()));
        }
        (None, Some(k)) if k < at => {
            let n = count(words[k + 1]).unwrap_or(1);
            out.extend(words[..k].iter().map(|w| (*w).to_owned()));
            out.extend(words[k + 2..at].iter().map(|w| (*w).to_owned()));
            out.push(n.to_string());
            out.extend(words[after..].iter().map(|w| (*w).to_owned()));
        }
        _ => return text,
    }
    out.join(" ")
}

/// «somos 4, un capuchino cada uno», «para 5 personas, un brownie por
/// persona», «un chai para cada uno, somos 3»: one each, times the people
/// counted in the message. (With no count of people, left as said.)
fn each_of_the_people(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some((mark, mark_end)) =
        words
            .windows(2)
            .enumerate()
            .find_map(|(i, w)| match (w[0], w[1]) {
                ("para", "cada") => Some((i, i + 3)),
                // («uno más de cada uno» is of each product.)
                ("cada", "uno" | "una" | "quien") if i == 0 || words[i - 1] != "de" => {
                    Some((i, i + 2))
                }
                ("por", "persona" | "cabeza" | "nino" | "nina") => Some((i, i + 2)),
                _ => None,
            })
    else {
        return text;
    };
    let people = (0..words.len()).find_map(|i| {
        let n = |k: usize| words.get(k).and_then(|w| count(w));
        match (words[i], words.get(i + 1), words.get(i + 2)) {
            // («son 2 capuchinos» counts capuchinos, not people.)
            ("somos" | "seremos" | "son" | "vamos" | "estamos", _, next)
                if n(i + 1).is_some()
                    && next.is_none_or(|w| !names_a_product(w, &input.product_catalog)) =>
            {
                Some((i, i + 2, n(i + 1)?))
            }
            ("para", _, Some(p)) if n(i + 1).is_some() && PEOPLE.contains(p) => {
                Some((i, i + 3, n(i + 1)?))
            }
            (_, Some(p), _) if count(words[i]).is_some() && PEOPLE.contains(p) => {
                Some((i, i + 2, count(words[i])?))
            }
            _ => None,
        }
    });
    // («…un chocolate para compartir y un croissant cada uno»: what is shared
    // is not one each.)
    let Some((from, to, n)) = people
        .filter(|(from, to, _)| *to <= mark || *from >= mark_end)
        .filter(|_| !words.iter().any(|w| w.starts_with("compart")))
    else {
        return text;
    };
    // «…cada uno quiere un capuchino y un croissant»: the items may follow.
    let ones_before = (0..mark).any(|k| {
        matches!(words[k], "un" | "una" | "uno" | "1")
            && words
                .get(k + 1)
                .is_some_and(|w| names_a_product(w, &input.product_catalog))
    });
    let range = if ones_before {
        0..mark
    } else {
        mark_end..words.len()
    };
    let ones: Vec<usize> = range
        .filter(|k| !(from..to).contains(k))
        .filter(|&k| matches!(words[k], "un" | "una" | "uno" | "1"))
        .filter(|&k| {
            words
                .get(k + 1)
                .is_some_and(|w| names_a_product(w, &input.product_catalog))
        })
        .collect();
    if ones.is_empty() {
        return text;
    }
    words
        .iter()
        .enumerate()
        .filter(|(k, _)| !(from..to).contains(k) && !(mark..mark_end).contains(k))
        .map(|(k, w)| {
            if ones.contains(&k) {
                n.to_string()
            } else {
                (*w).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// «seis croissants y brownies, la mitad de los croissants»: a product's count
/// said as half of another's, counted earlier in the message or in the cart.
fn half_of_another(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(3)
        .position(|w| w[0] == "la" && w[1] == "mitad" && w[2] == "de")
    else {
        return text;
    };
    let found = mentions::find(&words[..at], &input.product_catalog);
    // The product halved, right after «la mitad de (los)».
    let Some((other, _, of_end)) = named_right_after(input, &words, at + 3) else {
        return text;
    };
    // Its count: said right before it earlier in the message, or its line.
    let earlier = found
        .iter()
        .filter(|m| m.start < at && m.product() == Some(other))
        .find_map(|m| m.start.checked_sub(1).and_then(|k| count(words[k])));
    let in_cart = input.cart.quantity_of(other);
    let Some(base) = earlier.or(in_cart).filter(|n| *n >= 2) else {
        return text;
    };
    // The product counted: the one named just before «la mitad», with no
    // count of its own.
    let Some(counted) = found
        .iter()
        .rev()
        .find(|m| m.end <= at && m.end + 1 >= at && m.product().is_some_and(|id| id != other))
    else {
        return text;
    };
    if counted
        .start
        .checked_sub(1)
        .is_some_and(|k| token_number(words[k]).is_some())
    {
        return text;
    }
    let half = (base / 2).to_string();
    let mut out: Vec<&str> = words[..counted.start].to_vec();
    out.push(&half);
    out.extend(&words[counted.start..counted.end]);
    out.extend(&words[of_end..]);
    out.join(" ")
}

/// «en el americano eran cinco, no cuatro»: the line first, then the count
/// restated and the cart's denied.
fn after_the_line(
    input: &ProposalInput,
    words: &[&str],
    found: &[mentions::Mention],
) -> Option<String> {
    let m = found.iter().find(|m| {
        let Some(id) = m.product() else {
            return false;
        };
        let in_cart = input.cart.quantity_of(id);
        let said = words.get(m.end + 1).and_then(|w| count(w));
        words
            .get(m.end)
            .is_some_and(|w| matches!(*w, "eran" | "era" | "son" | "fueron"))
            && said.is_some()
            && said != in_cart
            && words.get(m.end + 2) == Some(&"no")
            && words.get(m.end + 3).and_then(|w| count(w)) == in_cart
            && in_cart.is_some()
            && words
                .get(m.end + 4)
                .is_none_or(|w| matches!(*w, "y" | "e" | "pero"))
            && !words.iter().any(|w| w.starts_with("cobr"))
            && !words[m.end..].contains(&"pero")
    })?;
    let mut lead = &words[..m.start];
    while let [rest @ .., "el" | "la" | "los" | "las" | "en" | "del" | "de"] = lead {
        lead = rest;
    }
    let mut out: Vec<&str> = lead.to_vec();
    out.extend(["que", "sean", words[m.end + 1]]);
    out.extend(&words[m.start..m.end]);
    out.extend(&words[m.end + 4..]);
    Some(out.join(" "))
}

/// «el primero que sean tres», «la segunda quítala», «en el 1 eran cinco»: a
/// line named by its place. After the customer's own numbered list («1. cuatro
/// americanos», «2. dos capuchinos») a place is that item of the list; with no
/// numbered list shown, an ordinal or a number is a line of the cart as it was
/// listed.
fn nth_line(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let place = |w: &str| -> Option<usize> {
        lexicon::ORDINALS
            .iter()
            .find(|(o, _)| *o == w)
            .map(|(_, n)| *n)
            .or_else(|| w.parse::<usize>().ok().filter(|n| (1..=9).contains(n)))
    };
    let placed = |w: &[&str]| matches!(w[0], "el" | "la" | "del") && place(w[1]).is_some();
    let Some(at) = words.windows(2).position(placed) else {
        return text;
    };
    // «el primero no, el segundo sí»: two places named, which is meant is
    // asked; «el segundo piso», «el primer pedido»: no line of the cart.
    let ordinals = words
        .iter()
        .filter(|w| lexicon::ORDINALS.iter().any(|(o, _)| o == *w))
        .count();
    let next = words.get(at + 2).copied();
    let changes_it = next.is_none_or(|w| {
        matches!(
            w,
            "que" | "sean" | "sea" | "x" | "mejor" | "a" | "en" | "eran" | "era" | "son"
        ) || count(w).is_some()
            || lexicon::removes(w)
            || lexicon::adds(w)
            || lexicon::ADD.contains(&w)
            || matches!(w, "otro" | "otra" | "uno" | "una" | "mas")
            || swap_verb(w)
    });
    if ordinals > 1 || words.windows(2).filter(|w| placed(w)).count() > 1 || !changes_it {
        return text;
    }
    if words
        .get(at + 2)
        .is_some_and(|w| names_a_product(w, &input.product_catalog))
    {
        return text;
    }
    let Some(n) = place(words[at + 1]) else {
        return text;
    };
    // A place with a list of choices shown picks a choice, not a line —
    // unless what is said changes something had («del primero dame otro»).
    let of_the_cart = input.choices.is_empty()
        || words.iter().any(|w| {
            matches!(*w, "otro" | "otra" | "mas" | "menos" | "sean" | "eran")
                || lexicon::removes(w)
                || swap_verb(w)
        });
    let product = match listed_item(input, n) {
        Some(id) => id,
        None if of_the_cart && input.cart.lines.len() >= 2 => {
            let Some(line) = n.checked_sub(1).and_then(|i| input.cart.lines.get(i)) else {
                return text;
            };
            line.product_id
        }
        None => return text,
    };
    let Some(name) = name_of(input, product) else {
        return text;
    };
    let name = normalize(name);
    let mut out: Vec<&str> = words[..at].to_vec();
    out.push(if words[at] == "del" { "del" } else { "el" });
    out.push(&name);
    // «el primero que dije»: the words that placed it are spent.
    let mut rest = at + 2;
    if words.get(rest) == Some(&"que")
        && words
            .get(rest + 1)
            .is_some_and(|w| w.starts_with("dij") || w.starts_with("ped") || *w == "puse")
    {
        rest += 2;
    }
    out.extend(&words[rest..]);
    out.join(" ")
}

/// «limonada, dos. limonada eh, no maracuyá»: a product named after «no», not
/// in the cart and after another product was named, is the one not meant; its
/// words are dropped («el chai no» and «no, mejor…» are read elsewhere).
fn not_this_one(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    // «te pedí 2 brownies, no 3»: what was asked, restated; the «no 3» denies
    // the cart's count, it sets nothing.
    if any(&text, lexicon::RESTATED)
        && let [.., "no", n] = words.as_slice()
        && token_number(n).is_some()
    {
        return words[..words.len() - 2].join(" ");
    }
    let found = mentions::find(&words, &input.product_catalog);
    let Some(denied) = found.iter().skip(1).find(|m| {
        m.start > 0
            && words[m.start - 1] == "no"
            && m.end == words.len()
            && m.product().is_some_and(|id| {
                !input.cart.holds(id)
                    && found
                        .iter()
                        .any(|other| other.start < m.start && other.product() != Some(id))
            })
    }) else {
        return text;
    };
    words[..denied.start - 1].join(" ")
}

/// «uno de cada postre», «dos de cada bebida fría»: that many of every product
/// of the kind, by name («un Brownie y un Cheesecake»).
fn each_of_a_kind(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(3)
        .position(|w| token_number(w[0]).is_some() && w[1] == "de" && w[2] == "cada")
    else {
        return text;
    };
    let Some((_, tag)) = words
        .get(at + 3)
        .and_then(|w| lexicon::KINDS.iter().find(|(said, _)| said == w))
    else {
        return text;
    };
    let fitting: Vec<&str> = input
        .product_catalog
        .iter()
        .filter(|e| lexicon::is_of_kind(e, tag))
        .map(|e| e.name.as_str())
        .collect();
    if fitting.is_empty() || fitting.len() > 4 {
        return text;
    }
    let n = match words[at] {
        "uno" | "una" => "un",
        n => n,
    };
    let each: Vec<String> = fitting
        .iter()
        .map(|name| format!("{n} {}", normalize(name)))
        .collect();
    let mut out: Vec<String> = words[..at].iter().map(|w| (*w).to_owned()).collect();
    out.push(each.join(" y "));
    out.extend(words[at + 4..].iter().map(|w| (*w).to_owned()));
    out.join(" ")
}

/// «saca lo último que pedí», «el último sácalo»: the last line of the cart,
/// by its name.
fn the_last_named(input: &ProposalInput, text: String) -> String {
    let Some(last) = input.cart.lines.last() else {
        return text;
    };
    let Some(name) = name_of(input, last.product_id) else {
        return text;
    };
    let words = tokens(&text);
    let Some(at) = words
        .windows(2)
        .position(|w| matches!(w, ["lo" | "el", "ultimo"] | ["la", "ultima"]))
    else {
        return text;
    };
    // «la última vez», «el último pedido», «el último brownie que te quede»,
    // «es lo último» (that is all) are no line.
    if at > 0 && words[at - 1] == "es" {
        return text;
    }
    if words
        .get(at + 2)
        .is_some_and(|w| names_a_product(w, &input.product_catalog))
    {
        return text;
    }
    let mut end = at + 2;
    match words.get(end) {
        Some(&("vez" | "pedido" | "dia" | "hora" | "momento")) => return text,
        Some(&"que")
            if words
                .get(end + 1)
                .is_some_and(|w| w.starts_with("ped") || *w == "puse") =>
        {
            end += 2;
        }
        Some(&"que")
            if words.get(end + 1) == Some(&"te")
                && words.get(end + 2).is_some_and(|w| w.starts_with("ped")) =>
        {
            end += 3;
        }
        _ => {}
    }
    let name = normalize(name);
    let mut out: Vec<&str> = words[..at].to_vec();
    out.push("el");
    out.push(&name);
    out.extend(&words[end..]);
    out.join(" ")
}

/// Whether the message leaves the change unsure in ways the reading does not
/// weigh: a range of counts («2 o 3 brownies»); an order told of another day
/// beside today's («ayer pedí 3 capuchinos y estaban fríos, hoy quiero 2
/// americanos»); «ese no» / «esa no me gusta» right after a product not in
/// the cart was shown, read as taking a line out; a count taken off («2
/// capuchinos menos», «menos 1 croissant») read as more.
fn unsure_of_what(input: &ProposalInput, proposal: &Proposal) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let range = words
        .windows(3)
        .any(|w| count(w[0]).is_some() && matches!(w[1], "o" | "u") && count(w[2]).is_some());
    let another_day = any(
        &text,
        &[
            "ayer",
            "anoche",
            "la vez pasada",
            "la otra vez",
            "el otro dia",
            "la semana pasada",
        ],
    ) && {
        // The product ordered then, named right after the verb.
        let found = mentions::find(&words, &input.product_catalog);
        words.iter().enumerate().any(|(k, w)| {
            matches!(
                *w,
                "pedi" | "pedimos" | "compre" | "compramos" | "ordene" | "ordenamos"
            ) && found.iter().any(|m| m.start > k && m.start <= k + 3)
        })
    };
    let acts = |kind: &str| {
        proposal
            .proposed_actions
            .iter()
            .any(|a| a.action_type == kind)
    };
    let that_one_not = !names_a_product(&text, &input.product_catalog)
        && acts("REMOVE_ITEM")
        && words
            .iter()
            .any(|w| matches!(*w, "ese" | "esa" | "eso" | "este" | "esta"))
        && input
            .recent_history
            .iter()
            .rev()
            .find(|h| h.role == "bot")
            .is_some_and(|bot| {
                let shown = products_in(&bot.text, &input.product_catalog);
                !shown.is_empty() && shown.iter().all(|id| !input.cart.holds(*id))
            });
    let added: Vec<ProductId> = proposal
        .proposed_actions
        .iter()
        .filter(|a| a.action_type == "ADD_TO_CART")
        .filter_map(|a| a.params.product_id.as_ref().and_then(|v| v.as_i64()))
        .collect();
    // «un chai o un chocolate, lo que sea más barato», «si no hay croissant
    // dame un brownie»: one or the other, never both.
    let found = mentions::find(&words, &input.product_catalog);
    // («el chai o el capuchino, ¿cuál es más rico?» compares: shown below.)
    let either = added.len() >= 2
        && !words.contains(&"cual")
        && (found.windows(2).any(|pair| {
            let between = &words[pair[0].end..pair[1].start];
            between.contains(&"o")
                && between.len() <= 3
                && [pair[0].product(), pair[1].product()]
                    .iter()
                    .all(|id| id.is_some_and(|id| added.contains(&id)))
        }) || any(&text, &["si no hay", "si no tienen", "si no tienes"]));
    let taken_off = found.iter().any(|m| {
        m.product().is_some_and(|id| added.contains(&id))
            && (words.get(m.end) == Some(&"menos")
                || words[m.start.saturating_sub(2)..m.start].contains(&"menos"))
    });
    range || another_day || that_one_not || taken_off || either
}

/// «quítale uno a los capuchinos»: a removal verb, a count, then «a/al» and a
/// line of the cart — the product and how many come off it.
fn one_taken_off(input: &ProposalInput) -> Option<(ProductId, i64)> {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    words.windows(2).enumerate().find_map(|(k, w)| {
        let off = match w[1] {
            "uno" | "una" | "un" => 1,
            other => count(other)?,
        };
        let removes = lexicon::removes(w[0]) || lexicon::with_pronoun(w[0], lexicon::removes);
        if !removes {
            return None;
        }
        words.get(k + 2).filter(|t| matches!(**t, "a" | "al"))?;
        let m = found.iter().find(|m| m.start > k + 2 && m.start <= k + 4)?;
        let id = m.product()?;
        input.cart.holds(id).then_some((id, off))
    })
}

/// Whether the message says the count of lines already in the cart again
/// rather than asking for more: a word that sums up («entonces», «total», «o
/// sea», «resumiendo», «al final», «igual quiero», «creo que… están bien»), or
/// a line's name then its count alone («capuchinos: 5»), with no word of
/// more («otro», «más», «también», «agrega»…).
fn restates_the_cart(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    if input.cart.lines.is_empty() || words.is_empty() {
        return false;
    }
    // («ponme 2 brownies, ¿cuánto es en total?», «entonces ponme 1 para mi
    // amiga»: an order verb or a price asked is no restating.)
    let more = words.iter().any(|w| {
        matches!(
            *w,
            "otro"
                | "otra"
                | "otros"
                | "otras"
                | "mas"
                | "tambien"
                | "adicional"
                | "adicionales"
                | "extra"
                | "extras"
                | "aparte"
                | "dame"
                | "cuanto"
                | "cuantos"
        ) || lexicon::adds(w)
    }) || words.first() == Some(&"y")
        // A swap adds what comes in to its line: «cámbialos por dos chais».
        || words.iter().any(|w| swap_verb(w));
    if more {
        return false;
    }
    let sums_up = any(
        &text,
        &[
            "entonces",
            "en total",
            "total",
            "o sea",
            "osea",
            "resumiendo",
            "en resumen",
            "al final",
            "igual quiero",
            "perdon",
            "mejor dicho",
            "estan bien",
            "esta bien",
            "creo que",
            "corrijo",
            "correccion",
            "me equivoque",
        ],
    );
    // «capuchinos: 5», «brownies 1»: a name, then its count, nothing else.
    let found = mentions::find(&words, &input.product_catalog);
    let name_then_count = matches!(found.as_slice(), [m] if m.start == 0
        && m.end + 1 == words.len()
        && count(words[m.end]).is_some());
    // «reduce los capuchinos a 1», «bájale los brownies a 2», «déjalo en 1».
    let set_to = words.iter().any(|w| {
        ["reduc", "baj", "rebaj", "sub", "aument", "dej"]
            .iter()
            .any(|stem| w.starts_with(stem))
    }) && words
        .windows(2)
        .any(|w| matches!(w[0], "a" | "en") && count(w[1]).is_some());
    // «ok, 2 capuchinos y 2 brownies» with 2 capuchinos in the cart: a line
    // said with the count it already has is the order said again (never for
    // someone else: «2 capuchinos para mi hermana»).
    // (An answer the proposer rewrote — «otra limonada», «la 3» — reads «quiero
    // 1 limonada»: an order.)
    // (Every line said exactly as it is, alone, may be more of the same.)
    let as_is = |m: &mentions::Mention| {
        m.product().is_some_and(|id| {
            m.start > 0
                && count(words[m.start - 1]).is_some()
                && input.cart.quantity_of(id) == count(words[m.start - 1])
        })
    };
    let said_as_is = !words
        .iter()
        .any(|w| matches!(*w, "para" | "quiero" | "quisiera" | "queria"))
        && found.iter().any(as_is)
        && !found.iter().all(as_is);
    sums_up || name_then_count || set_to || said_as_is
}

/// Whether the reading adds a product the words say no to, or keeps a count
/// or a change the message corrects: «quiero un americano, no un capuchino»,
/// «un chai... no, un matcha», «capuchino no! americano», «Ana no quiere
/// matcha, que le pongas un chai», «2 matchas bueno 1 matcha», «ponle 3, no,
/// déjalo en 2», «quita el croissant, no, déjalo», «agrega un brownie… o no,
/// mejor no». Which one the customer meant is asked, never guessed.
fn corrected_within(input: &ProposalInput, proposal: &Proposal) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    // (A «no» opening the message answers the bot: «no, un brownie».)
    let negation = |k: usize| (k > 0 && matches!(words[k], "no" | "ni")) || words[k] == "not";
    // «no mas», «no se», «no importa»: no negation of a product.
    let idle_after = |k: usize| {
        words
            .get(k + 1)
            .is_some_and(|w| matches!(*w, "mas" | "se" | "importa" | "hay" | "problema" | "tengo"))
    };
    let found = mentions::find(&words, &input.product_catalog);
    let quantity = |a: &ProposedAction| a.params.quantity.as_ref().and_then(|v| v.as_i64());
    let in_cart = |id: ProductId| {
        input
            .cart
            .lines
            .iter()
            .find(|l| l.product_id == id)
            .map_or(0, |l| l.quantity)
    };
    // The products the reading puts more of in the cart.
    let increased: Vec<ProductId> = proposal
        .proposed_actions
        .iter()
        .filter_map(|a| {
            let id = a.params.product_id.as_ref().and_then(|v| v.as_i64())?;
            match a.action_type.as_str() {
                "ADD_TO_CART" => Some(id),
                "UPDATE_QUANTITY" if quantity(a).is_some_and(|q| q > in_cart(id)) => Some(id),
                _ => None,
            }
        })
        .collect();
    // «todavía no, agrégame un brownie»: the «no» answers the summary.
    let not_yet = |k: usize| k > 0 && matches!(words[k - 1], "todavia" | "aun" | "ahora");
    let negated = found.iter().any(|m| {
        let Some(id) = m.product() else {
            return false;
        };
        if !increased.contains(&id) {
            return false;
        }
        // Before: «no un capuchino», «no quiere matcha», «not the capuchinos».
        let mut k = m.start;
        while k > 0
            && matches!(
                words[k - 1],
                "un" | "una" | "el" | "la" | "los" | "las" | "the" | "a"
            )
        {
            k -= 1;
        }
        let before = k > 0 && negation(k - 1) && !idle_after(k - 1) && !not_yet(k - 1)
            || (k > 1
                && negation(k - 2)
                && !not_yet(k - 2)
                // «no pidas…», «no quiere…» (never «no, pídele un capuchino»).
                && ((lexicon::adds(words[k - 1])
                    && (words[k - 1].ends_with("as") || words[k - 1].ends_with("es")))
                    || matches!(words[k - 1], "quiere" | "quiero" | "queremos" | "quieren")));
        // After: «capuchino no! americano», «un chai… no, un matcha» — another
        // product named next («dos americanos no perdón tres americanos»
        // corrects the count, which the reading follows).
        let after = words.get(m.end).is_some_and(|w| *w == "no")
            && !idle_after(m.end)
            && words.get(m.end + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "un" | "una" | "el" | "la" | "mejor" | "perdon" | "digo"
                ) || found.iter().any(|other| other.start == m.end + 1)
            })
            && found
                .iter()
                .find(|other| other.start > m.end)
                .is_some_and(|other| {
                    // «2 capuchinos… no, mejor 3, y un brownie» corrects the count.
                    other.product() != Some(id)
                        && !words[m.end..other.start].iter().any(|w| count(w).is_some())
                });
        before || after
    });
    // «ponle 3, no, déjalo en 2», «1 capuchino, 2 no, 3 brownies»: a count
    // taken back by a later one, the reading keeping the first; «2 matchas
    // bueno 1 matcha»: one product added twice across a correction.
    let counts: Vec<(usize, i64)> = words
        .iter()
        .enumerate()
        .filter_map(|(k, w)| count(w).map(|n| (k, n)))
        .collect();
    // («eran cinco, no cuatro» says five: a «no» right before the later count,
    // without a pause, denies it.)
    let paused = ["no,", "no.", "no!", "no…", "no ."]
        .iter()
        .any(|p| input.customer_message.to_lowercase().contains(p));
    let kept_first = counts.windows(2).any(|pair| {
        let ((at, first), (next, later)) = (pair[0], pair[1]);
        words
            .get(at + 1)
            .is_some_and(|w| matches!(*w, "no" | "bueno" | "digo" | "perdon"))
            && (next > at + 2 || words[at + 1] != "no" || paused)
            && first != later
            && proposal
                .proposed_actions
                .iter()
                .any(|a| quantity(a) == Some(first))
            && !proposal
                .proposed_actions
                .iter()
                .any(|a| quantity(a) == Some(later))
    });
    let recounted = kept_first || {
        let mut adds: Vec<ProductId> = proposal
            .proposed_actions
            .iter()
            .filter(|a| a.action_type == "ADD_TO_CART")
            .filter_map(|a| a.params.product_id.as_ref().and_then(|v| v.as_i64()))
            .collect();
        let all = adds.len();
        adds.sort_unstable();
        adds.dedup();
        // («bueno, 2 brownies para mí y 3 para mi hermana» adds twice by design.)
        adds.len() < all
            && found.iter().enumerate().any(|(i, a)| {
                found[i + 1..].iter().any(|b| {
                    a.product().is_some()
                        && a.product() == b.product()
                        && words[a.end..b.start]
                            .iter()
                            .any(|w| matches!(*w, "bueno" | "digo" | "perdon" | "no"))
                })
            })
    };
    // «quita el croissant, no, déjalo»; «agrega un brownie… o no, mejor no»
    // (while «el último quítalo, mejor no» says why it goes).
    let removes = proposal
        .proposed_actions
        .iter()
        .any(|a| a.action_type == "REMOVE_ITEM");
    let kept = (removes && any(&text, &["no dejalo", "mejor dejalo"]))
        || (!increased.is_empty()
            && (text.trim_end().ends_with("mejor no") || text.trim_end().ends_with(" o no")));
    negated || recounted || kept
}

/// Whether a proposal that cancels the order or empties the cart stands on
/// words that doubt it («no sé si cancelar», «…pero yo quiero»), ask it in the
/// first person («¿cancelo?», «¿qué pasa si cancelo?»), say someone else's
/// order («su pedido, no el mío») or say only «olvídalo», which may mean the
/// last thing said.
fn calls_off_unsure(input: &ProposalInput, proposal: &Proposal) -> bool {
    let calls_off = proposal
        .proposed_actions
        .iter()
        .any(|a| matches!(a.action_type.as_str(), "CANCEL_ORDER" | "CLEAR_CART"));
    if !calls_off {
        return false;
    }
    let raw = &input.customer_message;
    let text = prepared(raw);
    let words = tokens(&text);
    let asked = raw.contains('?') || raw.trim_start().starts_with('¿');
    // «¿me cancelas el pedido?», «¿puedes anularlo?»: asked of the shop, a request.
    let requested = words.iter().any(|w| {
        matches!(
            *w,
            "cancelas"
                | "cancelan"
                | "cancelame"
                | "cancela"
                | "cancelalo"
                | "anulas"
                | "anula"
                | "anulalo"
                | "puedes"
                | "podes"
                | "podrias"
                | "pueden"
                | "podrian"
        )
    });
    let doubted = any(
        &text,
        &[
            "no se si",
            "no estoy seguro",
            "no estoy segura",
            "su pedido",
            "no el mio",
            "no la mia",
        ],
    ) || words
        .windows(2)
        .any(|w| w[0] == "pero" && matches!(w[1], "yo" | "quiero" | "si"));
    let only_forget = words.iter().any(|w| w.starts_with("olvid"))
        && !words.iter().any(|w| {
            matches!(
                *w,
                "todo"
                    | "pedido"
                    | "orden"
                    | "carrito"
                    | "compra"
                    | "cancela"
                    | "cancelar"
                    | "anula"
            )
        });
    (asked && !requested) || doubted || only_forget
}

/// Where «lo mismo que el Jorge», «igual que yo» starts, and the word naming
/// whom («jorge», «yo»), with the index after it.
fn same_as_at<'a>(words: &[&'a str]) -> Option<(usize, &'a str, usize)> {
    let at = (0..words.len()).find(|&k| {
        matches!(
            words[k..],
            ["lo", "mismo", "que", ..] | ["igual", "que", ..]
        )
    })?;
    let mut who = at + if words[at] == "lo" { 3 } else { 2 };
    if words
        .get(who)
        .is_some_and(|w| matches!(*w, "el" | "la" | "mi" | "a" | "al" | "de" | "del"))
    {
        who += 1;
    }
    let person = *words.get(who)?;
    Some((at, person, who + 1))
}

/// «Para mí un capuchino, para el Jorge un americano…» … «la Pao quiere lo
/// mismo que el Jorge»: what the customer's recent messages ordered «para»
/// that person (or «para mí», for «lo mismo que yo»), said in place of the
/// reference.
fn same_as_someone(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some((at, person, end)) = same_as_at(&words) else {
        return text;
    };
    let person = if person == "yo" { "mi" } else { person };
    let items = earlier_turns(input)
        .filter(|h| h.role == "customer")
        .take(3)
        .find_map(|h| {
            let said = prepared(&h.text);
            let earlier = tokens(&said);
            let start = (0..earlier.len()).find(|&j| {
                earlier[j] == "para"
                    && (earlier.get(j + 1) == Some(&person)
                        || (earlier
                            .get(j + 1)
                            .is_some_and(|w| matches!(*w, "el" | "la" | "mi" | "mis"))
                            && earlier.get(j + 2) == Some(&person)))
            })?;
            let from = start + if earlier[start + 1] == person { 2 } else { 3 };
            let until = (from..earlier.len())
                .find(|&j| {
                    earlier[j] == "para"
                        || (earlier[j] == "y" && earlier.get(j + 1) == Some(&"para"))
                })
                .unwrap_or(earlier.len());
            let items = &earlier[from..until];
            // «para el Jorge un americano»: the items follow the person (in
            // «un capuchino para mí y un americano para el Jorge» they come
            // before, and whose is whose is not read here).
            let found = mentions::find(items, &input.product_catalog);
            let follows = items.first().is_some_and(|w| {
                count(w).is_some()
                    || matches!(*w, "un" | "una" | "uno" | "el" | "la" | "los" | "las")
            }) || found.first().is_some_and(|m| m.start == 0);
            (follows && !found.is_empty()).then(|| items.join(" "))
        });
    let Some(items) = items else {
        return text;
    };
    let mut out: Vec<&str> = words[..at].to_vec();
    out.push(&items);
    out.extend(&words[end..]);
    out.join(" ")
}

/// «¿qué tés tienen?» … «Té chai y Matcha» … «dame el chai» … «el otro
/// también»: of the two products the last turns named, the one the
/// customer's message before did not take, said by name. Anything less sure
/// stays as written (and is asked).
fn the_other_one(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(2)
        .position(|w| matches!(w, ["el", "otro"] | ["la", "otra"]))
    else {
        return text;
    };
    // «el otro también», «y la otra porfa»; never «el otro día» or «uno para
    // aquí y el otro para llevar».
    if names_a_product(&text, &input.product_catalog)
        || words.len() > 5
        || words[..at].iter().any(|w| matches!(*w, "uno" | "una"))
        || words
            .get(at + 2)
            .is_some_and(|w| matches!(*w, "dia" | "para" | "de" | "que"))
    {
        return text;
    }
    let named = |t: &str| -> Vec<ProductId> {
        let mut ids: Vec<ProductId> = mentions::find(&tokens(&prepared(t)), &input.product_catalog)
            .into_iter()
            .filter_map(|m| m.product())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let recent: Vec<&crate::proposal::HistoryEntry> = earlier_turns(input).take(4).collect();
    let Some(taken) = recent
        .iter()
        .find(|h| h.role == "customer")
        .map(|h| named(&h.text))
    else {
        return text;
    };
    let mut offered: Vec<ProductId> = recent
        .iter()
        .filter(|h| h.role == "bot")
        .flat_map(|h| named(&h.text))
        .collect();
    offered.sort_unstable();
    offered.dedup();
    let [took] = taken.as_slice() else {
        return text;
    };
    let other: Vec<ProductId> = offered.iter().copied().filter(|id| id != took).collect();
    match (offered.len(), other.as_slice()) {
        (2, [other]) => {
            let Some(name) = name_of(input, *other) else {
                return text;
            };
            let name = normalize(name);
            let mut out: Vec<&str> = words[..at].to_vec();
            out.push(words[at]);
            out.push(&name);
            out.extend(&words[at + 2..]);
            out.join(" ")
        }
        _ => text,
    }
}

/// «que le pidas lo mismo que yo» with nothing ordered «para mí» before:
/// whose order is meant is not the rules' to know.
fn same_as_whom(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    same_as_at(&tokens(&text)).is_some_and(|(_, person, _)| {
        // «lo mismo que pedí recién», «igual que antes»: the order again.
        !matches!(
            person,
            "antes" | "siempre" | "ayer" | "recien" | "hoy" | "pedi" | "pedimos" | "te" | "le"
        )
    }) && same_as_at(&tokens(&said(input))).is_some()
}

/// «¿cuánto me saldrían 3 brownies?» … «ok, dame los 3 y 2 limonadas»: «los 3»
/// points at the product just asked about, and is read as its name.
fn pointed_at_focus(input: &ProposalInput, text: String) -> String {
    let Some(focus) = input.focus else {
        return text;
    };
    let words = tokens(&text);
    // «el chai tiene cafeína?» … «uh sí tiene, entonces sácalo, y del maracuyá
    // pon dos»: a removal whose object is a pronoun, beside another product,
    // takes out the product just asked about, when it is in the cart.
    let in_cart = input.cart.holds(focus);
    let found = mentions::find(&words, &input.product_catalog);
    // («¿y si mejor saco el croissant?» … «dale, sácalo»: alone too.)
    if in_cart
        && !found.iter().any(|m| m.candidates.contains(&focus))
        && let Some(at) = words
            .iter()
            .position(|w| lexicon::with_pronoun(w, lexicon::removes))
        && words
            .iter()
            .filter(|w| lexicon::with_pronoun(w, lexicon::removes))
            .count()
            == 1
        && let Some(name) = name_of(input, focus)
    {
        let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        out[at] = format!("quita el {}", normalize(name));
        return out.join(" ");
    }
    // «dame los 3», and «dame 2 y tres americanos»: a count said after an order
    // verb and before «y», with no product of its own.
    let Some(at) = words
        .windows(2)
        .position(|w| matches!(w[0], "los" | "las") && count(w[1]).is_some())
        .or_else(|| {
            words.windows(3).position(|w| {
                // «dame uno y un brownie»: «uno», a pronoun, is one of it.
                (lexicon::adds(w[0]) || matches!(w[0], "dame" | "deme" | "quiero"))
                    && (count(w[1]).is_some() || matches!(w[1], "uno" | "una"))
                    && matches!(w[2], "y" | "e")
            })
        })
    else {
        return text;
    };
    if mentions::find(&words, &input.product_catalog)
        .iter()
        .any(|m| m.candidates.contains(&focus))
    {
        return text;
    }
    let next = words.get(at + 2).copied();
    if next.is_some_and(|w| matches!(w, "de" | "del") || names_a_product(w, &input.product_catalog))
    {
        return text;
    }
    let Some(name) = name_of(input, focus) else {
        return text;
    };
    let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    out[at] = out[at + 1].clone();
    out[at + 1] = normalize(name);
    out.join(" ")
}

/// Words that join a sentence and say nothing about what is wanted.
const SMALL: &[&str] = &[
    "el", "la", "los", "las", "un", "una", "uno", "de", "del", "y", "que", "a", "al", "en", "con",
    "para", "por", "mi", "me", "te", "se", "lo", "le", "es", "porfa", "favor", "tambien", "pa",
    "su", "tu", "mas", "si", "o", "e",
];

/// Words of someone thinking aloud, not ordering.
const HEDGES: &[&str] = &[
    "no se si",
    "no estoy seguro",
    "no estoy segura",
    "tal vez",
    "quizas",
    "quiza",
    "a lo mejor",
    "lo pienso",
    "lo voy a pensar",
    "o mejor nada",
    "todavia no se",
];

/// Whether the words before a product refuse it: «no brownie», «ya no el
/// brownie», but not «no sé si» or «no, mejor».
fn refuses(before: &[&str]) -> bool {
    let mut words: Vec<&str> = before
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "el" | "la" | "los" | "las" | "ok" | "okey" | "bueno"))
        .collect();
    if words.first() == Some(&"ya") {
        words.remove(0);
    }
    words == ["no"] || words.ends_with(&["y", "no"])
}

/// Words that take back what was just said.
const CORRECTION_WORDS: &[&str] = &[
    "no", "perdon", "mejor", "digo", "que sea", "que sean", "mas bien", "bueno no",
];

/// «cambia», «cámbialo», «reemplaza»: a verb that swaps one thing for another.
pub(super) fn swap_verb(word: &str) -> bool {
    word.starts_with("cambi") || word.starts_with("reemplaz")
}

/// Where «por» or «x» joins a swap: the first after the swap verb («por favor
/// cambia el latte por un chai» is joined by the second «por»).
pub(super) fn swap_joiner(words: &[&str]) -> Option<usize> {
    let verb = words.iter().position(|w| swap_verb(w))?;
    words[verb + 1..]
        .iter()
        .position(|w| matches!(*w, "por" | "x"))
        .map(|p| verb + 1 + p)
}

/// Words around a swap's products that name nothing («cambia el … por»).
const STOPWORDS_AROUND: &[&str] = &[
    "el", "la", "los", "las", "un", "una", "uno", "de", "del", "me", "porfa", "mejor", "lo", "la",
];

/// «en vez de», «en lugar de»: one thing instead of another.
const INSTEAD: &[&str] = &["en vez", "en lugar"];

/// Whether the words around a product in the cart swap it for the next one named.
fn swaps(before: &[&str], after: &[&str]) -> bool {
    let changes = |w: &&str| swap_verb(w);
    let instead = any(&before.join(" "), INSTEAD);
    let by = after.iter().any(|w| matches!(*w, "por" | "a" | "x"));
    let number_after = after.iter().any(|w| count(w).is_some());
    // «cámbialo a 2» sets a quantity; «cambia los brownies por 2 croissants»
    // swaps for a number of another product.
    let counted_swap = after
        .windows(2)
        .any(|w| w[0] == "por" && token_number(w[1]).is_some());
    // «el chocolate x un capuchino»: a product in the cart, «x» or «por», and
    // the next product with only its article or count between.
    let direct = matches!(after, [joiner, rest @ ..]
        if matches!(*joiner, "x" | "por")
            && rest.len() <= 1
            && rest.iter().all(|w| matches!(*w, "un" | "una" | "uno" | "el" | "la" | "los" | "las") || count(w).is_some()));
    // «en vez de los dos capuchinos, póngame dos chocolates»: after «en vez
    // de», a count is the next product's.
    (instead || !number_after || counted_swap || direct)
        && (direct
            || instead
            || (before.iter().any(changes) && by)
            || (after.iter().any(changes) && by)
            || (after.contains(&"mejor") && by)
            // «uno de los capuchinos que sea chai»: one of them becomes the next.
            || matches!(
                after
                    .iter()
                    .copied()
                    .filter(|w| !matches!(*w, "un" | "una" | "el" | "la" | "mejor"))
                    .collect::<Vec<_>>()
                    .as_slice(),
                [.., "que", "sea" | "sean"]
            ) && !before.contains(&"no")
            // «el americano no, que sea otro capuchino», «el chai no, pídele
            // un capuchino»: this one out, that one in.
            || (after.first() == Some(&"no") && {
                let own = after
                    .iter()
                    .rev()
                    .take_while(|w| matches!(**w, "un" | "una" | "el" | "la" | "otro" | "otra"))
                    .count();
                let between = &after[..after.len() - own];
                between.len() <= 5
                    && (any(&between.join(" "), &["que sea", "que sean", "mejor", "mas bien"])
                        || between[1..].iter().any(|w| lexicon::adds(w)))
            }))
}

/// Whether the words after a product take it back before the next one: «un
/// capuchino… no, mejor que sea chai».
fn takes_back(after: &[&str]) -> bool {
    // «una limonada, ah no, mejor maracuyá»: a sound of surprise says nothing.
    // «un chai, bueno no, mejor un chocolate»: nor a «bueno» before the «no».
    let after = &after[after
        .iter()
        .take_while(|w| {
            matches!(
                **w,
                "ah" | "ahh" | "oh" | "uy" | "uh" | "eh" | "mm" | "mmm" | "ay" | "bueno" | "pues"
            )
        })
        .count()..];
    // The article said right before the next product is its own («un chai,
    // bueno no, mejor un chocolate»); a numeral there corrects the count.
    let own = after
        .iter()
        .rev()
        .take_while(|w| matches!(**w, "un" | "una" | "el" | "la" | "los" | "las"))
        .count();
    let after = &after[..after.len() - own];
    // «3 limonadas, no, mejor 2» corrects the quantity, not the product.
    if after.iter().any(|w| count(w).is_some()) {
        return false;
    }
    let text = after.join(" ");
    (after.first() == Some(&"no") || any(&text, &["perdon", "digo", "mas bien"]))
        && any(
            &text,
            &[
                "mejor",
                "que sea",
                "que sean",
                "digo",
                "mas bien",
                "perdon",
                // «no, espera, un capuchino»: a pause before the right one.
                "espera",
                "espere",
                "pera",
                "perate",
                "aguanta",
                "corrijo",
                "quise decir",
                "me equivoque",
            ],
        )
}

/// The words of `clause` that `phrases` cover.
fn mark_phrase(clause: &str, phrases: &[&str]) -> Vec<bool> {
    let words: Vec<&str> = clause.split(' ').collect();
    let mut covered = vec![false; words.len()];
    lexicon::cover(&words, phrases, &mut covered);
    covered
}

/// What one clause asks of one product. `covered` marks the clause's words it used.
/// `carried`: an earlier clause's «que sean» sets this line too.
fn clause_action(
    clause: &str,
    (before, after): (&[&str], &[&str]),
    (id, in_cart): (ProductId, i64),
    (question, followed, carried): (bool, bool, bool),
    covered: &mut [bool],
) -> Option<ProposedAction> {
    let clause_words: Vec<&str> = clause.split(' ').collect();
    let mark =
        |covered: &mut [bool], phrases: &[&str]| lexicon::cover(&clause_words, phrases, covered);
    // "3 limonadas, no perdón 2": the correction wins; "si hay cheesecake me
    // aparta dos": a quantity after the verb at the end of the sentence.
    // «te pedí 2 brownies, no 3»: the number restated is the one; the «no 3»
    // denies the cart's.
    let restated = any(clause, lexicon::RESTATED) || any(&before.join(" "), lexicon::RESTATED);
    let corrected = corrected_quantity(after).filter(|_| !restated);
    if corrected.is_some() {
        mark(covered, CORRECTION_WORDS);
    }
    let quantity = corrected
        .or_else(|| quantity_before(before))
        .or_else(|| quantity_after(after))
        .or_else(|| verb_quantity(after, followed));
    // "Del brownie solo 1", "de los capuchinos que sean 3", "de croissants solo
    // uno": a partitive with a quantity sets the line.
    let partitive = matches!(before.last(), Some(&("de" | "del" | "los" | "las")))
        && before.iter().any(|w| matches!(*w, "de" | "del"));
    let only = any(clause, ONLY) || carried;
    // «del brownie ninguno», «de los croissants cero»: none of it.
    if in_cart > 0
        && partitive
        && after
            .iter()
            .any(|w| matches!(*w, "ninguno" | "ninguna" | "nada" | "cero" | "0"))
    {
        mark(
            covered,
            &[
                "de", "del", "los", "las", "ninguno", "ninguna", "nada", "cero", "0",
            ],
        );
        mark(covered, ONLY);
        mark(covered, lexicon::SET);
        return Some(ProposedAction::new("REMOVE_ITEM").product(id));
    }
    // «que sean dos nada más»: «nada más» / «no más» is «only», never «more».
    let without_only = only_after_count(&clause_words)
        .replace(" nada mas", "")
        .replace(" no mas", "");
    // «los otros dos que sean brownies»: the rest of a line, not more of it.
    let without_only = without_only
        .replace("los otros", "")
        .replace("las otras", "")
        // «…eran dos nomás, el otro es chocolate»: the other one, not one more.
        .replace("el otro", "")
        .replace("la otra", "");
    let more = any(&without_only, &["mas", "otro", "otra", "otros", "otras"]);
    if in_cart > 0
        && (partitive || only)
        && !more
        && let Some(q) = corrected
            // «que sean dos matchas, uno es pa mi novio»: the count said with
            // the setting words before the product is the line's.
            .or_else(|| {
                any(&before.join(" "), ONLY)
                    .then(|| quantity_before(before))
                    .flatten()
            })
            .or_else(|| quantity_after(after))
            .or_else(|| {
                after
                    .iter()
                    .find_map(|w| token_number(w).filter(|_| !question))
            })
            .or_else(|| if only { quantity_before(before) } else { None })
    {
        mark(covered, &["de", "del", "los", "las"]);
        mark(covered, ONLY);
        mark(covered, lexicon::SET);
        for (k, w) in clause_words.iter().enumerate() {
            if token_number(w).is_some() || matches!(*w, "media" | "par") {
                covered[k] = true;
            }
        }
        return Some(
            ProposedAction::new("UPDATE_QUANTITY")
                .product(id)
                .quantity(q),
        );
    }
    for (k, w) in clause_words.iter().enumerate() {
        if token_number(w).is_some()
            || matches!(
                *w,
                "docena" | "docenas" | "media" | "par" | "x" | "otro" | "otra" | "otros" | "otras"
            )
            || (w.starts_with('x') && token_number(&w[1..]).is_some())
        {
            covered[k] = true;
        }
    }
    let has = |phrases: &[&str]| any(clause, phrases);
    // «un matcha menos y un americano más»: the «menos» of the line before the
    // «y» is not this one's.
    let own_before = before
        .iter()
        .rposition(|w| matches!(*w, "y" | "e"))
        .map_or(before, |at| &before[at + 1..]);
    let own_after = after
        .iter()
        .position(|w| matches!(*w, "y" | "e"))
        .map_or(after, |at| &after[..at]);
    let less = own_before.contains(&"menos") || own_after.contains(&"menos");
    let half = has(&["mitad"]);
    // "La limonada no": a product, then a bare no, is taking it out.
    // (Not a tag after an opinion: «el americano no está rico, ¿no?».)
    let trailing_no = after.last() == Some(&"no")
        && before.iter().all(|w| lexicon::FILLER.contains(w))
        && after[..after.len() - 1].iter().all(|w| {
            lexicon::FILLER.contains(w)
                || matches!(*w, "no" | "ya" | "mejor" | "nomas" | "entonces")
        });
    // «sin api. un chocolate»: «sin» before something else is not this
    // product out; the thing refused is covered with it.
    let without_other = before.iter().position(|w| *w == "sin").filter(|&k| {
        before[k + 1..]
            .iter()
            .any(|w| !SMALL.contains(w) && !lexicon::FILLER.contains(w) && count(w).is_none())
    });
    if let Some(k) = without_other {
        covered[k] = true;
        covered[k + 1] = true;
    }
    // «otro capuchino sin canela», «las limonadas sin hierbabuena»: how it is
    // made, not the product out.
    let made_without = after.iter().position(|w| *w == "sin").is_some_and(|k| {
        after[k + 1..]
            .iter()
            .find(|w| !matches!(**w, "el" | "la" | "los" | "las"))
            .is_some_and(|w| !lexicon::removes(w) && count(w).is_none())
    });
    let refused_removal = without_other.is_some()
        || made_without
            && !clause_words
                .iter()
                .any(|w| lexicon::removes(w) || matches!(*w, "quita" | "saca"));
    // «quítalo y pon una limonada»: a removal said before «y» is not this
    // product's when its own part has an order verb.
    let own_orders =
        own_before.iter().any(|w| lexicon::adds(w)) || any(&own_before.join(" "), lexicon::ADD);
    let mut own_part: Vec<&str> = if own_orders {
        clause_words[before.len() - own_before.len()..].to_vec()
    } else {
        clause_words.clone()
    };
    // «un croissant, sin brownie esta vez»: a «sin» right before the next
    // product is that product's.
    if after.last() == Some(&"sin") && own_part.last() == Some(&"sin") {
        own_part.pop();
    }
    let removes = (any(&own_part.join(" "), lexicon::REMOVE) && !refused_removal)
        || own_part.iter().any(|w| lexicon::removes(w))
        || trailing_no
        || (has(&[
            "cancela", "cancelar", "anula", "anule", "anulen", "anular", "anulame",
        ]) && in_cart > 0);
    for (k, w) in clause_words.iter().enumerate() {
        if lexicon::removes(w) || lexicon::adds(w) || (trailing_no && *w == "no") {
            covered[k] = true;
        }
    }
    if less && in_cart > 0 {
        mark(covered, &["menos", "de"]);
        mark(covered, lexicon::REMOVE);
        return Some(decrease(id, in_cart, quantity.unwrap_or(1)));
    }
    if half && in_cart > 0 {
        mark(covered, &["la mitad", "mitad", "de"]);
        mark(covered, lexicon::SET);
        return Some(
            ProposedAction::new("UPDATE_QUANTITY")
                .product(id)
                .quantity((in_cart / 2).max(1)),
        );
    }
    if removes {
        mark(covered, lexicon::REMOVE);
        mark(covered, &["cancela", "cancelar"]);
        // "quítame uno de matcha" takes one away; "quita el matcha" the line.
        return Some(match quantity {
            Some(q) if in_cart > q => decrease(id, in_cart, q),
            _ => ProposedAction::new("REMOVE_ITEM").product(id),
        });
    }
    let orders = has(lexicon::ADD) || clause_words.iter().any(|w| lexicon::adds(w));
    let asks = has(lexicon::QUESTION) || (question && !orders && quantity.is_none());
    // "Quiero saber el precio": wanting to know is not wanting the product.
    let only_asks =
        has(&["saber", "preguntar", "precio", "info", "informacion"]) && quantity.is_none();
    if asks && (!orders || only_asks) {
        mark(covered, lexicon::QUESTION);
        return Some(ProposedAction::new("SHOW_PRODUCT").product(id));
    }
    // «entonces nomás el americano, es todo» with an americano in the cart:
    // that line as it is, nothing more of it.
    let only_this = any(clause, &["solo", "nomas", "nada mas", "solamente"]);
    if only_this && in_cart > 0 && quantity.is_none() && !orders && !more && !carried {
        mark(covered, ONLY);
        mark(covered, lexicon::SET);
        return None;
    }
    // «el brownie déjalo (así)»: that line as it is.
    if in_cart > 0
        && quantity.is_none()
        && after
            .first()
            .is_some_and(|w| matches!(*w, "dejalo" | "dejala" | "dejalos" | "dejalas"))
    {
        mark(
            covered,
            &[
                "dejalo", "dejala", "dejalos", "dejalas", "asi", "como", "esta",
            ],
        );
        return None;
    }
    // «sí, los 2 capuchinos con leche de almendras»: the line the cart holds,
    // pointed at with its article and count — never as many again.
    if let [.., "los" | "las", n] = before
        && count(n) == Some(in_cart)
        && in_cart > 1
        && !more
        && !orders
    {
        mark(covered, &["los", "las"]);
        return None;
    }
    // «no, 2 brownies» with brownies in the cart: the count taken back and
    // said again.
    let denied_first = matches!(before, ["no"] | ["no", _]) && !orders;
    // «mejor otro matcha», «mejor 2 más»: one more is an addition, whatever
    // word sets the line elsewhere.
    let sets = (has(lexicon::SET) || denied_first) && in_cart > 0 && !more;
    // «capuchinos 3 no, mejor 2»: the number after the taking back.
    if sets && let Some(q) = corrected.or_else(|| target_quantity(before, after)) {
        mark(covered, lexicon::SET);
        mark(covered, &["a", "por", "en"]);
        return Some(
            ProposedAction::new("UPDATE_QUANTITY")
                .product(id)
                .quantity(q),
        );
    }
    mark(covered, lexicon::ADD);
    mark(covered, lexicon::SET);
    if asks {
        mark(covered, lexicon::QUESTION);
    }
    mark(covered, &["otro", "otra", "otros", "otras", "mas"]);
    Some(
        ProposedAction::new("ADD_TO_CART")
            .product(id)
            .quantity(quantity.unwrap_or(1)),
    )
}

/// The one count a message says, if it says exactly one.
fn only_count(words: &[&str]) -> Option<i64> {
    let mut counts = words.iter().filter_map(|w| count(w));
    let first = counts.next()?;
    counts.next().is_none().then_some(first)
}

/// A product's name in the catalog the proposer was given.
fn name_of(input: &ProposalInput, id: ProductId) -> Option<&str> {
    input
        .product_catalog
        .iter()
        .find(|p| p.product_id == id)
        .map(|p| p.name.as_str())
}

/// A number said as a count («2», «tres»), not an article («un», «una», «uno»).
fn count(word: &str) -> Option<i64> {
    token_number(word).filter(|_| !matches!(word, "un" | "una" | "uno"))
}

/// "2 maracuyá", "tres de matcha", "una docena de brownies", "media docena",
/// "un par de", "otros dos".
fn quantity_before(before: &[&str]) -> Option<i64> {
    let mut words: Vec<&str> = before.to_vec();
    // «una porción de cheesecake», «dos vasos de limonada»: units are not
    // products.
    // «los otros dos que sean brownies»: the count before «que sean».
    if words.ends_with(&["que", "sean"]) || words.ends_with(&["que", "sea"]) {
        words.truncate(words.len() - 2);
    }
    while let Some(last) = words.last() {
        if matches!(
            *last,
            "de" | "del"
                | "la"
                | "el"
                | "los"
                | "las"
                | "mas"
                | "porcion"
                | "porciones"
                | "pedazo"
                | "pedazos"
                | "rebanada"
                | "rebanadas"
                | "vaso"
                | "vasos"
                | "taza"
                | "tazas"
        ) {
            words.pop();
        } else {
            break;
        }
    }
    let &last = words.last()?;
    let n = words.len();
    let previous = (n >= 2).then(|| words[n - 2]);
    // «medialunas tres y brownie»: a count before «y» is the item's before it.
    if matches!(last, "y" | "e" | "o") {
        return None;
    }
    if token_number(last).is_none()
        && !matches!(last, "docena" | "docenas" | "par" | "otro" | "otra")
    {
        // "3 ricos brownies": a number one word away still counts.
        return previous
            .filter(|p| !matches!(*p, "un" | "una" | "uno"))
            .and_then(token_number)
            .or_else(|| previous.and_then(token_number).filter(|_| n == 2));
    }
    match last {
        "docena" | "docenas" => Some(match previous {
            Some("media") => 6,
            Some(word) => token_number(word).map_or(12, |k| if k == 1 { 12 } else { k * 12 }),
            None => 12,
        }),
        "par" => Some(
            previous
                .and_then(token_number)
                .filter(|k| *k > 1)
                .map_or(2, |k| k * 2),
        ),
        "otro" | "otra" => Some(1),
        word => token_number(word),
    }
}

/// "3 limonadas, no perdón 2", "dos brownies… digo, tres": the number after a
/// word that takes back the one before.
fn corrected_quantity(after: &[&str]) -> Option<i64> {
    // A count, or «uno solo» / «una nomás».
    let counted = |k: usize| -> Option<i64> {
        let w = after[k];
        let one = matches!(w, "uno" | "una")
            && after
                .get(k + 1)
                .is_some_and(|n| matches!(*n, "solo" | "sola" | "nomas"));
        if count(w).is_some() || one {
            token_number(w)
        } else {
            None
        }
    };
    let marker = |w: &str| matches!(w, "no" | "perdon" | "digo" | "mejor" | "bah");
    // «o no, mejor dos cheesecakes, bah, uno solo»: the last correction
    // stands.
    let mut last = None;
    let mut k = 0;
    while k < after.len() {
        if marker(after[k])
            && let Some((at, n)) = (k + 1..after.len()).find_map(|j| counted(j).map(|n| (j, n)))
        {
            last = Some(n);
            k = at;
        }
        k += 1;
    }
    last
}

/// "si todavía tienen cheesecake me aparta dos": a number right after an order
/// verb later in the sentence, unless it is the next product's.
fn verb_quantity(after: &[&str], followed: bool) -> Option<i64> {
    // The last word of an order verb or phrase («aparta», «me da», «me regala»).
    let mut phrased = vec![false; after.len()];
    lexicon::cover(after, lexicon::ADD, &mut phrased);
    let at = (0..after.len()).rev().find(|k| {
        lexicon::adds(after[*k])
            || phrased[*k] && !matches!(after[*k], "mas" | "tambien" | "ademas")
    })?;
    // «me da por favor tres»: politeness between the verb and the number.
    let (k, n) = after
        .iter()
        .enumerate()
        .skip(at + 1)
        .filter(|(_, w)| !matches!(**w, "por" | "favor" | "porfa" | "porfis" | "ahi" | "nomas"))
        .take(2)
        .find_map(|(k, w)| token_number(w).map(|n| (k, n)))?;
    // The last word before the next product is that product's quantity.
    (!followed || k + 1 < after.len()).then_some(n)
}

/// "maracuyá x3", "matcha 2", "brownies por 4", "la limonada entonces, dos".
fn quantity_after(after: &[&str]) -> Option<i64> {
    let skipped = after
        .iter()
        .take_while(|w| matches!(**w, "entonces" | "pues" | "porfa" | "nomas" | "va" | "ya"))
        .count();
    let after = &after[skipped..];
    match after {
        ["media", "docena", ..] => Some(6),
        // «el de mantequilla, un par»: two.
        ["un", "par", ..] => Some(2),
        ["una", "docena", ..] => Some(12),
        [first, ..] if count(first).is_some() => token_number(first),
        ["x" | "por", n, ..] => token_number(n),
        [first, ..] if first.starts_with('x') => token_number(&first[1..]),
        _ => None,
    }
}

/// "cambia la maracuyá a 4", "mejor 3 de matcha", "que sean 2 matchas".
fn target_quantity(before: &[&str], after: &[&str]) -> Option<i64> {
    // «que sean dos matchas, uno es pa mi novio»: the count said with the
    // setting words before the product is the line's; what follows explains.
    if any(
        &before.join(" "),
        &["que sean", "que sea", "dejalos en", "dejalas en"],
    ) && let Some(n) = quantity_before(before)
    {
        return Some(n);
    }
    if let Some(pos) = after.iter().position(|w| matches!(*w, "a" | "por" | "en"))
        && let Some(n) = after.get(pos + 1).and_then(|w| token_number(w))
    {
        return Some(n);
    }
    // "el americano, que sean 2": the first number after the verb.
    let later = after.iter().position(|w| count(w).is_some()).and_then(|k| {
        match (k.checked_sub(1).map(|j| after[j]), after[k]) {
            // «media docena»: six, not twelve.
            (Some("media"), "docena") => Some(6),
            _ => token_number(after[k]),
        }
    });
    quantity_after(after)
        .or(later)
        .or_else(|| quantity_before(before))
}
