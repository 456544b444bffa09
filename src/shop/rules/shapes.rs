//! Shapes of a whole message read against the cart, the history and the people
//! in it: a line by its place, «lo mismo para él», one each, corrections said
//! within the message, a restated cart.

use super::*;

/// One line less, or the line out when it would reach nothing.
pub(super) fn decrease(id: ProductId, quantity: i64, by: i64) -> ProposedAction {
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
pub(super) fn only_after_count(words: &[&str]) -> String {
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
pub(super) const ONLY: &[&str] = &[
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
pub(super) const SWAP_WORDS: &[&str] = &[
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
    "pasalo",
    "pasala",
    "pasalos",
    "pasalas",
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
pub(super) fn swap_completed(input: &ProposalInput, words: &[&str]) -> Option<String> {
    let asked = last_bot_turn(input).is_some_and(|h| h.text.starts_with(messages::WHICH_TO_CHANGE));
    let asked_instead =
        last_bot_turn(input).is_some_and(|h| h.text.starts_with(messages::INSTEAD_OF));
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
    // «quita uno de los cafés» … «¿Cuál de ellos…?» … «de los americanos»:
    // the removal asked before, of the line named now.
    if asked && swap_joiner(&said).is_none() && said.iter().any(|w| lexicon::removes(w)) {
        let one = said
            .windows(2)
            .any(|w| matches!(w[0], "uno" | "una" | "1") && matches!(w[1], "de" | "del"));
        let name = name_of(input, *line)?;
        return Some(if one {
            format!("quita 1 {name}")
        } else {
            format!("quita {name}")
        });
    }
    let by = swap_joiner(&said)?;
    let target = said[by + 1..].join(" ");
    if mentions::find(&said[by + 1..], &input.product_catalog).is_empty() {
        return None;
    }
    Some(format!("cambia {} por {target}", name_of(input, *line)?))
}

/// The customer's previous message (before this one), prepared.
pub(super) fn previous_message(input: &ProposalInput) -> Option<String> {
    earlier_turns(input)
        .find(|h| h.role == "customer")
        .map(|h| prepared(&h.text))
}

/// The conversation before this message, newest first (the history may
/// already end with the message itself).
/// The bot's last message in the history.
pub(super) fn last_bot_turn(input: &ProposalInput) -> Option<&crate::proposal::HistoryEntry> {
    input.recent_history.iter().rev().find(|h| h.role == "bot")
}

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
pub(super) fn greeting_asked(text: String) -> String {
    let words = tokens(&text);
    // «¿qué onda? ¿me regalas un matcha?»: a greeting said as a question.
    match words.as_slice() {
        ["que", "onda" | "hubo", _, ..] => return words[2..].join(" "),
        ["quiubo" | "quihubo", _, ..] => return words[1..].join(" "),
        // «q tal, 4 limonadas y 4 maracuyás»: a count right after it is an
        // order, so «qué tal» was the greeting.
        ["que", "tal", n, ..] if count(n).is_some() => return words[2..].join(" "),
        _ => {}
    }
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
pub(super) fn reported(text: String) -> String {
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

/// Mexico's «pay de queso», Spain's «tarta de queso», «pastel de queso»: the
/// catalog's cheesecake — unless the catalog sells something by those words.
pub(super) fn cheesecake_by_other_names(input: &ProposalInput, text: String) -> String {
    if !text.contains(" de queso") {
        return text;
    }
    // The catalog's folded name words, kept per catalog.
    let catalog = mentions::catalog_words(&input.product_catalog);
    let named = |word: &str| {
        catalog
            .iter()
            .any(|(_, name, _)| name.iter().any(|w| w == word))
    };
    // (Not where another product is of cheese or is a «torta»: «la empanada
    // de queso», «una torta de jamón».)
    if !named("cheesecake")
        || ["pay", "tarta", "pastel", "torta", "queso"]
            .iter()
            .any(|w| named(w))
    {
        return text;
    }
    with_phrases(
        &text,
        &[
            (" pay de queso ", " cheesecake "),
            (" pays de queso ", " cheesecakes "),
            (" tarta de queso ", " cheesecake "),
            (" tartas de queso ", " cheesecakes "),
            (" pastel de queso ", " cheesecake "),
            (" torta de queso ", " cheesecake "),
            (" postre de queso ", " cheesecake "),
            // «cambia el brownie por el de queso»: the cheese one.
            (" el de queso ", " el cheesecake "),
            (" uno de queso ", " un cheesecake "),
        ],
    )
}

/// «dame dos que hoy quiero dormir temprano», «un capuchino porque hace frío»:
/// a reason told after the request, cut off. The reason starts at «porque» (or
/// «ya que», «es que»), or at a «que» right after a count, a product or a
/// «porfa»; it names no product, says no count and no verb of the shop but a
/// «quiero» followed by another verb («quiero dormir»), and qualifies nothing
/// («que sea grande», «que no tenga canela» and «sin», «con» are read as said).
pub(super) fn reason_told_after(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let catalog = &input.product_catalog;
    let opens = |k: usize| match words[k] {
        "porque" => true,
        "que" => {
            matches!(words[k - 1], "ya" | "es")
                || count(words[k - 1]).is_some()
                || matches!(words[k - 1], "porfa" | "favor")
                || names_a_product(words[k - 1], catalog)
        }
        _ => false,
    };
    let Some(at) = (1..words.len()).find(|&k| opens(k)) else {
        return text;
    };
    let start = if matches!(words[at - 1], "ya" | "es") && words[at] == "que" {
        at - 1
    } else {
        at
    };
    let (head, tail) = (&words[..start], &words[at + 1..]);
    // «…un brownie, porque acá nadie tiene efectivo jaja, y también un
    // croissant»: the reason ends where the order goes on.
    let end = (0..tail.len())
        .find(|&k| {
            tail[k] == "y"
                && tail
                    .get(k + 1)
                    .is_some_and(|n| matches!(*n, "tambien" | "ademas"))
        })
        .unwrap_or(tail.len());
    let (tail, after) = (&tail[..end], &tail[end..]);
    let requested = head
        .iter()
        .any(|w| count(w).is_some() || lexicon::adds(w) || names_a_product(w, catalog));
    // «quiero dormir»: a wish to do something else, never the shop's own verbs
    // («…que quiero cancelar lo demás» is a request).
    let wants_to_do = |k: usize| {
        matches!(tail[k], "quiero" | "quiere" | "queremos")
            && tail.get(k + 1).is_some_and(|next| {
                next.len() > 3
                    && (next.ends_with("ar") || next.ends_with("er") || next.ends_with("ir"))
                    && !names_a_product(next, catalog)
                    && !lexicon::is_known(next)
                    && !lexicon::adds(next)
                    && !lexicon::removes(next)
                    && !next.starts_with("cancel")
            })
    };
    // After a bare «que» the reason speaks of the customer or the day
    // («…que tengo frío», «…que hoy quiero dormir»); «…que venga helado», «…que
    // uno es descafeinado» say how the product is wanted.
    let personal = |w: &str| {
        matches!(
            w,
            "tengo" | "tenemos" | "estoy" | "estamos" | "hace" | "hoy" | "quiero" | "queremos"
        )
    };
    if words[at] == "que" && start == at && !tail.iter().any(|w| personal(w)) {
        return text;
    }
    let story = !tail.is_empty()
        && (0..tail.len()).all(|k| {
            let w = tail[k];
            (count(w).is_none() || matches!(w, "un" | "una" | "uno"))
                && !names_a_product(w, catalog)
                && (!lexicon::adds(w) && !lexicon::is_known(w)
                    || wants_to_do(k)
                    || k > 0 && wants_to_do(k - 1)
                    || matches!(
                        w,
                        "hoy"
                            | "ya"
                            | "tengo"
                            | "tiene"
                            | "tienen"
                            | "tenemos"
                            | "hace"
                            | "es"
                            | "me"
                            | "jaja"
                            | "jajaja"
                    ))
                // («…el capuchino que pedí ya no»: a «no» takes something back.)
                && w != "no"
                && !lexicon::removes(w)
                && !swap_verb(w)
                && !matches!(
                    w,
                    "sea"
                        | "sean"
                        | "tenga"
                        | "tengan"
                        | "lleve"
                        | "lleven"
                        | "sin"
                        | "con"
                        | "este"
                        | "esten"
                        | "cuanto"
                        | "cuantos"
                        | "cual"
                        | "donde"
                        | "cuando"
                )
        });
    if !requested || !story || input.customer_message.trim_end().ends_with('?') {
        return text;
    }
    head.iter()
        .chain(after)
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// «que el chai sean dos», «los americanos sean 2»: a line's count set after
/// its name, read as «que sean 2 americanos».
pub(super) fn set_said_after(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    // «no quiero que los capuchinos sean tres», «¿…sean tres?», «sean 3 o 4»:
    // a doubt or a negation is no count set.
    // (A «no» opening the message answers the bot: «no espera, que los
    // capuchinos sean 3».)
    if input.customer_message.contains('?')
        || words
            .iter()
            .enumerate()
            .any(|(i, w)| (i > 0 && *w == "no") || matches!(*w, "o" | "quizas" | "tal"))
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
pub(super) fn listed_item(input: &ProposalInput, n: usize) -> Option<ProductId> {
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
pub(super) fn restated_count(input: &ProposalInput, text: String) -> String {
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
        if let Some(kept) = count_kept(input, &words, &found) {
            return kept;
        }
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
pub(super) fn amounts_and_marks(input: &ProposalInput, text: String) -> String {
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
/// no count of its own, and «2 capuchinos, no 3» contrasts; «2 matchas, no,
/// 3» (a «no» set off by a comma) corrects itself, unless the count is said
/// again («serían», «te pedí») or the denied one is the cart's.
pub(super) fn not_the_other_count(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let [.., "no", last] = words.as_slice() else {
        return text;
    };
    let Some(denied) = count(last) else {
        return text;
    };
    let end = words.len() - 2;
    // «2 matchas, no, 3»: a «no» set off by a comma takes the count back;
    // «2 capuchinos, no 3» contrasts it.
    let takes_back = input.customer_message.to_lowercase().contains("no,");
    let restates = !takes_back || any(&text, lexicon::RESTATING) || any(&text, lexicon::RESTATED);
    let counted = mentions::find(&words[..end], &input.product_catalog)
        .iter()
        .any(|m| {
            let the_carts = m.product().is_some_and(|id| {
                input
                    .cart
                    .lines
                    .iter()
                    .any(|l| l.product_id == id && l.quantity == denied)
            });
            m.end == end
                && m.start > 0
                && count(words[m.start - 1]).is_some()
                && (restates || the_carts)
        });
    if !counted {
        return text;
    }
    words[..end].join(" ")
}

/// «lemonade, limonada, two», «brownie brownie 2»: a product's name said
/// twice in a row (in two languages, or for emphasis) names it once.
pub(super) fn named_twice(input: &ProposalInput, text: String) -> String {
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
pub(super) fn said_again(input: &ProposalInput, text: String) -> String {
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
pub(super) const HEADINGS: &[&str] = &[
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
pub(super) fn kind_heading(words: &[&str], input: &ProposalInput) -> Option<(usize, i64, i64)> {
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
pub(super) fn headed_by_kind(input: &ProposalInput, text: String) -> String {
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
pub(super) fn counted_from(words: &[&str], start: usize) -> (usize, i64) {
    match start.checked_sub(1).map(|p| (p, words[p])) {
        Some((p, w)) if count(w).is_some() => (p, count(w).unwrap_or(1)),
        Some((p, "un" | "una" | "uno" | "el" | "la")) => (p, 1),
        _ => (start, 1),
    }
}

/// «un chai y un croissant, y mi esposo lo mismo»: said as «lo mismo para mi
/// esposo».
fn whom_said_first(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let n = words.len();
    let tail_ok = |from: usize| {
        words[from..].iter().all(|w| {
            matches!(
                *w,
                "porfa" | "tambien" | "pls" | "plis" | "xfa" | "por" | "favor"
            )
        })
    };
    let Some(at) = (1..n.saturating_sub(3)).find(|&k| {
        matches!(words[k - 1], "y" | "e")
            // (Never «el otro lo mismo», «el resto lo mismo»: things.)
            && matches!(words[k], "mi" | "su" | "tu")
            && !matches!(words[k + 1], "otro" | "otra" | "resto" | "demas")
            && !names_a_product(words[k + 1], &input.product_catalog)
            && count(words[k + 1]).is_none()
            && words[k + 2] == "lo"
            && words[k + 3] == "mismo"
            && tail_ok(k + 4)
    }) else {
        return text;
    };
    let mut out: Vec<&str> = words[..at].to_vec();
    out.extend(["lo", "mismo", "para", words[at], words[at + 1]]);
    out.join(" ")
}

/// «un capuchino y un croissant, y lo mismo para mi amigo»: what the message
/// ordered, once more for someone — each count doubled.
pub(super) fn same_for_another(input: &ProposalInput, text: String) -> String {
    let text = whom_said_first(input, text);
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
pub(super) fn another_for_someone(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    // «dos maracuyás para mí y uno para mi hermana»: a count for someone
    // else after a product said for someone is more of that product.
    let for_someone = |k: usize| {
        matches!(words.get(k + 1), Some(&("para" | "pa")))
            && words.get(k + 2).is_some_and(|w| {
                matches!(
                    *w,
                    "mi" | "mis"
                        | "su"
                        | "sus"
                        | "tu"
                        | "ella"
                        | "ellas"
                        | "ellos"
                        | "nosotros"
                        | "nosotras"
                )
            })
            && words[..k].iter().any(|w| matches!(*w, "para" | "pa"))
    };
    let Some(at) = words.iter().enumerate().position(|(k, w)| {
        k > 0
            && ((matches!(*w, "otro" | "otra")
                && matches!(words.get(k + 1), Some(&("para" | "pa" | "pal"))))
                || (words[k - 1] == "y"
                    && (matches!(*w, "uno" | "una") || token_number(w).is_some())
                    && for_someone(k)))
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
        "otro" | "uno" => article != Some("una"),
        "otra" | "una" => article == Some("una"),
        _ => true,
    };
    let counted = token_number(words[at]).filter(|_| !matches!(words[at], "uno" | "una"));
    // («dame dos, uno pa' él y uno pa' mí» shares the two said.)
    let shared_out = counted.is_some() || matches!(words[at], "uno" | "una");
    // («capuchinos: dos para mí y uno para mi tía»: the count after the name.)
    let said_for_someone = matches!(words.get(last.end), Some(&("para" | "pa")))
        || (words.get(last.end).is_some_and(|w| count(w).is_some())
            && matches!(words.get(last.end + 1), Some(&("para" | "pa"))));
    // («tres croissants, uno para cada uno de nosotros y otro para mi
    // sobrino»: the «otro» goes on a split of the three said.)
    // («un chocolate, uno para mí y otro para mi hermana» is two.)
    let split_going_on = last
        .start
        .checked_sub(1)
        .and_then(|k| count(words[k]))
        .is_some_and(|n| n > 1)
        && words[last.end..at]
            .windows(2)
            .any(|w| matches!(w[0], "uno" | "una") && matches!(w[1], "para" | "pa"));
    if last.product().is_none()
        || split_going_on
        || !agrees
        || (shared_out && !said_for_someone)
        || matches!(words[at - 1], "el" | "la")
        || words[last.end..at]
            .iter()
            .any(|w| matches!(*w, "no" | "sin"))
    {
        return text;
    }
    // «capuchinos dos para mí y uno para mi tía»: the product is named once
    // here, so the counts are summed on it.
    if let Some(first) = words.get(last.end).and_then(|w| count(w))
        && matches!(words.get(last.end + 1), Some(&("para" | "pa")))
        // («cuatro maracuyás: dos para mis hijos, uno para…» splits the four.)
        && last
            .start
            .checked_sub(1)
            .is_none_or(|k| count(words[k]).is_none())
    {
        let mut out: Vec<String> = words[..last.start]
            .iter()
            .map(|w| (*w).to_owned())
            .collect();
        out.push((first + counted.unwrap_or(1)).to_string());
        out.extend(words[last.start..last.end].iter().map(|w| (*w).to_owned()));
        out.extend(words[last.end + 1..at - 1].iter().map(|w| (*w).to_owned()));
        out.extend(words[at + 1..].iter().map(|w| (*w).to_owned()));
        return out.join(" ");
    }
    let mut out: Vec<String> = words[..at].iter().map(|w| (*w).to_owned()).collect();
    out.push(counted.unwrap_or(1).to_string());
    out.extend(words[last.start..last.end].iter().map(|w| (*w).to_owned()));
    out.extend(words[at + 1..].iter().map(|w| (*w).to_owned()));
    out.join(" ")
}

/// «un capuchino, y si me alcanza agrego un brownie»: what the customer
/// would add if money or time allow is not asked for yet — read without it.
pub(super) fn if_it_goes(input: &ProposalInput, text: String) -> String {
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
pub(super) fn not_that_many(words: &[&str], found: &[mentions::Mention]) -> Option<String> {
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
pub(super) fn restated_summary(input: &ProposalInput, text: String) -> String {
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
pub(super) fn not_put(input: &ProposalInput, text: String) -> String {
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
pub(super) fn named_right_after(
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
pub(super) fn double_of(input: &ProposalInput, text: String) -> String {
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

/// «saca los brownies y pon cheesecakes, la misma cantidad»: what comes in
/// takes the count of the line taken out.
pub(super) fn same_count_as_taken_out(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(2)
        .position(|w| matches!(w[0], "misma" | "igual") && w[1] == "cantidad")
    else {
        return text;
    };
    let found = mentions::find(&words, &input.product_catalog);
    let taken_out = found.iter().find_map(|m| {
        let id = m.product()?;
        let before = &words[m.start.saturating_sub(3)..m.start];
        let verb = before.iter().any(|w| lexicon::removes(w));
        // «saca dos brownies…»: the count taken out, else the whole line.
        let quantity = input
            .cart
            .quantity_of(id)
            .map(|line| quantity_before(before).map_or(line, |said| said.min(line)));
        verb.then_some(quantity).flatten().map(|q| (m.end, q))
    });
    let Some((end, quantity)) = taken_out else {
        return text;
    };
    let Some(comes_in) = found
        .iter()
        .find(|m| m.start >= end && m.product().is_some_and(|id| !input.cart.holds(id)))
    else {
        return text;
    };
    if quantity_before(&words[end..comes_in.start]).is_some() {
        return text;
    }
    let mut phrase = at;
    if phrase > 0 && matches!(words[phrase - 1], "la" | "en" | "con") {
        phrase -= 1;
    }
    let quantity = quantity.to_string();
    let mut said: Vec<&str> = words[..comes_in.start].to_vec();
    said.push(&quantity);
    said.extend(&words[comes_in.start..phrase.max(comes_in.end)]);
    said.extend(&words[(at + 2).max(comes_in.end)..]);
    said.join(" ")
}

/// «póngame un cheesecake en lugar de los brownies»: the swap said with what
/// comes in first. Said the other way round when what goes out is in the
/// cart; when it is not, only what comes in is asked for.
pub(super) fn instead_after(input: &ProposalInput, text: String) -> String {
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
pub(super) fn one_each(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(3)
        .position(|w| matches!(w[0], "uno" | "una") && w[1] == "para" && w[2] == "cada")
    else {
        // («el Gonza y el Rodri un americano cada uno, … y para cada uno un
        // croissant»: each spread in turn.)
        let once = each_of_the_people(input, text.clone());
        return if once != text {
            each_of_the_people(input, once)
        } else {
            once
        };
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

/// The people named right before `at` («el Gonza y el Rodri», «para la Vane
/// y la Caro», «Ale, Diego y Marce»): where they are and how many (two or
/// more), words that are no product, count nor word of the shop.
fn names_before(words: &[&str], at: usize, input: &ProposalInput) -> Option<(usize, usize, i64)> {
    let written = names_written(&input.customer_message, &input.product_catalog);
    let is_name = |w: &str| written.iter().any(|n| n == w) && count(w).is_none();
    let mut k = at;
    let mut names = 0;
    loop {
        if k == 0 || !is_name(words[k - 1]) {
            break;
        }
        k -= 1;
        names += 1;
        if k > 0 && matches!(words[k - 1], "el" | "la") {
            k -= 1;
        }
        if k > 0 && matches!(words[k - 1], "y" | "e") {
            k -= 1;
        } else if names > 1 || k == 0 || !is_name(words[k - 1]) {
            break;
        }
    }
    if k > 0 && matches!(words[k - 1], "para" | "pa") {
        k -= 1;
    }
    (names >= 2).then_some((k, at, names))
}

/// «somos 4, un capuchino cada uno», «para 5 personas, un brownie por
/// persona», «un chai para cada uno, somos 3»: one each, times the people
/// counted in the message. (With no count of people, left as said.)
pub(super) fn each_of_the_people(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some((mark, mark_end)) =
        words
            .windows(2)
            .enumerate()
            .find_map(|(i, w)| match (w[0], w[1]) {
                ("para", "cada") => Some((i, i + 3)),
                // («uno más de cada uno» is of each product.)
                // («una limonada a cada una»: «a» is the mark's.)
                ("cada", "uno" | "una" | "quien") if i > 0 && words[i - 1] == "a" => {
                    Some((i - 1, i + 2))
                }
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
            // «para las dos practicantes», «para mis tres sobrinos»: people
            // counted by whatever they are called.
            ("para" | "pa", Some(det), _)
                if matches!(
                    *det,
                    "los" | "las" | "mis" | "sus" | "tus" | "nuestros" | "nuestras"
                ) && n(i + 2).is_some_and(|n| n >= 2)
                    // (A plural that names people, never «para las 10 porfa»:
                    // an hour.)
                    && words.get(i + 3).is_some_and(|p| {
                        p.chars().count() > 3
                            && p.ends_with('s')
                            && !matches!(*p, "horas" | "hrs" | "pls" | "plis")
                            && count(p).is_none()
                            && !names_a_product(p, &input.product_catalog)
                    }) =>
            {
                Some((i, i + 4, n(i + 2)?))
            }
            (_, Some(p), _) if count(words[i]).is_some() && PEOPLE.contains(p) => {
                Some((i, i + 2, count(words[i])?))
            }
            _ => None,
        }
    });
    // «el Gonza y el Rodri un americano y un croissant cada uno»: the items
    // said right before it, one each of the people named right before them.
    let item_at = |k: usize| {
        matches!(words[k], "un" | "una" | "uno" | "1")
            && words
                .get(k + 1)
                .is_some_and(|w| names_a_product(w, &input.product_catalog))
    };
    let mut run = mark;
    while run >= 2 && item_at(run - 2) {
        run -= 2;
        if run >= 1 && matches!(words[run - 1], "y" | "e") && run >= 3 && item_at(run - 3) {
            run -= 1;
        }
    }
    // (Names written right before the items win over people counted
    // elsewhere: «el Gonza y el Rodri un americano cada uno… somos cinco».)
    let people = (run < mark)
        .then(|| names_before(&words, run, input))
        .flatten()
        .or(people);
    // («…un chocolate para compartir y un croissant cada uno»: what is shared
    // is not one each.)
    let Some((from, to, n)) = people
        .filter(|(from, to, _)| *to <= mark || *from >= mark_end)
        .filter(|_| !words.iter().any(|w| w.starts_with("compart")))
    else {
        return text;
    };
    // «…cada uno quiere un capuchino y un croissant»: the items may follow.
    let ones_before = (0..mark).any(item_at);
    // («…para cada uno un capuchino, y para el gerente un cheesecake»: what
    // is said for someone else after it is not one each.)
    let someone_else = (mark_end..words.len())
        .find(|&k| {
            matches!(words[k], "para" | "pa")
                && matches!(
                    words.get(k + 1),
                    Some(
                        &("el"
                            | "la"
                            | "mi"
                            | "mis"
                            | "su"
                            | "sus"
                            | "tu"
                            | "nuestro"
                            | "nuestra"
                            | "ella"
                            | "ellos"
                            | "ellas")
                    )
                )
        })
        .unwrap_or(words.len());
    // («somos 3, un capuchino cada uno, un brownie»: items after the mark
    // are the spread ones only after «para cada…», or when none came before.)
    let para_each = matches!(words[mark], "para" | "pa");
    let range = if mark_end < words.len()
        && item_at(mark_end)
        && (para_each || (run == mark && !ones_before))
    {
        mark_end..someone_else
    } else if run < mark {
        run..mark
    } else if ones_before {
        0..mark
    } else {
        mark_end..someone_else
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
pub(super) fn half_of_another(input: &ProposalInput, text: String) -> String {
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
pub(super) fn after_the_line(
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
pub(super) fn nth_line(input: &ProposalInput, text: String) -> String {
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
    // «uno más del primero porfa»: the change said before the place.
    let changed_before = words[at.saturating_sub(3)..at].iter().any(|w| {
        matches!(*w, "mas" | "otro" | "otra" | "menos") || lexicon::removes(w) || lexicon::adds(w)
    });
    if ordinals > 1
        || words.windows(2).filter(|w| placed(w)).count() > 1
        || !(changes_it || changed_before)
    {
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
pub(super) fn not_this_one(input: &ProposalInput, text: String) -> String {
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
pub(super) fn each_of_a_kind(input: &ProposalInput, text: String) -> String {
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
pub(super) fn the_last_named(input: &ProposalInput, text: String) -> String {
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
pub(super) fn unsure_of_what(input: &ProposalInput, proposal: &Proposal) -> bool {
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
        && last_bot_turn(input).is_some_and(|bot| {
            let shown = products_in(&bot.text, &input.product_catalog);
            !shown.is_empty() && shown.iter().all(|id| !input.cart.holds(*id))
        });
    let added: Vec<ProductId> = proposal
        .proposed_actions
        .iter()
        .filter(|a| a.action_type == "ADD_TO_CART")
        .filter_map(|a| a.product_id())
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
pub(super) fn one_taken_off(input: &ProposalInput) -> Option<(ProductId, i64)> {
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
        // «el brownie tiene nueces… si tiene quita uno»: one of the only
        // product named before, when nothing follows the count.
        let bare = words
            .get(k + 2)
            .is_none_or(|t| matches!(*t, "y" | "e" | "porfa" | "por" | "nomas" | "pues"));
        if bare {
            // («de los cafés quita uno»: which café is asked, never guessed.)
            let named: Vec<&mentions::Mention> = found.iter().filter(|m| m.start < k).collect();
            if named.iter().any(|m| m.product().is_none()) {
                return None;
            }
            let mut before: Vec<ProductId> = named.iter().filter_map(|m| m.product()).collect();
            before.dedup();
            return match before.as_slice() {
                [id] if input.cart.holds(*id) => Some((*id, off)),
                _ => None,
            };
        }
        words.get(k + 2).filter(|t| matches!(**t, "a" | "al"))?;
        let m = found.iter().find(|m| m.start > k + 2 && m.start <= k + 4)?;
        let id = m.product()?;
        input.cart.holds(id).then_some((id, off))
    })
}

/// «al chiquito quítale el chocolate», «quita el brownie de mi hermano»: a
/// product taken off one person's share of a line that holds more than one: one
/// unit, never the whole line.
pub(super) fn ones_share_taken_off(input: &ProposalInput) -> Option<ProductId> {
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    let verb = words
        .iter()
        .position(|w| lexicon::removes(w) || lexicon::with_pronoun(w, lexicon::removes))?;
    // The product said in the singular with its article right after the verb.
    let m = found.iter().find(|m| m.start > verb)?;
    if m.start > verb + 2
        || !matches!(words[m.start - 1], "el" | "la")
        || !matches!(words[m.end - 1].chars().last(), Some(c) if c != 's')
    {
        return None;
    }
    let id = m.product()?;
    // Whom: «al chiquito», «a mi hija», «de mi hermano», «para el Marcelo»,
    // right before the verb or right after the product.
    let things = [
        "pedido", "carrito", "carro", "orden", "cuenta", "total", "final", "todo", "lista",
        "compra", "bolsa", "canasta", "tiro", "toque", "rato", "mesa",
    ];
    let someone = |k: usize| {
        let mut who = k + 1;
        while words
            .get(who)
            .is_some_and(|w| matches!(*w, "el" | "la" | "mi" | "su" | "tu"))
        {
            who += 1;
        }
        let joined = match words.get(k) {
            Some(&"al") => true,
            Some(&("a" | "de" | "para")) => who > k + 1,
            _ => false,
        };
        joined
            && words.get(who).is_some_and(|w| {
                w.len() > 2
                    && !w.ends_with('s')
                    && !things.contains(w)
                    && !names_a_product(w, &input.product_catalog)
                    && count(w).is_none()
                    && !lexicon::is_known(w)
            })
    };
    let before_verb = (verb.saturating_sub(4)..verb).any(|k| {
        someone(k)
            && (k + 1..verb)
                .all(|j| !matches!(words[j], "y" | "e" | "pero") && count(words[j]).is_none())
    });
    let person = someone(m.end) || before_verb;
    (person && input.cart.quantity_of(id).is_some_and(|q| q > 1)).then_some(id)
}

/// Whether the message says the count of lines already in the cart again
/// rather than asking for more: a word that sums up («entonces», «total», «o
/// sea», «resumiendo», «al final», «igual quiero», «creo que… están bien»), or
/// a line's name then its count alone («capuchinos: 5»), with no word of
/// more («otro», «más», «también», «agrega»…).
pub(super) fn restates_the_cart(input: &ProposalInput) -> bool {
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
pub(super) fn corrected_within(input: &ProposalInput, proposal: &Proposal) -> bool {
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
    let quantity = |a: &ProposedAction| a.quantity_given();
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
            let id = a.product_id()?;
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
            .filter_map(|a| a.product_id())
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
pub(super) fn calls_off_unsure(input: &ProposalInput, proposal: &Proposal) -> bool {
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
pub(super) fn same_as_at<'a>(words: &[&'a str]) -> Option<(usize, &'a str, usize)> {
    let at = (0..words.len()).find(|&k| {
        matches!(
            words[k..],
            ["lo", "mismo", "que", ..] | ["igual", "que", ..]
        )
    })?;
    let mut who = at + if words[at] == "lo" { 3 } else { 2 };
    // «lo mismo que para mí»: whom it was for.
    if words.get(who).is_some_and(|w| matches!(*w, "para" | "pa")) {
        who += 1;
    }
    // («…que para mí y para…»: «mí» is the person, no article.)
    let ends = |k: usize| {
        words.get(k).is_none_or(|w| {
            matches!(
                *w,
                "y" | "e" | "para" | "pa" | "pero" | "porfa" | "ademas" | "tambien" | "mas"
            )
        })
    };
    if words
        .get(who)
        .is_some_and(|w| matches!(*w, "el" | "la" | "mi" | "a" | "al" | "de" | "del"))
        && !ends(who + 1)
    {
        who += 1;
    }
    let person = *words.get(who)?;
    Some((at, person, who + 1))
}

/// «del brownie solo uno y ya no le muevo más»: done changing, said as the
/// close it is (its «no» denies nothing of the order).
pub(super) fn done_changing(text: String) -> String {
    let mut text = text;
    for phrase in [
        "ya no le muevo mas",
        "ya no le muevo",
        "no le muevo mas",
        "ya no le cambio nada",
        "ya no cambio nada",
    ] {
        // (Closing the message: at most the total asked after it, never
        // «…ya no le cambio nada, pero el brownie quítalo».)
        let closes = text.find(phrase).is_some_and(|at| {
            let after = tokens(&text[at + phrase.len()..]);
            after.len() <= 3 && !after.contains(&"pero")
        });
        if crate::text::contains_phrase(&text, phrase) && closes {
            text = text.replacen(phrase, "eso es todo", 1);
        }
    }
    text
}

/// «ella no quiere capuchino, que le pongas un chai, entonces serían dos
/// capuchinos y un chai»: the change told, then the whole outcome said after
/// «serían» — when the outcome names every product the change did, it is
/// the outcome alone that is read (each line set to its count), never the
/// change and the outcome both.
pub(super) fn outcome_restated(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .iter()
        .position(|w| matches!(*w, "serian" | "seria" | "quedarian" | "quedaria"))
    else {
        return text;
    };
    let catalog = &input.product_catalog;
    let before: Vec<ProductId> = mentions::find(&words[..at], catalog)
        .into_iter()
        .filter_map(|m| m.product())
        .collect();
    let after: Vec<ProductId> = mentions::find(&words[at..], catalog)
        .into_iter()
        .filter_map(|m| m.product())
        .collect();
    let counted = words
        .get(at + 1)
        .is_some_and(|w| count(w).is_some() || matches!(*w, "un" | "una"));
    if counted && !before.is_empty() && before.iter().all(|id| after.contains(id)) {
        return words[at..].join(" ");
    }
    text
}

/// «Para mí un capuchino, para el Jorge un americano…» … «la Pao quiere lo
/// mismo que el Jorge»: what the customer's recent messages ordered «para»
/// that person (or «para mí», for «lo mismo que yo»), said in place of the
/// reference.
pub(super) fn same_as_someone(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some((at, person, end)) = same_as_at(&words) else {
        return text;
    };
    let person = if person == "yo" { "mi" } else { person };
    // «para mi hermana un matcha, para mi cuñado lo mismo que mi hermana»:
    // the same message first, then the customer's last messages.
    let this_message = words[..at].join(" ");
    let items = std::iter::once(this_message)
        .chain(
            earlier_turns(input)
                .filter(|h| h.role == "customer")
                .take(3)
                .map(|h| prepared(&h.text)),
        )
        .find_map(|said| {
            let earlier = tokens(&said);
            // «la Cami pide un té chai»: the person, then what they order.
            let asks_for = (0..earlier.len()).find(|&j| {
                earlier[j] == person
                    && earlier.get(j + 1).is_some_and(|w| {
                        matches!(*w, "pide" | "quiere" | "toma" | "prefiere" | "lleva")
                    })
            });
            if let Some(j) = asks_for {
                let from = j + 2;
                let until = (from..earlier.len())
                    .find(|&k| matches!(earlier[k], "para" | "y" | "el" | "la") && k > from)
                    .unwrap_or(earlier.len());
                let items = &earlier[from..until];
                if !mentions::find(items, &input.product_catalog).is_empty() {
                    return Some(items.join(" "));
                }
            }
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
    // «lo mismo que yo, capuchino y brownie»: the items said after the
    // reference are what is meant, whatever was said before.
    // (Only when the items come right after the reference: «lo mismo que el
    // Jorge y un brownie» adds to what the Jorge had.)
    let tail = &words[end..];
    let listed = mentions::find(tail, &input.product_catalog)
        .first()
        .is_some_and(|m| {
            tail[..m.start]
                .iter()
                .all(|w| matches!(*w, "un" | "una" | "el" | "la") || count(w).is_some())
        })
        && !tail
            .iter()
            .any(|w| matches!(*w, "sin" | "pero" | "menos" | "excepto" | "no"));
    let Some(items) = items.filter(|_| !listed) else {
        if listed {
            let mut out: Vec<&str> = words[..at].to_vec();
            out.extend(tail);
            return out.join(" ");
        }
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
pub(super) fn the_other_one(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words
        .windows(2)
        .position(|w| matches!(w, ["el", "otro"] | ["la", "otra"]))
    else {
        return text;
    };
    // Never «el otro día» or «uno para aquí y el otro para llevar».
    if words
        .get(at + 2)
        .is_some_and(|w| matches!(*w, "dia" | "para" | "de" | "que"))
        || words[..at].iter().any(|w| matches!(*w, "uno" | "una"))
    {
        return text;
    }
    if names_a_product(&text, &input.product_catalog) {
        return the_other_than_named(input, &words, at)
            .or_else(|| {
                let found = mentions::find(&words, &input.product_catalog);
                other_taken(&found, &words, at).map(|from| words[from..].join(" "))
            })
            .unwrap_or(text);
    }
    if words.len() > 5 {
        return text;
    }
    let named = |t: &str| -> Vec<ProductId> {
        let mut ids: Vec<ProductId> = mentions::find(&tokens(&prepared(t)), &input.product_catalog)
            .into_iter()
            .filter_map(|m| m.product())
            .collect();
        ids.sort_unstable();
        let mut seen = Vec::new();
        ids.retain(|id| {
            let first = !seen.contains(id);
            seen.push(*id);
            first
        });
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

/// «¿cuánto está la limonada? ¿y el de maracuyá?» … «uy el de maracuyá está
/// caro, dame el otro nomás»: of the products the last turns named, the one
/// this message did not, when only one is left; what is said from the verb
/// before «el otro» on, with its name. The product named before is what the
/// customer turns down, not an order.
fn the_other_than_named(input: &ProposalInput, words: &[&str], at: usize) -> Option<String> {
    if words.len() > 14 {
        return None;
    }
    let found = mentions::find(words, &input.product_catalog);
    // The product turned down comes before «el otro», and only it is named —
    // said with no count of its own («un matcha y dame el otro» orders the
    // matcha: not this reading, and the message is read as said).
    if found
        .iter()
        .any(|m| m.start > at || mentions::counted_before(words, m.start))
    {
        return None;
    }
    let named_now: Vec<ProductId> = found.iter().filter_map(|m| m.product()).collect();
    if named_now.len() != found.len() {
        return None;
    }
    let named = |t: &str| -> Vec<ProductId> {
        mentions::find(&tokens(&prepared(t)), &input.product_catalog)
            .into_iter()
            .filter_map(|m| m.product())
            .collect()
    };
    let mut recent: Vec<ProductId> = earlier_turns(input)
        .take(2)
        .flat_map(|h| named(&h.text))
        .collect();
    recent.sort_unstable();
    recent.dedup();
    if !named_now.iter().all(|id| recent.contains(id)) {
        return None;
    }
    let [other] = recent
        .iter()
        .copied()
        .filter(|id| !named_now.contains(id))
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let name = normalize(name_of(input, other)?);
    let from = other_taken(&found, words, at).unwrap_or(at);
    let mut out: Vec<&str> = words[from..at + 1].to_vec();
    out.push(&name);
    out.extend(&words[at + 2..]);
    Some(out.join(" "))
}

/// Where an order verb takes «el otro» after the products named («…está caro,
/// dame el otro»), the verb's place: the products before it are turned down,
/// not ordered, and an «otro» no turn resolves is asked, never read as them.
fn other_taken(found: &[mentions::Mention], words: &[&str], at: usize) -> Option<usize> {
    let verb = at.checked_sub(1)?;
    let takes = orders(words[verb]);
    let after_named = found.iter().all(|m| m.end <= verb);
    // («un matcha y dame el otro»: the matcha is ordered, not turned down.)
    let none_ordered = !found
        .iter()
        .any(|m| mentions::counted_before(words, m.start));
    (takes && after_named && none_ordered).then_some(verb)
}

/// An order verb: «ponme», «agrégale», «dame», «quiero».
fn orders(word: &str) -> bool {
    lexicon::adds(word) || matches!(word, "dame" | "deme" | "quiero")
}

/// «mi pana quiere lo mismo», «Juan pide lo mismo»: the same again for that
/// person, said as «para mi pana lo mismo».
pub(super) fn wants_the_same(input: &ProposalInput, text: String) -> String {
    let text = the_same_named(input, text);
    let words = tokens(&text);
    let Some(at) = (1..words.len()).find(|&k| {
        matches!(
            words[k],
            "quiere" | "quieren" | "pide" | "piden" | "toma" | "toman"
        ) && words.get(k + 1) == Some(&"lo")
            && words.get(k + 2) == Some(&"mismo")
    }) else {
        return text;
    };
    let whom = &words[..at];
    // «mi amiga no quiere lo mismo», «nadie más quiere lo mismo»: nothing again.
    if whom
        .iter()
        .any(|w| matches!(*w, "no" | "nadie" | "nunca" | "ninguno" | "ninguna"))
    {
        let mut out: Vec<&str> = words[..=at].to_vec();
        out.extend(&words[at + 3..]);
        return out.join(" ");
    }
    if whom.len() > 4
        || whom.iter().any(|w| {
            names_a_product(w, &input.product_catalog)
                || matches!(*w, "tambien" | "que" | "para" | "pa")
        })
    {
        return text;
    }
    let mut out: Vec<&str> = vec!["para"];
    out.extend(whom);
    out.extend(&words[at + 1..]);
    out.join(" ")
}

/// «el mismo capuchino otro más»: «mismo» before a product the cart holds
/// says that line, nothing more (dropped).
fn the_same_named(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = (1..words.len()).find(|&k| {
        matches!(words[k], "mismo" | "misma" | "mismos" | "mismas")
            && matches!(words[k - 1], "el" | "la" | "los" | "las")
            && mentions::find(
                &words[k + 1..words.len().min(k + 4)],
                &input.product_catalog,
            )
            .first()
            .is_some_and(|m| {
                m.start == 0
                    && m.product()
                        .is_some_and(|id| input.cart.quantity_of(id).is_some())
            })
    }) else {
        return text;
    };
    let mut out: Vec<&str> = words[..at].to_vec();
    out.extend(&words[at + 1..]);
    out.join(" ")
}

/// «dame el primero que te pregunté»: the product the customer's earliest
/// recent message asked about, said by name (left as said when none did, and
/// then asked).
pub(super) fn first_asked(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = (0..words.len()).find(|&k| {
        matches!(words[k], "primero" | "primera")
            && words.get(k + 1) == Some(&"que")
            && words[k + 2..]
                .iter()
                .take(2)
                .any(|w| w.starts_with("pregunt") || w.starts_with("consult"))
    }) else {
        return text;
    };
    let end = (at + 2..words.len())
        .find(|&k| words[k].starts_with("pregunt") || words[k].starts_with("consult"))
        .map_or(at + 2, |k| k + 1);
    let mut asked: Vec<&crate::proposal::HistoryEntry> = earlier_turns(input)
        .filter(|h| h.role == "customer")
        .take(4)
        .collect();
    asked.reverse();
    // (Only a message that asked: «2 brownies porfa» ordered, it asked nothing.)
    let Some(first) = asked.iter().find_map(|h| {
        let text = prepared(&h.text);
        let asked = h.text.contains('?') || lexicon::any(&text, lexicon::QUESTION);
        asked
            .then(|| {
                mentions::find(&tokens(&text), &input.product_catalog)
                    .first()
                    .and_then(|m| m.product())
            })
            .flatten()
    }) else {
        return text;
    };
    let Some(name) = name_of(input, first).map(normalize) else {
        return text;
    };
    let mut out: Vec<&str> = words[..at].to_vec();
    out.push(&name);
    out.extend(&words[end..]);
    out.join(" ")
}

/// «que le pidas lo mismo que yo» with nothing ordered «para mí» before:
/// whose order is meant is not the rules' to know.
pub(super) fn same_as_whom(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    same_as_at(&tokens(&text)).is_some_and(|(_, person, _)| names_someone(person))
        && same_as_at(&tokens(&said(input))).is_some()
}

/// Whether the word after «lo mismo que» / «igual que» is someone: «lo mismo
/// que pedí recién», «igual que antes», «igual que el anterior» are the order
/// again.
pub(super) fn names_someone(person: &str) -> bool {
    !matches!(
        person,
        "antes"
            | "siempre"
            | "ayer"
            | "recien"
            | "hoy"
            | "pedi"
            | "pedimos"
            | "te"
            | "le"
            | "anterior"
            | "ultimo"
            | "ultima"
            | "ese"
            | "esa"
            | "este"
            | "esta"
            | "otro"
            | "otra"
            | "arriba"
    )
}

/// «¿cuánto me saldrían 3 brownies?» … «ok, dame los 3 y 2 limonadas»: «los 3»
/// points at the product just asked about, and is read as its name.
pub(super) fn pointed_at_focus(input: &ProposalInput, text: String) -> String {
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
    // («¿no tiene nueces el brownie?» … «uy, soy alérgico, quítalo» with no
    // brownie in the cart: still the brownie — which is not there to take
    // out, never the last line instead.)
    if (in_cart || found.is_empty())
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
    // «el matcha lleva almendras, no? … sácame uno entonces»: one of the
    // product just asked about, when nothing else is named.
    if found.is_empty()
        && let [at] = words
            .iter()
            .enumerate()
            .filter(|(_, w)| lexicon::removes(w))
            .map(|(k, _)| k)
            .collect::<Vec<_>>()
            .as_slice()
        && words
            .get(at + 1)
            .is_some_and(|w| matches!(*w, "uno" | "una"))
        && let Some(name) = name_of(input, focus)
    {
        let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        out[*at] = "quita".to_owned();
        out[at + 1] = if in_cart {
            format!("un {}", normalize(name))
        } else {
            format!("el {}", normalize(name))
        };
        return out.join(" ");
    }
    // «dame los 3», and «dame 2 y tres americanos»: a count said after an order
    // verb and before «y», with no product of its own.
    let Some(at) = words
        .windows(2)
        .position(|w| matches!(w[0], "los" | "las") && count(w[1]).is_some())
        .or_else(|| {
            words.windows(3).position(|w| {
                // «dame uno y un brownie»: «uno», a pronoun, is one of it;
                // «dame ese y dos americanos», the one asked about.
                orders(w[0])
                    && (count(w[1]).is_some()
                        || matches!(w[1], "uno" | "una" | "ese" | "esa" | "este" | "esta"))
                    && matches!(w[2], "y" | "e")
            })
        })
        .or_else(|| {
            // «ya dame uno nomás y un brownie»: just one of it.
            words.windows(4).position(|w| {
                orders(w[0])
                    && matches!(w[1], "uno" | "una")
                    && matches!(w[2], "nomas" | "solo" | "solito" | "asi" | "igual")
                    && matches!(w[3], "y" | "e")
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
    // «la limonada la hacen sin azúcar?» … «entonces las dos sin azúcar»: the
    // two already in the cart, not two more: they change nothing.
    if matches!(words[at], "los" | "las")
        && count(words[at + 1]).is_some_and(|n| input.cart.quantity_of(focus) == Some(n))
    {
        let mut out: Vec<&str> = words[..at].to_vec();
        out.extend(&words[at + 2..]);
        return out.join(" ");
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
    out[at] = if count(&out[at + 1]).is_some() {
        out[at + 1].clone()
    } else {
        "1".to_owned()
    };
    out[at + 1] = normalize(name);
    out.join(" ")
}

/// «entonces dos sin azúcar y dos normales» of the four limonadas in the cart:
/// how each is made, said of a line's units, counts that add up to the line.
/// The cart does not change; the line is returned with its quantity.
pub(super) fn split_by_manner(input: &ProposalInput) -> Option<(ProductId, i64)> {
    const MANNER: &[&str] = &[
        "sin",
        "con",
        "normal",
        "normales",
        "natural",
        "naturales",
        "caliente",
        "calientes",
        "frio",
        "fria",
        "frios",
        "frias",
        "dulce",
        "dulces",
        "tibio",
        "tibia",
        "tibios",
        "tibias",
        "helado",
        "helada",
        "helados",
        "heladas",
        "bien",
        "poca",
        "poco",
    ];
    // (As written: a follow-up read standalone names the line it is about.)
    let text = prepared_as_written(input);
    let words = tokens(&text);
    if !mentions::find(&words, &input.product_catalog).is_empty() {
        return None;
    }
    let counts: Vec<(usize, i64)> = words
        .iter()
        .enumerate()
        .filter_map(|(k, w)| Some((k, count_or_one(w)?)))
        .collect();
    let manner = |k: usize| words.get(k + 1).is_some_and(|w| MANNER.contains(w));
    if counts.len() < 2 || !counts.iter().all(|&(k, _)| manner(k)) {
        return None;
    }
    let total: i64 = counts.iter().map(|(_, n)| n).sum();
    let fits = |id: ProductId| input.cart.quantity_of(id) == Some(total);
    let line = input.focus.filter(|id| fits(*id)).or_else(|| {
        let lines: Vec<ProductId> = input
            .cart
            .lines
            .iter()
            .map(|l| l.product_id)
            .filter(|id| fits(*id))
            .collect();
        (lines.len() == 1).then(|| lines[0])
    })?;
    Some((line, total))
}

/// The message as the customer wrote it (not a follow-up's standalone
/// rewrite), prepared for reading.
fn prepared_as_written(input: &ProposalInput) -> String {
    prepared(
        input
            .as_written
            .as_deref()
            .unwrap_or(&input.customer_message),
    )
}

/// «Dos de los capuchinos con leche de almendras» with four in the cart:
/// some of a line's own units, and how they should be — nothing ordered,
/// nothing taken out. The line and its count, to say it was kept.
pub(super) fn part_of_a_line_said_of(input: &ProposalInput) -> Option<(ProductId, i64)> {
    let text = prepared_as_written(input);
    let words = tokens(&text);
    if words.iter().any(|w| {
        lexicon::adds(w)
            || lexicon::removes(w)
            || swap_verb(w)
            || matches!(*w, "mas" | "otro" | "otra" | "otros" | "otras" | "no")
    }) || any(&text, lexicon::ADD)
    {
        return None;
    }
    let found = mentions::find(&words, &input.product_catalog);
    let [m] = found.as_slice() else {
        return None;
    };
    let id = m.product()?;
    let in_cart = input.cart.quantity_of(id)?;
    let said = m.start.checked_sub(3).map(|k| &words[k..m.start])?;
    match said {
        [n, "de", "los" | "las"]
            if count(n).is_some_and(|n| n <= in_cart) && m.end < words.len() =>
        {
            Some((id, in_cart))
        }
        _ => None,
    }
}

/// «los croissants sí son 3. Agrega un brownie» with three in the cart: the
/// count said of a line as it stands is no change; the rest is the request.
fn count_kept(
    input: &ProposalInput,
    words: &[&str],
    found: &[mentions::Mention],
) -> Option<String> {
    found.iter().find_map(|m| {
        let id = m.product()?;
        let start = m
            .start
            .checked_sub(1)
            .filter(|&p| matches!(words[p], "el" | "la" | "los" | "las"))
            .unwrap_or(m.start);
        let mut at = m.end;
        if words.get(at) == Some(&"si") {
            at += 1;
        }
        if !matches!(words.get(at), Some(&("son" | "quedan" | "van" | "eran"))) {
            return None;
        }
        let n = words.get(at + 1).and_then(|w| count(w))?;
        if input.cart.quantity_of(id) != Some(n) {
            return None;
        }
        let rest: Vec<&str> = words[..start]
            .iter()
            .chain(&words[at + 2..])
            .copied()
            .collect();
        // (Alone, it agrees with the line as it is: nothing to do, and never
        // read as a yes to the summary.)
        Some(rest.join(" "))
    })
}

/// «¿Cuántas unidades quieres de Capuchino y de Croissant?» … «3 y 3»: the
/// counts, in the order the products were asked about.
pub(super) fn counts_in_order(input: &ProposalInput, text: String) -> String {
    let Some(asked) = last_bot_turn(input)
        .and_then(|h| {
            let at = h.text.find(messages::HOW_MANY_OF_THESE)?;
            Some(&h.text[at + messages::HOW_MANY_OF_THESE.len()..])
        })
        .and_then(|rest| rest.split('?').next())
    else {
        return text;
    };
    let names: Vec<&str> = asked.split(" y de ").map(str::trim).collect();
    let words = tokens(&text);
    let counts: Vec<i64> = words
        .iter()
        .filter(|w| !matches!(**w, "y" | "e"))
        .map(|w| count(w))
        .collect::<Option<Vec<i64>>>()
        .unwrap_or_default();
    if names.len() < 2 || counts.len() != names.len() {
        return text;
    }
    let said: Vec<String> = names
        .iter()
        .zip(&counts)
        .map(|(name, n)| format!("{n} {}", normalize(name)))
        .collect();
    said.join(" y ")
}

/// «…ah y un brownie. no, quita el brownie, mejor un cheesecake»: a product
/// added and taken out again in the same message, not in the cart, is neither
/// — the message is read without both, and what comes after goes on the list.
pub(super) fn taken_out_in_the_same_breath(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    // (Found after the verb alone: the whole message's mentions hold a
    // product once where it is said twice.)
    // The product named within `within` words from `from`, with only its
    // article before it, that the cart does not hold (said in this message).
    let said_not_in_cart = |from: usize, within: usize| {
        let after = &words[from..words.len().min(from + within)];
        let m = mentions::find(after, &input.product_catalog)
            .into_iter()
            .next()?;
        let id = m.product()?;
        let article = after[..m.start]
            .iter()
            .all(|w| matches!(*w, "el" | "la" | "los" | "las"));
        (article && !input.cart.holds(id)).then_some((m, id))
    };
    let removal = (0..words.len()).find_map(|verb| {
        // A take-back: «no, quita…», «mejor saca…» — never «retiro el
        // cheesecake mañana» (I pick it up) or a first person.
        let marked = words[verb.saturating_sub(2)..verb]
            .iter()
            .any(|w| matches!(*w, "no" | "mejor" | "perdon"));
        if !lexicon::removes(words[verb])
            || !marked
            || words[verb].starts_with("retir")
            || matches!(words[verb], "quito" | "saco" | "borro" | "elimino")
        {
            return None;
        }
        let from = verb + 1;
        let (m, id) = said_not_in_cart(from, 3)?;
        let earlier = found
            .iter()
            .rev()
            .find(|e| e.product() == Some(id) && e.end <= verb)?;
        Some((earlier, verb, from + m.end))
    });
    // «…y un brownie, ah no, el brownie sácalo, poné dos croissants»: the
    // product named first, its verb of taking out after it.
    let removal = removal.or_else(|| {
        (0..words.len()).find_map(|no| {
            if words[no] != "no" {
                return None;
            }
            let from = no + 1;
            let (m, id) = said_not_in_cart(from, 4)?;
            if !words
                .get(from + m.end)
                .is_some_and(|verb| lexicon::removes(verb))
            {
                return None;
            }
            let earlier = found
                .iter()
                .rev()
                .find(|e| e.product() == Some(id) && e.end <= no)?;
            Some((earlier, no, from + m.end + 1))
        })
    });
    let Some((earlier, verb, removed_end)) = removal else {
        return text;
    };
    let mut start = earlier.start;
    if start > 0 && (matches!(words[start - 1], "un" | "una") || count(words[start - 1]).is_some())
    {
        start -= 1;
    }
    if start > 0 && matches!(words[start - 1], "y" | "e") {
        start -= 1;
    }
    let from = if verb > 0 && words[verb - 1] == "no" {
        verb - 1
    } else {
        verb
    };
    let mut end = removed_end;
    if words.get(end) == Some(&"mejor") {
        end += 1;
    }
    let mut out: Vec<&str> = words[..start].to_vec();
    out.extend(&words[earlier.end..from]);
    if end < words.len() {
        out.push("y");
        out.extend(&words[end..]);
    }
    out.join(" ")
}

/// «uno de los capuchinos que sea con leche de almendras»: how one unit of a
/// line is made, asked for — no count changes. The clause is left out of the
/// reading (up to the next item of a list).
pub(super) fn one_made_a_way(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = (0..words.len()).find(|&k| {
        (matches!(words[k], "uno" | "una") || count(words[k]).is_some())
            && words.get(k + 1) == Some(&"de")
            && matches!(words.get(k + 2), Some(&("los" | "las")))
    }) else {
        return text;
    };
    // («sácame uno de los capuchinos con leche»: a verb acts on that one.)
    if at > 0 && {
        let before = words[at - 1];
        lexicon::removes(before) || lexicon::adds(before) || swap_verb(before)
    } {
        return text;
    }
    let found = mentions::find(&words[at + 3..], &input.product_catalog);
    let Some(m) = found.first().filter(|m| m.start == 0) else {
        return text;
    };
    if !m.product().is_some_and(|id| input.cart.holds(id)) {
        return text;
    }
    let after = at + 3 + m.end;
    // («uno de los capuchinos sin canela»: said right after it too.)
    let made = matches!(words.get(after), Some(&("con" | "sin")))
        || words.get(after) == Some(&"que")
            && matches!(
                words.get(after + 1),
                Some(&("sea" | "sean" | "venga" | "vengan" | "lo" | "la" | "los" | "las"))
            )
            && words[after + 1..]
                .iter()
                .take(3)
                .any(|w| matches!(*w, "con" | "sin"));
    if !made {
        return text;
    }
    // The clause ends where the next item starts («…, y dos brownies»).
    let end = (after + 2..words.len())
        .find(|&k| {
            matches!(words[k], "y" | "e")
                && words.get(k + 1).is_some_and(|w| {
                    matches!(*w, "un" | "una") || count(w).is_some() || lexicon::adds(w)
                })
        })
        .unwrap_or(words.len());
    let mut out: Vec<&str> = words[..at].to_vec();
    out.extend(&words[end..]);
    out.join(" ")
}

/// «dos maracuyás perdón no dos maracuyás sino una sola», «no dos brownies
/// sino tres»: the count after «sino» is the product's, and the count taken
/// back (said before, or in the same words) is gone.
fn not_this_count_but(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    for m in found.iter().filter(|m| m.product().is_some()) {
        if words.get(m.end) != Some(&"sino") {
            continue;
        }
        let Some(n) = words.get(m.end + 1).and_then(|w| count_or_one(w)) else {
            continue;
        };
        // «no dos brownies sino tres croissants»: another product instead.
        let instead = found
            .iter()
            .any(|other| other.start >= m.end + 2 && other.start <= m.end + 3);
        let mut no = m.start;
        if no > 0 && count(words[no - 1]).is_some() {
            no -= 1;
        }
        if no == 0 || words[no - 1] != "no" {
            continue;
        }
        let mut from = no - 1;
        while from > 0 && matches!(words[from - 1], "perdon" | "digo" | "mejor" | "o" | "sea") {
            from -= 1;
        }
        let mut to = m.end + 2;
        while matches!(
            words.get(to),
            Some(&("solo" | "sola" | "nomas" | "solito" | "solita"))
        ) {
            to += 1;
        }
        let n = n.to_string();
        // The same product said before with its count: that count is set.
        // (Found once, where it was said last: the earlier one is looked for
        // by its words.)
        let name = &words[m.start..m.end];
        let earlier = (1..from.saturating_sub(name.len() - 1))
            .find(|&e| &words[e..e + name.len()] == name && count(words[e - 1]).is_some());
        let mut out: Vec<&str> = Vec::new();
        if instead {
            // What was refused goes, said before or not; what follows «sino»
            // is the request.
            let mut cut = earlier.map_or(from, |e| e - 1);
            if cut > 0 && matches!(words[cut - 1], "y" | "e") {
                cut -= 1;
            }
            out.extend(&words[..cut]);
            out.extend(&words[earlier.map_or(from, |e| e + name.len())..from]);
            out.extend(&words[m.end + 1..]);
            return out.join(" ");
        }
        match earlier {
            Some(e) => {
                out.extend(&words[..e - 1]);
                out.push(&n);
                out.extend(&words[e..from]);
            }
            None => {
                out.extend(&words[..from]);
                out.push(&n);
                out.extend(&words[m.start..m.end]);
            }
        }
        out.extend(&words[to..]);
        return out.join(" ");
    }
    text
}

/// «mándame dos americanos no mejor uno nomás y un brownie»: a count taken
/// back right after its product, the new count said alone — that many of it.
pub(super) fn count_taken_back(input: &ProposalInput, text: String) -> String {
    let text = not_this_count_but(input, text);
    let words = tokens(&text);
    // «los brownies que sean dos nomás, no perdón, uno»: a bare count taken
    // back for another, said after it.
    for k in 1..words.len().saturating_sub(2) {
        if words[k] != "no" || !matches!(words[k + 1], "perdon" | "digo" | "corrijo") {
            continue;
        }
        let Some(n) = count_or_one(words[k + 2]) else {
            continue;
        };
        if words
            .get(k + 3)
            .is_some_and(|w| names_a_product(w, &input.product_catalog) || *w == "de")
        {
            continue;
        }
        let mut j = k - 1;
        while j > 0 && matches!(words[j], "nomas" | "solo" | "nada" | "mas") {
            j -= 1;
        }
        // «dos maracuyás no perdón una sola»: the count before the product
        // just named.
        if count(words[j]).is_none()
            && let Some(m) = mentions::find(&words[..k], &input.product_catalog)
                .last()
                .filter(|m| m.end == k && m.start > 0 && m.product().is_some())
        {
            j = m.start - 1;
        }
        if count(words[j]).is_none() {
            continue;
        }
        let n = n.to_string();
        let mut rest = k + 3;
        while matches!(
            words.get(rest),
            Some(&("solo" | "sola" | "nomas" | "solito" | "solita"))
        ) {
            rest += 1;
        }
        let mut out: Vec<&str> = words[..j].to_vec();
        out.push(&n);
        out.extend(&words[j + 1..k]);
        out.extend(&words[rest..]);
        return out.join(" ");
    }
    let found = mentions::find(&words, &input.product_catalog);
    // «tres capuchinos no perdón cuatro capuchinos»: the product said again
    // with the better count (found once, where it was said last).
    for m in &found {
        let name = &words[m.start..m.end];
        let Some(n) = m.start.checked_sub(1).and_then(|k| count_or_one(words[k])) else {
            continue;
        };
        let mut k = m.start - 1;
        if k > 0 && matches!(words[k - 1], "mejor" | "perdon" | "digo") {
            k -= 1;
        }
        if k == 0 || words[k - 1] != "no" || k - 1 < name.len() + 1 {
            continue;
        }
        let first = k - 1 - name.len();
        if &words[first..k - 1] != name || count(words[first - 1]).is_none() {
            continue;
        }
        let mut out: Vec<&str> = words[..first - 1].to_vec();
        let n = n.to_string();
        out.push(&n);
        out.extend(&words[m.start..]);
        return out.join(" ");
    }
    for m in &found {
        if m.product().is_none() || m.start == 0 || count(words[m.start - 1]).is_none() {
            continue;
        }
        let mut k = m.end;
        if words.get(k) != Some(&"no") {
            continue;
        }
        k += 1;
        // («eran tres capuchinos no dos» keeps the three: only a count said
        // as the better one replaces it; said with the product again, the
        // loop above read it.)
        if !matches!(words.get(k), Some(&("mejor" | "perdon" | "digo"))) {
            continue;
        }
        k += 1;
        let Some(n) = words.get(k).and_then(|w| count_or_one(w)) else {
            continue;
        };
        k += 1;
        if matches!(words.get(k), Some(&("nomas" | "solo" | "solito" | "nada"))) {
            k += 1;
            if words.get(k - 1) == Some(&"nada") && words.get(k) == Some(&"mas") {
                k += 1;
            }
        }
        // Alone: the end of the message or the next item.
        if words
            .get(k)
            .is_some_and(|w| !matches!(*w, "y" | "e" | "pues" | "porfa" | "por"))
        {
            continue;
        }
        let mut out: Vec<String> = words[..m.start - 1]
            .iter()
            .map(|w| (*w).to_owned())
            .collect();
        out.push(n.to_string());
        out.extend(words[m.start..m.end].iter().map(|w| (*w).to_owned()));
        out.extend(words[k..].iter().map(|w| (*w).to_owned()));
        return out.join(" ");
    }
    text
}

/// «que la limonada sean dos, se me antojó otra jaja»: the reason told after
/// a count, not one more — when no product follows it («se me antojó otra
/// maracuyá» asks for one).
pub(super) fn craving_told(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words.windows(4).position(|w| {
        w[..3] == ["se", "me", "antojo"] && matches!(w[3], "otra" | "otro" | "otras" | "otros")
    }) else {
        return text;
    };
    if !mentions::find(&words[at + 4..], &input.product_catalog).is_empty()
        || mentions::find(&words[..at], &input.product_catalog).is_empty()
    {
        return text;
    }
    let mut out: Vec<&str> = words[..at].to_vec();
    out.extend(&words[at + 4..]);
    out.join(" ")
}

/// «oye y el brownie trae nuez verdad», «el matcha lleva leche de vaca»: the
/// product is who brings or carries — what it is made with is asked, nothing
/// is ordered («tráeme un brownie», «me trae el brownie» order it). The
/// product asked about, when nothing else in the message orders anything.
pub(super) fn asks_what_it_carries(input: &ProposalInput) -> Option<ProductId> {
    // (Most messages hold none of the verbs: nothing folded for them.)
    let lower = input.customer_message.to_lowercase();
    if lower.contains('?')
        || !["trae", "lleva", "tiene", "contiene"]
            .iter()
            .any(|v| lower.contains(v))
    {
        return None;
    }
    let text = prepared(&input.customer_message);
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    let m = found.iter().find(|m| {
        m.product().is_some()
            && m.start > 0
            && matches!(words[m.start - 1], "el" | "la" | "los" | "las")
            && matches!(
                words.get(m.end),
                Some(&("trae" | "traen" | "lleva" | "llevan" | "tiene" | "tienen" | "contiene"))
            )
            && !matches!(
                words.get(m.start.wrapping_sub(2)),
                Some(&("me" | "nos" | "le" | "les" | "que"))
            )
            && words
                .get(m.end + 1)
                .is_some_and(|w| count(w).is_none() && !matches!(*w, "y" | "e"))
    })?;
    // («…si tiene quita uno y pon un croissant», «quiero un capuchino y el
    // brownie trae nuez»: an order before or after it is read with it, as
    // said.)
    if words
        .iter()
        .any(|w| lexicon::adds(w) || lexicon::removes(w) || orders(w))
        || found.iter().any(|o| o.start != m.start)
    {
        return None;
    }
    m.product()
}

/// «una medialuna, bah, un croissant», «un capu, o sea un capuchino»: the same
/// product said again after a word that restates it is one item, said once.
pub(super) fn restated(input: &ProposalInput, text: String) -> String {
    const RESTATE: &[&[&str]] = &[
        &["bah"],
        &["o", "sea"],
        &["mejor", "dicho"],
        &["es", "decir"],
    ];
    let words = tokens(&text);
    if !words
        .iter()
        .any(|w| RESTATE.iter().any(|marker| marker[0] == *w))
    {
        return text;
    }
    let found = mentions::find(&words, &input.product_catalog);
    // (A product named twice is found once, at its last naming: the first
    // naming is looked for by its words.)
    for m in &found {
        let Some(id) = m.product() else { continue };
        for marker in RESTATE {
            let Some(at) = m.start.checked_sub(1 + marker.len()) else {
                continue;
            };
            // «… una medialuna, bah, un croissant»: article, marker, article.
            if !matches!(words[m.start - 1], "un" | "una" | "el" | "la")
                || &words[at..at + marker.len()] != *marker
                || at < 2
            {
                continue;
            }
            let before = mentions::find(&words[at - 1..at], &input.product_catalog);
            if before.first().and_then(Mention::product) != Some(id)
                || !matches!(words[at - 2], "un" | "una" | "el" | "la")
            {
                continue;
            }
            let mut out: Vec<&str> = words[..at - 2].to_vec();
            out.extend(&words[m.start - 1..]);
            return out.join(" ");
        }
    }
    text
}

/// «para mi esposa lo mismo pero con chai en vez de capuchino»: the order
/// again with a change in it — which lines and how many is asked, never read
/// as a swap of the line in the cart.
pub(super) fn same_but_changed(input: &ProposalInput) -> bool {
    let text = prepared(&input.customer_message);
    lexicon::any(&text, &["lo mismo", "igual"])
        && lexicon::any(
            &text,
            &["en vez de", "en vez del", "en lugar de", "en lugar del"],
        )
}

/// «(uno ahora y otro para el camino)»: a count said, then split in brackets
/// — the split is how, not more. Brackets holding «uno» and «otro» and no
/// product are left out.
pub(super) fn split_in_brackets(input: &ProposalInput) -> Option<String> {
    let message = &input.customer_message;
    let open = message.find('(')?;
    let close = open + message[open..].find(')')?;
    let inside = normalize(&message[open + 1..close]);
    let words = tokens(&inside);
    let split = words.iter().any(|w| matches!(*w, "uno" | "una"))
        && words.iter().any(|w| matches!(*w, "otro" | "otra"))
        && mentions::find(&words, &input.product_catalog).is_empty();
    if split {
        return Some(format!("{} {}", &message[..open], &message[close + 1..]));
    }
    // «para don Freddy y para mí capuchino (o sea dos)»: the count of the
    // product right before the brackets, said inside them.
    let counted = match words.as_slice() {
        ["o", "sea", n] | ["osea", n] | ["son", n] | ["serian", n] | ["en", "total", n] => {
            count(n).filter(|_| !matches!(*n, "un" | "una"))
        }
        _ => None,
    }?;
    let head = message[..open].trim_end();
    let at = head.rfind(char::is_whitespace).map_or(0, |k| k + 1);
    let named = &head[at..];
    names_a_product(&normalize(named), &input.product_catalog)
        .then(|| format!("{}{counted} {named} {}", &head[..at], &message[close + 1..]))
}

/// «…a los chamos les gusta más el chocolate», after a change: a liking told
/// («les gusta más», «me encanta el…»), never one more of the product it
/// names — when something else in the message is ordered or changed.
pub(super) fn liking_told(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let Some(at) = words.iter().position(|w| {
        matches!(
            *w,
            "gusta" | "gustan" | "encanta" | "encantan" | "prefieren" | "prefiere"
        )
    }) else {
        return text;
    };
    let found = mentions::find(&words, &input.product_catalog);
    let Some(liked) = found.iter().find(|m| m.start > at && m.start <= at + 3) else {
        return text;
    };
    if !found.iter().any(|m| m.end <= at) {
        return text;
    }
    let mut start = at;
    while start > 0
        && matches!(
            words[start - 1],
            "me" | "te" | "le" | "les" | "nos" | "a" | "los" | "las" | "mas"
        )
    {
        start -= 1;
    }
    // «a los chamos les gusta»: who likes it, said before.
    if start >= 2 && words[start - 1] != "y" && matches!(words[start - 2], "a") {
        start -= 2;
    }
    let mut out: Vec<&str> = words[..start].to_vec();
    out.extend(&words[liked.end..]);
    out.join(" ")
}

/// «Un croissant y dos capuchinos. Retiro el croissant mañana a las 10»: a
/// product said with «retiro» and a time after it is when it is picked up,
/// not a product taken out — the words are left out of the order.
pub(super) fn picked_up_later(input: &ProposalInput, text: String) -> String {
    const LATER: &[&str] = &[
        "manana", "hoy", "luego", "despues", "tarde", "ahorita", "rato", "a", "en", "al",
    ];
    let words = tokens(&text);
    let Some((from, to)) = (0..words.len()).find_map(|k| {
        if !matches!(words[k], "retiro" | "retiramos" | "recojo" | "recogemos") {
            return None;
        }
        let article = usize::from(matches!(
            words.get(k + 1),
            Some(&("el" | "la" | "los" | "las"))
        ));
        let after = &words[(k + 1 + article).min(words.len())..];
        let m = mentions::find(after, &input.product_catalog)
            .into_iter()
            .next()?;
        (m.start == 0 && m.product().is_some()).then_some(())?;
        let end = k + 1 + article + m.end;
        words
            .get(end)
            .is_some_and(|w| LATER.contains(w))
            .then_some((k, end))
    }) else {
        return text;
    };
    let mut out: Vec<&str> = words[..from].to_vec();
    out.extend(&words[to..]);
    out.join(" ")
}

/// «do the brownie or the matcha have nuts?» … «remove both», «quita
/// ambos»: the two products the customer's last message named, both in the
/// cart, said by name. «ponme el de antes» after «quita el cheesecake»: the
/// one product the last message named that the cart no longer holds.
pub(super) fn named_in_the_last_message(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let last_named = || -> Vec<ProductId> {
        let Some(last) = earlier_turns(input).find(|h| h.role == "customer") else {
            return Vec::new();
        };
        let said = prepared(&last.text);
        let mut ids: Vec<ProductId> = mentions::find(&tokens(&said), &input.product_catalog)
            .iter()
            .filter_map(|m| m.product())
            .collect();
        ids.dedup();
        ids
    };
    let name = |id: ProductId| name_of(input, id).map(normalize);
    // «both», «ambos», «las dos» (no product after) right after a verb.
    let both = (1..words.len()).find(|&k| {
        let pair = matches!(words[k], "both" | "ambos" | "ambas")
            || (matches!(words[k], "los" | "las")
                && words.get(k + 1) == Some(&"dos")
                && words
                    .get(k + 2)
                    .is_none_or(|w| !names_a_product(w, &input.product_catalog)));
        pair && (lexicon::REMOVE.contains(&words[k - 1]) || lexicon::adds(words[k - 1]))
    });
    if let Some(k) = both {
        let ids = last_named();
        let removes = lexicon::REMOVE.contains(&words[k - 1]);
        // («quita los dos» may be the two of one line: only «both» or two
        // lines of one each are plain.)
        let of_one_line = matches!(words[k], "los" | "las")
            && ids
                .iter()
                .any(|id| input.cart.quantity_of(*id).is_some_and(|n| n >= 2));
        if let [a, b] = ids.as_slice()
            && a != b
            && !of_one_line
            && (!removes || (input.cart.holds(*a) && input.cart.holds(*b)))
            && let (Some(a), Some(b)) = (name(*a), name(*b))
        {
            let span = if words[k] == "los" || words[k] == "las" {
                2
            } else {
                1
            };
            let mut out: Vec<String> = words[..k].iter().map(|w| (*w).to_owned()).collect();
            out.push(format!("el {a} y el {b}"));
            out.extend(words[k + span..].iter().map(|w| (*w).to_owned()));
            return out.join(" ");
        }
        return text;
    }
    // «ponme el de antes», «dame la de antes» (not «el de antes de…», nor «el
    // de antes estaba mejor»: ordered right there, never an opinion).
    let before = (1..words.len()).find(|&k| {
        matches!(words[k], "el" | "la")
            && words.get(k + 1) == Some(&"de")
            && words.get(k + 2) == Some(&"antes")
            && words
                .get(k + 3)
                .is_none_or(|w| !matches!(*w, "de" | "es" | "era" | "estaba" | "esta" | "fue"))
            && (lexicon::adds(words[k - 1]) || matches!(words[k - 1], "quiero" | "mejor"))
    });
    if let Some(k) = before
        && let [one] = last_named().as_slice()
        && !input.cart.holds(*one)
        && let Some(named) = name(*one)
    {
        let mut out: Vec<String> = words[..k].iter().map(|w| (*w).to_owned()).collect();
        out.push(format!("un {named}"));
        out.extend(words[k + 3..].iter().map(|w| (*w).to_owned()));
        return out.join(" ");
    }
    text
}

/// What a message says beside its request, dropped before it is read:
/// a wish in the conditional («si tuvieran salteñas les pediría 6, pero…»),
/// a reason that something is not sold («ya que no hay salteñas», «como no
/// hay»), an hour («a eso de las 5»), an opinion against a product not in the
/// cart («el capuchino está muy caro»), and a product refused by name
/// that the cart does not hold («brownie NO porfa», «nada de brownie»).
pub(super) fn asides_dropped(input: &ProposalInput, text: String) -> String {
    // «pediría», «pediríamos», «cambiaría»: a verb in the conditional (not
    // «cafetería», «María»).
    let conditional = |w: &str| {
        w.chars().count() > 5
            && ["ria", "rian", "riamos"].iter().any(|end| w.ends_with(end))
            && !["eria", "maria"].iter().any(|end| w.ends_with(end))
    };
    let words = tokens(&text);
    let catalog = &input.product_catalog;
    let mut keep = vec![true; words.len()];
    let product_at = |k: usize| words.get(k).is_some_and(|w| names_a_product(w, catalog));
    // «si tuvieran X (les) pediría…, pero…»: up to and with «pero».
    for k in 0..words.len() {
        if words[k] == "si"
            && words.get(k + 1).is_some_and(|w| {
                matches!(
                    *w,
                    "tuvieran"
                        | "tuviera"
                        | "tuviesen"
                        | "hubiera"
                        | "hubiese"
                        | "hubieran"
                        | "vendieran"
                        | "hicieran"
                )
            })
            && let Some(but) = (k + 2..words.len()).find(|&j| words[j] == "pero")
            && words[k + 2..but].iter().any(|w| conditional(w))
        {
            let mut end = but + 1;
            // («…, pero si no hay, dame 2 chais»: the other case, said.)
            if words.get(end) == Some(&"si") && words.get(end + 1) == Some(&"no") {
                end += 2;
                if words
                    .get(end)
                    .is_some_and(|w| matches!(*w, "hay" | "tienen" | "venden"))
                {
                    end += 1;
                }
            }
            while words
                .get(end)
                .is_some_and(|w| matches!(*w, "bueno" | "igual" | "ya" | "weno"))
            {
                end += 1;
            }
            keep[k..end].iter_mut().for_each(|c| *c = false);
        }
    }
    for k in 0..words.len() {
        // «ya que no hay salteñas», «como no tienen»: the words that are no
        // product, count nor «otro» after it go with it.
        let opens = (k >= 1 && matches!((words[k - 1], words[k]), ("ya", "que") | ("como", "no")))
            && words
                .get(k + 1)
                .is_some_and(|w| matches!(*w, "no" | "hay" | "tienen" | "venden"));
        if opens {
            let start = k - 1;
            let mut end = k + 1;
            while words.get(end).is_some_and(|w| {
                !product_at(end)
                    && count(w).is_none()
                    && !matches!(*w, "otro" | "otra" | "y" | "pero" | "mejor" | "entonces")
                    && !lexicon::adds(w)
            }) {
                end += 1;
            }
            // («como no hay brownie, entonces un croissant»: what is not there
            // goes with it.)
            if let Some(m) = mentions::find(&words[end..], catalog)
                .first()
                .filter(|m| m.start == 0)
            {
                end += m.end;
            }
            keep[start..end].iter_mut().for_each(|c| *c = false);
        }
        // «en vez del cortado un capu», «ah, no hay cortado»: in place of, or
        // the absence of, a food the shop does not sell — nothing to take
        // out, nothing asked.
        let unsold_at = |j: usize| {
            words
                .get(j)
                .is_some_and(|w| lexicon::is_food(w) && !product_at(j))
        };
        if matches!(words[k], "vez" | "lugar") && k >= 1 && words[k - 1] == "en" {
            let mut end = k + 1;
            if words.get(end) == Some(&"de") {
                end += 1;
            }
            if words
                .get(end)
                .is_some_and(|w| matches!(*w, "del" | "la" | "el" | "los" | "las"))
            {
                end += 1;
            }
            if end > k + 1 && unsold_at(end) {
                keep[k - 1..=end].iter_mut().for_each(|c| *c = false);
            }
        }
        let opens_a_sentence = k == 0
            || matches!(
                words[k - 1],
                "ah" | "ay" | "uy" | "oh" | "ok" | "bueno" | "ya" | "pucha" | "chuta" | "uf"
            );
        if words[k] == "no"
            && opens_a_sentence
            && words
                .get(k + 1)
                .is_some_and(|w| matches!(*w, "hay" | "tienen" | "venden"))
            && unsold_at(k + 2)
        {
            keep[k..k + 3].iter_mut().for_each(|c| *c = false);
        }
        // «a eso de las 5»: an hour («a las 7» is already one, see
        // `times_told`).
        let hour = |j: usize| {
            words
                .get(j)
                .and_then(|w| token_number(w))
                .is_some_and(|n| (1..=24).contains(&n))
        };
        if words[k] == "a"
            && words.get(k + 1) == Some(&"eso")
            && words.get(k + 2) == Some(&"de")
            && words.get(k + 3) == Some(&"las")
            && hour(k + 4)
        {
            keep[k..k + 5].iter_mut().for_each(|c| *c = false);
        }
    }
    // «cámbialos por cheesecake, mismo número»: a swap carries the count
    // anyway.
    if words.contains(&"por") {
        for k in 1..words.len() {
            if matches!(
                (words[k - 1], words[k]),
                ("mismo", "numero") | ("misma", "cantidad") | ("igual", "cantidad")
            ) {
                let from = if k >= 2 && matches!(words[k - 2], "el" | "la") {
                    k - 2
                } else {
                    k - 1
                };
                keep[from..=k].iter_mut().for_each(|c| *c = false);
            }
        }
    }
    // (An opinion or a refusal is dropped only beside something else asked:
    // alone, it is read as it was.)
    let before_refused = keep.clone();
    // «el capuchino está muy caro (para mí)», «el cheesecake es lo más rico»:
    // an opinion of a product the cart does not hold, to the clause's end.
    // (Only a reason not to take it: «está muy rico, ponme 2» orders it.)
    const OPINION: &[&str] = &[
        "caro", "cara", "caros", "caras", "carisimo", "carisima", "horrible", "feo", "fea",
    ];
    for k in 1..words.len() {
        if !matches!(words[k - 1], "el" | "la" | "los" | "las") || !product_at(k) {
            continue;
        }
        let Some(id) = mentions::find(&words[k..k + 1], catalog)
            .first()
            .and_then(|m| m.product())
        else {
            continue;
        };
        if input.cart.holds(id) {
            continue;
        }
        // («el cheesecake de ustedes es…»)
        let copula = if words.get(k + 1) == Some(&"de")
            && words
                .get(k + 2)
                .is_some_and(|w| matches!(*w, "ustedes" | "aqui" | "aca" | "ahi"))
        {
            k + 3
        } else {
            k + 1
        };
        if !words
            .get(copula)
            .is_some_and(|w| matches!(*w, "es" | "esta" | "son" | "estan"))
        {
            continue;
        }
        let mut j = copula + 1;
        while words.get(j).is_some_and(|w| {
            matches!(
                *w,
                "muy" | "bien" | "super" | "re" | "lo" | "mas" | "demasiado"
            )
        }) {
            j += 1;
        }
        if !words.get(j).is_some_and(|w| OPINION.contains(w)) {
            continue;
        }
        // (To the clause's end: «y», «pero», a product, a count or a verb
        // of the shop start the next one.)
        let end = (j..words.len())
            .find(|&e| {
                matches!(words[e], "y" | "pero" | "entonces")
                    || product_at(e)
                    || count(words[e]).is_some()
                    || lexicon::adds(words[e])
            })
            .unwrap_or(words.len());
        keep[k - 1..end].iter_mut().for_each(|c| *c = false);
    }
    // «brownie NO porfa», «nada de brownie»: refused by name, not in the cart
    // (beside something else asked: alone, it is asked as it was).
    for m in mentions::find(&words, catalog) {
        let Some(id) = m.product() else { continue };
        if input.cart.holds(id) {
            continue;
        }
        // («un brownie, no, quita el brownie», «no espera»: a correction
        // follows, read as said.)
        let no_after = words.get(m.end) == Some(&"no")
            && words.get(m.end + 1).is_none_or(|w| {
                matches!(
                    *w,
                    "porfa" | "por" | "gracias" | "pls" | "plis" | "xfa" | "que" | "eh" | "ah"
                )
            })
            && m.start
                .checked_sub(1)
                .is_none_or(|b| count(words[b]).is_none());
        let nothing_of = m.start >= 2 && words[m.start - 2] == "nada" && words[m.start - 1] == "de";
        if no_after {
            let from = match m.start.checked_sub(1) {
                Some(b) if matches!(words[b], "el" | "la" | "los" | "las" | "un" | "una") => b,
                _ => m.start,
            };
            keep[from..=m.end].iter_mut().for_each(|c| *c = false);
        } else if nothing_of {
            keep[m.start - 2..m.end].iter_mut().for_each(|c| *c = false);
        }
    }
    let asks =
        |w: &str| names_a_product(w, catalog) || matches!(w, "cuanto" | "total" | "todo" | "listo");
    let dropped: Vec<&str> = words
        .iter()
        .zip(&keep)
        .filter(|(_, k)| !**k)
        .map(|(w, _)| *w)
        .collect();
    // (The message may be read a part at a time: «ok, nada de brownie
    // entonces, ¿cuánto sería todo?» asks more in its other part.)
    let whole = prepared_as_written(input);
    let asks_more = words.iter().zip(&keep).any(|(w, k)| *k && asks(w))
        || tokens(&whole)
            .iter()
            .any(|w| asks(w) && !dropped.contains(w));
    if !asks_more {
        keep = before_refused;
    }
    if keep.iter().all(|c| *c) {
        return text;
    }
    words
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(w, _)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// «dame 2 de esos y 1 brownie» just after a product was shown: the count is
/// of that product, named in its place so the rest of the message is read
/// beside it. Without a product shown, the words stay as they are (and the
/// count is asked about); with the product said after it, the pointer goes.
pub(super) fn those_of_the_focus(input: &ProposalInput, text: String) -> String {
    // «dame 2 de esos brownies»: the product is said; the pointer goes.
    {
        let words = tokens(&text);
        let pointed = (2..words.len().saturating_sub(1)).find(|&k| {
            matches!(words[k], "esos" | "esas" | "estos" | "estas")
                && count_of(&words, k).is_some()
                && names_a_product(words[k + 1], &input.product_catalog)
        });
        if let Some(k) = pointed {
            let mut out: Vec<&str> = words[..k - 1].to_vec();
            out.extend(&words[k + 1..]);
            return out.join(" ");
        }
    }
    let Some(focus) = input.focus else {
        return text;
    };
    let Some(name) = name_of(input, focus).map(normalize) else {
        return text;
    };
    let words = tokens(&text);
    let at = (2..words.len()).find(|&k| {
        matches!(words[k], "esos" | "esas" | "ese" | "esa")
            && count_of(&words, k).is_some()
            && words
                .get(k + 1)
                .is_none_or(|w| !names_a_product(w, &input.product_catalog))
    });
    // Only beside another product: alone, «dame 2 de esos» is the focus's
    // own reading already.
    let Some(k) = at else {
        return text;
    };
    if mentions::find(&words, &input.product_catalog).is_empty() {
        return text;
    }
    let mut out: Vec<&str> = words[..k - 1].to_vec();
    out.push(&name);
    out.extend(&words[k + 1..]);
    out.join(" ")
}

/// «2 de esos»: the count said «de» the word at `k` (a pointer), if any.
pub(super) fn count_of<S: AsRef<str>>(words: &[S], k: usize) -> Option<i64> {
    let at = k.checked_sub(2)?;
    (words[k - 1].as_ref() == "de")
        .then(|| count(words[at].as_ref()))
        .flatten()
}

/// «era un capuchino y un brownie, pero esta vez que sean dos capuchinos»: a
/// product counted, then set to another count later in the same message with
/// «que sean» — the later count is the one meant, said once.
pub(super) fn set_again_later(input: &ProposalInput, text: String) -> String {
    let words = tokens(&text);
    let found = mentions::find(&words, &input.product_catalog);
    for later in &found {
        let Some(id) = later.product() else {
            continue;
        };
        if later.start < 3 || !matches!(words[later.start - 2], "sean" | "serian") {
            continue;
        }
        let Some(n) = count(words[later.start - 1]) else {
            continue;
        };
        // The same product counted earlier in the message, a clause before
        // («…, pero esta vez que sean…»).
        let before = &words[..later.start - 2];
        if !before
            .iter()
            .any(|w| matches!(*w, "pero" | "aunque" | "ahora"))
        {
            continue;
        }
        let Some(first) = mentions::find(before, &input.product_catalog)
            .into_iter()
            .find(|m| m.product() == Some(id))
        else {
            continue;
        };
        if first.start == 0
            || (count_or_one(words[first.start - 1]).is_none() && words[first.start - 1] != "un")
        {
            continue;
        }
        // The later count takes the first one's place (the order said is
        // kept), and the clause that set it goes.
        let n = n.to_string();
        let mut set_from = later.start - 2;
        if set_from > 0 && words[set_from - 1] == "que" {
            set_from -= 1;
        }
        let mut out: Vec<&str> = words[..first.start - 1].to_vec();
        out.push(&n);
        out.extend(&words[first.start..set_from]);
        out.extend(&words[later.end..]);
        return out.join(" ");
    }
    text
}
