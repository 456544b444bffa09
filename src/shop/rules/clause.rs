//! One clause of a message: what it does (add, take back, swap, refuse) and
//! the count it says, before or after the product's name.

use super::*;

/// Words that join a sentence and say nothing about what is wanted.
pub(super) const SMALL: &[&str] = &[
    "el", "la", "los", "las", "un", "una", "uno", "de", "del", "y", "que", "a", "al", "en", "con",
    "para", "por", "mi", "me", "te", "se", "lo", "le", "es", "porfa", "favor", "tambien", "pa",
    "su", "tu", "mas", "si", "o", "e",
];

/// Words of someone thinking aloud, not ordering.
pub(super) const HEDGES: &[&str] = &[
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
pub(super) fn refuses(before: &[&str]) -> bool {
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
pub(super) const CORRECTION_WORDS: &[&str] = &[
    "no", "perdon", "mejor", "digo", "que sea", "que sean", "mas bien", "bueno no",
    // «cheesecake uno. no espera, mejor dos»: a pause before the count said again.
    "espera", "espere", "esperate", "esperame", "pera",
];

/// «cambia», «cámbialo», «reemplaza», «pásalo a»: a verb that swaps one thing
/// for another.
pub(super) fn swap_verb(word: &str) -> bool {
    word.starts_with("cambi")
        || word.starts_with("reemplaz")
        || matches!(word, "pasalo" | "pasala" | "pasalos" | "pasalas")
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
pub(super) const STOPWORDS_AROUND: &[&str] = &[
    "el", "la", "los", "las", "un", "una", "uno", "de", "del", "me", "porfa", "mejor", "lo", "la",
];

/// «en vez de», «en lugar de»: one thing instead of another.
pub(super) const INSTEAD: &[&str] = &["en vez", "en lugar"];

/// Whether the words around a product in the cart swap it for the next one named.
pub(super) fn swaps(before: &[&str], after: &[&str]) -> bool {
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
pub(super) fn takes_back(after: &[&str]) -> bool {
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
pub(super) fn mark_phrase(clause: &str, phrases: &[&str]) -> Vec<bool> {
    let words: Vec<&str> = clause.split(' ').collect();
    let mut covered = vec![false; words.len()];
    lexicon::cover(&words, phrases, &mut covered);
    covered
}

/// What one clause asks of one product. `covered` marks the clause's words it used.
/// `carried`: an earlier clause's «que sean» sets this line too; `ordering`:
/// the message orders more somewhere («agrégame…», «más»).
pub(super) fn clause_action(
    clause: &str,
    (before, after): (&[&str], &[&str]),
    (id, in_cart): (ProductId, i64),
    (question, followed, carried, ordering): (bool, bool, bool, bool),
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
    let corrected = corrected_quantity(after, in_cart).filter(|_| !restated);
    if corrected.is_some() {
        mark(covered, CORRECTION_WORDS);
        // («digo 3, no bueno, 2 están bien»: the count settled on, said so.)
        mark(
            covered,
            &[
                "estan bien",
                "esta bien",
                "bastan",
                "basta",
                "alcanzan",
                "alcanza",
                "bueno",
            ],
        );
    }
    let quantity = corrected
        .or_else(|| quantity_before(before))
        .or_else(|| quantity_after(after))
        .or_else(|| verb_quantity(after, followed));
    // "Del brownie solo 1", "de los capuchinos que sean 3", "de croissants solo
    // uno": a partitive with a quantity sets the line.
    let partitive = matches!(before.last(), Some(&("de" | "del" | "los" | "las")))
        && before.iter().any(|w| matches!(*w, "de" | "del"));
    // «y el cuernito dos» with croissants in the cart: the line named by its
    // article, then its count and nothing else, is set to that count — not
    // where the message orders more («agrégame un capuchino y el croissant
    // dos» may be two more).
    let named_then_count = in_cart > 0
        && !ordering
        && matches!(before.last(), Some(&("el" | "la" | "los" | "las")))
        && before[..before.len() - 1].iter().all(|w| {
            matches!(
                *w,
                "y" | "e" | "ahora" | "entonces" | "bueno" | "ah" | "oye"
            )
        })
        && matches!(after, [n] if count(n).is_some());
    let only = any(clause, ONLY) || carried || named_then_count;
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
    // «de los americanos quita uno», «de los croissants quítame dos»: a
    // partitive with a verb of taking out and a count takes that many off.
    if in_cart > 0 && partitive {
        // («del americano quítale 1 de azúcar»: a count of another thing.)
        let taken = after
            .iter()
            .position(|w| lexicon::removes(w))
            .and_then(|at| {
                let rest = &after[at + 1..];
                rest.iter()
                    .take(2)
                    .position(|w| token_number(w).is_some())
                    .filter(|k| {
                        rest.get(k + 1).is_none_or(|next| {
                            matches!(
                                *next,
                                "y" | "e"
                                    | "porfa"
                                    | "por"
                                    | "nomas"
                                    | "no"
                                    | "pues"
                                    | "entonces"
                                    | "ya"
                                    | "mas"
                                    | "solo"
                                    | "pe"
                                    | "po"
                            )
                        })
                    })
                    .and_then(|k| token_number(rest[k]))
                    .map(|n| (after[at], n))
            });
        if let Some((verb, n)) = taken.filter(|(_, n)| *n > 0) {
            mark(covered, &["de", "del", "los", "las", verb]);
            for (k, w) in clause_words.iter().enumerate() {
                if token_number(w) == Some(n) {
                    covered[k] = true;
                }
            }
            let left = in_cart - n;
            return Some(if left <= 0 {
                ProposedAction::new("REMOVE_ITEM").product(id)
            } else {
                ProposedAction::new("UPDATE_QUANTITY")
                    .product(id)
                    .quantity(left)
            });
        }
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
            // («ya no son dos, déjeme uno»: a count denied is not the one;
            // «…que voy con una amiga»: an article before another thing is
            // no count.)
            .or_else(|| {
                after.iter().enumerate().find_map(|(k, w)| {
                    let denied = after[..k]
                        .iter()
                        .rev()
                        .take(2)
                        .any(|b| matches!(*b, "no" | "ni"));
                    let article = matches!(*w, "un" | "una")
                        && after.get(k + 1).is_some_and(|n| {
                            !matches!(
                                *n,
                                "nomas"
                                    | "solo"
                                    | "sola"
                                    | "mas"
                                    | "nada"
                                    | "no"
                                    | "y"
                                    | "o"
                                    | "pero"
                                    | "porfa"
                                    | "por"
                                    | "que"
                                    | "entonces"
                                    | "pues"
                                    | "ya"
                            )
                        });
                    token_number(w).filter(|_| !question && !denied && !article)
                })
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
    // «Dos de los capuchinos con leche de almendras» with four in the cart:
    // some of the line's own units are spoken of, nothing more is ordered —
    // unless the message orders more or takes some out.
    let of_the_line = in_cart > 0
        && !ordering
        && !more
        && matches!(before, [.., n, "de", "los" | "las"] if count(n).is_some_and(|n| n <= in_cart))
        && !after
            .iter()
            .any(|w| lexicon::removes(w) || swap_verb(w) || matches!(*w, "no" | "por" | "x"));
    if of_the_line {
        let named = before.len() - 3..clause_words.len() - after.len();
        covered[named].iter_mut().for_each(|c| *c = true);
        return None;
    }
    // «ya no el chai tampoco, solo brownie» with a brownie in the cart: the
    // line kept as it is — no count said, nothing more of it ordered.
    let only_named = matches!(
        before.last(),
        Some(&("solo" | "sola" | "nomas" | "unicamente"))
    );
    if in_cart > 0 && only_named && !more && !ordering && !question && quantity.is_none() {
        mark(covered, ONLY);
        let named = before.len()..clause_words.len() - after.len();
        covered[named].iter_mut().for_each(|c| *c = true);
        return None;
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
    // («…que sean 2 y el maracuyá ya no»: the words before since the «y».)
    let own_before_no = before
        .iter()
        .rposition(|w| matches!(*w, "y" | "e"))
        .map_or(before, |k| &before[k + 1..]);
    let trailing_no = after.last() == Some(&"no")
        && own_before_no
            .iter()
            .all(|w| lexicon::FILLER.contains(w) || matches!(*w, "el" | "la" | "los" | "las"))
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
    // «el brownie quítelo, mejor un cheesecake»: a taking out said with its
    // pronoun points back at the product before it, not at this one.
    if let Some(k) = own_part
        .iter()
        .position(|w| lexicon::with_pronoun(w, lexicon::removes))
        && k < before.len()
        && own_part[k + 1..]
            .iter()
            .any(|w| matches!(*w, "mejor" | "y" | "pero" | "ahora") || count(w).is_some())
        // («quítalos los 2 brownies»: the pronoun doubles this product's own
        // article or count right after it — the same thing.)
        && !own_part.get(k + 1).is_some_and(|next| {
            matches!(*next, "el" | "la" | "los" | "las") || count(next).is_some()
        })
    {
        own_part.drain(..=k);
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
    // («¿me pones un zumo de maracuyá…?»: a request said as a question;
    // «q trae el capuchino», «¿se puede pedir sin canela?» ask what it brings
    // or whether it can be had.)
    // («dame el capuchino que trae canela»: with an order verb proper, what
    // it brings describes the one ordered.)
    let verb_proper = clause_words.iter().any(|w| {
        lexicon::adds(w)
            && !matches!(
                *w,
                "trae"
                    | "traen"
                    | "lleva"
                    | "llevan"
                    | "viene"
                    | "vienen"
                    | "manda"
                    | "mandan"
                    | "aparte"
            )
    });
    let asks_what = !verb_proper
        && has(&[
            "que trae",
            "que lleva",
            "que viene con",
            "viene con",
            "vienen con",
            "vienen sin",
        ])
        || (question && has(&["se puede pedir", "se pueden pedir", "se podria pedir"]));
    // (An order verb proper; a request said as a question, «¿me pones…?»,
    // orders too, but never more of a line pointed at with its article and
    // count, «me pones los 2 capuchinos», below.)
    let orders_proper =
        (has(lexicon::ADD) || clause_words.iter().any(|w| lexicon::adds(w))) && !asks_what;
    let orders = (orders_proper || has(lexicon::ASKS_FOR)) && !asks_what;
    let asks = has(lexicon::QUESTION) || (question && !orders && quantity.is_none());
    // "Quiero saber el precio": wanting to know is not wanting the product.
    let only_asks =
        has(&["saber", "preguntar", "precio", "info", "informacion"]) && quantity.is_none();
    if asks && (!orders || only_asks) {
        mark(covered, lexicon::QUESTION);
        // («¿cuánto me salen 3 brownies?»: that many are priced.)
        let shown = ProposedAction::new("SHOW_PRODUCT").product(id);
        return Some(match quantity {
            Some(q) if q > 1 => shown.quantity(q),
            _ => shown,
        });
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
        && !orders_proper
    {
        mark(covered, &["los", "las"]);
        return None;
    }
    // «no, 2 brownies» with brownies in the cart: the count taken back and
    // said again.
    let denied_first = matches!(before, ["no"] | ["no", _]) && !orders;
    // «mejor otro matcha», «mejor 2 más»: one more is an addition, whatever
    // word sets the line elsewhere.
    // «el último que pedí ponle dos», «al capuchino ponele 3»: the line named
    // first, then «ponle» and a count, becomes that count.
    // «americanos son cuatro (y no tres)»: the line is that many.
    let rest_said = |rest: &[&str]| {
        let rest = match rest {
            ["y", "no", n, tail @ ..] | ["no", n, tail @ ..] if count(n).is_some() => tail,
            _ => rest,
        };
        rest.iter()
            .all(|w| lexicon::FILLER.contains(w) || matches!(*w, "nomas" | "solo"))
    };
    let put_to = matches!(
        after,
        ["ponle" | "ponele" | "ponla" | "ponlo" | "dejale" | "dejalo" | "dejala" | "son"
            | "serian" | "seran", n, ..]
            if count(n).is_some()
    ) && rest_said(&after[2..]);
    let sets = (has(lexicon::SET) || denied_first || put_to) && in_cart > 0 && !more;
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
pub(super) fn only_count(words: &[&str]) -> Option<i64> {
    let mut counts = words.iter().filter_map(|w| count(w));
    let first = counts.next()?;
    counts.next().is_none().then_some(first)
}

/// A product's name in the catalog the proposer was given.
pub(super) fn name_of(input: &ProposalInput, id: ProductId) -> Option<&str> {
    input
        .product_catalog
        .iter()
        .find(|p| p.product_id == id)
        .map(|p| p.name.as_str())
}

/// A count, or «uno»/«una» said as one of something («dos sin azúcar y una
/// normal», «no mejor uno»).
pub(super) fn count_or_one(word: &str) -> Option<i64> {
    count(word).or(matches!(word, "uno" | "una").then_some(1))
}

/// A number said as a count («2», «tres»), not an article («un», «una», «uno»).
pub(super) fn count(word: &str) -> Option<i64> {
    token_number(word).filter(|_| !matches!(word, "un" | "una" | "uno"))
}

/// "2 maracuyá", "tres de matcha", "una docena de brownies", "media docena",
/// "un par de", "otros dos".
pub(super) fn quantity_before(before: &[&str]) -> Option<i64> {
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
/// `in_cart`: the line's count now (0 when not known).
pub(super) fn corrected_quantity(after: &[&str], in_cart: i64) -> Option<i64> {
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
        // «que sean dos no tres» with three in the cart: a count, then «no»
        // and the line's count now, denies it; the first stands. (Marks are
        // not kept here, so «dos, no, tres» from another count corrects.)
        let denies_next = after[k] == "no"
            && k > 0
            && token_number(after[k - 1]).is_some()
            && in_cart > 0
            && after
                .get(k + 1)
                .and_then(|w| token_number(w))
                .is_some_and(|n| n == in_cart);
        if denies_next {
            k += 2;
            continue;
        }
        // «ya no son dos», «y no tres»: a count denied, no correction to it.
        let denied = after[k] == "no"
            && (matches!(
                after.get(k + 1),
                Some(&("son" | "es" | "eran" | "era" | "sean" | "seran" | "van"))
            ) || (k > 0
                && after[k - 1] == "y"
                && after.get(k + 1).is_some_and(|w| count(w).is_some())
                && k + 2 == after.len()));
        if denied {
            k += 2;
            continue;
        }
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
pub(super) fn verb_quantity(after: &[&str], followed: bool) -> Option<i64> {
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

/// "maracuyá x3", "matcha 2", "brownies por 4", "la limonada entonces, dos",
/// "y croissant también, dos".
pub(super) fn quantity_after(after: &[&str]) -> Option<i64> {
    let skipped = after
        .iter()
        .take_while(|w| {
            matches!(
                **w,
                "entonces" | "pues" | "porfa" | "nomas" | "va" | "ya" | "tambien" | "igual"
            )
        })
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
pub(super) fn target_quantity(before: &[&str], after: &[&str]) -> Option<i64> {
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
    // («dos americanos, que voy con una amiga»: the count said before the
    // product is its own; a later one belongs to what follows.)
    quantity_after(after)
        .or_else(|| quantity_before(before))
        .or(later)
}
