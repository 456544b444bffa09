//! An LLM's proposal may change the cart or the order only on the customer's own
//! words. The matrix already refuses what a state does not allow; this refuses
//! what the message does not say: a product it never names, a quantity it never
//! gives, emptying the cart or cancelling, confirming or calling a person without
//! a word of it. A small model that proposes five unrelated actions (seen with a
//! 270M model: "cambia la maracuyá a 4" → CLEAR_CART among them) then gets a
//! question back instead of a changed cart, because a wrong effect is worse than
//! a question. Actions without an effect (catalog, product, summary, reply,
//! clarify) pass: at worst they answer the wrong question.
//!
//! What counts as said is evidence in the words, read with the rules' own
//! lexicon and product matcher: the product named or unambiguously referred to
//! (the last line, the choices offered), the quantity said anywhere in the
//! message, a word of the verb's class for a removal, and no bare question for
//! an addition. Agreeing with the rules' reading is not required: the rules are
//! not the model's ceiling. Where the rules read the whole message with
//! confidence and the model's grounded change differs, neither wins silently:
//! [`disagreement`] asks one short question naming both.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{lexicon, mentions, prepared};
use crate::shop::contract::{Proposal, ProposalInput};
use crate::shop::core::{ActionKind, ActionType, ProductId};
use crate::text::{token_number, tokens};

/// Why an action was not the customer's to propose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum Ungrounded {
    #[error("the customer did not name product {product_id}")]
    ProductNotNamed { product_id: ProductId },
    #[error("the customer did not say the quantity {quantity}")]
    QuantityNotSaid { quantity: i64 },
    #[error("nothing the customer said asks for {action:?}")]
    NotAsked { action: ActionKind },
    #[error("the rules read every word otherwise; the customer was asked")]
    Disagrees,
    #[error("another change to the cart in the same proposal stood on nothing")]
    PartOfARefusedChange,
}

/// What the message gives an action to stand on.
struct Grounds {
    /// Products named (every candidate of an ambiguous word) or read by the rules.
    products: BTreeSet<ProductId>,
    /// The message names no product at all: "quítalo", "ponle 3" mean the last line.
    names_none: bool,
    last_line: Option<ProductId>,
    /// Numbers said, and quantities the rules read.
    quantities: BTreeSet<i64>,
    /// Action types the rules' reading proposed.
    read_as: BTreeSet<String>,
    /// The rules' cart changes, by product: (action type, quantity).
    changes: Vec<(ProductId, String, Option<i64>)>,
    /// A question ("¿a cuánto el chai?"): it changes the cart only where the
    /// rules read a change in it too.
    question: bool,
    /// The message as the rules read it.
    text: String,
    /// The request it belongs to: the message, after the one it answers when
    /// the bot had just asked back.
    request: String,
    /// The bot just asked which line to take one out of, or the customer's
    /// message before this one took something away («quita uno» → «uno de los
    /// croissants»).
    asked_which_to_take_out: bool,
    /// The product the customer asked about last («¿cuánto cuestan 3
    /// brownies?» → «dame los 3»), when this message says a count.
    focus: Option<ProductId>,
    /// The product the conversation was just about without ordering it («a
    /// cómo el cheesecake» … «dame 2 y tres americanos»), when this message
    /// says a count or points back.
    asked_about: Option<ProductId>,
    /// Products named after a swap's «por»: what the swap brings in, added
    /// even to a line already in the cart.
    brought_in: BTreeSet<ProductId>,
    /// A verb of changing or taking out with its object as a pronoun
    /// («cámbialo por un chocolate», «quítalo»): the line talked about last.
    points_back: bool,
    /// «para mi hermana lo mismo»: the lines ordered again, an addition.
    again: bool,
    /// Products named with a singular article («devolveme el americano»):
    /// one of each is said.
    singular: BTreeSet<ProductId>,
}

fn grounds(input: &ProposalInput) -> Grounds {
    // As the rules read it: a line named by its place or a relayed request
    // names its product.
    let said = super::said(input);
    let question = input.customer_message.contains('?')
        || input.customer_message.trim_start().starts_with('¿')
        || lexicon::any(&said, lexicon::QUESTION);
    let words = tokens(&said);
    let reading = super::read(input).proposal;
    let mut products: BTreeSet<ProductId> = mentions::find(&words, &input.product_catalog)
        .into_iter()
        .flat_map(|m| m.candidates)
        .collect();
    let names_none = products.is_empty();
    let mut quantities: BTreeSet<i64> = words.iter().filter_map(|w| token_number(w)).collect();
    // An answer to the bot's question back («cambia uno de los cafés por un
    // matcha» … «¿cuál?» … «el americano»; «dos cafés y un pastel» … «los
    // negros nomás»): the request is the message before and this one, read
    // together — its products, its counts and its verbs.
    let before = input
        .asked_back
        .then(|| super::previous_message(input))
        .flatten();
    let request = match &before {
        Some(before) => {
            let earlier = tokens(before);
            // (What that message already added is done: «2 cafés y 2
            // croissants» … «ah, y un brownie» adds no croissants again.)
            products.extend(
                mentions::find(&earlier, &input.product_catalog)
                    .into_iter()
                    .flat_map(|m| m.candidates)
                    .filter(|id| !input.last_changed.contains(id)),
            );
            quantities.extend(earlier.iter().filter_map(|w| token_number(w)));
            format!("{before} {said}")
        }
        None => said.clone(),
    };
    if quantities.is_empty() {
        // No number at all: one is what "quiero brownie" means.
        quantities.insert(1);
    }
    // «uno para mí y otro para mi nieto», «Andrea - matcha … Vivi - matcha»:
    // the counts of one message add up.
    // (On the message as written too: the rules' reading folds «otro» into
    // the product it repeats.)
    let written = prepared(&input.customer_message);
    let mut added = added_up(&words, &input.product_catalog);
    added.extend(added_up(&tokens(&written), &input.product_catalog));
    // «… en vez del matcha»: a product named as written, wherever the
    // reading moved it.
    products.extend(
        mentions::find(&tokens(&written), &input.product_catalog)
            .into_iter()
            .flat_map(|m| m.candidates),
    );
    quantities.extend(added.iter().copied());
    // «devolveme el americano» beside «los dos cafés»: a product named with
    // a singular article is one.
    // (Each such name on its own: a product named twice is found once. One
    // of that product, added: never a number for another line's change.)
    let singular: BTreeSet<ProductId> = (0..words.len())
        .filter(|&i| matches!(words[i], "el" | "la" | "al" | "del"))
        .flat_map(|i| {
            mentions::find(
                &words[i + 1..(i + 3).min(words.len())],
                &input.product_catalog,
            )
            .into_iter()
            .filter_map(|m| m.product())
        })
        .collect();
    // «un croasán para cada uno», «un croissant por persona»: a count for
    // each of as many people as the message counted, the cart holds or the
    // customer's last messages said.
    if lexicon::any(&request, SPREAD) {
        let mut people: BTreeSet<i64> = added.into_iter().collect();
        people.insert(input.cart.lines.iter().map(|l| l.quantity).sum());
        for before in super::earlier_turns(input)
            .filter(|h| h.role == "customer")
            .take(3)
        {
            people.extend(
                tokens(&prepared(&before.text))
                    .iter()
                    .filter_map(|w| token_number(w)),
            );
        }
        // «el Gonza y el Rodri un americano cada uno»: as many as the people
        // the message names (any of them may be the ones the count is for).
        people.extend(2..=people_named(&input.customer_message, &input.product_catalog));
        let each: Vec<i64> = quantities.iter().copied().collect();
        for n in people.into_iter().filter(|n| *n > 1) {
            quantities.extend(each.iter().map(|k| k * n));
        }
    }
    if lexicon::any(&request, &["media docena"]) {
        quantities.insert(6);
    }
    if lexicon::any(&request, &["un par"]) {
        quantities.insert(2);
    }
    // «y lo mismo de chocolate»: as many as a line already has; «para mi
    // esposa lo mismo», naming nothing: every line again.
    // «me da lo mismo» is indifference, not the order again.
    let same_again = lexicon::any(&request, &["lo mismo", "igual"])
        && !lexicon::any(&request, lexicon::INDIFFERENT);
    // «lo mismo que yo», «y el chai no, mejor lo mismo que ella»: the lines
    // already ordered, even beside a product named.
    // («igual agrégame un brownie»: «igual» beside a product is «anyway».)
    // («ponme otro igual», «déjalo igual»: the last line at most, never every
    // line again.)
    let again_all = same_again && lexicon::any(&request, &["lo mismo"]);
    // «para mí un matcha y un cheesecake, lo mismo para la Caro»: the counts
    // said before it, once more for each one it names.
    // («igual para llevar» names nobody: nothing more.)
    let names = super::names_written(&input.customer_message, &input.product_catalog).len() as i64;
    if names > 0 && lexicon::any(&request, &["lo mismo para", "lo mismo pa"]) {
        let each: Vec<i64> = quantities.iter().copied().collect();
        for n in 2..=names + 1 {
            quantities.extend(each.iter().map(|k| k * n));
        }
    }
    if again_all {
        quantities.extend(input.cart.lines.iter().map(|l| l.quantity));
        products.extend(input.cart.lines.iter().map(|l| l.product_id));
    }
    // «uno más de cada uno», naming nothing: every line.
    if names_none
        && lexicon::any(&request, &["cada uno", "cada una", "de cada"])
        && words
            .iter()
            .any(|w| *w == "mas" || token_number(w).is_some())
    {
        products.extend(input.cart.lines.iter().map(|l| l.product_id));
    }
    // «saca lo último que pedí»: the lines the last change set, or the last line.
    if lexicon::any(&request, &["lo ultimo", "el ultimo", "la ultima"]) {
        products.extend(input.last_changed.iter().copied());
        products.extend(input.cart.lines.last().map(|l| l.product_id));
    }
    // «no, mejor un chai» right after a change: the lines that change set are
    // the ones taken back.
    // («entonces no, vuelvo al capuchino», «ay no, mejor…»: after a word of
    // its own.)
    let after_interjection = words
        .iter()
        .position(|w| !matches!(*w, "entonces" | "ah" | "ay" | "uy" | "bueno" | "mmm" | "ok"))
        .map_or(&[][..], |k| &words[k..]);
    if matches!(
        after_interjection,
        ["no", "mejor" | "era" | "perdon" | "espera" | "vuelvo", ..]
    ) {
        products.extend(input.last_changed.iter().copied());
    }
    // «uno de cada postre», «todas las bebidas frías»: every product of the
    // kind; a kind only one product has names it.
    products.extend(of_kinds(&words, &input.product_catalog));
    // «el de frutos rojos», «el té especiado», «la masita de mantequilla»: a
    // product named by what its description says of it.
    products.extend(described(&words, &input.product_catalog));
    // «un postre que no tenga nueces», «el frío» (of the two just asked
    // about): the one product a description fits.
    products.extend(described_uniquely(&words, input));
    products.extend(cut_short(&words, &input.product_catalog));
    products.extend(short_name_word(&words, &input.product_catalog));
    // «los dos de antes mejor que sean capuchinos»: the lines ordered before
    // that hold the count said.
    // (As written: the reading may have put names in their place.)
    if lexicon::any(
        &written,
        &["de antes", "anterior", "anteriores", "de hace rato"],
    ) {
        // (Only the count said right before it: «los dos de antes».)
        let said = tokens(&written);
        let counts: Vec<i64> = said
            .windows(3)
            .filter(|w| (w[1] == "de" && w[2] == "antes") || w[2].starts_with("anterior"))
            .flat_map(|w| [w[0], w[1]])
            .filter(|w| !matches!(*w, "un" | "una" | "uno"))
            .filter_map(token_number)
            .collect();
        products.extend(
            input
                .cart
                .lines
                .iter()
                .filter(|l| counts.contains(&l.quantity))
                .map(|l| l.product_id),
        );
    }
    // «la mitad de los brownies», «duplica todo»: half or twice a line.
    let halves = words.contains(&"mitad");
    let doubles = words
        .iter()
        .any(|w| w.starts_with("duplic") || *w == "doble" || *w == "dobles");
    for line in &input.cart.lines {
        if halves {
            quantities.insert((line.quantity / 2).max(1));
        }
        if doubles {
            quantities.insert(line.quantity * 2);
            if names_none {
                products.insert(line.product_id);
            }
        }
    }
    if lexicon::clears(&request) {
        quantities.insert(0);
    }
    let mut changes = Vec::new();
    for action in &reading.proposed_actions {
        if let (Some(id), "ADD_TO_CART" | "UPDATE_QUANTITY" | "REMOVE_ITEM") =
            (action.product_id(), action.action_type.as_str())
        {
            let quantity = action.quantity_given();
            changes.push((id, action.action_type.clone(), quantity));
        }
        if let Some(id) = action.product_id() {
            products.insert(id);
        }
        if let Some(q) = action.quantity_given() {
            quantities.insert(q);
        }
    }
    // «tres», answering «¿cuántos?» after «y unos croissants»: a bare count is
    // about what the customer's message before it named.
    let bare_count = !words.is_empty()
        && words.iter().any(|w| token_number(w).is_some())
        && words
            .iter()
            .all(|w| token_number(w).is_some() || lexicon::FILLER.contains(w));
    if bare_count
        && let Some(before) = input
            .recent_history
            .iter()
            .rev()
            .filter(|h| h.role == "customer")
            .find(|h| h.text != input.customer_message)
    {
        let before = prepared(&before.text);
        products.extend(
            mentions::find(&tokens(&before), &input.product_catalog)
                .into_iter()
                .flat_map(|m| m.candidates),
        );
    }
    // «dame 2 de esos» … «los brownies»: a product named now, with no number,
    // after a message that said a count and named nothing: that count.
    if !names_none
        && words
            .iter()
            .all(|w| token_number(w).is_none_or(|_| matches!(*w, "un" | "una")))
        && let Some(before) = super::previous_message(input)
    {
        let said = tokens(&before);
        if mentions::find(&said, &input.product_catalog).is_empty() {
            quantities.extend(said.iter().filter_map(|w| super::count(w)));
        }
    }
    // «cambia el latte por un chai» … asked which … «el capuchino»: the line
    // named now completes the swap asked before, whose new product stands.
    if let Some(before) = super::previous_message(input) {
        let said = tokens(&before);
        let names_a_line = mentions::find(&words, &input.product_catalog)
            .iter()
            .filter_map(|m| m.product())
            .any(|id| input.cart.holds(id));
        if names_a_line && let Some(by) = super::swap_joiner(&said) {
            products.extend(
                mentions::find(&said[by + 1..], &input.product_catalog)
                    .into_iter()
                    .flat_map(|m| m.candidates),
            );
        }
    }
    let counts = words.iter().any(|w| {
        token_number(w).is_some()
            || matches!(
                *w,
                "otro" | "otra" | "ese" | "esa" | "esos" | "esas" | "este" | "esta" | "eso"
            )
    });
    let mut brought_in: BTreeSet<ProductId> = super::swap_joiner(&words)
        .map(|by| {
            mentions::find(&words[by + 1..], &input.product_catalog)
                .into_iter()
                .filter_map(|m| m.product())
                .collect()
        })
        .unwrap_or_default();
    // «uno de los capuchinos que sea chai», «el americano no, mejor un
    // matcha», «en su lugar un brownie»: the product that comes in instead.
    for m in mentions::find(&words, &input.product_catalog) {
        let lead: Vec<&str> = words[..m.start]
            .iter()
            .rev()
            .skip_while(|w| {
                // «que sean 2 matchas» sets a count; only an article may
                // stand between.
                matches!(**w, "un" | "una" | "el" | "la" | "otro" | "otra")
            })
            .take(1)
            .copied()
            .collect();
        if matches!(lead.as_slice(), ["sea" | "sean" | "mejor" | "lugar"])
            && let Some(id) = m.product()
        {
            brought_in.insert(id);
        }
    }
    let points_back = words
        .iter()
        .any(|w| lexicon::with_pronoun(w, |verb| super::swap_verb(verb) || lexicon::removes(verb)));
    // «poneme uno de ese», «sí, cámbielo nomás», «lo mismo»: a word pointing
    // back stands on what the last turns named (the customer's last two
    // messages, the bot's last reply) — the model resolves which.
    // (Only «ese», «esa», «el otro»…: «eso es todo», «está» name nothing.)
    // «y el otro también»: the cart's other line.
    // (Never «el otro día», «la otra vez», «el otro para llevar».)
    let the_other = words.windows(2).enumerate().any(|(i, w)| {
        matches!(
            w,
            ["el", "otro"]
                | ["la", "otra"]
                | ["los", "otros"]
                | ["las", "otras"]
                // «y uno del otro también»: one of the other one talked about.
                | ["del", "otro"]
                | ["al", "otro"]
        ) && words.get(i + 2).is_none_or(|n| {
            !matches!(*n, "dia" | "vez" | "para" | "de" | "que" | "mes" | "ano")
                && !super::names_a_product(n, &input.product_catalog)
        })
    });
    if the_other {
        products.extend(input.cart.lines.iter().map(|l| l.product_id));
    }
    // («deme dos del primero que le pregunté»: an order among earlier ones.)
    let demonstrative = the_other
        || words
            .iter()
            .any(|w| matches!(*w, "ese" | "esa" | "esos" | "esas"))
        || (names_none
            && words.iter().any(|w| {
                matches!(
                    *w,
                    "primero" | "primera" | "segundo" | "segunda" | "anterior"
                )
            }));
    if points_back || demonstrative || same_again {
        products.extend(recently_named(input));
    }
    Grounds {
        singular,
        again: again_all,
        brought_in,
        points_back,
        focus: input.focus.filter(|_| counts || points_back),
        asked_about: asked_about(input).filter(|_| counts || points_back),
        products,
        names_none,
        last_line: input.cart.lines.last().map(|l| l.product_id),
        quantities,
        read_as: reading
            .proposed_actions
            .iter()
            .map(|a| a.action_type.clone())
            .collect(),
        changes,
        question,
        text: said.clone(),
        request,
        asked_which_to_take_out: super::asked_which_to_take_out(input)
            || super::said_just_before(input, |text| {
                lexicon::any(text, lexicon::REMOVE) || text.split(' ').any(lexicon::removes)
            }),
    }
}

impl Grounds {
    fn names(&self, id: ProductId) -> bool {
        self.products.contains(&id)
            || ((self.names_none || self.points_back) && self.last_line == Some(id))
            || self.focus == Some(id)
            || self.asked_about == Some(id)
    }

    fn read_as(&self, kinds: &[&str]) -> bool {
        kinds.iter().any(|k| self.read_as.contains(*k))
    }

    fn says(&self, phrases: &[&str]) -> bool {
        lexicon::any(&self.text, phrases)
    }

    fn request_says(&self, phrases: &[&str]) -> bool {
        lexicon::any(&self.request, phrases)
    }
}

/// Nothing of the order wanted any more, said in so many words.
const NOTHING_WANTED: &[&str] = &[
    "no pido nada",
    "no voy a pedir nada",
    "no quiero nada",
    "no llevo nada",
    "no voy a llevar nada",
    "no compro nada",
];

/// The one product the customer's message before this one named, or else the
/// bot's last reply named, that is not in the cart: talked about, not ordered.
fn asked_about(input: &ProposalInput) -> Option<ProductId> {
    let not_in_cart = |text: &str| -> Vec<ProductId> {
        let mut named: Vec<ProductId> = mentions::find(&tokens(text), &input.product_catalog)
            .into_iter()
            .filter_map(|m| m.product())
            .collect();
        named.dedup();
        named
            .into_iter()
            .filter(|id| !input.cart.holds(*id))
            .collect()
    };
    let customer = super::previous_message(input).map(|t| not_in_cart(&t));
    match customer.as_deref() {
        Some([only]) => return Some(*only),
        Some([_, _, ..]) => return None,
        _ => {}
    }
    let bot = super::last_bot_turn(input)?;
    match not_in_cart(&prepared(&bot.text)).as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// The products the last two turns named: the customer's two messages before
/// this one and the bot's replies between.
fn recently_named(input: &ProposalInput) -> Vec<ProductId> {
    super::earlier_turns(input)
        .take(4)
        .flat_map(|h| {
            mentions::find(&tokens(&prepared(&h.text)), &input.product_catalog)
                .into_iter()
                .flat_map(|m| m.candidates)
        })
        .collect()
}

/// How many people a message names: names written with a capital after the
/// first word that are no product («la Vane», «el Gonza y el Rodri»), and
/// «yo» / «para mí».
fn people_named(message: &str, catalog: &[crate::shop::contract::CatalogEntry]) -> i64 {
    let names = super::names_written(message, catalog).len();
    let text = prepared(message);
    let me = lexicon::any(&text, &["yo", "para mi", "pa mi"]);
    names as i64 + i64::from(me)
}

/// Words that spread a count over people: «un croissant para cada uno».
const SPREAD: &[&str] = &[
    "cada uno",
    "cada una",
    "cada quien",
    "por persona",
    "por cabeza",
];

/// Counts that add up: a product said more than once («un chocolatito … y
/// otro chocolate», a list naming the matcha twice) and counts said without a
/// product («uno para mí y otro para mi nieto»), when there are several.
fn added_up(words: &[&str], catalog: &[crate::shop::contract::CatalogEntry]) -> Vec<i64> {
    let count_at = |i: usize| {
        token_number(words[i]).or_else(|| matches!(words[i], "otro" | "otra").then_some(1))
    };
    let mut taken = vec![false; words.len()];
    let mut by_product: std::collections::BTreeMap<ProductId, (usize, i64)> =
        std::collections::BTreeMap::new();
    // (Each place a product is named: «Juan americano, María americano» names
    // it twice, where a search of the whole message finds it once.)
    let mut named = Vec::new();
    let mut bare = false;
    let mut at = 0;
    while at < words.len() {
        let window = &words[at..(at + 4).min(words.len())];
        match mentions::find(window, catalog)
            .into_iter()
            .find(|m| m.start == 0)
        {
            Some(mut m) => {
                m.start += at;
                m.end += at;
                at = m.end.max(at + 1);
                named.push(m);
            }
            None => at += 1,
        }
    }
    for m in named {
        taken[m.start..m.end].iter_mut().for_each(|t| *t = true);
        // «2 capuchinos», «2 de capuchino».
        let count = [1, 2]
            .into_iter()
            .filter_map(|back| m.start.checked_sub(back))
            .find(|&i| count_at(i).is_some() && (i + 1 == m.start || words[i + 1] == "de"));
        if let Some(i) = count {
            taken[i] = true;
        } else if !words[m.end..(m.end + 3).min(words.len())]
            .iter()
            .any(|w| token_number(w).is_some())
        {
            // («…y Lucía chocolate»: a product named bare in a list, with no
            // count after it either, is one of it.)
            bare = true;
        }
        if let Some(id) = m.product() {
            let line = by_product.entry(id).or_insert((0, 0));
            line.0 += 1;
            line.1 += count.and_then(count_at).unwrap_or(1);
        }
    }
    // «2 capuchinos, no, perdón, 3 capuchinos»: a count taken back adds to
    // nothing.
    if words
        .iter()
        .any(|w| matches!(*w, "no" | "perdon" | "mejor" | "digo" | "corrijo"))
    {
        by_product.clear();
    }
    let mut out: Vec<i64> = by_product
        .values()
        .filter(|(mentions, _)| *mentions > 1)
        .map(|(_, total)| *total)
        .collect();
    // («cada uno» spreads; its «uno» is no count.)
    let loose: Vec<i64> = (0..words.len())
        .filter(|&i| !taken[i] && (i == 0 || words[i - 1] != "cada"))
        .filter_map(count_at)
        .collect();
    if loose.len() > 1 {
        out.push(loose.iter().sum());
    }
    if bare && by_product.len() > 1 {
        out.push(1);
    }
    out
}

/// Products whose description holds a word of `words` that few products'
/// descriptions share («especiado» is the chai's, «mantequilla» the
/// croissant's; «leche», in most of them, names none).
fn described(words: &[&str], catalog: &[crate::shop::contract::CatalogEntry]) -> Vec<ProductId> {
    let folded = mentions::catalog_words(catalog);
    let mut out = Vec::new();
    // (A word of the description as customers say it: «espumosa» for
    // «espumada», «ierbabuena».)
    for word in words.iter().filter(|w| w.chars().count() >= 4) {
        let word = mentions::singular(word);
        let having: Vec<ProductId> = folded
            .iter()
            .filter(|(_, _, description)| description.iter().any(|d| mentions::describes(word, d)))
            .map(|(id, ..)| *id)
            .collect();
        if !having.is_empty() && having.len() <= 2 {
            out.extend(having);
        }
    }
    out
}

/// The one product a description fits: kinds said («postre», «frío»,
/// «para comer») and kinds or allergens said without («que no tenga nueces»,
/// «not sweet»). Among the products the customer just named or was offered
/// when it fits one of them, else in the whole catalog; a kind word right
/// after a product's name («un capuchino frío») describes that product and
/// picks none.
fn described_uniquely(words: &[&str], input: &ProposalInput) -> Option<ProductId> {
    let catalog = &input.product_catalog;
    let found = mentions::find(words, catalog);
    let attached = |at: usize| found.iter().any(|m| m.end == at || m.end + 1 == at);
    let negated = |at: usize| {
        words[at.saturating_sub(3)..at]
            .iter()
            .any(|w| matches!(*w, "no" | "sin" | "ni" | "not" | "without"))
    };
    let mut wanted: Vec<&str> = Vec::new();
    let mut unwanted: Vec<&str> = Vec::new();
    let mut unwanted_allergens: Vec<&str> = Vec::new();
    let mut to_eat = false;
    for (at, word) in words.iter().enumerate() {
        if attached(at) {
            continue;
        }
        // («para tomar» says how, not which.)
        if let Some((_, tag)) = lexicon::KINDS
            .iter()
            .find(|(said, _)| said == word && *said != "tomar")
        {
            if negated(at) {
                unwanted.push(tag);
            } else {
                wanted.push(tag);
            }
        }
        if let Some(allergen) = allergen_named(word)
            && negated(at)
        {
            unwanted_allergens.push(allergen);
        }
        to_eat |= *word == "comer" && at > 0 && matches!(words[at - 1], "para" | "de" | "por");
    }
    // The kinds said in more than one word («sin cafeína»), when no product
    // is named for them to describe («un americano sin cafeína»).
    let text = words.join(" ");
    for (said, tag) in lexicon::KINDS.iter().filter(|(said, _)| said.contains(' ')) {
        if found.is_empty() && crate::text::contains_phrase(&text, said) {
            wanted.push(tag);
        }
    }
    if wanted.is_empty() && !to_eat {
        return None;
    }
    let fits = |entry: &crate::shop::contract::CatalogEntry| {
        wanted.iter().all(|k| lexicon::is_of_kind(entry, k))
            && !unwanted.iter().any(|k| lexicon::is_of_kind(entry, k))
            && !entry
                .allergens
                .iter()
                .any(|a| unwanted_allergens.contains(&crate::text::normalize(a).as_str()))
            && (!to_eat || !lexicon::is_of_kind(entry, "bebida"))
    };
    let mut recent: BTreeSet<ProductId> = input.choices.iter().copied().collect();
    for before in super::earlier_turns(input)
        .filter(|h| h.role == "customer")
        .take(3)
    {
        recent.extend(
            mentions::find(&tokens(&prepared(&before.text)), catalog)
                .into_iter()
                .flat_map(|m| m.candidates),
        );
    }
    let fitting: Vec<ProductId> = catalog
        .iter()
        .filter(|e| fits(e))
        .map(|e| e.product_id)
        .collect();
    let among_recent: Vec<ProductId> = fitting
        .iter()
        .copied()
        .filter(|id| recent.contains(id))
        .collect();
    let among = if among_recent.is_empty() {
        fitting
    } else {
        among_recent
    };
    match among.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// «2 lim», «otra lim»: a product's name cut short right after a count, when
/// the cut fits one product's name alone.
fn cut_short(words: &[&str], catalog: &[crate::shop::contract::CatalogEntry]) -> Vec<ProductId> {
    let folded = mentions::catalog_words(catalog);
    let mut out = Vec::new();
    for at in 1..words.len() {
        let (before, word) = (words[at - 1], words[at]);
        let counted = token_number(before).is_some() || matches!(before, "otro" | "otra");
        if !counted
            || !(3..=5).contains(&word.len())
            || !word.chars().all(|c| c.is_ascii_alphabetic())
            || lexicon::is_food(word)
            || folded
                .iter()
                .any(|(_, name, _)| name.iter().any(|n| n == word))
        {
            continue;
        }
        let fitting: Vec<ProductId> = folded
            .iter()
            .filter(|(_, name, _)| {
                name.iter()
                    .any(|n| n.len() >= word.len() + 2 && n.starts_with(word))
            })
            .map(|(id, ..)| *id)
            .collect();
        if let [one] = fitting.as_slice() {
            out.push(*one);
        }
    }
    out
}

/// «un té», «el té sácalo»: a two-letter word of one product's name said as
/// a noun (after an article, a count or «otro»), which the rules' own reading
/// leaves to be asked («un té» may be any tea) but which is evidence enough
/// for a model that took it for that product.
fn short_name_word(
    words: &[&str],
    catalog: &[crate::shop::contract::CatalogEntry],
) -> Vec<ProductId> {
    let folded = mentions::catalog_words(catalog);
    let mut out = Vec::new();
    for at in 1..words.len() {
        let (before, word) = (words[at - 1], words[at]);
        let determined = token_number(before).is_some()
            || matches!(
                before,
                "el" | "un" | "del" | "al" | "otro" | "ese" | "este" | "los" | "unos"
            );
        // (Never a small word of grammar: «2 de esos», «el de vainilla».)
        let grammar = matches!(
            word,
            "de" | "en"
                | "la"
                | "el"
                | "al"
                | "mi"
                | "tu"
                | "su"
                | "se"
                | "me"
                | "lo"
                | "le"
                | "ya"
                | "si"
                | "no"
                | "es"
                | "un"
                | "yo"
                | "ni"
                | "os"
                | "nos"
        );
        if !determined || word.chars().count() != 2 || grammar {
            continue;
        }
        let fitting: Vec<ProductId> = folded
            .iter()
            .filter(|(_, name, _)| name.len() > 1 && name.iter().any(|n| n == word))
            .map(|(id, ..)| *id)
            .collect();
        if let [one] = fitting.as_slice() {
            out.push(*one);
        }
    }
    out
}

/// The allergen a word names, as the shop's declarations fold it.
fn allergen_named(word: &str) -> Option<&'static str> {
    Some(match word {
        "nuez" | "nueces" | "mani" | "almendra" | "almendras" | "nuts" | "nut" => "frutos secos",
        "leche" | "lacteos" | "lactosa" | "milk" | "dairy" => "lacteos",
        "gluten" | "trigo" | "harina" => "gluten",
        "huevo" | "huevos" | "egg" | "eggs" => "huevo",
        "soya" | "soja" => "soya",
        _ => return None,
    })
}

/// The proposal's actions that stand on nothing the customer said, by index.
/// Where the message was read as a standalone request, an action stands on
/// the words as written or on that reading: the rules' reading of a follow-up
/// («y el otro también» → «cambia Capuchino a 2») may be the wrong one.
pub fn ungrounded(input: &ProposalInput, proposal: &Proposal) -> Vec<(usize, Ungrounded)> {
    let found = ungrounded_in(input, proposal);
    match &input.as_written {
        Some(written) if !found.is_empty() => {
            let as_written = ProposalInput {
                customer_message: written.clone(),
                as_written: None,
                ..input.clone()
            };
            let also = ungrounded_in(&as_written, proposal);
            found
                .into_iter()
                .filter(|(i, _)| also.iter().any(|(j, _)| j == i))
                .collect()
        }
        _ => found,
    }
}

fn ungrounded_in(input: &ProposalInput, proposal: &Proposal) -> Vec<(usize, Ungrounded)> {
    let grounds = grounds(input);
    // The cart as the proposal's earlier actions leave it («borra todo, mejor
    // solo 2 americanos» adds to an empty cart).
    let mut lines = cart_lines(input);
    // «Cambia las limonadas por maracuyá»: the new line takes the quantity of
    // the one it replaces, said by the cart.
    let swapped: Vec<i64> = proposal
        .actions()
        .iter()
        .filter(|a| matches!(a.kind, ActionType::Allowed(ActionKind::RemoveItem)))
        .filter_map(|a| a.product_id.given().and_then(|id| lines.get(id).copied()))
        .collect();
    let mut found = Vec::new();
    for (index, action) in proposal.actions().iter().enumerate() {
        let ActionType::Allowed(kind) = action.kind else {
            continue; // the matrix refuses these anyway
        };
        let product = action.product_id.given().copied();
        let quantity = action.quantity.given().copied();
        let cart_quantity = |id: ProductId| lines.get(&id).copied().unwrap_or(0);
        let verdict = match kind {
            ActionKind::AddToCart | ActionKind::UpdateQuantity | ActionKind::RemoveItem => {
                match product {
                    Some(id)
                        if kind == ActionKind::AddToCart
                            && quantity.is_some_and(|q| swapped.contains(&q)) =>
                    {
                        cart_change(&grounds, kind, id, None, cart_quantity(id))
                    }
                    Some(id) => cart_change(&grounds, kind, id, quantity, cart_quantity(id)),
                    None => Ok(()), // the matrix asks for the product
                }
            }
            // Emptying the cart and calling an order off are different requests.
            // («mejor no pido nada, gracias igual»: nothing wanted, the cart
            // emptied — never «no quiero nada más», which closes it.)
            ActionKind::ClearCart => asked(
                kind,
                grounds.read_as(&["CLEAR_CART"])
                    || lexicon::clears(&grounds.text)
                    || (grounds.says(NOTHING_WANTED)
                        && !lexicon::wants_nothing_more(&grounds.text)),
            ),
            ActionKind::CancelOrder => asked(
                kind,
                grounds.read_as(&["CANCEL_ORDER"])
                    || grounds.says(lexicon::CANCEL)
                    || grounds.text.split(' ').any(|w| w.starts_with("cancel")),
            ),
            // «No confirmo todavía», «espera, antes de que confirmes» hold the
            // word and deny it; «sí, confirmo, no quiero nada más» does not.
            // (A confirmation beside a way to deliver set in the same
            // proposal waits for the summary with its fee: only the backend's
            // own reading of «sí, a Obrajes, calle 10» confirms at once.)
            ActionKind::ConfirmOrder => asked(
                kind,
                !sets_a_delivery(proposal)
                    && (grounds.read_as(&["CONFIRM_ORDER"])
                        || ((super::is_yes(&input.customer_message)
                            || grounds.says(lexicon::CONFIRM)
                            || confirms(&grounds.text))
                            && !denied_before_the_yes(&grounds.text))),
            ),
            ActionKind::Escalate => {
                asked(kind, grounds.read_as(&["ESCALATE"]) || grounds.says(PERSON))
            }
            ActionKind::SetFulfilment => asked(
                kind,
                grounds.read_as(&["SET_FULFILMENT"]) || super::delivery::mentions(input),
            ),
            ActionKind::ShowCatalog
            | ActionKind::ShowProduct
            | ActionKind::ReviewOrder
            | ActionKind::Reply
            | ActionKind::Clarify => Ok(()),
        };
        match verdict {
            Err(why) => found.push((index, why)),
            Ok(()) if kind == ActionKind::ClearCart => lines.clear(),
            Ok(()) => {
                if let Some(id) = product
                    && let Some(after) = line_after(kind, quantity, cart_quantity(id))
                {
                    lines.insert(id, after);
                }
            }
        }
    }
    found
}

/// A cart change refused beside one that stands takes the whole proposal with
/// it: half a swap is a wrong effect, and the customer is asked again. Adds the
/// rest of the proposal to `refused` (indices, as [`ungrounded`] gives them).
pub fn refuse_half_changes(proposal: &Proposal, refused: &mut Vec<(usize, Ungrounded)>) {
    let changes_cart = |action: &crate::shop::core::Action| {
        matches!(
            action.kind,
            ActionType::Allowed(
                ActionKind::AddToCart
                    | ActionKind::UpdateQuantity
                    | ActionKind::RemoveItem
                    | ActionKind::ClearCart
            )
        )
    };
    let actions = proposal.actions();
    let is_refused =
        |index: usize, refused: &[(usize, Ungrounded)]| refused.iter().any(|(i, _)| *i == index);
    let refused_a_change = refused.iter().any(|(i, _)| changes_cart(&actions[*i]));
    let kept_a_change = actions
        .iter()
        .enumerate()
        .any(|(index, a)| changes_cart(a) && !is_refused(index, refused));
    if refused_a_change && kept_a_change {
        for index in 0..actions.len() {
            if !is_refused(index, refused) {
                refused.push((index, Ungrounded::PartOfARefusedChange));
            }
        }
        refused.sort_by_key(|(i, _)| *i);
    }
}

/// Words that ask for a person (the backend's own detector catches most first).
const PERSON: &[&str] = &[
    "persona",
    "personas",
    "humano",
    "alguien",
    "asesor",
    "asesora",
    "encargado",
    "encargada",
    "dueno",
    "duena",
    "agente",
    "operador",
];

/// A change to one product's line: named, as the rules read it, by a said amount.
fn cart_change(
    grounds: &Grounds,
    kind: ActionKind,
    id: ProductId,
    quantity: Option<i64>,
    in_cart: i64,
) -> Result<(), Ungrounded> {
    if !grounds.names(id) {
        return Err(Ungrounded::ProductNotNamed { product_id: id });
    }
    // «¿A cuánto el chai?» orders nothing; «¿me das un chai?» does.
    let ordering = grounds.request_says(lexicon::ADD)
        || grounds.request.split(' ').any(lexicon::adds)
        || grounds
            .request
            .split(' ')
            .any(|w| token_number(w).is_some());
    if kind == ActionKind::AddToCart
        && grounds.question
        && !ordering
        && !grounds.changes.iter().any(|(p, ..)| *p == id)
    {
        return Err(Ungrounded::NotAsked { action: kind });
    }
    // A line out, or made smaller, needs a word that takes away or corrects.
    let takes_away = grounds.request_says(lexicon::REMOVE)
        || grounds.request_says(lexicon::SET)
        || grounds.request.split(' ').any(|w| {
            lexicon::removes(w)
                || matches!(
                    w,
                    "no" | "sin"
                        | "menos"
                        | "solo"
                        | "nomas"
                        | "mejor"
                        | "vez"
                        | "lugar"
                        | "por"
                        | "perdon"
                        | "mitad"
                )
                || w.starts_with("cambi")
        })
        || grounds
            .changes
            .iter()
            .any(|(p, kind, _)| *p == id && kind != "ADD_TO_CART")
        || grounds.asked_which_to_take_out;
    let shrinks = match kind {
        ActionKind::RemoveItem => true,
        ActionKind::UpdateQuantity => quantity.is_some_and(|q| q < in_cart),
        _ => false,
    };
    if shrinks && !takes_away {
        return Err(Ungrounded::NotAsked { action: kind });
    }
    // The verb's class: «quita el matcha», «que sean 3» or «cambia a 4» of a
    // line in the cart is not an addition to it.
    let adds_word = grounds.request_says(lexicon::ADD)
        || grounds
            .request
            .split(' ')
            .any(|w| lexicon::adds(w) || matches!(w, "otro" | "otra" | "otros" | "otras" | "mas"))
        || grounds.again;
    if kind == ActionKind::AddToCart
        && in_cart > 0
        && takes_away
        && !adds_word
        && !grounds.brought_in.contains(&id)
    {
        return Err(Ungrounded::NotAsked { action: kind });
    }
    match quantity {
        // («devolveme el americano»: one of it, added.)
        Some(1) if kind == ActionKind::AddToCart && grounds.singular.contains(&id) => Ok(()),
        Some(q) if kind != ActionKind::RemoveItem && !said(grounds, kind, q, in_cart) => {
            Err(Ungrounded::QuantityNotSaid { quantity: q })
        }
        _ => Ok(()),
    }
}

/// A verb of confirming in any person («confirmamos», «confirme nomás»), not
/// the subjunctive of a condition («antes de que confirmes»).
fn confirms(text: &str) -> bool {
    text.split(' ')
        .any(|w| w.starts_with("confirm") && !matches!(w, "confirmes" | "confirmemos"))
}

/// Whether a denial or a wait comes before the first yes or confirming word
/// («no confirmo todavía», «espera, antes de que confirmes…»).
fn denied_before_the_yes(text: &str) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    let yes = words
        .iter()
        .position(|w| w.starts_with("confirm") || lexicon::CONFIRM.contains(w))
        .unwrap_or(words.len());
    words[..yes].iter().any(|w| {
        matches!(
            *w,
            "no" | "antes" | "espera" | "espere" | "todavia" | "aun" | "sin" | "nunca"
        )
    })
}

/// The products a kind word names: every product of the kind after «cada» or
/// «todos»/«todas» («uno de cada postre»), or the only product of its kind.
fn of_kinds(words: &[&str], catalog: &[crate::shop::contract::CatalogEntry]) -> Vec<ProductId> {
    let mut named = Vec::new();
    for (at, word) in words.iter().enumerate() {
        let Some((_, tag)) = lexicon::KINDS.iter().find(|(said, _)| said == word) else {
            continue;
        };
        let of_kind: Vec<ProductId> = catalog
            .iter()
            .filter(|e| lexicon::is_of_kind(e, tag))
            .map(|e| e.product_id)
            .collect();
        let every = words[at.saturating_sub(3)..at]
            .iter()
            .any(|w| matches!(*w, "cada" | "todos" | "todas"));
        if every || of_kind.len() == 1 {
            named.extend(of_kind);
        }
    }
    named
}

/// The quantity a line holds after a change (`None` when the change is unreadable).
fn line_after(kind: ActionKind, quantity: Option<i64>, in_cart: i64) -> Option<i64> {
    match kind {
        ActionKind::AddToCart => Some(in_cart + quantity.unwrap_or(1)),
        ActionKind::UpdateQuantity => quantity,
        ActionKind::RemoveItem => Some(0),
        _ => None,
    }
}

fn asked(action: ActionKind, asked: bool) -> Result<(), Ungrounded> {
    if asked {
        Ok(())
    } else {
        Err(Ungrounded::NotAsked { action })
    }
}

/// A quantity the customer said: a number of the message (or the rules'
/// reading), or for a new total, the cart's quantity moved by one of them.
fn said(grounds: &Grounds, kind: ActionKind, quantity: i64, in_cart: i64) -> bool {
    grounds.quantities.contains(&quantity)
        || (kind == ActionKind::UpdateQuantity
            && grounds
                .quantities
                .iter()
                .any(|n| in_cart + n == quantity || in_cart - n == quantity))
}

/// Where the rules read the whole message with confidence and a grounded model
/// changed the cart differently, the question that names both readings
/// («¿Quieres que agregue 2 × Brownie, o que deje 1 × Brownie?»). Neither
/// reading wins silently.
pub fn disagreement(input: &ProposalInput, proposal: &Proposal) -> Option<String> {
    let reading = super::settled(input);
    if !reading.confident {
        return None;
    }
    let rules = changes_of(input, &reading.proposal);
    let model = changes_of(input, proposal);
    // Where the rules read no change at all, or the model's reading holds
    // every change the rules read and more (a clause the rules left unread:
    // «dame 2 y tres americanos, no, mejor nomás 2 americanos» after asking
    // about the cheesecake), the model's grounded one stands.
    if rules == model || rules.is_empty() || rules.iter().all(|c| model.contains(c)) {
        return None;
    }
    // «del brownie» after «dame dos» was asked back: the rules count one
    // where the customer said no count (their standalone reading may write
    // one in); the model's grounded count for the same products stands.
    let said = prepared(
        input
            .as_written
            .as_deref()
            .unwrap_or(&input.customer_message),
    );
    let counted = tokens(&said).iter().any(|w| {
        token_number(w).is_some()
            || matches!(
                *w,
                "un" | "una" | "uno" | "otro" | "otra" | "par" | "media" | "docena" | "mas"
            )
    });
    if !counted && rules.len() == model.len() && rules.iter().zip(&model).all(|(r, m)| r.0 == m.0) {
        return None;
    }
    let say = |changes: &[(ProductId, i64)]| -> String {
        if changes.is_empty() {
            return "no cambie tu carrito".to_owned();
        }
        changes
            .iter()
            .map(|(id, after)| {
                let name = input
                    .product_catalog
                    .iter()
                    .find(|p| p.product_id == *id)
                    .map_or("ese producto", |p| p.name.as_str());
                if *after == 0 {
                    format!("quite {name}")
                } else {
                    format!("deje {after} × {name}")
                }
            })
            .collect::<Vec<_>>()
            .join(" y ")
    };
    Some(format!(
        "Quiero estar seguro: ¿quieres que {}, o que {}?",
        say(&rules),
        say(&model)
    ))
}

/// The lines a proposal leaves changed: (product, quantity after), in order.
fn changes_of(input: &ProposalInput, proposal: &Proposal) -> Vec<(ProductId, i64)> {
    let mut lines = cart_lines(input);
    let before = lines.clone();
    for action in proposal.actions() {
        let ActionType::Allowed(kind) = action.kind else {
            continue;
        };
        if kind == ActionKind::ClearCart {
            lines.values_mut().for_each(|q| *q = 0);
            continue;
        }
        let Some(id) = action.product_id.given().copied() else {
            continue;
        };
        let had = lines.get(&id).copied().unwrap_or(0);
        if let Some(after) = line_after(kind, action.quantity.given().copied(), had) {
            lines.insert(id, after);
        }
    }
    lines
        .into_iter()
        .filter(|(id, q)| before.get(id).copied().unwrap_or(0) != *q)
        .collect()
}

/// The cart's quantities by product.
fn cart_lines(input: &ProposalInput) -> std::collections::BTreeMap<ProductId, i64> {
    input
        .cart
        .lines
        .iter()
        .map(|l| (l.product_id, l.quantity))
        .collect()
}

/// A proposal that sets a way to deliver (any SET_FULFILMENT not a pickup).
fn sets_a_delivery(proposal: &Proposal) -> bool {
    proposal.proposed_actions.iter().any(|a| {
        a.action_type == "SET_FULFILMENT"
            && a.params.mode.as_ref().and_then(|m| m.as_str()) != Some("pickup")
    })
}
