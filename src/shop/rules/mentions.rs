//! Finding the catalog's products in a message: whole names, any word of a name
//! that only one product has ("americanos" is Café americano, "chai" is Té chai),
//! plurals, diminutives ("cafecito", "matchita") and typos. A word several
//! products share is an ambiguous mention, to be asked about, never guessed.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::memo::CatalogMemo;
use crate::shop::contract::CatalogEntry;
use crate::shop::core::ProductId;
use crate::text::{normalize, tokens};

/// Words that never name a product, so they can't match one by accident.
const STOPWORDS: &[&str] = &[
    "de", "del", "la", "el", "los", "las", "un", "una", "unos", "unas", "con", "y", "a", "al",
    "por", "para", "en", "mi", "me", "que", "quiero", "dame", "favor", "sin", "mas", "otro",
    "otra", "solo",
];

/// A product (or a choice of products) named in the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// One product, or several when the words fit more than one.
    pub candidates: Vec<ProductId>,
    /// Token span (end exclusive).
    pub start: usize,
    pub end: usize,
}

impl Mention {
    pub fn product(&self) -> Option<ProductId> {
        match self.candidates.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

/// "brownies" → "brownie", "croissants" → "croissant", "limones" → "limon".
pub fn singular(word: &str) -> &str {
    if word.len() > 4 && word.ends_with("es") && !word.ends_with("ees") {
        &word[..word.len() - 2]
    } else if word.len() >= 3 && word.ends_with('s') && !word.ends_with("ss") {
        // "tes" is the plural of "te" as much as "chais" is of "chai".
        &word[..word.len() - 1]
    } else {
        word
    }
}

/// The stems a diminutive may come from: "cafecito" → "cafe", "juguito" → "jugo",
/// "matchita" → "matcha", "chocolatito" → "chocolate".
fn undiminished(word: &str) -> Vec<String> {
    let word = singular(word);
    let mut out = Vec::new();
    for suffix in [
        "cito", "cita", "ecito", "ecita", "ito", "ita", "illo", "illa",
    ] {
        // («tecito» is a «té»: a two-letter stem only before «-cito».)
        if let Some(stem) = word.strip_suffix(suffix)
            && (stem.len() >= 3 || (stem.len() == 2 && suffix.starts_with('c')))
        {
            out.push(stem.to_owned());
            for vowel in ["o", "a", "e"] {
                out.push(format!("{stem}{vowel}"));
            }
        }
    }
    out
}

/// How a word sounds in Spanish, so spellings by ear match: "cruasán" and
/// "croissant", "chescake" and "cheesecake", "brauni" and "brownie".
pub fn sound(word: &str) -> String {
    let mut s = word.to_owned();
    for (from, to) in [
        ("ss", "s"),
        ("sh", "ch"),
        ("ll", "y"),
        ("qu", "k"),
        ("ck", "k"),
        ("ch", "x"),
        ("ph", "f"),
        ("oi", "ua"),
        ("ow", "au"),
        ("ee", "i"),
        ("ie", "i"),
        ("th", "t"),
        ("tt", "t"),
        ("cc", "k"),
    ] {
        s = s.replace(from, to);
    }
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let mapped = match c {
            'c' if matches!(next, Some('e' | 'i')) => 's',
            'c' | 'q' => 'k',
            'z' => 's',
            'v' | 'w' => 'b',
            'y' if i + 1 == chars.len() => 'i',
            'h' => continue,
            c => *c,
        };
        if out.ends_with(mapped) && !"aeiou".contains(mapped) {
            continue;
        }
        out.push(mapped);
    }
    out
}

/// What a product goes by in one country or another, as the catalog's word:
/// «medialunas» in Argentina and «cuernitos» in Mexico are croissants.
const ALIASES: &[(&str, &str)] = &[
    ("medialuna", "croissant"),
    ("cuernito", "croissant"),
    ("cangrejito", "croissant"),
    ("croasan", "croissant"),
    ("parchita", "maracuya"),
    ("maracuja", "maracuya"),
    ("chinola", "maracuya"),
    ("lemonade", "limonada"),
    ("limonade", "limonada"),
    ("cappuccino", "capuchino"),
    ("capuccino", "capuchino"),
];

/// A message word, read once for every name word it is held against.
struct Probe<'a> {
    word: &'a str,
    singular: &'a str,
    known: bool,
    sound: String,
    chars: usize,
    stems: Vec<String>,
}

impl<'a> Probe<'a> {
    fn new(word: &'a str) -> Self {
        let singular = singular(word);
        Probe {
            word,
            singular,
            known: super::lexicon::is_known(word),
            sound: sound(singular),
            chars: singular.chars().count(),
            stems: undiminished(word),
        }
    }

    /// See [`word_matches`].
    fn matches(&self, name: &NameWord) -> bool {
        let (a, b) = (self.singular, name.singular.as_str());
        if a == b || self.word == name.word {
            return true;
        }
        if ALIASES
            .iter()
            .any(|(said, named)| *said == a && *named == b)
        {
            return true;
        }
        if self.known {
            return false;
        }
        // «crosan», «cruasan»: a slip of the way a name is said aloud.
        if ALIASES.iter().any(|(said, named)| {
            *named == b && said.len() >= 6 && strsim::damerau_levenshtein(a, said) <= 1
        }) {
            return true;
        }
        // «machta», «capcuhino»: the name's letters shuffled inside, its first
        // and last in place.
        if scrambled(a, b) {
            return true;
        }
        let (sa, sb) = (&self.sound, &name.sound);
        if sa.len() >= 4
            && (sa == sb || (sb.len() >= 6 && strsim::damerau_levenshtein(sa, sb) <= 1))
        {
            return true;
        }
        if a.len() >= 4 && b.len() >= 7 && b.starts_with(a) {
            return true;
        }
        let limit = match name.chars {
            0..=3 => 0,
            4..=6 => 1,
            _ => 2,
        };
        if limit > 0 && self.chars > 2 && strsim::damerau_levenshtein(a, b) <= limit {
            return true;
        }
        self.stems.iter().any(|stem| {
            stem == b || (b.len() >= 4 && strsim::damerau_levenshtein(stem, b) <= limit.min(1))
        })
    }
}

/// Whether `said` has the letters of `name`, in another order inside, with the
/// first and the last where they were (six letters or more: «trata» is no
/// «tarta»).
fn scrambled(said: &str, name: &str) -> bool {
    if said.len() < 6 || said.len() != name.len() || said == name {
        return false;
    }
    let ends = |w: &str| (w.chars().next(), w.chars().last());
    let letters = |w: &str| {
        let mut v: Vec<char> = w.chars().collect();
        v.sort_unstable();
        v
    };
    ends(said) == ends(name) && letters(said) == letters(name)
}

/// A word of a product name, read once.
struct NameWord {
    word: String,
    singular: String,
    sound: String,
    /// Characters of the singular.
    chars: usize,
    /// How many products' names have this word (by its singular).
    shared: usize,
    /// The word is also a tag of several products («caliente», «frío»): an
    /// attribute, which alone does not name one of them.
    attribute: bool,
}

impl NameWord {
    fn new(word: &str) -> Self {
        let singular = singular(word);
        NameWord {
            word: word.to_owned(),
            singular: singular.to_owned(),
            sound: sound(singular),
            chars: singular.chars().count(),
            shared: 0,
            attribute: false,
        }
    }
}

/// Whether a message word stands for a name word: the same word, its plural, a
/// diminutive of it, a typo of it (one edit for 4–6 letters, two beyond), the
/// same word spelled by ear, or the first letters of a long one ("capu").
pub fn word_matches(message_word: &str, name_word: &str) -> bool {
    Probe::new(message_word).matches(&NameWord::new(name_word))
}

pub fn significant_words(name: &str) -> Vec<String> {
    tokens(&normalize(name))
        .into_iter()
        .filter(|w| !STOPWORDS.contains(w))
        .map(str::to_owned)
        .collect()
}

/// The catalog's names, each distinct word read once.
struct NameIndex {
    words: Vec<NameWord>,
    /// Each product with a significant word, its words as indices into `words`.
    products: Vec<(ProductId, Vec<usize>)>,
    /// Each kind of drink the catalog sells two or more of by name («café»:
    /// americano, capuchino…), with the word that says the kind.
    families: Vec<(NameWord, Vec<ProductId>)>,
}

impl NameIndex {
    fn new(catalog: &[CatalogEntry]) -> Self {
        let mut words: Vec<NameWord> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut products = Vec::with_capacity(catalog.len());
        for entry in catalog {
            let name: Vec<usize> = significant_words(&entry.name)
                .into_iter()
                .map(|w| {
                    *at.entry(w).or_insert_with_key(|w| {
                        words.push(NameWord::new(w));
                        words.len() - 1
                    })
                })
                .collect();
            if !name.is_empty() {
                products.push((entry.product_id, name));
            }
        }
        // How many products' names have a word of the same singular.
        let mut by_singular: HashMap<&str, usize> = HashMap::new();
        for (_, name) in &products {
            let mut seen: Vec<&str> = name.iter().map(|&i| words[i].singular.as_str()).collect();
            seen.sort_unstable();
            seen.dedup();
            for singular in seen {
                *by_singular.entry(singular).or_default() += 1;
            }
        }
        let shared: Vec<usize> = words
            .iter()
            .map(|w| by_singular[w.singular.as_str()])
            .collect();
        for (word, shared) in words.iter_mut().zip(shared) {
            word.shared = shared;
            let tagged = catalog
                .iter()
                .filter(|e| {
                    e.tags
                        .iter()
                        .any(|t| singular(&normalize(t)) == word.singular)
                })
                .count();
            word.attribute = tagged >= 2;
        }
        let families = FAMILIES
            .iter()
            .filter_map(|(head, members)| {
                let family: Vec<ProductId> = catalog
                    .iter()
                    .filter(|e| {
                        significant_words(&e.name)
                            .iter()
                            .any(|w| members.contains(&singular(w)))
                    })
                    .map(|e| e.product_id)
                    .collect();
                (family.len() >= 2).then(|| (NameWord::new(head), family))
            })
            .collect();
        NameIndex {
            words,
            products,
            families,
        }
    }
}

/// Whether a count stands right before word `at` («un solo croissant», «tres
/// cafés»).
pub(super) fn counted_before(words: &[&str], at: usize) -> bool {
    let mut k = at;
    while k > 0 && matches!(words[k - 1], "solo" | "sola" | "mas") {
        k -= 1;
    }
    k > 0 && crate::text::token_number(words[k - 1]).is_some()
}

/// Finds product mentions, most complete first, never overlapping.
pub fn find(words: &[&str], catalog: &[CatalogEntry]) -> Vec<Mention> {
    static NAMES: LazyLock<CatalogMemo<NameIndex>> = LazyLock::new(Default::default);
    let index = NAMES.get(catalog, NameIndex::new);
    let probes: Vec<Probe> = words.iter().map(|w| Probe::new(w)).collect();
    // Whether message word `i` stands for name word `j`, each pair decided once.
    let mut memo: Vec<Option<bool>> = vec![None; words.len() * index.words.len()];
    let mut matches = |i: usize, j: usize| -> bool {
        *memo[i * index.words.len() + j].get_or_insert_with(|| probes[i].matches(&index.words[j]))
    };
    let mut found: Vec<(usize, usize, usize, ProductId)> = Vec::new(); // (score, start, end, id)
    for (id, name) in &index.products {
        for start in 0..words.len() {
            if STOPWORDS.contains(&words[start]) {
                continue;
            }
            // Start on any word of the name: "americanos" is enough for Café americano
            // when no other product has that word.
            for (k, &first) in name.iter().enumerate() {
                if !matches(start, first) {
                    continue;
                }
                let mut end = start + 1;
                let mut matched = 1;
                for &name_word in &name[k + 1..] {
                    let window_end = (end + 2).min(words.len());
                    match (end..window_end).find(|&j| matches(j, name_word)) {
                        Some(j) => {
                            end = j + 1;
                            matched += 1;
                        }
                        None => break,
                    }
                }
                let full = matched == name.len() && k == 0;
                // «un americano bien caliente»: a word of a name said as how
                // something comes is no naming of that product.
                let intensified = start > 0 && matches!(words[start - 1], "bien" | "muy" | "super");
                if intensified && !full {
                    continue;
                }
                let first = &index.words[first];
                let distinctive = first.word.chars().count() >= 4 || first.shared == 1;
                if full || (distinctive && !first.attribute && first.word.chars().count() >= 3) {
                    found.push((matched * 10 + usize::from(full) * 5, start, end, *id));
                }
            }
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut taken = vec![false; words.len()];
    let mut mentions: Vec<Mention> = Vec::new();
    for (score, start, end, id) in &found {
        if taken[*start..*end].iter().any(|t| *t) {
            // Same words, same strength: a second product the words also fit.
            if let Some(m) = mentions
                .iter_mut()
                .find(|m| m.start == *start && m.end == *end)
                && !m.candidates.contains(id)
                && found.iter().any(|f| {
                    f.3 == m.candidates[0] && f.1 == *start && f.2 == *end && f.0 == *score
                })
            {
                m.candidates.push(*id);
            }
            continue;
        }
        // A product named twice is read where it is ordered: «el cheesecake es
        // el mejor… queríamos llevar un cheesecake», «dos croissants, no
        // perdón, un solo croissant».
        // Both counted with nothing taken back between («2 brownies para mí y 3
        // brownies para mi hermana»): two orders of it, each read.
        if let Some(m) = mentions.iter_mut().find(|m| m.candidates.contains(id)) {
            let (first, later) = if m.start < *start {
                (m.start, *start)
            } else {
                (*start, m.start)
            };
            // («dije tres chocolates, eran cuatro chocolates»: the figure said
            // again, right — «eran» or «son» a few words before a count,
            // «sino» right before one; never «…que eran del cole», «sino les
            // molesta 2…».)
            let taken_back = words[first..later].iter().enumerate().any(|(k, w)| {
                matches!(*w, "no" | "perdon" | "mejor" | "digo" | "corrijo")
                    || (matches!(*w, "eran" | "sino" | "son")
                        && words
                            .iter()
                            .skip(first + k + 1)
                            .take(if *w == "sino" { 1 } else { 3 })
                            .any(|next| super::clause::count(next).is_some()))
            });
            let both_counted = counted_before(words, *start) && counted_before(words, m.start);
            // «capuchino, matcha, americano y matcha»: each an item of a list
            // (the first may follow the list's heading: «…para 8 personas:
            // capuchino, americano…»).
            let item = |from: usize, to: usize| {
                let opens = from == 0
                    // (after a greeting: «buen día, capuchino…»)
                    || matches!(
                        words[from - 1],
                        "y" | "e" | "hola" | "buenas" | "buenos" | "dia" | "dias" | "tardes" | "noches"
                    )
                    || found.iter().any(|f| f.2 == from);
                let next_is_item = found.iter().any(|f| f.1 == to);
                let closes = to == words.len() || matches!(words[to], "y" | "e") || next_is_item;
                closes && (opens || next_is_item)
            };
            let both_listed = item(*start, *end) && item(m.start, m.end);
            // «para mi hija un chocolatito … y para el chiquito otro chocolate»:
            // another one of it, ordered again.
            // (The first must be ordered too: «la limonada está rica, ponme
            // otra limonada» is one.)
            let another = later > 0
                && matches!(words[later - 1], "otro" | "otra")
                && counted_before(words, first);
            if m.candidates.len() == 1 && (both_counted || both_listed || another) && !taken_back {
                taken[*start..*end].iter_mut().for_each(|t| *t = true);
                mentions.push(Mention {
                    candidates: vec![*id],
                    start: *start,
                    end: *end,
                });
            } else if m.candidates.len() == 1
                && counted_before(words, *start)
                && (!counted_before(words, m.start) || *start > m.start)
            {
                taken[m.start..m.end].iter_mut().for_each(|t| *t = false);
                taken[*start..*end].iter_mut().for_each(|t| *t = true);
                m.start = *start;
                m.end = *end;
            }
            continue;
        }
        taken[*start..*end].iter_mut().for_each(|t| *t = true);
        mentions.push(Mention {
            candidates: vec![*id],
            start: *start,
            end: *end,
        });
    }
    // «el de chocolate»: the one that has chocolate, when another product's
    // description has it too (the brownie is «de chocolate»), could be either.
    let starts: Vec<usize> = mentions.iter().map(|m| m.start).collect();
    for m in &mut mentions {
        let limit = next_start(&starts, m.start, words.len());
        let full = found
            .iter()
            .any(|f| f.1 == m.start && f.2 == m.end && f.3 == m.candidates[0] && f.0 % 10 == 5);
        // Only «el de X», «la de X»: the one that has X, not the one named X.
        // «el dulce de chocolate», «una torta de chocolate»: a thing made of
        // it, as much as «el de chocolate».
        let the_one_with = m.start >= 2
            && words[m.start - 1] == "de"
            && (matches!(words[m.start - 2], "el" | "la" | "los" | "las")
                || matches!(
                    singular(words[m.start - 2]),
                    "dulce"
                        | "torta"
                        | "pastel"
                        | "postre"
                        | "galleta"
                        | "queque"
                        | "bizcocho"
                        | "masita"
                        | "cosa"
                        | "cosita"
                        | "algo"
                ));
        if full || !the_one_with || m.candidates.len() != 1 || m.end != m.start + 1 {
            continue;
        }
        let word = singular(words[m.start]).to_owned();
        if word.chars().count() < 4 {
            continue;
        }
        for entry in catalog {
            let described = tokens(&normalize(&entry.description))
                .iter()
                .any(|w| singular(w) == word);
            if described && !m.candidates.contains(&entry.product_id) {
                m.candidates.push(entry.product_id);
            }
        }
        narrow(words, catalog, m, limit);
    }
    // «un café», «un cafecito»: the kind, not one product, when the catalog
    // sells several of its drinks by name (americano, capuchino, latte…). A
    // longer name said whole («café americano») is that product.
    for (head, family) in &index.families {
        for (i, word) in words.iter().enumerate() {
            if STOPWORDS.contains(word) || !probes[i].matches(head) {
                continue;
            }
            // («te» alone is a pronoun, «te pido»: the kind only once counted.)
            // («dame otro, te pago al recoger», «son dos, te dije»: a pronoun
            // before its verb, however counted before.)
            let pronoun = words.get(i + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "pago"
                        | "pagamos"
                        | "dije"
                        | "digo"
                        | "aviso"
                        | "paso"
                        | "mando"
                        | "escribo"
                        | "confirmo"
                        | "llamo"
                        | "pido"
                        | "encargo"
                        | "deposito"
                        | "transfiero"
                        | "agradezco"
                        | "molesto"
                        | "comento"
                        | "cuento"
                        | "debo"
                        | "doy"
                        | "he"
                        | "lo"
                        | "la"
                        | "los"
                        | "las"
                )
            });
            // «ya no quiero el té», «2 del té especiado»: pointed at by an
            // article, and nothing after it a pronoun goes on to («él te
            // dijo»).
            // («para el té de mis amigas» is a gathering.)
            let pointed = i > 0
                && matches!(words[i - 1], "el" | "del" | "al" | "ese" | "este")
                && !(i > 1 && matches!(words[i - 2], "para" | "pal" | "al" | "del"))
                && words.get(i + 1).is_none_or(|next| {
                    matches!(
                        *next,
                        "y" | "e"
                            | "con"
                            | "que"
                            | "chai"
                            | "especiado"
                            | "negro"
                            | "verde"
                            | "por"
                            | "porfa"
                            | "tampoco"
                            | "tambien"
                            | "pero"
                            | "mejor"
                            | "no"
                            | "ni"
                            | "ya"
                            | "mas"
                            | "porque"
                            | "nomas"
                            | "pues"
                    )
                });
            if head.word.chars().count() < 3
                && (pronoun
                    || !(counted_before(words, i)
                        || pointed
                        || i > 0 && matches!(words[i - 1], "otro" | "unos")))
            {
                continue;
            }
            match mentions.iter_mut().find(|m| m.start <= i && i < m.end) {
                // Only the kind's word of a longer name: «café» of «Café americano».
                Some(m)
                    if m.end == m.start + 1
                        && m.product().is_some_and(|id| family.contains(&id)) =>
                {
                    let named_whole = found.iter().any(|f| {
                        f.1 == m.start && f.2 == m.end && f.3 == m.candidates[0] && f.0 % 10 == 5
                    });
                    if !named_whole {
                        m.candidates = family.clone();
                    }
                }
                Some(_) => {}
                None => mentions.push(Mention {
                    candidates: family.clone(),
                    start: i,
                    end: i + 1,
                }),
            }
        }
    }
    let starts: Vec<usize> = mentions.iter().map(|m| m.start).collect();
    for m in mentions.iter_mut().filter(|m| m.candidates.len() > 1) {
        let limit = next_start(&starts, m.start, words.len());
        narrow(words, catalog, m, limit);
    }
    // «quiero un americano ☕»: the kind said bare (no count, no article) beside
    // one of its drinks named is that drink's, not another item.
    let named_member = |family: &[ProductId]| {
        mentions
            .iter()
            .any(|m| m.candidates.len() == 1 && family.contains(&m.candidates[0]))
    };
    let bare = |start: usize| {
        start == 0
            || !(crate::text::token_number(words[start - 1]).is_some()
                || matches!(
                    words[start - 1],
                    "el" | "la" | "los" | "las" | "otro" | "otra" | "mas"
                ))
    };
    let drop: Vec<usize> = mentions
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            index
                .families
                .iter()
                .any(|(_, family)| m.candidates == *family && named_member(family) && bare(m.start))
        })
        .map(|(k, _)| k)
        .collect();
    for k in drop.into_iter().rev() {
        mentions.remove(k);
    }
    described(words, catalog, &mut mentions);
    mentions.sort_by_key(|m| m.start);
    described_on(words, catalog, &mut mentions);
    mentions
}

/// «el brownie de chocolate con nueces», «el cafecito de los yungas», «un
/// croissant de mantequilla»: the words right after one product's name that
/// its description holds go on naming it (a product named among them, the
/// brownie's «chocolate», is the description's word, not another item).
fn described_on(words: &[&str], catalog: &[CatalogEntry], mentions: &mut Vec<Mention>) {
    let folded = catalog_words(catalog);
    let mut k = 0;
    while k < mentions.len() {
        let Some(id) = mentions[k].product() else {
            k += 1;
            continue;
        };
        let named: Vec<&str> = words[mentions[k].start..mentions[k].end]
            .iter()
            .map(|w| singular(w))
            .collect();
        let mut end = mentions[k].end;
        let mut described_to = end;
        while let Some(w) = words.get(end) {
            if matches!(*w, "de" | "del" | "con" | "los" | "las" | "el" | "la") {
                end += 1;
                continue;
            }
            if w.chars().count() >= 4 && has_word(&folded, id, w) && !named.contains(&singular(w)) {
                end += 1;
                described_to = end;
                continue;
            }
            break;
        }
        if described_to > mentions[k].end {
            mentions[k].end = described_to;
            let (start, stop) = (mentions[k].start, described_to);
            let inside: Vec<usize> = (0..mentions.len())
                .filter(|&j| j != k && mentions[j].start >= start && mentions[j].end <= stop)
                .collect();
            for j in inside.into_iter().rev() {
                mentions.remove(j);
                if j < k {
                    k -= 1;
                }
            }
        }
        k += 1;
    }
}

/// «el jugo», «el de frutos rojos», «la masita de mantequilla», «el té
/// especiado»: a product pointed at («el», «la», «ese», «el de») by a word only
/// its description has (or two products' descriptions: then it is asked which).
/// A word right after a product's name qualifies that name instead.
fn described(words: &[&str], catalog: &[CatalogEntry], mentions: &mut Vec<Mention>) {
    let folded = catalog_words(catalog);
    for i in 0..words.len() {
        let word = singular(words[i]);
        if word.chars().count() < 4
            || STOPWORDS.contains(&words[i])
            || crate::text::token_number(words[i]).is_some()
            || mentions.iter().any(|m| m.start <= i && i < m.end)
            || folded
                .iter()
                .any(|(_, name, _)| name.iter().any(|n| n == word))
        {
            continue;
        }
        // Pointed at: an article or «ese» just before, or «el de …» two words
        // back («el de frutos rojos», «la masita de mantequilla»).
        // «soy alérgica a las nueces», «no me gusta la canela», «nada con las
        // nueces»: a reason or a dislike names no product to order.
        // «no, espere, el jugo…»: a «no» that corrects is no dislike.
        let from = i.saturating_sub(5);
        let reason = words[from..i].iter().enumerate().any(|(k, w)| {
            let correcting = *w == "no"
                && words.get(from + k + 1).is_some_and(|next| {
                    matches!(
                        *next,
                        "espera" | "espere" | "perdon" | "mejor" | "mira" | "oye" | "disculpa"
                    )
                });
            (matches!(
                *w,
                "no" | "nada" | "sin" | "gusta" | "gustan" | "odio" | "porque" | "intolerante"
            ) && !correcting)
                || w.starts_with("alergic")
        });
        if reason {
            continue;
        }
        // Between the article and the word: «de», «que es», «que tiene», or
        // a thing «de» it («la masita de mantequilla»); not an adjective's
        // noun («la leche espumada»).
        let pointed = (1..=3).any(|back| {
            if i < back
                || !matches!(
                    words[i - back],
                    "el" | "la" | "los" | "las" | "ese" | "esa" | "esos" | "esas" | "del"
                )
            {
                return false;
            }
            let between = &words[i - back + 1..i];
            between
                .iter()
                .all(|w| matches!(*w, "de" | "que" | "tiene" | "lleva" | "es"))
                || matches!(between, [thing, "de"] if thing.chars().count() >= 4)
        });
        // Right after a product's name it says which or how («el café de los
        // yungas» is read by the name's own narrowing).
        let after_a_name = mentions
            .iter()
            .any(|m| m.end == i || m.end + 1 == i || m.end + 2 == i);
        if !pointed || after_a_name {
            continue;
        }
        let having: Vec<ProductId> = folded
            .iter()
            .filter(|(_, _, description)| description.iter().any(|d| describes(word, d)))
            .map(|(id, ..)| *id)
            .collect();
        // «un croissant de esos de mantequilla», «los matchas… la leche de
        // almendras»: what a product already named is like, not another.
        let named = |id: &ProductId| mentions.iter().any(|m| m.candidates == [*id]);
        // «los frutos secos» is no «frutos rojos»: the word said next, when it
        // is a word of its own, must be the description's too.
        // The next word of its own («jugo de naranja», «mantequilla de maní»).
        let next = words[i + 1..]
            .iter()
            .find(|w| !matches!(**w, "de" | "del" | "con"))
            .map(|w| singular(w));
        let goes_on = |description: &[String]| {
            next.is_none_or(|n| {
                n.chars().count() < 4
                    || STOPWORDS.contains(&n)
                    || description.iter().any(|d| describes(n, d))
            })
        };
        let having: Vec<ProductId> = folded
            .iter()
            .filter(|(_, _, description)| goes_on(description))
            .map(|(id, ..)| *id)
            .filter(|id| having.contains(id))
            .collect();
        if having.is_empty() || having.len() > 2 || having.iter().any(named) {
            continue;
        }
        mentions.push(Mention {
            candidates: having,
            start: i,
            end: i + 1,
        });
    }
}

/// Each product's name and description words, folded and singular.
pub type CatalogWords = Vec<(ProductId, Vec<String>, Vec<String>)>;

/// The catalog's [`CatalogWords`], folded once per catalog (an edit to a
/// name or a description is a new catalog).
pub fn catalog_words(catalog: &[CatalogEntry]) -> std::sync::Arc<CatalogWords> {
    static FOLDED: LazyLock<CatalogMemo<CatalogWords>> = LazyLock::new(Default::default);
    FOLDED.get(catalog, |catalog| {
        let own = |text: &str| {
            tokens(&normalize(text))
                .into_iter()
                .map(|w| singular(w).to_owned())
                .collect::<Vec<_>>()
        };
        catalog
            .iter()
            .map(|e| (e.product_id, own(&e.name), own(&e.description)))
            .collect()
    })
}

/// Whether the name or the description of product `id` has `word` (folded).
fn has_word(folded: &CatalogWords, id: ProductId, word: &str) -> bool {
    let word = singular(word);
    folded
        .iter()
        .find(|(p, ..)| *p == id)
        .is_some_and(|(_, name, description)| {
            name.iter().chain(description).any(|w| describes(word, w))
        })
}

/// Whether a word said stands for a word of a description: the same word,
/// spelled by ear («ierbabuena»), or the same stem with another ending of
/// how a thing is made («leche espumosa» for «espumada»). Six letters or
/// more for the last two: short words have too many neighbours.
pub(super) fn describes(said: &str, own: &str) -> bool {
    if said == own {
        return true;
    }
    if said.chars().count() < 6 || own.chars().count() < 6 {
        return false;
    }
    if sound(said) == sound(own) {
        return true;
    }
    let stem = |w: &str| {
        ["ada", "ado", "osa", "oso", "ida", "ido"]
            .iter()
            .find_map(|s| w.strip_suffix(s))
            .filter(|s| s.len() >= 4)
            .map(str::to_owned)
    };
    matches!((stem(said), stem(own)), (Some(a), Some(b)) if a == b)
}

/// «el de chocolate con nueces», «el café con canela», «el café de los
/// yungas»: the words said after a mention several products fit pick the one
/// whose name or description has them.
fn narrow(words: &[&str], catalog: &[CatalogEntry], m: &mut Mention, limit: usize) {
    // «el de chocolate con nueces»: the words said after it pick the one
    // whose name or description has them.
    // Only the words that go on describing it («con canela», «de los
    // yungas»), up to the first that no candidate's description has
    // («…con canela, ponme dos»).
    let folded = catalog_words(catalog);
    // «con leche» fits most drinks: only a word few products have picks one.
    let described_by = |w: &str| {
        folded
            .iter()
            .filter(|(id, ..)| has_word(&folded, *id, w))
            .count()
            <= 2
            && m.candidates.iter().any(|id| has_word(&folded, *id, w))
    };
    // «un café ☕» says the café again; it describes nothing.
    let named: Vec<&str> = words[m.start..m.end].iter().map(|w| singular(w)).collect();
    // («un té, el que es especiado»: «el que es» goes on describing it.)
    let then: Vec<String> = words[m.end..]
        .iter()
        .enumerate()
        .filter(|(k, w)| {
            let pointing = *k > 0 && matches!(words[m.end + k - 1], "el" | "la") && **w == "que";
            !pointing
                && !named.contains(&singular(w))
                && !FAMILIES.iter().any(|(head, _)| head == *w)
        })
        .map(|(_, w)| w)
        // («un té, el que no es especiado»: a word denied picks nothing.)
        .take_while(|w| !matches!(**w, "y" | "e" | "pero" | "porque" | "que" | "no" | "ni"))
        // («con leche espumosa»: a word most drinks have goes on describing
        // it, and picks nothing by itself.)
        .take_while(|w| {
            w.chars().count() < 4 || m.candidates.iter().any(|id| has_word(&folded, *id, w))
        })
        .take(4)
        .filter(|w| w.chars().count() >= 4 && described_by(w))
        .map(|w| singular(w).to_owned())
        .collect();
    // «un café negro», «el cafecito negro», «café solo sin leche»: black
    // coffee is the one whose description says no milk.
    let black = words[m.end..]
        .iter()
        .take(3)
        .any(|w| matches!(*w, "negro" | "negrito" | "pasado"))
        || words[m.end..]
            .windows(2)
            .take(3)
            .any(|w| w == ["sin", "leche"]);
    if m.candidates.len() > 1 && black {
        let milkless: Vec<ProductId> = m
            .candidates
            .iter()
            .copied()
            .filter(|id| !has_word(&folded, *id, "leche"))
            .collect();
        if milkless.len() == 1 {
            m.candidates = milkless;
            // The words that said which are the mention's own.
            // («sin leche» stays after it: how it is made, read as such.)
            if words
                .get(m.end)
                .is_some_and(|w| matches!(*w, "negro" | "negrito" | "pasado"))
            {
                m.end += 1;
            }
            return;
        }
    }
    if m.candidates.len() > 1 && !then.is_empty() {
        let fitting: Vec<ProductId> = m
            .candidates
            .iter()
            .copied()
            .filter(|id| then.iter().all(|w| has_word(&folded, *id, w)))
            .collect();
        // («un té, el que es especiado»: the words that picked it are its own.)
        if let ([_], Some(last)) = (fitting.as_slice(), then.last()) {
            let reach = limit.min(m.end + 8);
            if let Some(at) = (m.end..reach).rev().find(|&k| singular(words[k]) == last) {
                m.end = at + 1;
            }
        }
        if !fitting.is_empty() {
            m.candidates = fitting;
        }
    }
}

/// Where the next mention after `start` begins (or the message's end).
fn next_start(starts: &[usize], start: usize, end: usize) -> usize {
    starts
        .iter()
        .copied()
        .filter(|&s| s > start)
        .min()
        .unwrap_or(end)
}

/// A kind of drink and the names its drinks go by: «un café» could be any of
/// them when the catalog sells two or more.
const FAMILIES: &[(&str, &[&str])] = &[
    (
        "cafe",
        &[
            "cafe",
            "espresso",
            "expreso",
            "capuchino",
            "cappuccino",
            "capuccino",
            "latte",
            "cortado",
            "moca",
            "mocha",
            "macchiato",
            "americano",
            "frappe",
            "frapuchino",
        ],
    ),
    // «un té», «dos tés»: the chai or the matcha (a green tea) — asked.
    (
        "te",
        &["te", "chai", "matcha", "manzanilla", "infusion", "tisana"],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(names: &[(ProductId, &str)]) -> Vec<CatalogEntry> {
        names
            .iter()
            .map(|(id, name)| CatalogEntry {
                product_id: *id,
                name: (*name).into(),
                price_minor: 1000,
                description: String::new(),
                tags: Vec::new(),
                allergens: Vec::new(),
            })
            .collect()
    }

    fn ids(text: &str, cat: &[CatalogEntry]) -> Vec<Vec<ProductId>> {
        let normalized = normalize(text);
        find(&tokens(&normalized), cat)
            .into_iter()
            .map(|m| m.candidates)
            .collect()
    }

    #[test]
    fn whole_and_partial_names_plurals_diminutives_and_typos() {
        let cat = catalog(&[
            (1, "Maracuya"),
            (2, "Matcha"),
            (3, "Café americano"),
            (4, "Té chai"),
            (5, "Chocolate caliente"),
            (6, "Brownie"),
        ]);
        assert_eq!(ids("3 americanos", &cat), [vec![3]]);
        assert_eq!(ids("un cafecito americano", &cat), [vec![3]]);
        assert_eq!(ids("dos tecitos chai", &cat), [vec![4]]);
        assert!(ids("un ratito nomas", &cat).is_empty());
        assert_eq!(ids("unas matchitas", &cat), [vec![2]]);
        assert_eq!(ids("dos chais", &cat), [vec![4]]);
        assert_eq!(ids("un chocolatito", &cat), [vec![5]]);
        assert_eq!(ids("una mracuya y un brwnie", &cat), [vec![1], vec![6]]);
        assert_eq!(ids("te chai", &cat), [vec![4]]);
        assert_eq!(
            ids("dos cruasanes", &catalog(&[(7, "Croissant")])),
            [vec![7]]
        );
        assert_eq!(
            ids("un chescake", &catalog(&[(9, "Cheesecake")])),
            [vec![9]]
        );
        assert_eq!(ids("un brauni", &cat), [vec![6]]);
        assert_eq!(
            ids("2 medialunas", &catalog(&[(7, "Croissant")])),
            [vec![7]]
        );
        assert_eq!(ids("un croasan", &catalog(&[(7, "Croissant")])), [vec![7]]);
        assert_eq!(ids("un capu", &catalog(&[(8, "Capuchino")])), [vec![8]]);
        assert!(ids("hola que tal", &cat).is_empty());
    }

    #[test]
    fn a_word_two_products_share_is_an_ambiguous_mention() {
        let cat = catalog(&[(1, "Café americano"), (2, "Café latte"), (3, "Brownie")]);
        assert_eq!(ids("un café", &cat), [vec![1, 2]]);
        assert_eq!(ids("un café latte", &cat), [vec![2]]);
        assert_eq!(ids("un latte y un brownie", &cat), [vec![2], vec![3]]);
    }

    #[test]
    fn a_kind_said_alone_is_any_of_its_drinks() {
        let cat = catalog(&[(1, "Café americano"), (2, "Capuchino"), (3, "Brownie")]);
        assert_eq!(ids("un café", &cat), [vec![1, 2]]);
        assert_eq!(ids("un cafecito por favor", &cat), [vec![1, 2]]);
        assert_eq!(ids("un café americano", &cat), [vec![1]]);
        assert_eq!(ids("un americano", &cat), [vec![1]]);
        // One coffee on the menu: it is that one.
        let single = catalog(&[(1, "Café americano"), (3, "Brownie")]);
        assert_eq!(ids("un café", &single), [vec![1]]);
        // No product named café, two coffees by name.
        let menu = catalog(&[(1, "Latte"), (2, "Capuchino")]);
        assert_eq!(ids("dos cafés", &menu), [vec![1, 2]]);
    }
}
