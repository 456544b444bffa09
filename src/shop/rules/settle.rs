//! What the rules make of their own reading before it is proposed: a count
//! said again, a variant not sold, a product shown not ordered, a question not
//! a request, a take-back, a doubt, «solo», «en vez de».

use super::*;

/// What [`propose`] makes of the rules' reading of the message.
pub(super) fn settle(input: &ProposalInput, reading: Reading) -> Proposal {
    for_each_one(input, one_line_each(settle_reading(input, reading)))
}

fn settle_reading(input: &ProposalInput, mut reading: Reading) -> Proposal {
    if let Some(more) = more_of_the_last_line(input) {
        return more;
    }
    if let Some(share) = one_persons_share_swapped(input, &reading.proposal) {
        reading.proposal = share;
    }
    if let Some((id, quantity)) = split_by_manner(input).or_else(|| part_of_a_line_said_of(input)) {
        let name = name_of(input, id).unwrap_or_default();
        return Proposal::new(
            vec![ProposedAction::new("REPLY")],
            messages::kept_as_it_is(quantity, name),
        );
    }
    // «¿no me hacen un descuento?», «ni un 10%?»: a price asked lower is
    // answered, never read as an order.
    if asks_a_discount(input) && !reading.changes_anything() {
        return Proposal::new(vec![ProposedAction::new("REPLY")], messages::NO_DISCOUNT);
    }
    // «entonces 2 capuchinos», «total 4», «o sea 3 capuchinos y 1 brownie»,
    // «capuchinos: 5», «igual quiero 3 brownies» with those lines in the
    // cart: the count said again is what the line becomes, never more of it.
    // «quítale uno a los capuchinos», «sácale una a las limonadas»: one
    // unit off the line, never the whole line.
    // (One person's share is looked for only where a line is taken out.)
    let removes = reading
        .proposal
        .proposed_actions
        .iter()
        .any(|a| a.action_type == "REMOVE_ITEM");
    if let Some((id, off)) = one_taken_off(input).or_else(|| {
        removes
            .then(|| ones_share_taken_off(input).map(|id| (id, 1)))
            .flatten()
    }) {
        for action in &mut reading.proposal.proposed_actions {
            let this = action.product_id() == Some(id);
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
    // («borrá todo y empezamos de nuevo: 2 brownies» adds to an emptied cart.)
    let clears = reading
        .proposal
        .proposed_actions
        .iter()
        .any(|a| a.action_type == "CLEAR_CART");
    if restates_the_cart(input) && !clears {
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
    // «cambia los brownies por galletas»: a swap for something not sold
    // changes nothing (it added a brownie, or took one out with nothing in
    // its place).
    if let Some(unsold) = swap_to_the_unsold(input) {
        return Proposal::new(
            vec![ProposedAction::new("CLARIFY")],
            messages::not_sold_asked(&[unsold]),
        );
    }
    if reading.changes_anything()
        && (doubts(&input.customer_message)
            || corrected_within(input, &reading.proposal)
            || unsure_of_what(input, &reading.proposal)
            || kind_heading(&tokens(&prepared(&input.customer_message)), input)
                .is_some_and(|(_, said, summed)| said != summed)
            || same_as_whom(input)
            || one_persons_whole_swap(input, &reading.proposal)
            || nothing_of_a_product(input)
            || same_but_changed(input)
            || one_by_its_kind(input, &reading.proposal)
            || retracts(input, &reading.proposal))
        && !taken_out()
    {
        return clarify(messages::CLARIFY_DEFAULT);
    }
    // «unas salteñas de pollo y cuatro maracuyá»: what the shop sells is
    // taken, and the foods it does not sell are said so, never dropped in
    // silence, when they are all the reading left.
    // («si tuvieran salteñas les pediría…, pero…», «ya que no hay salteñas»:
    // known not to be sold, said aside.)
    let plain = prepared(&input.customer_message);
    let aside = asides_dropped(input, plain.clone());
    let unsold = if aside == plain {
        unsold_foods(&input.customer_message, &input.product_catalog)
    } else {
        unsold_foods(&aside, &input.product_catalog)
    };
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
        // («jugo de naranja»: each word of a food named with what it is made
        // of is its.)
        let foods: Vec<String> = unsold
            .iter()
            .flat_map(|f| {
                normalize(f)
                    .split(' ')
                    .filter(|w| *w != "de")
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        let is_food = |w: &str| {
            foods
                .iter()
                .any(|f| mentions::singular(f) == mentions::singular(w))
        };
        // «salteñas de pollo»: what follows a food says which, and is its.
        let text = prepared(&input.customer_message);
        let said = tokens(&text);
        let catalog_words = mentions::catalog_words(&input.product_catalog);
        let qualifies = |w: &str| {
            said.iter().enumerate().any(|(k, s)| {
                *s == w
                    && ((1..=3).any(|back| k >= back && is_food(said[k - back]))
                        // («2 blueberry muffins»: the English order, the
                        // flavour right before the food.)
                        || said.get(k + 1).is_some_and(|next| is_food(next))
                            && count(w).is_none()
                            && !lexicon::adds(w)
                            && !catalog_words.iter().any(|(_, name, description)| {
                                name.iter().chain(description).any(|x| x == w)
                            }))
            })
        };
        // «empanadas tres y brownie uno»: a count said for the food asks
        // back (below) instead.
        // («2 salteñas de pollo y 2 americanos»: a count before each item is
        // the list's own shape; «2 empanadas, capuchino» may give the
        // capuchino the count, and is asked.)
        let each_counted = mentions::find(&said, &input.product_catalog)
            .iter()
            .all(|m| {
                m.start > 0
                    && (count(said[m.start - 1]).is_some()
                        || matches!(said[m.start - 1], "un" | "una" | "el" | "la"))
            });
        let counted_food = said.iter().enumerate().any(|(k, w)| {
            is_food(w)
                && (said.get(k + 1).is_some_and(|n| count(n).is_some())
                    || (!each_counted && k > 0 && count(said[k - 1]).is_some()))
        });
        // «sin api», «no tienen salteñas, entonces…»: a food the customer
        // already knows is not sold needs no telling.
        // («…unos panes con chicharrón, ah no tienen verdad, bueno
        // entonces…»: said so right after.)
        let known_unsold = said.iter().enumerate().any(|(k, w)| {
            is_food(w)
                && (said[k.saturating_sub(3)..k]
                    .iter()
                    .any(|b| matches!(*b, "sin" | "no" | "ni"))
                    || said[k + 1..(k + 7).min(said.len())].windows(2).any(|pair| {
                        pair[0] == "no" && matches!(pair[1], "tienen" | "hay" | "venden")
                    }))
        });
        // «para mi hija un pay…», «dos jugos de maracuyá»: whom an item is for,
        // or a word the catalog itself uses, is no other thing asked for.
        let catalog = mentions::catalog_words(&input.product_catalog);
        let described = |w: &str| {
            let singular = mentions::singular(w);
            // («un brownie sin nueces»: what is excluded is no word of it.)
            let excluded = said.iter().enumerate().any(|(k, s)| {
                *s == w
                    && said[k.saturating_sub(2)..k]
                        .iter()
                        .any(|b| matches!(*b, "sin" | "no" | "ni"))
            });
            !excluded
                && catalog.iter().any(|(_, name, description)| {
                    name.iter().chain(description).any(|x| *x == singular)
                })
        };
        let for_whom = |w: &str| {
            said.iter().enumerate().any(|(k, s)| {
                *s == w
                    && k >= 2
                    && matches!(
                        said[k - 1],
                        "mi" | "mis" | "el" | "la" | "su" | "sus" | "los" | "las"
                    )
                    && matches!(said[k - 2], "para" | "pa")
            })
        };
        let explained = !counted_food
            && !known_unsold
            && reading
                .unread_words()
                .iter()
                .all(|w| is_food(w) || qualifies(w) || described(w) || for_whom(w));
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
    // «ay no cancela porfa ya no llego, hay bloqueo…»: the catalog is no
    // answer to a message that calls the order off or takes something out.
    if only_the_catalog(&reading.proposal) && calls_something_off(input) {
        return clarify(messages::CLARIFY_DEFAULT);
    }
    if reading.changes_anything() && (taken_back(input) || same_before_any(input)) {
        return clarify(messages::CLARIFY_DEFAULT);
    }
    // «los dos primeros, uno de cada uno»: one of each of several, read as
    // one product alone, is asked, never guessed.
    if each_of_several_read_as_one(input, &reading.proposal) {
        return clarify(messages::CLARIFY_DEFAULT);
    }
    // «un chocolate para ella y para mí lo de siempre»: what was named is
    // taken, and the usual, which this chat does not keep, is asked — never
    // dropped in silence.
    if reading.changes_anything() && usual_beside(input) {
        let mut proposal = reading.proposal;
        proposal
            .proposed_actions
            .retain(|a| a.action_type != "CLARIFY");
        proposal
            .proposed_actions
            .push(ProposedAction::new("CLARIFY"));
        proposal.response_text = messages::USUAL_BESIDE.into();
        return proposal;
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
pub(super) enum Described {
    /// No word of a kind, a description or a name.
    Nothing,
    /// Words that fit no line of the cart.
    NoLine,
    One(ProductId),
    Several(Vec<ProductId>),
}

/// A product asked for made the way of another («cheesecake de maracuyá»).
pub(super) struct Variant {
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
pub(super) fn unsold_variants(input: &ProposalInput) -> Vec<Variant> {
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
pub(super) fn way_not_sold(
    entry: &crate::shop::contract::CatalogEntry,
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
pub(super) const FLAVOURS: &[&str] = &[
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
pub(super) const MODIFIERS: &[&str] = &[
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
pub(super) const HYPOTHETICAL: &[&str] = &[
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
    // «necesitamos cotizar para un taller: 25 americanos…»: a quote asked,
    // not an order placed.
    "cotizar",
    "cotizacion",
    "cotizarme",
    "cotizarnos",
    "cotizame",
    "cotizanos",
    "me cotizas",
    "me cotizan",
    "nos cotizan",
];

/// A condition the rules cannot weigh: «si es menos de 30 lo quiero», «si el
/// matcha es caliente quiero uno», «capaz pido uno después», «a menos que…».
/// («si hay», «si tienen» ask for what is in stock, and are read as orders.)
pub(super) const CONDITIONS: &[&str] = &[
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
pub(super) const COURTESY_CONDITIONS: &[&str] = &[
    "si es posible",
    "si es que",
    "si es para",
    "si es mucha molestia",
    "si no es molestia",
];

/// Words of liking or hearsay, not of ordering: «me gusta el matcha», «amo los
/// brownies», «mi amiga me recomendó el chai».
pub(super) const OPINION: &[&str] = &[
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
pub(super) const SEEING: &[&str] = &[
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
pub(super) fn shown_not_ordered(input: &ProposalInput, proposal: &Proposal) -> Option<Proposal> {
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
        .filter_map(|a| a.product_id())
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
        || (any(&as_yes_said(&input.customer_message), CONDITIONS)
            && !any(&text, COURTESY_CONDITIONS));
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
        .filter_map(|a| a.product_id())
        .fold(Vec::new(), |mut ids: Vec<ProductId>, id| {
            if !ids.contains(&id) {
                ids.push(id);
            }
            ids
        })
        .into_iter()
        .take(5)
        .map(|id| {
            // («si pido 3 brownies, ¿cuánto sale?»: that many are priced.)
            let asked = proposal.proposed_actions.iter().find_map(|a| {
                (matches!(a.action_type.as_str(), "ADD_TO_CART" | "SHOW_PRODUCT")
                    && a.product_id() == Some(id))
                .then(|| a.params.quantity.as_ref().and_then(|q| q.as_i64()))
                .flatten()
            });
            let shown = ProposedAction::new("SHOW_PRODUCT").product(id);
            // (Never for an order for another day: its yes would not be
            // today's cart.)
            match asked {
                Some(q) if counted && !for_later(&text) => shown.quantity(q),
                _ => shown,
            }
        })
        .collect();
    Some(Proposal::new(shown, ""))
}

/// «¿eso tiene descuento?», «¿y esto cuánto costaría?» after a count of
/// products: the price of what was just said is asked, nothing is ordered.
pub fn asks_of_what_was_said(question: &str) -> bool {
    let text = prepared(question);
    let words = tokens(&text);
    matches!(words.first(), Some(&("eso" | "esto")))
        && words.iter().any(|w| {
            w.starts_with("descuent")
                || w.starts_with("rebaj")
                || matches!(*w, "promo" | "promocion" | "costaria" | "saldria")
        })
}

/// Whether a clause orders for another day or an occasion («para el sábado»,
/// «quiero encargar…», «para el cumple»).
pub(super) fn for_later(clause: &str) -> bool {
    tokens(clause).iter().any(|w| {
        w.starts_with("encarg")
            || w.starts_with("reserv")
            || w.starts_with("cumple")
            || matches!(
                *w,
                "lunes"
                    | "martes"
                    | "miercoles"
                    | "jueves"
                    | "viernes"
                    | "sabado"
                    | "domingo"
                    | "manana"
                    | "semana"
                    | "evento"
                    | "fiesta"
                    | "reunion"
                    | "taller"
            )
    })
}

/// The products named inside a question that asks for nothing («¿puedo pedir
/// 20 americanos para el viernes?», «quiero saber el precio de 2 matchas?»,
/// «¿3 limonadas o 4?», «entonces 4 limonadas, ¿sí?» — a tag question asks the
/// sentence before it). A question asked of the shop («¿me das 2
/// capuchinos?», «¿me pones un brownie, porfa?») is a request, not counted.
pub(super) fn asked_not_requested(input: &ProposalInput) -> Vec<ProductId> {
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
    // («20 brownies para el sábado, ¿se puede?»: whether it can be done is
    // asked of the clause before.)
    const POSSIBLE: &[&str] = &[
        "se puede",
        "es posible",
        "puede ser",
        "se podra",
        "sera posible",
        "se podria",
        "seria posible",
    ];
    let is_tag = |text: &str| {
        let words = tokens(text);
        !words.is_empty() && words.iter().all(|w| TAGS.contains(w))
    };
    let asks_possible = |text: &str| POSSIBLE.contains(&tokens(text).join(" ").as_str());
    // The clauses asked whether they can be done, a request in them or not.
    let mut asked_whole: Vec<String> = Vec::new();
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
                let tagged = is_tag(&last);
                // (Whether it can be done asks only of an order for later —
                // «para el sábado», «encargar», a party: «un capuchino con
                // leche de almendras, ¿se puede?» still orders it.)
                let possible = asks_possible(&last)
                    && said.last().is_some_and(|(clause, _)| for_later(clause));
                if tagged || possible {
                    if let Some(asked) = said.last_mut() {
                        asked.1 = true;
                        if possible {
                            asked_whole.push(asked.0.clone());
                        }
                    }
                } else {
                    // «25 chocolates y 25 cheesecakes, ¿eso tiene descuento?»:
                    // a question about what was just said asks it too
                    // («agrega 2 brownies más, ¿eso tiene descuento?» still
                    // adds).
                    if asks_of_what_was_said(&last)
                        && let Some(asked) = said.last_mut()
                        && !tokens(&asked.0).iter().any(|w| lexicon::adds(w))
                    {
                        asked.1 = true;
                        asked_whole.push(asked.0.clone());
                    }
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
            // «¿puedo pedir dos capuchinos?», «¿se puede pedir un chai?»: a
            // request asked politely, its count said — not «¿se puede pedir
            // un capuchino sin canela?», whether the way it is made can be had.
            let politely = words.windows(3).enumerate().any(|(k, w)| {
                let may = matches!(w[0], "puedo" | "podemos" | "podre" | "podriamos")
                    || matches!(w[0], "puede" | "podria") && k > 0 && words[k - 1] == "se";
                may && matches!(
                    w[1],
                    "pedir" | "ordenar" | "encargar" | "llevar" | "comprar" | "pedirte" | "pedirles"
                ) && (count(w[2]).is_some() || matches!(w[2], "un" | "una" | "unos" | "unas"))
            }) && !words.iter().any(|w| matches!(*w, "sin" | "con"))
                // («¿puedo pedir 20 americanos para el viernes?» asks whether
                // an order for later can be taken.)
                && !for_later(q);
            let possible = words
                .windows(2)
                .any(|w| w[0] == "se" && matches!(w[1], "puede" | "podria" | "pueden"));
            let requested = politely
                || words.windows(2).any(|w| {
                matches!(w[0], "me" | "nos")
                    && (lexicon::adds(w[1])
                        || ["da", "trae", "pon", "pas", "prepar", "vend", "sirv", "hac", "dej"]
                            .iter()
                            .any(|stem| w[1].starts_with(stem)))
            }) || words.iter().any(|w| {
                matches!(*w, "puedes" | "podes" | "podrias" | "podrian")
                    || matches!(*w, "podria" | "puede" | "pueden") && !possible
                    || matches!(
                    *w,
                        "porfa" | "porfavor" | "please" | "plis" | "xfa" | "dame" | "danos"
                        | "deme"
                ) || (lexicon::adds(w) && !w.ends_with('o') && !w.ends_with("ar") && !w.ends_with("ir"))
            }) || any(q, &["por favor"])
                // «quiero 2 capuchinos?», not «quiero saber el precio de 2…».
                || words.windows(2).any(|w| {
                    matches!(w[0], "quiero" | "quisiera" | "queria" | "queremos")
                        && !matches!(w[1], "saber" | "preguntar" | "consultar" | "ver" | "conocer")
                });
            !requested || asked_whole.contains(q)
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
pub(super) fn taken_back(input: &ProposalInput) -> bool {
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
pub(super) fn retracts(input: &ProposalInput, proposal: &Proposal) -> bool {
    // Only when the reading still changes a product named before the words
    // that take it back («agrega una limonada, ah no, mejor maracuyá» read as
    // the maracuyá alone is right).
    let changed: Vec<ProductId> = proposal
        .proposed_actions
        .iter()
        .filter(|a| EFFECTS.contains(&a.action_type.as_str()))
        .filter_map(|a| a.product_id())
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
            // («…y un brownie, ah no, el brownie sácalo»: what is taken
            // back is said with its verb, and read.)
            marked(TAKEN_BACK).is_some_and(|at| {
                let named_back = mentions::find(&words[at..], &input.product_catalog)
                    .iter()
                    .filter_map(|m| m.product())
                    .any(|id| {
                        !changed.contains(&id)
                            && mentions::find(&words[..at], &input.product_catalog)
                                .iter()
                                .any(|m| m.product() == Some(id))
                    });
                found.iter().any(|m| m.end <= at && changes(m))
                    && !(named_back && words[at..].iter().any(|w| lexicon::removes(w)))
            })
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
pub(super) fn nothing_of_a_product(input: &ProposalInput) -> bool {
    // (Beside an order, «nada de brownie» with none in the cart is an aside.)
    let text = asides_dropped(input, prepared(&input.customer_message));
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
pub(super) fn doubts(message: &str) -> bool {
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
pub(super) fn keeps_only(input: &ProposalInput) -> Option<Proposal> {
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
pub(super) fn swapped_part(
    input: &ProposalInput,
    words: &[&str],
    verb: Option<usize>,
    by: usize,
    new_id: ProductId,
) -> Option<(ProductId, i64)> {
    let verb = verb.filter(|v| *v < by)?;
    let part = count_or_one;
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
pub(super) fn said_which_again(input: &ProposalInput, proposal: &Proposal) -> Option<Proposal> {
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
pub(super) fn one_product(word: &str, input: &ProposalInput) -> Option<ProductId> {
    match mentions::find(&[word], &input.product_catalog).as_slice() {
        [m] => m.product(),
        _ => None,
    }
}

/// Whether the bot's last turn asked the customer something.
pub(super) fn bot_asked_last(input: &ProposalInput) -> bool {
    earlier_turns(input)
        .find(|h| h.role != "customer")
        .is_some_and(|h| h.text.contains('?'))
}

/// What a product is, by its tags: a drink, a dessert or a savoury bite.
pub(super) fn kind_of(input: &ProposalInput, id: ProductId) -> Option<&'static str> {
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
pub(super) fn said_instead(input: &ProposalInput, proposal: &Proposal) -> Option<Proposal> {
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
    // «y un matcha caliente» … «No vendemos…» … «entonces que sea un chai»:
    // in place of what the shop just said it does not sell, not of a line.
    let refused_just_now = last_bot_turn(input)
        .is_some_and(|h| h.text.starts_with("No vendemos") || h.text.starts_with("No tenemos"));
    if refused_just_now && !words.iter().any(|w| swap_verb(w)) {
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
        changes
            .iter()
            .find(|a| a.action_type == "ADD_TO_CART" && a.product_id() == Some(id))
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
            let id = a.product_id();
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

/// Words that put one of a product for each person.
const EACH: &[&str] = &[
    "para cada uno",
    "para cada una",
    "por persona",
    "por cabeza",
    "para cada quien",
    "uno para cada uno",
    "una para cada una",
];

/// «uno para mí y otro para mi hermana»: one line of two, not two lines of
/// one — a product added twice in one reading is added once, with both
/// counts.
pub(super) fn one_line_each(mut proposal: Proposal) -> Proposal {
    let mut merged: Vec<ProposedAction> = Vec::with_capacity(proposal.proposed_actions.len());
    for action in proposal.proposed_actions.drain(..) {
        let same = merged.iter_mut().find(|m| {
            m.action_type == "ADD_TO_CART"
                && action.action_type == "ADD_TO_CART"
                && m.product_id().is_some()
                && m.product_id() == action.product_id()
        });
        match (same, action.quantity_given()) {
            (Some(line), Some(more)) if line.quantity_given().is_some() => {
                let total = line.quantity_given().unwrap_or(0) + more;
                line.params.quantity = Some(serde_json::Value::from(total));
            }
            _ => merged.push(action),
        }
    }
    proposal.proposed_actions = merged;
    proposal
}

/// «y un croissant para cada uno»: as many as the people the message counts
/// with its other lines («dos capuchinos y un croissant para cada uno» is two
/// of each); when it counts none, how many people is asked, never one
/// guessed.
pub(super) fn for_each_one(input: &ProposalInput, mut proposal: Proposal) -> Proposal {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let Some(at) = (0..words.len()).find(|&k| {
        let rest = words[k..].join(" ");
        EACH.iter()
            .any(|p| rest == *p || rest.starts_with(&format!("{p} ")))
    }) else {
        return proposal;
    };
    // The product said last before «para cada uno».
    let Some(each) = mentions::find(&words[..at], &input.product_catalog)
        .iter()
        .rev()
        .find_map(|m| m.product())
    else {
        return proposal;
    };
    let added_one = |a: &ProposedAction| {
        a.action_type == "ADD_TO_CART"
            && a.product_id() == Some(each)
            && a.quantity_given() == Some(1)
    };
    if !proposal.proposed_actions.iter().any(added_one) {
        return proposal;
    }
    let others: std::collections::BTreeSet<i64> = proposal
        .proposed_actions
        .iter()
        .filter(|a| a.action_type == "ADD_TO_CART" && a.product_id() != Some(each))
        .filter_map(ProposedAction::quantity_given)
        .collect();
    // Two lines or more sharing one count say the people («dos capuchinos y
    // dos chais, y un croissant para cada uno»); one line's count may be a
    // dozen of something else.
    let lines = proposal
        .proposed_actions
        .iter()
        .filter(|a| a.action_type == "ADD_TO_CART" && a.product_id() != Some(each))
        .count();
    match others.iter().collect::<Vec<_>>().as_slice() {
        [people] if **people > 1 && lines >= 2 => {
            for action in proposal
                .proposed_actions
                .iter_mut()
                .filter(|a| added_one(a))
            {
                action.params.quantity = Some(serde_json::Value::from(**people));
            }
            proposal
        }
        _ => clarify(messages::HOW_MANY_PEOPLE),
    }
}

/// «Pedro dice que mejor capuchino en vez de americano» with two americanos:
/// one person's change of a line of several may be one of them — asked, never
/// the whole line guessed.
pub(super) fn one_persons_whole_swap(input: &ProposalInput, proposal: &Proposal) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let someone_else = words.windows(2).any(|w| {
        matches!(
            w[1],
            "dice" | "dijo" | "quiere" | "queria" | "prefiere" | "prefirio" | "pide" | "pidio"
        ) && !matches!(
            w[0],
            "me" | "yo" | "se" | "lo" | "la" | "te" | "que" | "no" | "si" | "usted" | "y"
        )
    });
    let actions = &proposal.proposed_actions;
    let brings = actions
        .iter()
        .any(|a| matches!(a.action_type.as_str(), "ADD_TO_CART" | "UPDATE_QUANTITY"));
    let counted = words.iter().any(|w| count(w).is_some());
    someone_else
        && brings
        && !counted
        && actions.iter().any(|a| {
            a.action_type == "REMOVE_ITEM"
                && a.product_id()
                    .and_then(|id| input.cart.quantity_of(id))
                    .is_some_and(|n| n > 1)
        })
}

/// «dame uno igual y un americano»: «one the same» said before any product of
/// the message, so it means one the words do not name (the one just talked
/// about, or someone's): asked, never dropped beside what is named. («un
/// capuchino para Ana y uno igual para mí» names it first.)
fn same_before_any(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let first_named = mentions::find(&words, &input.product_catalog)
        .iter()
        .map(|m| m.start)
        .min();
    let Some(first_named) = first_named else {
        return false;
    };
    words[..first_named].windows(2).any(|pair| {
        matches!(pair[0], "uno" | "una" | "otro" | "otra")
            && matches!(pair[1], "igual" | "igualito" | "igualita")
    })
}

fn only_the_catalog(proposal: &Proposal) -> bool {
    matches!(proposal.proposed_actions.as_slice(), [only] if only.action_type == "SHOW_CATALOG")
}

/// Words that call the order off, empty the cart or take something out.
fn calls_something_off(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    lexicon::any(&text, lexicon::CANCEL)
        || lexicon::clears(&text)
        || tokens(&text).iter().any(|w| lexicon::removes(w))
}

/// The message folded with an accented «sí» before «son/es/eran» and a count
/// taken out of the conditional «si son…»: «los croissants sí son 3» states
/// the line, «si son menos de 30 lo quiero» sets a condition.
fn as_yes_said(message: &str) -> String {
    let lowered = message.to_lowercase();
    let words: Vec<&str> = lowered.split_whitespace().collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    for (k, w) in words.iter().enumerate() {
        let stated = *w == "sí"
            && matches!(words.get(k + 1), Some(&("son" | "es" | "eran")))
            && words
                .get(k + 2)
                .is_some_and(|n| count(&prepared(n)).is_some());
        // «uf sí lleva. entonces…», «sí tiene.»: an answer that ends its
        // sentence states; a condition goes on to what depends on it.
        let answered = matches!(*w, "sí" | "si")
            && words.get(k + 1).is_some_and(|v| {
                v.ends_with(['.', '!', ';'])
                    && matches!(
                        v.trim_end_matches(['.', '!', ';']),
                        "lleva"
                            | "llevan"
                            | "tiene"
                            | "tienen"
                            | "trae"
                            | "traen"
                            | "es"
                            | "son"
                            | "hay"
                            | "contiene"
                    )
            });
        let stated = stated || answered;
        if !stated {
            out.push(w);
        }
    }
    prepared(&out.join(" "))
}

/// Whether the message asks for a lower price («¿me hacen descuento?», «una
/// rebajita», «ni un 10%?», «precio especial»).
fn asks_a_discount(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    // («¿cuál es el postre más barato?», «¿tienen alguna promo?», «al 70%»
    // ask something else.)
    tokens(&text)
        .iter()
        .any(|w| w.starts_with("descuent") || w.starts_with("rebaj"))
        || any(
            &text,
            &[
                "precio especial",
                "me lo dejas en",
                "me los dejas en",
                "me lo deja en",
            ],
        )
        || (input.customer_message.contains('%') && any(&text, &["ni un", "aunque sea un"]))
}

/// Whether the message asks for one of each («uno de cada uno», «de cada
/// uno») and the reading changes a single product.
fn each_of_several_read_as_one(input: &ProposalInput, proposal: &Proposal) -> bool {
    let text = prepared(&input.customer_message);
    if !any(&text, &["de cada uno", "de cada una", "de cada cosa"]) {
        return false;
    }
    let mut changed: Vec<ProductId> = proposal
        .proposed_actions
        .iter()
        .filter(|a| EFFECTS.contains(&a.action_type.as_str()))
        .filter_map(|a| a.product_id())
        .collect();
    changed.sort_unstable();
    changed.dedup();
    changed.len() == 1
}

/// «para mi cuñado cambia su matcha por una limonada» with two matchas: «su»
/// (or «mi», «tu») says one person's share — one of the line swapped for one
/// of the new product, never the whole line.
fn one_persons_share_swapped(input: &ProposalInput, proposal: &Proposal) -> Option<Proposal> {
    let actions = &proposal.proposed_actions;
    let at = actions
        .windows(2)
        .position(|w| w[0].action_type == "REMOVE_ITEM" && w[1].action_type == "ADD_TO_CART")?;
    let (removed, added) = (&actions[at], &actions[at + 1]);
    let old = removed.product_id()?;
    let new = added.product_id()?;
    let held = input.cart.quantity_of(old).filter(|n| *n > 1)?;
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    // Someone named for it («para mi cuñado», «de mi hija»), and only one of
    // the line: «…y el de mi esposo también», «ambos» swap more.
    let someone = words.windows(3).any(|w| {
        matches!(w[0], "para" | "pa" | "de")
            && matches!(w[1], "mi" | "su" | "tu" | "el" | "la")
            && w[2].chars().count() > 2
            && !names_a_product(w[2], &input.product_catalog)
    });
    let more = words
        .iter()
        .any(|w| matches!(*w, "tambien" | "ambos" | "ambas" | "todos" | "todas"));
    if !someone || more {
        return None;
    }
    let possessed = words
        .windows(2)
        .any(|w| matches!(w[0], "su" | "mi" | "tu") && one_product(w[1], input) == Some(old));
    // The new product said as one («una limonada») or with the line's count
    // carried over (no count of its own).
    let one_new = words
        .windows(2)
        .any(|w| matches!(w[0], "un" | "una" | "uno") && one_product(w[1], input) == Some(new));
    let quantity = added.quantity_given()?;
    if !possessed || !one_new || (quantity != 1 && quantity != held) {
        return None;
    }
    let mut actions = actions.clone();
    actions[at] = ProposedAction::new("UPDATE_QUANTITY")
        .product(old)
        .quantity(held - 1);
    actions[at + 1] = ProposedAction::new("ADD_TO_CART").product(new).quantity(1);
    Some(Proposal::new(actions, &proposal.response_text))
}

/// «ya, el frío entonces, y un croissant» after two drinks were talked about:
/// one pointed at by its kind alone, which no product's name says — asked,
/// never dropped beside what is named.
fn one_by_its_kind(input: &ProposalInput, proposal: &Proposal) -> bool {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let catalog = &input.product_catalog;
    // («el dulce quítalo», «el caliente» among choices: read as a product the
    // message does not name.)
    let named: Vec<ProductId> = mentions::find(&words, catalog)
        .iter()
        .filter_map(|m| m.product())
        .collect();
    let resolved = proposal
        .proposed_actions
        .iter()
        .filter_map(|a| a.product_id())
        .any(|id| !named.contains(&id));
    !resolved
        && (1..words.len()).any(|k| {
            matches!(words[k - 1], "el" | "la")
                && matches!(
                    words[k],
                    "frio"
                        | "fria"
                        | "caliente"
                        | "helado"
                        | "helada"
                        | "dulce"
                        | "salado"
                        | "salada"
                )
                && !names_a_product(words[k], catalog)
                // («con el frío que hace», «el dulce de leche»: no product.)
                && (k < 2 || (words[k - 2] != "con" && !names_a_product(words[k - 2], catalog)))
                && !words.get(k + 1).is_some_and(|w| {
                    matches!(*w, "que" | "de") || names_a_product(w, catalog)
                })
        })
}

/// The thing a swap asks for when no product of the catalog is it: the first
/// word after its «por» that is no article, count or filler («cambia los
/// brownies por unas galletas» → «galletas»).
fn swap_to_the_unsold(input: &ProposalInput) -> Option<String> {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let by = super::clause::swap_joiner(&words)?;
    // («¿tienen cambio por un billete?»: change for a note, no swap.)
    if words[..by]
        .iter()
        .any(|w| matches!(*w, "cambio" | "cambios"))
    {
        return None;
    }
    // («por uno deslactosado»: one of a kind, said of the product.)
    let one_of_a_kind = match words.get(by + 1) {
        Some(&("uno" | "otro" | "otra")) => true,
        Some(&"una") => !words.get(by + 2).is_some_and(|w| is_food(w)),
        _ => false,
    };
    if one_of_a_kind {
        return None;
    }
    // («por un jugo de maracuyá»: the product is named after its kind.)
    if mentions::find(&words[by + 1..], &input.product_catalog)
        .iter()
        .any(|m| m.product().is_some())
    {
        return None;
    }
    let thing = words[by + 1..].iter().find(|w| {
        count(w).is_none()
            && !super::clause::STOPWORDS_AROUND.contains(w)
            && !matches!(**w, "unos" | "unas" | "otro" | "otra")
    })?;
    let catalog = &input.product_catalog;
    // (A word the shop's lexicon reads — «algo frío», «el otro» — is no
    // thing of its own.)
    let unknown = !lexicon::is_known(thing)
        && !matches!(*thing, "algo" | "eso" | "esto" | "ese" | "esa" | "favor");
    ((is_food(thing) || unknown) && !names_a_product(thing, catalog)).then(|| (*thing).to_owned())
}

/// «agrégale otro igual al último que te pedí», «uno más del último que
/// pedí»: more of the line the cart took last, when no product is named.
fn more_of_the_last_line(input: &ProposalInput) -> Option<Proposal> {
    if input.current_state != State::CartOpen {
        return None;
    }
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let last_said = any(
        &text,
        &[
            "igual al ultimo",
            "igual a lo ultimo",
            "del ultimo que",
            "el ultimo que te pedi",
            "lo ultimo que te pedi",
        ],
    );
    let more = words
        .iter()
        .any(|w| lexicon::adds(w) || matches!(*w, "otro" | "otra"));
    // («no me agregues otro…», «sácame el último…», «¿…?»: not this.)
    // («lo último que te pedí ponle 3»: a count said alone sets the line.)
    let set_to = words.iter().enumerate().any(|(k, w)| {
        count(w).is_some()
            && !words
                .get(k + 1)
                .is_some_and(|n| matches!(*n, "mas" | "otros" | "otras"))
    });
    let not_more = input.customer_message.contains('?')
        || set_to
        || words
            .iter()
            .any(|w| matches!(*w, "no" | "ni" | "ya") || lexicon::removes(w) || swap_verb(w));
    if !last_said || !more || not_more || !mentions::find(&words, &input.product_catalog).is_empty()
    {
        return None;
    }
    // The line the last change touched, or else the cart's last.
    let id = input
        .last_changed
        .iter()
        .rev()
        .find(|id| input.cart.holds(**id))
        .copied()
        .or_else(|| input.cart.lines.last().map(|l| l.product_id))?;
    // «dos más igual al último»: a count right before «más» or «otros».
    let quantity = words
        .windows(2)
        .find_map(|w| {
            matches!(w[1], "mas" | "otros" | "otras")
                .then(|| count(w[0]))
                .flatten()
        })
        .unwrap_or(1);
    Some(Proposal::new(
        vec![
            ProposedAction::new("ADD_TO_CART")
                .product(id)
                .quantity(quantity),
        ],
        "",
    ))
}
