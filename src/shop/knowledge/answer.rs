//! Answering a customer's question from what the shop knows, with the bounded
//! loops of seed 003 and the gray zone of seed 004:
//!
//! 1. a question about a product's attributes («¿el brownie lleva nueces?»,
//!    «¿algo sin cafeína?») is answered from the catalog;
//! 2. otherwise retrieve → judge whether it suffices → refine the search (at most
//!    three attempts: every key word, any of them, then the words customers use
//!    for the same things);
//! 3. compose an answer that names its sources — the best passage, quoted, with
//!    the rules; written from the passages by the model when one is configured —
//!    and check it: every figure and every name it gives must be in the passages
//!    or the catalog; a failed check is healed at most twice, and the passage
//!    itself is the last resort;
//! 4. what the knowledge does not cover — a word the shop never wrote about, a
//!    search that finds nothing that fits — is the gray zone: «no tengo ese dato»
//!    and the offer of a person, never a guess.
//!
//! Every step is recorded (`steps`) and a per-question step limit ends any loop.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use uuid::Uuid;

use super::words::{Question, is_general_word, is_topic_word, same_word, stem};
use super::{Hit, Strictness, search, sentences};
use crate::shop::catalog::{CatalogIndex, Product};
use crate::shop::memo::AskedBefore;
use crate::text::{MONTHS, Trigram, normalize, tokens, trigram_similarity};

/// Most steps one question may take, whatever the loops want.
pub const MAX_STEPS: usize = 8;
/// Retrieval attempts at most.
pub const MAX_ATTEMPTS: u8 = 3;
/// Repairs of a written answer that failed its check, at most.
pub const MAX_HEALS: u8 = 2;

/// Where an answer's facts come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    Entry { id: i64, title: String },
    Product { id: i64, sku: String, name: String },
}

impl Source {
    /// As evaluation scripts name it: an entry's title, or `producto:<sku>`.
    pub fn label(&self) -> String {
        match self {
            Source::Entry { title, .. } => title.clone(),
            Source::Product { sku, .. } => format!("producto:{sku}"),
        }
    }
}

/// One step of working an answer out, for the audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Answered from the products' attributes.
    Catalog {
        products: usize,
    },
    Searched {
        attempt: u8,
        strictness: String,
        hits: usize,
        sufficient: bool,
    },
    /// Words of the question the shop never wrote about.
    Unknown {
        words: Vec<String>,
    },
    Written {
        by: String,
    },
    Checked {
        ok: bool,
        problem: Option<String>,
    },
    /// The step limit ended the work.
    Limit,
    /// Served from the day's cache.
    Cached,
}

/// What the customer reads, and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub text: String,
    pub sources: Vec<Source>,
    /// Nothing the shop knows answers it: the customer is told so and offered a
    /// person.
    pub gray: bool,
    pub steps: Vec<Step>,
    /// A yes-or-no question about one product's attribute, answered from the
    /// catalog («¿el chai lleva leche?» → yes): what a condition on it («si no,
    /// dame dos») is decided by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<bool>,
}

impl Answer {
    /// The question is about a thing the shop never wrote about.
    pub fn asks_the_unwritten(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Step::Unknown { .. }))
    }
}

/// What the shop knows, as read for this bot's configuration version.
#[derive(Debug, Default)]
pub struct Library {
    /// Every folded word of the knowledge and the catalog, with how many chunks
    /// or products hold it.
    vocabulary: HashMap<String, u32>,
    /// The folded words of the catalog's names, descriptions, tags and allergens.
    catalog: HashSet<String>,
    /// The stems of every word above, with the lengths of the words of each,
    /// so «aceptan» finds «aceptamos» (and «estacionamiento» does not find
    /// «estación»: a derived word is another word).
    stems: HashMap<String, Vec<(usize, u32)>>,
    /// The knowledge's words with their trigrams, for the trigram ranking.
    trigrams: Vec<(String, Vec<Trigram>)>,
    /// The stems of the catalog's words.
    catalog_stems: HashSet<String>,
    /// The bot has any knowledge at all.
    pub has_entries: bool,
    /// The stems of every word above as it sounds («aseptan» is «aceptan»).
    heard: HashMap<String, Vec<usize>>,
}

impl Library {
    pub async fn load(pool: &PgPool, bot_id: Uuid, catalog: &CatalogIndex) -> sqlx::Result<Self> {
        let vocabulary = super::vocabulary(pool, bot_id).await?;
        Ok(Library::of(vocabulary, catalog))
    }

    /// The library of a knowledge whose words are `vocabulary` (each with how
    /// many chunks hold it) beside `catalog`.
    pub fn of(mut vocabulary: HashMap<String, u32>, catalog: &CatalogIndex) -> Self {
        let has_entries = !vocabulary.is_empty();
        let knowledge: HashSet<String> = vocabulary.keys().cloned().collect();
        let mut catalog_words = HashSet::new();
        for product in catalog.active() {
            let text = normalize(&format!(
                "{} {} {} {}",
                product.name,
                product.description,
                product.tags.join(" "),
                product.allergens.join(" ")
            ));
            for word in tokens(&text) {
                *vocabulary.entry(word.to_owned()).or_insert(0) += 1;
                catalog_words.insert(word.to_owned());
            }
        }
        let stems_of = |words: &mut dyn Iterator<Item = &String>| -> HashSet<String> {
            words.map(|w| stem(w)).collect()
        };
        let trigrams = knowledge
            .iter()
            .map(|w| (w.clone(), crate::text::trigrams(w)))
            .collect();
        let heard = vocabulary.keys().fold(HashMap::new(), |mut heard, w| {
            heard
                .entry(stem(&crate::text::by_ear(w)))
                .or_insert_with(Vec::new)
                .push(w.len());
            heard
        });
        Library {
            trigrams,
            heard,
            stems: vocabulary.iter().fold(HashMap::new(), |mut stems, (w, n)| {
                stems
                    .entry(stem(w))
                    .or_insert_with(Vec::new)
                    .push((w.len(), *n));
                stems
            }),
            catalog_stems: stems_of(&mut catalog_words.iter()),
            vocabulary,
            catalog: catalog_words,
            has_entries,
        }
    }

    /// A word of the catalog (a name, a description, a tag), give or take a plural.
    pub fn is_catalog_word(&self, word: &str) -> bool {
        self.catalog.contains(word)
            || self.catalog_stems.contains(&stem(word))
            || self.catalog.iter().any(|c| same_word(c, word))
    }

    /// The knowledge's words closest to `words` by trigram similarity (as
    /// pg_trgm measures it), each with the best similarity found: «orario» finds
    /// «horario». At most `PER_WORD` per word.
    pub fn near(&self, words: &[String]) -> Vec<(String, f32)> {
        const PER_WORD: usize = 4;
        const AT_LEAST: f32 = 0.45;
        let mut best: HashMap<&str, f32> = HashMap::new();
        for word in words {
            let mine = crate::text::trigrams(word);
            let mut close: Vec<(&str, f32)> = self
                .trigrams
                .iter()
                .filter_map(|(known, theirs)| {
                    let s = trigram_similarity(&mine, theirs);
                    (s >= AT_LEAST).then_some((known.as_str(), s))
                })
                .collect();
            close.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            for (known, s) in close.into_iter().take(PER_WORD) {
                let kept = best.entry(known).or_insert(0.0);
                *kept = kept.max(s);
            }
        }
        let mut out: Vec<(String, f32)> =
            best.into_iter().map(|(w, s)| (w.to_owned(), s)).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// Whether the shop wrote `word` itself (not a form of it).
    pub fn wrote(&self, word: &str) -> bool {
        self.vocabulary.contains_key(word)
    }

    /// Whether `word` is written in one or two chunks only.
    pub fn is_distinctive(&self, word: &str) -> bool {
        matches!(self.vocabulary.get(word), Some(1..=2))
    }

    /// How many chunks hold `word` in another person or number of it
    /// («llego» of «llegar», «llega»), when any does. The forms' counts are
    /// summed, so a chunk holding two forms counts twice: this errs towards
    /// reading the word as common (the most of one form read «llego» as rare
    /// and quoted the «Cómo llegar» heading for «¿cómo llego en teleférico?»).
    fn written_as(&self, word: &str) -> Option<u32> {
        self.stems
            .get(&stem(word))?
            .iter()
            .filter(|(len, _)| len.abs_diff(word.len()) <= 3)
            .map(|(_, n)| *n)
            .reduce(|a, b| a + b)
    }

    /// How much finding `word` says: a word few chunks hold says more (counted
    /// over the forms of it the shop wrote).
    pub fn rarity(&self, word: &str) -> f32 {
        let count = self
            .vocabulary
            .get(word)
            .copied()
            .or_else(|| self.written_as(word))
            .unwrap_or(0) as f32;
        1.0 / (1.0 + (1.0 + count).ln())
    }

    /// Whether the shop wrote about `word` (give or take a plural, a typo, or the
    /// words customers use for the same thing).
    pub fn knows(&self, word: &str) -> bool {
        if self.vocabulary.contains_key(word)
            || self.written_as(word).is_some()
            || (word.len() >= 5
                && self
                    .heard
                    .get(&stem(&crate::text::by_ear(word)))
                    .is_some_and(|lengths| lengths.iter().any(|n| n.abs_diff(word.len()) <= 3)))
        {
            return true;
        }
        // «calientito», «cafecito», «limonadita»: a diminutive of a word written.
        for ending in [
            "citos", "citas", "cito", "cita", "itos", "itas", "ito", "ita",
        ] {
            if let Some(root) = word.strip_suffix(ending)
                && root.len() >= 3
                && ["", "e", "o", "a"]
                    .iter()
                    .any(|end| self.vocabulary.contains_key(&format!("{root}{end}")))
            {
                return true;
            }
        }
        // «taxista» of «taxi», «cafetero» of «café»: who or what of a word written.
        for ending in ["istas", "ista", "eros", "eras", "ero", "era"] {
            if let Some(root) = word.strip_suffix(ending)
                && root.len() >= 4
                && self.vocabulary.contains_key(root)
            {
                return true;
            }
        }
        let question = Question {
            folded: word.to_owned(),
            words: vec![word.to_owned()],
        };
        let widened = question.widened();
        self.vocabulary
            .keys()
            .any(|known| same_word(known, word) || widened.iter().skip(1).any(|w| w == known))
    }
}

/// A model that writes an answer from passages (the LLM, when configured).
#[async_trait::async_trait]
pub trait Writer: Send + Sync {
    /// An answer to `question` from `passages` only, naming the ones it used by
    /// index; `problem` says what was wrong with the last attempt.
    async fn write(
        &self,
        context: &crate::llm::CallContext,
        question: &str,
        passages: &[Hit],
        problem: Option<&str>,
    ) -> Option<Written>;
}

/// Gives a question's embedding (the configured server's, when it offers them).
#[async_trait::async_trait]
pub trait Embedder: Send + Sync {
    async fn embed_question(&self, bot_id: Uuid, question: &str) -> Option<Vec<f32>>;
}

/// A model's answer, unchecked.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Written {
    pub answer: String,
    #[serde(default)]
    pub sources: Vec<usize>,
    /// The model says the passages do not answer it.
    #[serde(default)]
    pub unknown: bool,
}

/// Words that say nothing about what a question is about, even when the shop
/// never wrote them (time, courtesy, the shop itself).
const NEUTRAL: &[&str] = &[
    "manana",
    "tarde",
    "noche",
    "semana",
    "dia",
    "dias",
    "ahorita",
    "rato",
    "luego",
    "siempre",
    "tienda",
    "cafe",
    "cafeteria",
    "local",
    "negocio",
    "ustedes",
    "aca",
    "alla",
    "aqui",
    "gente",
    "chicos",
    "chicas",
    "amigo",
    "amiga",
    "senor",
    "senora",
    "senorita",
    "caserita",
    "casero",
    "casera",
    "mijo",
    "mija",
    "joven",
    "buen",
    "buena",
    "saludos",
    "quiero",
    "quisiera",
    "gustaria",
    "podrian",
    "podria",
    "necesito",
    "pedido",
    "pedir",
    "orden",
    "comprar",
    "compra",
    "cosa",
    "cosas",
    "todavia",
    "aun",
    "igual",
    "normal",
    "exacto",
    "exacta",
    "cuesta",
    "cuestan",
    "sale",
    "salen",
    "vale",
    "valen",
    "precio",
    "costo",
    "caro",
    "barato",
];

/// The customer's voice: interjections, quantities and the verb of doing. They
/// neither make a question unanswerable nor steer its search.
const VOICE: &[&str] = &[
    "oye", "oiga", "hago", "haga", "hacemos", "deberia", "debo", "extra", "limite", "harto",
    "harta", "hartos", "bastante", "poquito", "monton",
    // English around a question the topics answer («Can I bring my dog
    // inside?», «do u guys close early?»).
    "bring", "inside", "outside", "guys", "early", "late", "there", "here", "with", "take", "come",
    "have", "get", "accept", "far", "how", "much", "does", "any",
    // Sounds of thinking: «hmm», «mmm», «ehh».
    "hmm", "mmm", "hmmm", "ehh", "umm", "uhm",
];

/// Nuts a description may name («con nueces», «base de almendras»).
const NUTS: &[&str] = &[
    "nuez",
    "nueces",
    "almendra",
    "almendras",
    "mani",
    "cacahuate",
    "avellana",
    "avellanas",
    "pistacho",
    "pistachos",
    "castana",
    "castanas",
    "pecana",
    "pecanas",
];

/// Who someone is to the customer, before their name («mi sobrino Marcelo»).
const RELATIONS: &[&str] = &[
    "sobrino",
    "sobrina",
    "hermano",
    "hermana",
    "hijo",
    "hija",
    "esposo",
    "esposa",
    "amigo",
    "amiga",
    "primo",
    "prima",
    "tio",
    "tia",
    "nieto",
    "nieta",
    "senor",
    "senora",
    "don",
    "dona",
    "companero",
    "companera",
    "colega",
    "jefe",
    "jefa",
    "novio",
    "novia",
];

pub struct Ask<'a> {
    pub pool: &'a PgPool,
    pub bot_id: Uuid,
    pub catalog: &'a CatalogIndex,
    pub library: &'a Library,
    pub question: &'a str,
    /// Products the question names, as the shop's matcher found them.
    pub products: Vec<i64>,
    /// The shop's currency, for a price the answer gives.
    pub currency: &'a str,
    /// With a model, it writes from the passages; without one, the best passage is
    /// quoted.
    pub writer: Option<&'a dyn Writer>,
    /// Embeds the question for search's third ranking, when the server offers it.
    pub embedder: Option<&'a dyn Embedder>,
    /// The turn the model's calls are recorded for.
    pub context: &'a crate::llm::CallContext,
}

/// Whether `question` goes on from the one before it: «¿y los domingos?»,
/// «y cuánto demora», «e com cartão?».
pub fn goes_on(question: &str) -> bool {
    let folded = normalize(question);
    tokens(&folded).first().is_some_and(|first| {
        matches!(
            *first,
            "y" | "e" | "o" | "and" | "pero" | "entonces" | "tambien" | "ademas"
        )
    })
}

/// Whether `question`, answered `alone`, may still go on from the question
/// before it. A question whole in itself keeps its own answer: one about a
/// product the catalog answered («¿y el matcha con qué leche es?»), one whose
/// words name the topic of the entry that answered it («y ustedes, ¿dónde
/// quedan exactamente?») unless it is only a word or two («¿y los domingos?»),
/// and one about a thing the shop never wrote about («¿y hay algún cajero
/// cerca?»), which stays in the gray zone. Checked before the joint question
/// is worked out, so it costs nothing when it cannot win.
pub fn may_carry(alone: &Answer, question: &str) -> bool {
    if alone.gray {
        return !alone.asks_the_unwritten();
    }
    let asked = Question::new(question);
    match alone.sources.first() {
        Some(Source::Product { .. }) => false,
        Some(Source::Entry { title: own, .. }) => {
            asked.words.len() <= 2 || !titled(own, &asked.widened())
        }
        None => true,
    }
}

/// Whether `carried`, the answer to `question` asked together with the one
/// before it (answered from the entry titled `title`), goes on from it: it
/// comes from the same entry and holds something of what is asked now, so
/// «¿y aceptan tarjeta?» after the hours is not answered with the hours again.
pub fn carries_on(carried: &Answer, before: &AskedBefore, question: &str) -> bool {
    let asked = Question::new(question);
    let title = before.title.as_str();
    let same_entry = matches!(
        carried.sources.first(),
        Some(Source::Entry { id, .. }) if *id == before.entry
    );
    let said = normalize(&carried.text);
    let title_words = normalize(title);
    // What the passage says, not the title it is quoted under.
    let held: Vec<&str> = tokens(&said)
        .into_iter()
        .filter(|w| !tokens(&title_words).contains(w))
        .collect();
    let holds_asked = asked
        .widened()
        .iter()
        .any(|w| held.iter().any(|s| same_word(s, w)));
    !carried.gray && same_entry && (asked.words.is_empty() || holds_asked)
}

pub async fn answer(ask: &Ask<'_>) -> sqlx::Result<Answer> {
    let mut answer = search_and_answer(ask).await?;
    // «¿el matcha es frío o caliente?»: what the catalog says, and beside it
    // what the merchant wrote of that attribute of that product.
    if !answer.gray
        && !answer.sources.is_empty()
        && answer
            .sources
            .iter()
            .all(|s| matches!(s, Source::Product { .. }))
        && let Some((hit, sentence, of_a_kind)) = written_beside(ask, &answer).await?
    {
        let source = Source::Entry {
            id: hit.entry_id,
            title: hit.title.clone(),
        };
        let said = format!("Según «{}»: {sentence}", hit.title);
        // Of a whole kind, the merchant's word stands alone: the catalog
        // lists only the products whose allergens it declares.
        if of_a_kind {
            answer.text = said;
            answer.sources = vec![source];
        } else {
            answer.text.push_str(&format!("\n\n{said}"));
            answer.sources.push(source);
        }
    }
    // «¿el chai es picante?»: nobody wrote it, but what the shop says of the
    // one product asked about goes beside the honest «no tengo ese dato».
    let named: Vec<&Product> = ask
        .products
        .iter()
        .filter_map(|id| ask.catalog.get(*id))
        .filter(|p| p.active && !p.description.trim().is_empty())
        .collect();
    if answer.gray
        && let [product] = named.as_slice()
    {
        answer.text = crate::shop::messages::gray_about(&product.name, &product.description);
    }
    Ok(answer)
}

/// The subject and the attributes a catalog's answer was about: the one
/// product's name words, or the kind asked in the plural («las bebidas»); and
/// the attribute words asked (not the kind's, not the name's own).
fn subject_and_attributes(question: &Question, named: &[&Product]) -> (Vec<String>, Vec<String>) {
    let kind = |w: &str| {
        ATTRIBUTE_WORDS
            .iter()
            .any(|(said, meant)| *said == w && matches!(*meant, "bebida" | "postre"))
    };
    let subject: Vec<String> = match named {
        [product] => tokens(&normalize(&product.name))
            .into_iter()
            .filter(|w| w.len() >= 4 && !attribute_word(w))
            .map(str::to_owned)
            .collect(),
        [] => question
            .words
            .iter()
            .filter(|w| kind(w) && w.ends_with('s'))
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    let name: Vec<String> = named
        .iter()
        .flat_map(|p| {
            tokens(&normalize(&p.name))
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    // (Of a kind, only an allergen: «las bebidas calientes van en vaso
    // sellado» says nothing of which drinks are hot.)
    let allergen = |w: &str| {
        ATTRIBUTE_WORDS.iter().any(|(said, meant)| {
            *said == w
                && matches!(
                    *meant,
                    "gluten" | "lácteos" | "frutos secos" | "huevo" | "soya" | "vegano"
                )
        })
    };
    let attributes: Vec<String> = question
        .words
        .iter()
        .filter(|w| attribute_word(w) && !kind(w) && !name.contains(w))
        .filter(|w| !named.is_empty() || allergen(w))
        .cloned()
        .collect();
    (subject, attributes)
}

/// The merchant's sentence that speaks of the asked attribute of the product
/// (or kind) the catalog answered about, with its hit: «Matcha: … se sirve
/// siempre frío», «Todas las bebidas son sin gluten».
async fn written_beside(
    ask: &Ask<'_>,
    answer: &Answer,
) -> sqlx::Result<Option<(Hit, String, bool)>> {
    if !ask.library.has_entries {
        return Ok(None);
    }
    let question = Question::new(&super::words::without_reason(&normalize(ask.question)));
    let named: Vec<&Product> = answer
        .sources
        .iter()
        .filter_map(|s| match s {
            Source::Product { id, .. } => ask.catalog.get(*id),
            Source::Entry { .. } => None,
        })
        .collect();
    // A list of products that fit (no product named) speaks of a kind.
    let of_a_kind = ask.products.is_empty() || asks_of_a_kind(&question);
    let named: Vec<&Product> = if of_a_kind { Vec::new() } else { named };
    let (subject, attributes) = subject_and_attributes(&question, &named);
    if subject.is_empty() || attributes.is_empty() {
        return Ok(None);
    }
    let words: Vec<String> = subject.iter().chain(&attributes).cloned().collect();
    let near = ask.library.near(&words);
    let hits = search(
        ask.pool,
        ask.bot_id,
        &words,
        &near,
        Strictness::Any,
        None,
        5,
    )
    .await?;
    Ok(hits.into_iter().find_map(|hit| {
        let sentence = super::sentences(&hit.text)
            .into_iter()
            .find(|sentence| speaks_of(sentence, &subject, &attributes))?
            .to_owned();
        Some((hit, sentence, of_a_kind))
    }))
}

/// A complaint told with nothing asked: the claim is its subject, whatever
/// the story around it.
fn tells_a_claim(question: &str) -> bool {
    super::words::complains(question) && !question.contains('?')
}

/// «¿las bebidas…?», «¿los postres…?»: a kind of product asked about in the
/// plural, every product of it.
fn asks_of_a_kind(question: &Question) -> bool {
    question
        .words
        .iter()
        .any(|w| matches!(w.as_str(), "bebidas" | "postres"))
}

/// Whether `sentence` names one of `subject`'s words and one of `attributes`
/// (or a word that means the same attribute: «nuez» is said of «Frutos
/// secos: el brownie lleva nueces»).
fn speaks_of(sentence: &str, subject: &[String], attributes: &[String]) -> bool {
    let folded = normalize(sentence);
    let words = tokens(&folded);
    let holds = |wanted: &[String]| wanted.iter().any(|w| words.iter().any(|s| same_word(s, w)));
    let meaning: Vec<String> = attributes
        .iter()
        .flat_map(|a| {
            let meant: Vec<&str> = ATTRIBUTE_WORDS
                .iter()
                .filter(|(said, _)| said == a)
                .map(|(_, meant)| *meant)
                .collect();
            ATTRIBUTE_WORDS
                .iter()
                .filter(move |(_, m)| meant.contains(m))
                .map(|(said, _)| (*said).to_owned())
                .collect::<Vec<_>>()
        })
        .chain(attributes.iter().cloned())
        .collect();
    holds(subject) && holds(&meaning)
}

async fn search_and_answer(ask: &Ask<'_>) -> sqlx::Result<Answer> {
    // «…lleva café o no porque es para mi hija que tiene 8 años»: the reason
    // given after the question is neither searched nor a subject of it.
    let mut question = Question::new(&super::words::without_reason(&normalize(ask.question)));
    // «el pedido vino sin uno de los brownies»: a complaint told in its own
    // words is searched as the claim it is.
    if super::words::complains(ask.question)
        && !question
            .words
            .iter()
            .any(|w| super::words::is_complaint_word(w))
    {
        question.words.push("reclamo".into());
    }
    let mut steps = Vec::new();
    // «¿El capuchino llega frío si lo mandan?» asks about delivery, not about the
    // capuchino: with a topic of the knowledge in it, the knowledge goes first.
    // So does a wish to have a product made otherwise («¿me lo pueden hacer
    // caliente?») and a word only the knowledge wrote («¿tienen descafeinado?»).
    // («¿el croissant es salado?»: a word of the catalog is never a typo of a
    // topic, «sábado».)
    let topical = question.words.iter().any(|w| {
        super::words::names_a_topic(w) || (is_topic_word(w) && !ask.library.is_catalog_word(w))
    });
    let made_otherwise = [
        "pueden hacer",
        "puedes hacer",
        "pueden preparar",
        "puedes preparar",
        "lo pueden hacer",
        "la pueden hacer",
        "me lo hacen",
        "me la hacen",
        // «¿le pueden poner un shot extra?»: something added to a product.
        "pueden poner",
        "puedes poner",
        "pueden ponerle",
        "pueden agregar",
        "pueden agregarle",
        "lo hacen",
        "la hacen",
    ]
    .iter()
    .any(|p| crate::text::contains_phrase(&question.folded, p))
        // Another milk than the one a product has is the knowledge's to answer
        // — about the shop's milks, or a product's milk with nothing else
        // asked (an allergen asked of a named product, «¿el capuchino lleva
        // leche de almendras? soy alérgica a las nueces», is the catalog's).
        || (super::words::asks_another_milk(&question.folded)
            && (attributes_asked(&question).is_empty() || ask.products.is_empty()));
    let knowledge_word = question
        .words
        .iter()
        .any(|w| ask.library.wrote(w) && !ask.library.is_catalog_word(w) && attribute_word(w));
    // «el pedido vino sin uno de los brownies»: a complaint about a product is
    // for the returns and claims, not the product's description.
    let knowledge_first =
        topical || made_otherwise || knowledge_word || super::words::complains(ask.question);
    if !knowledge_first && let Some(answer) = from_catalog(ask, &question, &mut steps) {
        return Ok(answer);
    }
    let circumstances = super::words::circumstances(ask.question);
    let around: Vec<String> = circumstances
        .context
        .iter()
        .chain(&circumstances.verbs)
        .cloned()
        .collect();
    let folded: Vec<&str> = crate::text::tokens(&question.folded);
    // «tarjeta de débito», «leche de almendras»: a word that only narrows one
    // the shop wrote about is that thing's, and its passage decides.
    let narrows = |w: &str| {
        folded.windows(3).any(|t| {
            t[2] == w && t[1] == "de" && ask.library.wrote(t[0]) && !NEUTRAL.contains(&t[0])
        })
    };
    // «…a nombre de la agencia», «hasta la Ceja de El Alto»: a name the
    // customer gives, or a place known by a part the shop wrote, is no subject.
    let capitalized: Vec<String> = ask
        .question
        .split_whitespace()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .map(normalize)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_owned())
        .collect();
    // «a nombre de la unidad educativa»: the name, up to three words.
    let named_after: Vec<&str> = (0..folded.len())
        .filter(|&i| folded[i] == "nombre" && matches!(folded.get(i + 1), Some(&("de" | "del"))))
        .flat_map(|i| {
            let from = i
                + 2
                + usize::from(matches!(
                    folded.get(i + 2),
                    Some(&("la" | "el" | "mi" | "mis"))
                ));
            folded[from.min(folded.len())..]
                .iter()
                .take_while(|w| !matches!(**w, "que" | "y" | "para" | "por" | "con" | "pero"))
                .take(3)
                .copied()
        })
        // «mi sobrino Marcelo», «la señora Carmen»: the name of someone named
        // by who they are, written as a name (capitalized).
        .chain(
            folded
                .windows(2)
                .filter(|t| RELATIONS.contains(&t[0]) && capitalized.iter().any(|c| c == t[1]))
                .map(|t| t[1]),
        )
        .collect();
    let part_of_known = |w: &str| {
        folded.windows(4).any(|t| {
            t[0] == w
                && t[1] == "de"
                && matches!(t[2], "el" | "la")
                && ask.library.wrote(t[3])
                && t[3].len() >= 4
        })
    };
    // «¿dónde queda su sucursal?»: the shop's own branch is where the shop
    // is; «otra sucursal», «sucursales», «la sucursal de Calacoto» ask of
    // another one.
    let the_shops_own = |w: &str| {
        matches!(w, "sucursal" | "sede")
            && folded.iter().enumerate().any(|(i, t)| {
                *t == w
                    && i > 0
                    && matches!(folded[i - 1], "su" | "tu" | "la" | "esta" | "vuestra")
                    && !matches!(folded.get(i + 1).copied(), Some("de" | "en" | "del"))
            })
    };
    // «hla, a q hora abren»: a greeting mistyped is no thing asked about.
    // (Only the first word: «cenas» is no «wenas».)
    let greeting = |w: &str| {
        folded.first() == Some(&w)
            && crate::detect::GREETINGS
                .iter()
                .any(|g| g.len() >= 4 && !g.contains(' ') && strsim::damerau_levenshtein(w, g) <= 1)
    };
    // «hola causa, ¿cuánto está…?», «oye tío, …»: whom the question is said
    // to, first or right after a greeting, is no thing asked about.
    let vocative = |w: &str| {
        crate::shop::rules::is_vocative(w)
            && folded.iter().enumerate().any(|(i, t)| {
                *t == w
                    && (i == 0
                        || matches!(
                            folded[i - 1],
                            "hola"
                                | "ola"
                                | "buenas"
                                | "buenos"
                                | "oye"
                                | "oiga"
                                | "ey"
                                | "hey"
                                | "epa"
                                | "ya"
                                | "dale"
                                | "gracias"
                                | "mira"
                                | "wena"
                                | "wenas"
                        ))
            })
    };
    // «el matcha vino todo derramado», «me vino frío»: came, not wine — after
    // the thing that came.
    let came = |w: &str| {
        w == "vino"
            && folded.iter().enumerate().any(|(i, t)| {
                *t == "vino"
                    && i > 0
                    && (matches!(folded[i - 1], "me" | "nos" | "pedido" | "orden" | "todo")
                        // «…vino sin uno de los brownies», «vino frío».
                        || folded.get(i + 1).is_some_and(|next| {
                            matches!(
                                *next,
                                "sin" | "frio" | "fria" | "tarde" | "incompleto" | "roto" | "mal"
                            )
                        })
                        || !crate::shop::rules::products_named(folded[i - 1], ask.catalog)
                            .is_empty())
            })
    };
    // «¿tienen helados?»: a food the shop does not sell, asked for alone, is
    // known only if the shop wrote that very word; a word sharing its stem
    // («no hacemos versiones heladas») says nothing of it.
    let unsold_food =
        |w: &str| ask.products.is_empty() && unsold_food_unwritten(w, ask.library, ask.catalog);
    let unknown: Vec<String> = question
        .words
        .iter()
        .filter(|w| !named_after.contains(&w.as_str()) && !part_of_known(w))
        .filter(|w| !the_shops_own(w) && !greeting(w) && !came(w) && !vocative(w))
        .filter(|w| w.chars().count() >= 3 && !NEUTRAL.contains(&w.as_str()))
        .filter(|w| !VOICE.contains(&w.as_str()))
        // A topic's word is no unknown thing while the shop wrote about the
        // topic; «¿tienen estacionamiento?» asks about one it never did.
        .filter(|w| {
            super::words::topic_of(w)
                .is_none_or(|group| !group.iter().any(|t| ask.library.knows(t)))
        })
        .filter(|w| w.parse::<f64>().is_err())
        .filter(|w| !ask.library.knows(w) || unsold_food(w))
        .filter(|w| !around.contains(w) && !narrows(w))
        // «el capu»: a product the shop's matcher reads is no unknown thing.
        .filter(|w| crate::shop::rules::products_named(w, ask.catalog).is_empty())
        .cloned()
        .collect();
    // Words the shop never wrote make a question unanswerable when one of them
    // is a thing (its subject: «¿tienen parqueo?»). Everyday words around it
    // (verbs, times, people: «¿qué tiene que decir en el mostrador?») leave it
    // to the passages, which must still cover the rest.
    // «¿aceptan Yape?», «¿puedo pagar con Tigo Money?»: a way to pay the
    // shop did not write is answered with the ways it did (its own list
    // says what it takes), not left to the gray zone.
    let asks_a_way_to_pay = [
        "pagar con",
        "pago con",
        "pagos con",
        "pagarles con",
        "pagarle con",
        "pagar en",
        "pago en",
        "aceptan",
        "acepta",
        "reciben",
        "recibe",
    ]
    .iter()
    .any(|p| crate::text::contains_phrase(&question.folded, p));
    // «¿me los pueden calentar los croissants?»: a service asked of a
    // product is what the question is about, however everyday its verb; one
    // nobody wrote about is a thing unknown (a topic's question, «¿me lo
    // pueden mandar a Obrajes?», is its topic's).
    let topic_asked = question
        .words
        .iter()
        .any(|w| is_topic_word(w) && !ask.library.is_catalog_word(w));
    let services: Vec<String> = if ask.products.is_empty() || topic_asked {
        Vec::new()
    } else {
        super::words::services_asked(&question.folded)
            .into_iter()
            .filter(|verb| !ask.library.knows(verb))
            .collect()
    };
    let mut unknown = unknown;
    for verb in &services {
        if !unknown.contains(verb) {
            unknown.push(verb.clone());
        }
    }
    // «You deliver to hotel?»: in English, a word the bridge does not read
    // (a common noun, written in lower case) beside a topic the shop wrote
    // about is no thing of its own; the topic's passage decides. A name
    // («…to Mallasa?») and a topic nobody wrote about («parking») still are.
    let english_topic = english_beside_a_written_topic(ask.question, &question.words, ask.library);
    let things: Vec<&String> = unknown
        .iter()
        .filter(|w| !is_general_word(w) || services.contains(w))
        // («como pasa de doscientos el envío me sale gratis»: a figure in
        // words is a figure, no thing asked about.)
        .filter(|w| crate::text::token_number(w).is_none())
        .filter(|w| !english_topic || is_topic_word(w) || capitalized.iter().any(|c| c == *w))
        .collect();
    // Said plainly before the passage: the way asked is not written.
    let not_written = (asks_a_way_to_pay && !things.is_empty()).then(|| {
        let asked: Vec<&str> = things.iter().map(|w| w.as_str()).collect();
        format!(
            "«{}» no está entre las formas de pago que tenemos escritas.",
            asked.join(" ")
        )
    });
    // «Ayer me llegó el pedido con el capuchino derramado, recién veo el
    // chat»: a complaint told, with nothing asked, is the claim; the words of
    // its story are no thing asked about.
    let specific = !things.is_empty() && !asks_a_way_to_pay && !tells_a_claim(ask.question);
    if specific {
        steps.push(Step::Unknown {
            words: unknown.clone(),
        });
        return Ok(gray(steps));
    }
    // «¿el chocolate caliente tiene café?»: a named product's name is one
    // subject; its words that do not name it alone («caliente») are no word
    // asked, so a passage about «el chocolate» answers.
    let names: Vec<&str> = ask
        .products
        .iter()
        .filter_map(|id| ask.catalog.get(*id))
        .map(|p| p.name.as_str())
        .collect();
    question.words = words_beyond_names(&question, &names, |w| {
        !crate::shop::rules::products_named(w, ask.catalog).is_empty()
    });
    let attempts: [(Strictness, bool); 3] = [
        (Strictness::Every, false),
        (Strictness::Any, false),
        (Strictness::Any, true),
    ];
    let embedding = match ask.embedder {
        Some(embedder) if ask.library.has_entries => {
            embedder.embed_question(ask.bot_id, ask.question).await
        }
        _ => None,
    };
    let mut found: Option<(Vec<Hit>, Passage)> = None;
    for (attempt, (strictness, widen)) in (1..=MAX_ATTEMPTS).zip(attempts) {
        if steps.len() >= MAX_STEPS {
            steps.push(Step::Limit);
            return Ok(gray(steps));
        }
        // The customer's circumstances and voice never steer the search.
        let words: Vec<String> = if widen {
            question.widened()
        } else {
            question.words.clone()
        }
        .into_iter()
        .filter(|w| !circumstances.context.contains(w) && !VOICE.contains(&w.as_str()))
        .collect();
        let near = ask.library.near(&words);
        let hits = search(
            ask.pool,
            ask.bot_id,
            &words,
            &near,
            strictness,
            embedding.as_deref(),
            5,
        )
        .await?;
        // The best passage that covers the question: one that scores higher
        // but misses its subject («a Miraflores») answers something else.
        let passage = best_passage(&question, &hits, ask.library);
        let sufficient = passage.is_some();
        steps.push(Step::Searched {
            attempt,
            strictness: format!("{strictness:?}").to_lowercase(),
            hits: hits.len(),
            sufficient,
        });
        if sufficient && let Some(passage) = passage {
            // A passage from the entry titled by the question's topic ends the
            // search; another one is kept while the next attempt looks for it
            // («¿dónde quedan?» found first in «…mesas…», then in «Ubicación»).
            let titled = passage.titled(&question);
            if titled || found.is_none() {
                found = Some((hits, passage));
            }
            if titled {
                break;
            }
        }
    }
    let Some((hits, passage)) = found else {
        if knowledge_first && let Some(answer) = from_catalog(ask, &question, &mut steps) {
            return Ok(answer);
        }
        return Ok(gray(steps));
    };
    // A way to pay the shop did not write is answered only from what it
    // wrote about paying.
    let about_paying = |hit: &Hit| {
        tokens(&normalize(&format!("{} {}", hit.title, hit.text)))
            .iter()
            .any(|w| w.starts_with("pag"))
    };
    if not_written.is_some() && !about_paying(&passage.hit) {
        return Ok(gray(steps));
    }
    if let Some(writer) = ask.writer {
        let mut problem: Option<String> = None;
        for _ in 0..=MAX_HEALS {
            if steps.len() >= MAX_STEPS {
                steps.push(Step::Limit);
                break;
            }
            let Some(written) = writer
                .write(ask.context, ask.question, &hits, problem.as_deref())
                .await
            else {
                break;
            };
            steps.push(Step::Written { by: "llm".into() });
            if written.unknown {
                return Ok(gray(steps));
            }
            let cited: Vec<&Hit> = written
                .sources
                .iter()
                .filter_map(|i| hits.get(*i))
                .collect();
            match check(&written.answer, &cited, ask.catalog) {
                Ok(()) if !cited.is_empty() => {
                    steps.push(Step::Checked {
                        ok: true,
                        problem: None,
                    });
                    let sources = sources_of(&cited);
                    return Ok(Answer {
                        text: with_sources(&written.answer, &sources),
                        sources,
                        gray: false,
                        steps,
                        verdict: None,
                    });
                }
                outcome => {
                    let why = outcome
                        .err()
                        .unwrap_or_else(|| "no passage was cited".to_owned());
                    steps.push(Step::Checked {
                        ok: false,
                        problem: Some(why.clone()),
                    });
                    problem = Some(why);
                }
            }
        }
    }
    // The rules, or the model's last resort: the passage itself, quoted.
    steps.push(Step::Written { by: "rules".into() });
    let sources = vec![Source::Entry {
        id: passage.hit.entry_id,
        title: passage.hit.title.clone(),
    }];
    let quoted = format!("Según «{}»: {}", passage.hit.title, passage.text);
    Ok(Answer {
        text: match not_written {
            Some(said) => format!("{said} {quoted}"),
            None => quoted,
        },
        sources,
        gray: false,
        steps,
        verdict: None,
    })
}

/// Whether `asked` is English and its `words` (as read in Spanish) hold a word
/// of a topic the shop wrote about («deliver» is «delivery»).
fn english_beside_a_written_topic(asked: &str, words: &[String], library: &Library) -> bool {
    // (Words no Spanish sentence holds: «a», «me», «no» are read in both.)
    const ENGLISH: &[&str] = &[
        "you", "do", "does", "the", "can", "is", "are", "what", "how", "your", "there", "have",
        "any", "for", "to", "of", "with", "we", "it", "from", "will", "would", "could",
    ];
    let folded = normalize(asked);
    let english = tokens(&folded)
        .iter()
        .filter(|w| ENGLISH.contains(w))
        .count();
    english >= 2
        && super::words::is_english(asked)
        && words.iter().any(|w| {
            super::words::topic_of(w).is_some_and(|group| group.iter().any(|t| library.knows(t)))
        })
}

/// Whether `word` is a food `catalog` does not sell that the shop never wrote
/// as such (in the singular or plural): «helados» beside «versiones heladas».
fn unsold_food_unwritten(word: &str, library: &Library, catalog: &CatalogIndex) -> bool {
    crate::shop::rules::is_food(word)
        && !library.is_catalog_word(word)
        && crate::shop::rules::products_named(word, catalog).is_empty()
        && ![
            word.to_owned(),
            format!("{word}s"),
            word.strip_suffix('s').unwrap_or(word).to_owned(),
            word.strip_suffix("es").unwrap_or(word).to_owned(),
        ]
        .iter()
        .any(|form| library.wrote(form))
}

/// The question's words without the ones only said as part of a named
/// product's full name that do not name it alone («caliente» of «chocolate
/// caliente»); a word also said apart from the name is kept.
fn words_beyond_names(
    question: &Question,
    names: &[&str],
    names_alone: impl Fn(&str) -> bool,
) -> Vec<String> {
    let folded: Vec<&str> = tokens(&question.folded);
    let mut dropped: Vec<String> = Vec::new();
    for name in names {
        let name = normalize(name);
        let name: Vec<&str> = tokens(&name);
        // (In either order: English puts the kind first, «hot chocolate».)
        let mut sorted = name.clone();
        sorted.sort_unstable();
        let said = folded.windows(name.len()).any(|w| {
            let mut w = w.to_vec();
            w.sort_unstable();
            w == sorted
        });
        if name.len() < 2 || !said {
            continue;
        }
        for word in &name {
            let once = folded.iter().filter(|w| *w == word).count() == 1;
            if once && !names_alone(word) {
                dropped.push((*word).to_owned());
            }
        }
    }
    let kept: Vec<String> = question
        .words
        .iter()
        .filter(|w| !dropped.contains(w))
        .cloned()
        .collect();
    if kept.is_empty() {
        question.words.clone()
    } else {
        kept
    }
}

fn gray(steps: Vec<Step>) -> Answer {
    Answer {
        text: crate::shop::messages::GRAY_ZONE.to_owned(),
        sources: Vec::new(),
        gray: true,
        steps,
        verdict: None,
    }
}

/// The sources, as the reply names them after the text.
fn with_sources(text: &str, sources: &[Source]) -> String {
    let titles: Vec<String> = sources
        .iter()
        .map(|s| match s {
            Source::Entry { title, .. } => format!("«{title}»"),
            Source::Product { name, .. } => name.clone(),
        })
        .collect();
    format!("{}\n(Fuente: {})", text.trim(), titles.join(", "))
}

fn sources_of(hits: &[&Hit]) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    for hit in hits {
        let source = Source::Entry {
            id: hit.entry_id,
            title: hit.title.clone(),
        };
        if !out.contains(&source) {
            out.push(source);
        }
    }
    out
}

/// The sentences of a hit that answer best, and how well.
struct Passage {
    hit: Hit,
    text: String,
    /// Key words of the question the passage holds.
    matched: BTreeSet<String>,
}

impl Passage {
    /// Its entry's title names the question's topic («Horario» for «¿a qué hora
    /// cierran?»).
    fn titled(&self, question: &Question) -> bool {
        titled(&self.hit.title, &question.widened())
    }

    /// Enough of the question is in it: its subject at least.
    fn covers(&self, question: &Question, library: &Library) -> bool {
        if !self.holds_dates_of(question) {
            return false;
        }
        let topics: Vec<&String> = question.words.iter().filter(|w| is_topic_word(w)).collect();
        if !topics.is_empty() {
            // About a topic: a topic word and half of the words the shop knows.
            if !topics.iter().any(|w| self.matched.contains(*w)) {
                return false;
            }
        }
        let subject: Vec<&String> = question
            .words
            .iter()
            .filter(|w| !NEUTRAL.contains(&w.as_str()))
            .filter(|w| topics.is_empty() || library.knows(w))
            .collect();
        if subject.is_empty() {
            return !self.matched.is_empty();
        }
        // A word few of the shop's passages hold (a place: «Miraflores», «El
        // Alto») is what the question is about: a passage with none of them
        // answers something else.
        let distinctive: Vec<&String> = question
            .words
            .iter()
            .filter(|w| {
                w.chars().count() >= 4
                    && !NEUTRAL.contains(&w.as_str())
                    && !super::words::is_general_word(w)
                    && library.is_distinctive(w)
            })
            .collect();
        if !distinctive.is_empty() && !distinctive.iter().any(|w| self.matched.contains(*w)) {
            return false;
        }
        let held = subject
            .iter()
            .filter(|w| self.matched.contains(**w))
            .count();
        held * 2 >= subject.len() || (held >= 1 && subject.len() <= 3)
    }
}

impl Passage {
    /// A question about a date («el 24 de diciembre», «el viernes santo») is
    /// answered only by a passage that names that date: the week's hours say
    /// nothing about a holiday.
    fn holds_dates_of(&self, question: &Question) -> bool {
        const HOLIDAYS: &[&str] = &[
            "santo",
            "santa",
            "navidad",
            "nochebuena",
            "pascua",
            "carnaval",
            "nochevieja",
            "difuntos",
            "independencia",
        ];
        let passage = normalize(&format!("{} {}", self.hit.title, self.text));
        let held: Vec<&str> = tokens(&passage);
        let asked: Vec<&str> = tokens(&question.folded);
        for (k, word) in asked.iter().enumerate() {
            if HOLIDAYS.contains(word) && !held.contains(word) {
                return false;
            }
            if MONTHS.contains(word) {
                if !held.contains(word) {
                    return false;
                }
                // «el 24 de diciembre»: that day, not just the month.
                let day = asked[..k]
                    .iter()
                    .rev()
                    .take(2)
                    .find(|w| w.chars().all(|c| c.is_ascii_digit()));
                if let Some(day) = day
                    && !held
                        .windows(3)
                        .any(|w| w[0] == *day && w[1] == "de" && w[2] == *word)
                {
                    return false;
                }
            }
        }
        true
    }
}

/// Whether `sentence` (folded) holds `word`, or a word customers use for it.
fn holds(sentence_words: &[&str], word: &str, widened: &[String]) -> bool {
    sentence_words.iter().any(|s| same_word(s, word))
        || widened
            .iter()
            .any(|w| sentence_words.iter().any(|s| same_word(s, w)))
}

/// The best sentence (with its neighbour when it is only a heading or a line of
/// a list, or when it holds more of the question) of the hits, by the question's
/// words it holds: a word said in the question counts twice a word customers
/// use for it, and a rare word more than a common one.
fn best_passage(question: &Question, hits: &[Hit], library: &Library) -> Option<Passage> {
    const MAX_CHARS: usize = 350;
    let mut best: Option<(f32, usize, Passage)> = None;
    let singles: Vec<(String, Vec<String>)> = question
        .words
        .iter()
        .map(|w| {
            let single = Question {
                folded: w.clone(),
                words: vec![w.clone()],
            };
            (w.clone(), single.widened()[1..].to_vec())
        })
        .collect();
    // The words of the question's topics («cierran» is of the hours), so an
    // entry titled by that topic («Horario») outranks one that only mentions it
    // («…hasta la hora de cierre» in «Recojo en tienda»).
    let topics = question.widened();
    let wanted = Wanted::of(&question.folded);
    for (rank, hit) in hits.iter().enumerate() {
        let parts = sentences(&hit.text);
        let title_words: Vec<String> = tokens(&normalize(&hit.title))
            .into_iter()
            .map(str::to_owned)
            .collect();
        let title_weight = if titled(&hit.title, &topics) {
            1.5
        } else {
            1.0
        };
        let read = |sentence: &str| -> (f32, BTreeSet<String>) {
            let folded = normalize(sentence);
            let mut words: Vec<&str> = tokens(&folded);
            words.extend(days_between(&words));
            // «- **Anticipo**: 50% al confirmar»: the label a line of a list
            // is about.
            let label = label_of(sentence);
            let label_words: Vec<&str> = tokens(&label);
            let titles: Vec<&str> = title_words.iter().map(String::as_str).collect();
            let mut score = 0.0;
            let mut matched = BTreeSet::new();
            for (word, widened) in &singles {
                // Said in the sentence counts more than a word customers use
                // for it; held only by the entry's title, less than either
                // (every sentence of the entry has it).
                let weight = if words.iter().any(|s| same_word(s, word)) {
                    2.0
                } else if holds(&words, word, widened) {
                    1.0
                } else if holds(&titles, word, widened) {
                    0.75
                } else {
                    continue;
                };
                // «¿tiene cambio de 200?»: a customer's own figure says less
                // than the words around it.
                let figure = if word.chars().all(|c| c.is_ascii_digit()) {
                    0.5
                } else {
                    1.0
                };
                let labelled = if label_words.iter().any(|l| same_word(l, word)) {
                    1.25
                } else {
                    1.0
                };
                score += weight * labelled * figure * library.rarity(word);
                matched.insert(word.clone());
            }
            (score, matched)
        };
        for (k, sentence) in parts.iter().enumerate() {
            let (mut score, mut matched) = read(sentence);
            if matched.is_empty() {
                continue;
            }
            score *= title_weight;
            // «¿a qué hora cierran?» is answered by an hour, «¿dónde quedan?» by
            // an address: a passage that holds one (with the next sentence it
            // may take) outranks one that only holds the question's words
            // («…antes del cierre»).
            if let Some(wanted) = wanted {
                let held = wanted.held_by(sentence)
                    || parts.get(k + 1).is_some_and(|next| {
                        (sentence.chars().count() < 50 || sentence.ends_with(':'))
                            && wanted.held_by(next)
                    });
                score *= if held { 1.5 } else { 0.5 };
            }
            let mut text = (*sentence).to_owned();
            if let Some(next) = parts.get(k + 1) {
                let short = sentence.chars().count() < 50 || sentence.ends_with(':');
                let (next_score, next_matched) = read(next);
                let adds = next_matched.iter().any(|w| !matched.contains(w));
                if (short || adds) && text.chars().count() + next.chars().count() < MAX_CHARS {
                    text.push(if next.starts_with("- ") { '\n' } else { ' ' });
                    text.push_str(next);
                    if adds {
                        score = score.max(next_score) + 0.5 * score.min(next_score);
                        matched.extend(next_matched);
                    }
                    // A heading's list is said whole while it fits: «Horario
                    // de atención» with every day's hours.
                    if short && next.starts_with("- ") {
                        for item in parts[k + 2..].iter().take_while(|p| p.starts_with("- ")) {
                            if text.chars().count() + item.chars().count() >= MAX_CHARS {
                                break;
                            }
                            text.push('\n');
                            text.push_str(item);
                        }
                    }
                }
            }
            let candidate = Passage {
                hit: hit.clone(),
                text,
                matched,
            };
            // A heading whose list the chunk does not hold says nothing.
            if !candidate.covers(question, library) || candidate.text.ends_with(':') {
                continue;
            }
            tracing::trace!(
                score,
                title = %candidate.hit.title,
                passage = %candidate.text.chars().take(80).collect::<String>(),
                "knowledge passage scored"
            );
            let better = best.as_ref().is_none_or(|(m, r, _)| {
                score > *m + 1e-6 || ((score - *m).abs() <= 1e-6 && rank < *r)
            });
            if better {
                best = Some((score, rank, candidate));
            }
        }
    }
    best.map(|(.., p)| p)
}

/// The label of a line of a list, folded: «- **Anticipo**: 50% al confirmar»
/// is about «anticipo»; a line without one has none.
fn label_of(sentence: &str) -> String {
    let line = sentence.trim_start_matches(['-', ' ']);
    match line
        .strip_prefix("**")
        .and_then(|rest| rest.split_once("**"))
    {
        Some((label, _)) if label.chars().count() <= 40 => normalize(label),
        _ => String::new(),
    }
}

/// What kind of thing a question's answer is, when its words say so: an hour
/// of the clock («¿a qué hora cierran?»), a street address («¿dónde quedan?»),
/// a length of time («¿cuánto demora?»), a number of people («¿cuánta gente
/// entra?») or a sum of money («¿cuánto hay que adelantar?»). A passage that
/// holds that kind of thing answers it; one that only holds the question's
/// words talks around it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wanted {
    Time,
    Address,
    Duration,
    People,
    Amount,
}

impl Wanted {
    const ALL: [Wanted; 5] = [
        Wanted::Time,
        Wanted::Address,
        Wanted::Duration,
        Wanted::People,
        Wanted::Amount,
    ];

    fn asked_by(self) -> &'static [&'static str] {
        match self {
            Wanted::Time => &[
                "a que hora",
                "hasta que hora",
                "desde que hora",
                "que hora",
                "what time",
            ],
            Wanted::Address => &[
                "donde estan",
                "donde quedan",
                "donde queda",
                "donde se ubican",
                "donde los encuentro",
                "donde es el local",
                "cual es la direccion",
                "cual es su direccion",
                "la direccion del local",
                "direccion exacta",
                "ubicacion exacta",
                "where are you",
                "address",
            ],
            Wanted::Duration => &[
                "cuanto demora",
                "cuanto demoran",
                "cuanto tarda",
                "cuanto tardan",
                "cuanto tiempo",
                "cuanto se demora",
                "cuanto se demoran",
                "en cuanto llega",
                "cuanto dura",
                "cuanto duran",
                "hasta cuando",
                "en cuanto esta listo",
                "en cuanto estaria listo",
                "cuanto hay que esperar",
                "cuanto tengo que esperar",
                "cuanto antes",
                "con cuanta anticipacion",
                "cuanta anticipacion",
                "con cuanto tiempo",
                "cuantos dias",
                "cuantas horas",
                "how long",
            ],
            Wanted::People => &[
                "cuanta gente",
                "cuantas personas",
                "cuantos entran",
                "cuantas mesas",
                "capacidad del local",
            ],
            Wanted::Amount => &[
                "cuanto cobran",
                "cuanto cobra",
                "cuanto cuesta el envio",
                "cuanto sale el envio",
                "cuanto es el envio",
                "cuanto es el minimo",
                "cuanto hay que",
                "cuanto tengo que",
                "que porcentaje",
                "cuanto de anticipo",
                "cuanto de descuento",
                "monto minimo",
                "how much",
            ],
        }
    }

    /// The kind of answer `folded` (a folded question) asks for.
    fn of(folded: &str) -> Option<Wanted> {
        Wanted::ALL.into_iter().find(|w| {
            w.asked_by()
                .iter()
                .any(|p| crate::text::contains_phrase(folded, p))
        })
    }

    /// Whether `sentence` holds that kind of thing.
    fn held_by(self, sentence: &str) -> bool {
        let folded = normalize(sentence);
        let words = tokens(&folded);
        let number_then = |units: &[&str]| {
            words
                .windows(2)
                .any(|w| w[0].chars().all(|c| c.is_ascii_digit()) && units.contains(&w[1]))
                || words.windows(4).any(|w| {
                    w[0].chars().all(|c| c.is_ascii_digit()) && w[1] == "a" && units.contains(&w[3])
                })
        };
        match self {
            Wanted::Time => holds_a_time(sentence),
            // «Calle Fernando Guachalla 512»: a street and its number.
            Wanted::Address => {
                words.iter().any(|w| {
                    matches!(
                        *w,
                        "calle" | "avenida" | "av" | "pasaje" | "jiron" | "carrera"
                    )
                }) && words
                    .iter()
                    .any(|w| w.len() >= 2 && w.chars().all(|c| c.is_ascii_digit()))
            }
            // («abrimos los 7 días» is no length of time.)
            Wanted::Duration => {
                crate::text::contains_phrase(&folded, "media hora")
                    || (number_then(&["minutos", "minuto", "min", "horas", "hora", "dias", "dia"])
                        && !words.windows(2).any(|w| {
                            matches!(w[0], "los" | "las")
                                && w[1].chars().all(|c| c.is_ascii_digit())
                        }))
            }
            Wanted::People => number_then(&["personas", "mesas", "sillas", "lugares"]),
            // «Bs 20», «50%»: a sum of money or a share of one.
            Wanted::Amount => {
                sentence.contains('%')
                    || words.windows(2).any(|w| {
                        matches!(w[0], "bs" | "bob" | "s")
                            && w[1].chars().all(|c| c.is_ascii_digit())
                    })
            }
        }
    }
}

/// Whether `sentence` holds an hour of the clock («20:00», «7:30»).
fn holds_a_time(sentence: &str) -> bool {
    let bytes = sentence.as_bytes();
    bytes.windows(4).any(|w| {
        w[0].is_ascii_digit() && w[1] == b':' && w[2].is_ascii_digit() && w[3].is_ascii_digit()
    })
}

/// «¿de qué es el cheesecake?», «¿el capu lleva canela?», «¿el chocolate es de
/// cacao de dónde?»: what one named product is made of, from its description
/// and allergens — asked as such, or by a word its description holds.
fn made_of(
    question: &Question,
    named: &[&Product],
    currency: &str,
    steps: &mut Vec<Step>,
) -> Option<Answer> {
    let [product] = named else {
        return None;
    };
    let description = normalize(&product.description);
    // «la hierbabuena es orgánica?»: the ingredient the question is about
    // (after an article) is its subject, not something asked to be in it.
    let folded: Vec<&str> = question.folded.split(' ').collect();
    let subject = |w: &str| {
        folded
            .iter()
            .position(|f| *f == w)
            .is_some_and(|at| at > 0 && matches!(folded[at - 1], "el" | "la" | "los" | "las"))
    };
    let described: Vec<&String> = question
        .words
        .iter()
        .filter(|w| w.chars().count() >= 4)
        .filter(|w| !subject(w))
        // «brownies» is the product named, not something it holds.
        .filter(|w| {
            !tokens(&normalize(&product.name))
                .iter()
                .any(|n| same_word(n, w))
        })
        .filter(|w| tokens(&description).iter().any(|d| same_word(d, w)))
        .collect();
    let asks_it = super::words::asks_what_it_is_made_of(&question.folded);
    if product.description.is_empty() || (!asks_it && described.is_empty()) {
        return None;
    }
    // «¿el matcha de cuántos ml es?», «¿cuántas calorías tiene?»: a measure
    // its description does not give is for the knowledge (or the gray zone),
    // never answered with the description.
    let measure = question.words.iter().any(|w| {
        matches!(
            w.as_str(),
            "ml" | "mililitros"
                | "litro"
                | "litros"
                | "onzas"
                | "oz"
                | "gramos"
                | "gr"
                | "mg"
                | "miligramos"
                | "calorias"
                | "kcal"
                | "tamano"
                | "porciones"
                | "centimetros"
                | "cm"
        ) && !tokens(&description).iter().any(|d| same_word(d, w))
    });
    if measure {
        return None;
    }
    let mut text = match described.as_slice() {
        [word, ..] if !asks_it => format!(
            "Sí, {} lleva {word}: {}",
            the(&product.name),
            product.description
        ),
        _ => format!("{}: {}", product.name, product.description),
    };
    // «cuánto cuesta el cheesecake y de qué es»: its price asked beside.
    let priced = question.words.iter().any(|w| {
        matches!(
            w.as_str(),
            "cuanto" | "cuesta" | "cuestan" | "precio" | "vale" | "valen" | "sale" | "costaria"
        )
    });
    if priced {
        text.push_str(&format!(
            " Precio: {}.",
            crate::text::money(product.price_minor, currency)
        ));
    }
    if !product.allergens.is_empty() {
        text.push_str(&format!(" Alérgenos: {}.", product.allergens.join(", ")));
    }
    steps.push(Step::Catalog { products: 1 });
    Some(Answer {
        text,
        sources: vec![Source::Product {
            id: product.id,
            sku: product.sku.clone(),
            name: product.name.clone(),
        }],
        gray: false,
        steps: std::mem::take(steps),
        verdict: (!asks_it).then_some(true),
    })
}

/// A product's name with its article: «la Limonada», «el Matcha». A name whose
/// first word ends in an unstressed «a» is feminine, except the loanwords and
/// fruits that end so and are said with «el» («el matcha», «el maracuyá»).
fn the(name: &str) -> String {
    if feminine(name) {
        format!("la {name}")
    } else {
        format!("el {name}")
    }
}

fn feminine(name: &str) -> bool {
    let first = name
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_lowercase();
    // («el agua», with its stressed «a»; «la leche».)
    (first.ends_with('a')
        && !matches!(
            first.as_str(),
            "matcha" | "maracuya" | "maracuyá" | "agua" | "te" | "té"
        ))
        || first == "leche"
}

/// An adjective that agrees with the product: «fría», «vegana» for «la
/// Limonada»; words of more than one or not ending in «o» stay as they are.
fn agreeing(adjective: &str, name: &str) -> String {
    match adjective.strip_suffix('o') {
        Some(stem) if feminine(name) && !adjective.contains(' ') => format!("{stem}a"),
        _ => adjective.to_owned(),
    }
}

/// The product's tag that rules an allergen out («vegano» for dairy and egg,
/// «sin gluten» for gluten), if it has one.
fn rules_out<'a>(product: &'a Product, attribute: &str) -> Option<&'a str> {
    let excluding: &[&str] = match attribute {
        "lácteos" | "huevo" => &["vegano", "vegana"],
        "gluten" => &["sin gluten"],
        _ => &[],
    };
    product
        .tags
        .iter()
        .find(|t| excluding.contains(&normalize(t).as_str()))
        .map(String::as_str)
}

/// The weekdays a range in `words` spans without naming them: «lunes a
/// viernes» holds «martes», «miércoles» and «jueves».
fn days_between(words: &[&str]) -> Vec<&'static str> {
    const WEEK: [&str; 7] = [
        "lunes",
        "martes",
        "miercoles",
        "jueves",
        "viernes",
        "sabado",
        "domingo",
    ];
    let day = |w: &str| {
        WEEK.iter()
            .position(|d| *d == w.trim_end_matches('s') || *d == w)
    };
    let mut out = Vec::new();
    for window in words.windows(3) {
        if let (Some(from), "a" | "al", Some(to)) = (day(window[0]), window[1], day(window[2]))
            && from < to
        {
            out.extend(WEEK[from + 1..to].iter().copied());
        }
    }
    out
}

/// Whether a title names one of `topics` (a question's words widened to their
/// topics).
fn titled(title: &str, topics: &[String]) -> bool {
    tokens(&normalize(title))
        .into_iter()
        .filter(|t| t.len() >= 4)
        .any(|t| topics.iter().any(|w| same_word(w, t)))
}

/// Every figure and every product or place a written answer gives must be in the
/// cited passages or the catalog.
pub fn check(answer: &str, cited: &[&Hit], catalog: &CatalogIndex) -> Result<(), String> {
    let mut known = String::new();
    for hit in cited {
        known.push_str(&hit.text);
        known.push(' ');
        known.push_str(&hit.title);
        known.push(' ');
    }
    let mut known_figures: BTreeSet<Figure> = BTreeSet::new();
    for figure in figures(&known) {
        known_figures.extend(figure.readings());
    }
    // A product's price may be given when the answer names the product.
    let folded_answer = normalize(answer);
    let said = tokens(&folded_answer);
    for product in catalog.active() {
        let name = normalize(&product.name);
        let named = tokens(&name)
            .into_iter()
            .filter(|w| w.chars().count() >= 4)
            .any(|w| said.iter().any(|s| same_word(s, w)));
        if named {
            known_figures.insert(Figure::Number(product.price_minor));
        }
        known.push_str(&format!(" {} {} ", product.name, product.description));
    }
    for figure in figures(answer) {
        if !known_figures.contains(&figure) {
            return Err(format!("the figure {figure} is not in the passages"));
        }
    }
    let known_words: BTreeSet<String> = tokens(&normalize(&known))
        .into_iter()
        .map(str::to_owned)
        .collect();
    // Names: capitalized words past the start of a sentence.
    for sentence in sentences(answer) {
        for (k, raw) in sentence.split_whitespace().enumerate() {
            let word: String = raw.chars().filter(|c| c.is_alphanumeric()).collect();
            let capitalized = word.chars().next().is_some_and(char::is_uppercase);
            if k == 0 || !capitalized || word.chars().count() < 3 {
                continue;
            }
            let folded = normalize(&word);
            if !known_words.iter().any(|w| same_word(w, &folded)) {
                return Err(format!("«{word}» is not in the passages"));
            }
        }
    }
    Ok(())
}

/// A figure an answer gives: a time of day, or a number (in hundredths, so
/// "Bs 10", "10.00" and "10,00" are one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Figure {
    Time(u32, u32),
    Number(i64),
}

impl Figure {
    /// The ways a passage's figure may be given back: «9:00» as «9», «14» as
    /// «14:00».
    fn readings(self) -> Vec<Figure> {
        match self {
            Figure::Time(h, 0) => vec![self, Figure::Number(i64::from(h) * 100)],
            Figure::Time(..) => vec![self],
            Figure::Number(n) if n % 100 == 0 && (0..=2400).contains(&n) => {
                vec![self, Figure::Time((n / 100) as u32, 0)]
            }
            Figure::Number(_) => vec![self],
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Figure::Time(h, m) => write!(f, "{h}:{m:02}"),
            Figure::Number(n) if n % 100 == 0 => write!(f, "{}", n / 100),
            Figure::Number(n) => write!(f, "{}", *n as f64 / 100.0),
        }
    }
}

/// Every figure written in digits in `text`: «7:30» is a time, «Bs 12,50» a
/// number.
fn figures(text: &str) -> Vec<Figure> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let digits = |from: usize, to: usize| -> String { chars[from..to].iter().collect() };
        let two_after = |at: usize| {
            chars.get(at + 1).is_some_and(char::is_ascii_digit)
                && chars.get(at + 2).is_some_and(char::is_ascii_digit)
                && !chars.get(at + 3).is_some_and(char::is_ascii_digit)
        };
        if chars.get(i) == Some(&':') && two_after(i) {
            let hours: u32 = digits(start, i).parse().unwrap_or(u32::MAX);
            let minutes: u32 = digits(i + 1, i + 3).parse().unwrap_or(u32::MAX);
            out.push(Figure::Time(hours, minutes));
            i += 3;
            continue;
        }
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || ((chars[i] == '.' || chars[i] == ',')
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
        {
            i += 1;
        }
        if let Some(n) = crate::text::numbers_in_hundredths(&digits(start, i)).first() {
            out.push(Figure::Number(*n));
        }
    }
    out
}

/// Tags and allergens a question may ask about, as customers write them, with
/// the tag or allergen they mean.
const ATTRIBUTE_WORDS: &[(&str, &str)] = &[
    ("frio", "frío"),
    ("fria", "frío"),
    ("frios", "frío"),
    ("frias", "frío"),
    ("helado", "frío"),
    ("helada", "frío"),
    ("fresco", "frío"),
    ("fresca", "frío"),
    ("caliente", "caliente"),
    ("calientes", "caliente"),
    ("calientito", "caliente"),
    ("cafeina", "sin cafeína"),
    ("descafeinado", "sin cafeína"),
    ("vegano", "vegano"),
    ("vegan", "vegano"),
    ("vegana", "vegano"),
    ("veganos", "vegano"),
    ("veganas", "vegano"),
    ("dulce", "dulce"),
    ("dulces", "dulce"),
    ("salado", "salado"),
    ("salada", "salado"),
    ("postre", "postre"),
    ("postres", "postre"),
    ("bebida", "bebida"),
    ("bebidas", "bebida"),
    ("tomar", "bebida"),
    ("gluten", "gluten"),
    ("celiaco", "gluten"),
    ("celiacos", "gluten"),
    ("lactosa", "lácteos"),
    ("lacteos", "lácteos"),
    ("nueces", "frutos secos"),
    ("secos", "frutos secos"),
    ("nuez", "frutos secos"),
    ("mani", "frutos secos"),
    ("almendra", "frutos secos"),
    ("almendras", "frutos secos"),
    ("huevo", "huevo"),
    ("huevos", "huevo"),
    ("soya", "soya"),
    ("soja", "soya"),
    // What tourists ask in English.
    ("nuts", "frutos secos"),
    ("nut", "frutos secos"),
    ("peanuts", "frutos secos"),
    ("almonds", "frutos secos"),
    ("dairy", "lácteos"),
    ("milk", "lácteos"),
    ("lactose", "lácteos"),
    ("eggs", "huevo"),
    ("egg", "huevo"),
    ("soy", "soya"),
    ("cold", "frío"),
    ("hot", "caliente"),
    ("sweet", "dulce"),
    ("decaf", "sin cafeína"),
];

/// Whether `word` says what a product is like (an attribute the catalog reads).
fn attribute_word(word: &str) -> bool {
    ATTRIBUTE_WORDS.iter().any(|(said, _)| *said == word)
}

/// The tags and allergens a question asks about.
pub fn attributes_asked(question: &Question) -> Vec<&'static str> {
    let mut out = Vec::new();
    // «¿lleva leche?» asks about dairy; «leche de almendras», «leche vegetal»
    // or «deslactosada» ask about another milk (the knowledge's to answer).
    let other_milk = super::words::asks_another_milk(&question.folded);
    for word in &question.words {
        // «¿el matcha tiene café?»: whether it has caffeine, not the coffee.
        let caffeine = word == "cafe"
            && [
                "tiene cafe",
                "lleva cafe",
                "trae cafe",
                "tienen cafe",
                "llevan cafe",
            ]
            .iter()
            .any(|p| crate::text::contains_phrase(&question.folded, p));
        if caffeine && !out.contains(&"con cafeína") {
            out.push("con cafeína");
            continue;
        }
        if word == "leche" && !other_milk && !out.contains(&"lácteos") {
            out.push("lácteos");
        }
        // «leche de almendras» is a milk, not a nut asked about.
        if other_milk && word.starts_with("almendra") {
            continue;
        }
        // «¿el chai tiene cafeína?» asks whether it has it; «sin cafeína»
        // whether it has none.
        if word == "cafeina" {
            let without = question
                .folded
                .split(' ')
                .collect::<Vec<_>>()
                .windows(2)
                .any(|w| matches!(w[0], "sin" | "no") && w[1] == "cafeina");
            let meant = if without {
                "sin cafeína"
            } else {
                "con cafeína"
            };
            if !out.contains(&meant) {
                out.push(meant);
            }
            continue;
        }
        for (said, meant) in ATTRIBUTE_WORDS {
            if said == word && !out.contains(meant) {
                out.push(*meant);
            }
        }
    }
    out
}

/// A question about what products are like, answered from the catalog: a named
/// product's tags, allergens and description, or the products with a tag.
fn from_catalog(ask: &Ask<'_>, question: &Question, steps: &mut Vec<Step>) -> Option<Answer> {
    let asked = attributes_asked(question);
    // «¿Las bebidas son sin gluten?» asks of every drink, not of the product
    // talked about before.
    let named: Vec<&Product> = if asks_of_a_kind(question) {
        Vec::new()
    } else {
        ask.products
            .iter()
            .filter_map(|id| ask.catalog.get(*id))
            .filter(|p| p.active)
            .collect()
    };
    // «¿El chocolate caliente es dulce?» does not ask whether it is hot.
    let asked: Vec<&str> = match named.as_slice() {
        [product] => {
            let name = normalize(&product.name);
            asked
                .into_iter()
                .filter(|a| !tokens(&name).contains(&normalize(a).as_str()))
                .collect()
        }
        _ => asked,
    };
    if asked.is_empty() {
        return made_of(question, &named, ask.currency, steps);
    }
    let source = |p: &Product| Source::Product {
        id: p.id,
        sku: p.sku.clone(),
        name: p.name.clone(),
    };
    // The description says it only with every word that names the attribute
    // («frutos rojos» is no «frutos secos», «con leche» no «con cafeína») or,
    // for nuts, with a nut it names («base de nueces»); never with a word it
    // denies («sin gluten», «libre de maní»), and never an absence.
    let has = |p: &Product, attribute: &str| {
        let attribute = normalize(attribute);
        let folded = normalize(&p.description);
        let all = tokens(&folded);
        let described: Vec<&str> = all
            .iter()
            .enumerate()
            .filter(|(k, _)| {
                !all[k.saturating_sub(2)..*k]
                    .iter()
                    .any(|w| matches!(*w, "sin" | "no" | "libre" | "cero"))
            })
            .map(|(_, w)| *w)
            .collect();
        let named: Vec<&str> = attribute
            .split(' ')
            .filter(|a| !matches!(*a, "con" | "de" | "y"))
            .collect();
        let nut = attribute == "frutos secos"
            && described
                .iter()
                .any(|w| NUTS.iter().any(|n| same_word(n, w)));
        p.tags
            .iter()
            .chain(&p.allergens)
            .any(|t| normalize(t) == attribute)
            || nut
            || (!attribute.starts_with("sin ")
                && !named.is_empty()
                && named
                    .iter()
                    .all(|a| described.iter().any(|w| same_word(a, w))))
    };
    let allergen = |attribute: &str| {
        matches!(
            attribute,
            "gluten" | "lácteos" | "frutos secos" | "huevo" | "soya"
        )
    };
    if let [product] = named.as_slice() {
        let mut lines = Vec::new();
        // Caffeine is told by either tag: «con cafeína» or «sin cafeína» (a
        // tag first, then the description).
        let tagged = |tag: &str| product.tags.iter().any(|t| normalize(t) == normalize(tag));
        let caffeine = |attribute: &str| -> Option<bool> {
            let with = match attribute {
                "con cafeína" => true,
                "sin cafeína" => false,
                _ => return None,
            };
            let has_it = if tagged("con cafeína") {
                true
            } else if tagged("sin cafeína") {
                false
            } else if has(product, "con cafeína") {
                true
            } else if has(product, "sin cafeína") {
                false
            } else {
                return None;
            };
            Some(has_it == with)
        };
        let verdict = match asked.as_slice() {
            [attribute] if attribute.ends_with("cafeína") => caffeine(attribute),
            [attribute] => Some(has(product, attribute)),
            _ => None,
        };
        for attribute in &asked {
            if attribute.ends_with("cafeína") {
                let has_it = caffeine("con cafeína");
                let text = match (has_it, *attribute == "con cafeína") {
                    (Some(true), true) => format!("Sí, {} tiene cafeína.", the(&product.name)),
                    (Some(false), true) => format!("No, {} no tiene cafeína.", the(&product.name)),
                    (Some(true), false) => format!("No, {} tiene cafeína.", the(&product.name)),
                    (Some(false), false) => format!("Sí, {} no tiene cafeína.", the(&product.name)),
                    // Neither tag: not knowing is not «no».
                    (None, _) => return None,
                };
                lines.push(text);
                continue;
            }
            let text = if has(product, attribute) {
                if allergen(attribute) {
                    format!("Sí, {} lleva {attribute}.", the(&product.name))
                } else {
                    format!(
                        "Sí, {} es {}.",
                        the(&product.name),
                        agreeing(attribute, &product.name)
                    )
                }
            } else if let Some(tag) = rules_out(product, attribute) {
                // «vegano» holds no dairy or egg, «sin gluten» no gluten: the
                // shop said so by the tag.
                format!(
                    "No, {} no lleva {attribute} (es {}).",
                    the(&product.name),
                    agreeing(tag, &product.name)
                )
            } else if allergen(attribute) && !product.allergens.is_empty() {
                format!(
                    "{} no lleva {attribute} según la tienda (lleva: {}).",
                    crate::text::capitalized(&the(&product.name)),
                    product.allergens.join(", ")
                )
            } else if allergen(attribute) {
                // No allergens declared: not knowing is not «no».
                return None;
            } else {
                format!(
                    "No, {} no es {}.",
                    the(&product.name),
                    agreeing(attribute, &product.name)
                )
            };
            lines.push(text);
        }
        if !product.description.is_empty() {
            lines.push(format!("({})", product.description));
        }
        steps.push(Step::Catalog { products: 1 });
        return Some(Answer {
            text: lines.join(" "),
            sources: vec![source(product)],
            gray: false,
            steps: std::mem::take(steps),
            verdict,
        });
    }
    if !named.is_empty() {
        return None;
    }
    // "¿Algo sin cafeína?", "¿qué tienen frío?": the products that are so.
    // «sin gluten», «que no tenga gluten», «libre de nueces»: what is asked
    // is without it.
    let wants_without = question.words.iter().any(|w| w == "sin")
        || question.folded.contains(" sin ")
        || question.folded.starts_with("sin ")
        || [
            "no tenga",
            "no tengan",
            "no lleve",
            "no lleven",
            "no contenga",
            "no contengan",
            "libre de",
            "libres de",
        ]
        .iter()
        .any(|phrase| crate::text::contains_phrase(&question.folded, phrase));
    let fitting: Vec<&Product> = ask
        .catalog
        .active()
        .filter(|p| {
            asked.iter().all(|a| {
                if allergen(a) && wants_without {
                    !p.allergens.is_empty() && !has(p, a)
                } else {
                    has(p, a)
                }
            })
        })
        .collect();
    if fitting.is_empty() {
        return None;
    }
    steps.push(Step::Catalog {
        products: fitting.len(),
    });
    let names: Vec<String> = fitting.iter().map(|p| p.name.clone()).collect();
    // («bebida, sin gluten»: an allergen asked without is said without.)
    let what = asked
        .iter()
        .map(|a| {
            if allergen(a) && wants_without {
                format!("sin {a}")
            } else if allergen(a) {
                format!("con {a}")
            } else {
                (*a).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    Some(Answer {
        text: format!("De lo que tenemos, es {what}: {}.", names.join(", ")),
        sources: fitting.iter().map(|p| source(p)).collect(),
        gray: false,
        steps: std::mem::take(steps),
        verdict: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_derived_word_or_a_thing_of_a_topic_never_written_is_unknown() {
        let written = ["estacion", "teleferico", "calle", "direccion", "aceptamos"];
        let library = Library::of(
            written.iter().map(|w| (w.to_string(), 1)).collect(),
            &CatalogIndex::new(Vec::new()),
        );
        assert!(library.knows("aceptan") && library.knows("estaciones"));
        for unknown in ["estacionamiento", "sucursal", "parqueo"] {
            assert!(!library.knows(unknown), "{unknown}");
        }
        assert!(super::super::words::topic_of("parqueo").is_some());
        // «llego» is as common as the «llegar» and «llega» written, not rare
        // for being unwritten.
        let library = Library::of(
            [("llegar", 3), ("llega", 2), ("teleferico", 1)]
                .iter()
                .map(|(w, n)| (w.to_string(), *n))
                .collect(),
            &CatalogIndex::new(Vec::new()),
        );
        assert!(library.rarity("llego") < library.rarity("teleferico"));
    }

    #[test]
    fn a_sentence_beside_the_catalog_speaks_of_the_product_and_the_attribute_asked() {
        let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let (matcha, hot) = (words(&["matcha"]), words(&["frio", "caliente"]));
        assert!(speaks_of(
            "- **Matcha**: nuestro matcha latte se sirve siempre frío, con hielo.",
            &matcha,
            &hot
        ));
        // The product without the attribute, or the attribute of another.
        assert!(!speaks_of(
            "El matcha lleva leche de almendras.",
            &matcha,
            &hot
        ));
        assert!(!speaks_of(
            "Las bebidas calientes van en vaso sellado.",
            &matcha,
            &hot
        ));
        // «las bebidas» asks of a kind; «la bebida del día» is no plural kind.
        let kind = Question::new("¿Las bebidas sí son sin gluten?");
        assert!(asks_of_a_kind(&kind));
        assert_eq!(
            subject_and_attributes(&kind, &[]),
            (words(&["bebidas"]), words(&["gluten"]))
        );
        assert!(!asks_of_a_kind(&Question::new(
            "¿el matcha es una bebida fría?"
        )));
        // A claim told is the subject; asked with a mark, its words count.
        assert!(tells_a_claim(
            "Ayer me llegó el pedido con el capuchino derramado, recién veo el chat"
        ));
        assert!(!tells_a_claim(
            "me llegó el capuchino derramado, ¿me pagan el taxi?"
        ));
        assert!(!tells_a_claim("ayer recién veo el chat"));
        // Of a kind, only an allergen is looked for.
        let hot_drinks = Question::new("¿las bebidas son calientes?");
        assert!(subject_and_attributes(&hot_drinks, &[]).1.is_empty());
    }

    #[test]
    fn a_line_of_a_list_is_about_its_label() {
        assert_eq!(label_of("- **Anticipo**: 50% al confirmar"), "anticipo");
        assert_eq!(
            label_of("**Feriados**: cerramos el 1 de enero."),
            "feriados"
        );
        assert_eq!(label_of("- **QR Simple**: desde la app"), "qr simple");
        // Bold inside a sentence is no label.
        assert_eq!(label_of("Estamos en la **Calle Guachalla 512**."), "");
        assert_eq!(label_of("- Domingos: 9:00 a 14:00"), "");
    }

    #[test]
    fn a_question_goes_on_from_the_last_only_when_it_says_so() {
        for on in [
            "¿y los domingos?",
            "y cuanto demora",
            "e com cartão?",
            "Y si pido harto?",
        ] {
            assert!(goes_on(on), "{on}");
        }
        for alone in ["¿a qué hora abren?", "los domingos abren?", "ya pagué"] {
            assert!(!goes_on(alone), "{alone}");
        }
    }

    fn hit(text: &str) -> Hit {
        Hit {
            entry_id: 1,
            title: "Horario".into(),
            ord: 0,
            text: text.into(),
            score: 1.0,
        }
    }

    #[test]
    fn a_product_takes_its_article_and_its_adjectives_agree() {
        assert_eq!(the("Limonada"), "la Limonada");
        assert_eq!(the("Matcha"), "el Matcha");
        assert_eq!(the("Maracuya"), "el Maracuya");
        assert_eq!(the("Té chai"), "el Té chai");
        assert_eq!(the("Torta de chocolate"), "la Torta de chocolate");
        assert_eq!(the("Crema volteada"), "la Crema volteada");
        assert_eq!(the("Agua mineral"), "el Agua mineral");
        assert_eq!(the("Leche asada"), "la Leche asada");
        assert_eq!(agreeing("frío", "Limonada"), "fría");
        assert_eq!(agreeing("vegano", "Limonada"), "vegana");
        assert_eq!(agreeing("vegano", "Brownie"), "vegano");
        assert_eq!(agreeing("sin gluten", "Limonada"), "sin gluten");
        assert_eq!(agreeing("dulce", "Limonada"), "dulce");
    }

    fn catalog() -> CatalogIndex {
        CatalogIndex::new(vec![Product {
            id: 1,
            sku: "limonada".into(),
            name: "Limonada".into(),
            description: "Con hierbabuena.".into(),
            price_minor: 1800,
            active: true,
            tags: vec![],
            allergens: vec![],
            stock: None,
            reserved: 0,
            available: None,
        }])
    }

    #[test]
    fn an_english_question_on_a_written_topic_is_read_by_its_topic() {
        let library = Library::of(
            [("delivery", 2), ("zonas", 1), ("horario", 1)]
                .iter()
                .map(|(w, n)| (w.to_string(), *n))
                .collect(),
            &catalog(),
        );
        let beside = |asked: &str| {
            english_beside_a_written_topic(asked, &Question::new(asked).words, &library)
        };
        assert!(beside("Can you deliver it to my office building?"));
        assert!(beside("what time do you open on holidays"));
        // A topic nobody wrote about, or Spanish: not this.
        assert!(!beside("Is there parking for motorbikes?"));
        assert!(!beside("¿hacen delivery al hotel?"));
        assert!(!beside(
            "y pueden mandar a alguien que atienda a los invitados"
        ));
    }

    #[test]
    fn a_food_not_sold_is_known_only_as_written_not_by_a_word_sharing_its_stem() {
        let library = Library::of(
            [("galletas", 1), ("sopas", 1), ("frias", 2)]
                .iter()
                .map(|(w, n)| (w.to_string(), *n))
                .collect(),
            &catalog(),
        );
        // «gaseosas» beside «gaseosa» unwritten, «sanduches»: unknown.
        for unsold in ["gaseosas", "sanduche", "refresco"] {
            assert!(
                unsold_food_unwritten(unsold, &library, &catalog()),
                "{unsold}"
            );
        }
        // Written as such (either number), sold, or no food at all: known.
        for known in ["galleta", "galletas", "sopa", "limonada", "frias", "envio"] {
            assert!(
                !unsold_food_unwritten(known, &library, &catalog()),
                "{known}"
            );
        }
    }

    #[test]
    fn a_product_s_full_name_is_one_subject_and_its_kind_word_no_word_asked() {
        let alone = |w: &str| w == "chocolate";
        for asked in [
            "¿el chocolate caliente tiene café?",
            "the hot chocolate have coffee?",
        ] {
            let q = Question::new(asked);
            let words = words_beyond_names(&q, &["Chocolate caliente"], alone);
            assert!(
                words.contains(&"chocolate".to_owned()),
                "{asked}: {words:?}"
            );
            assert!(
                !words.contains(&"caliente".to_owned()),
                "{asked}: {words:?}"
            );
        }
        // Said apart from the name too, the word is asked.
        let q = Question::new("¿el chocolate caliente llega caliente?");
        let words = words_beyond_names(&q, &["Chocolate caliente"], alone);
        assert!(words.contains(&"caliente".to_owned()), "{words:?}");
        // No name said whole: nothing is left out.
        let q = Question::new("¿el chocolate es caliente?");
        let words = words_beyond_names(&q, &["Chocolate caliente"], alone);
        assert!(words.contains(&"caliente".to_owned()), "{words:?}");
    }

    #[test]
    fn a_sentence_speaks_of_an_attribute_in_any_word_that_means_it() {
        let subject = ["brownie".to_owned()];
        assert!(speaks_of(
            "Frutos secos: el brownie lleva nueces y el matcha se prepara con leche de almendras.",
            &subject,
            &["nuez".to_owned()]
        ));
        assert!(!speaks_of(
            "Gluten: el croissant, el brownie y el cheesecake llevan harina de trigo.",
            &subject,
            &["nuez".to_owned()]
        ));
    }

    #[test]
    fn the_kind_of_answer_asked_for_is_read_and_found_in_a_passage() {
        let wanted = |q: &str| Wanted::of(&normalize(q));
        assert_eq!(wanted("¿dónde quedan?"), Some(Wanted::Address));
        assert_eq!(
            wanted("y cuánto demora más o menos?"),
            Some(Wanted::Duration)
        );
        assert_eq!(
            wanted("cuanta gente entra en el local"),
            Some(Wanted::People)
        );
        assert_eq!(wanted("¿a qué hora cierran?"), Some(Wanted::Time));
        // «¿a dónde hacen delivery?» asks for zones, not the shop's address.
        assert_eq!(wanted("¿a dónde hacen delivery?"), None);
        assert!(Wanted::Address.held_by("Estamos en la Calle Fernando Guachalla 512, Sopocachi."));
        assert!(
            !Wanted::Address.held_by("En minibús: cualquiera que pase por la Av. 6 de Agosto.")
        );
        assert!(Wanted::Duration.held_by("Zona 3: Bs 20, de 60 a 90 minutos."));
        assert!(!Wanted::Duration.held_by("Los tiempos son estimados."));
        assert!(Wanted::People.held_by("Tenemos lugar para 28 personas."));
        assert_eq!(wanted("el qr hasta cuándo vale?"), Some(Wanted::Duration));
        assert_eq!(
            wanted("cuanto hay que adelantar para un pedido grande"),
            Some(Wanted::Amount)
        );
        assert!(Wanted::Duration.held_by("El QR vence en 24 horas."));
        assert!(Wanted::Amount.held_by("- **Anticipo**: 50% al confirmar."));
        assert!(Wanted::Amount.held_by("Zona 1: Bs 8, de 30 a 45 minutos."));
        assert!(!Wanted::Amount.held_by("Preparamos pedidos grandes para eventos."));
    }

    #[test]
    fn an_answer_gives_only_the_figures_and_names_of_its_passages() {
        let passage = hit("Los sábados abrimos de 9:00 a 14:00. Envío a Sopocachi: Bs 10.");
        let cited = [&passage];
        let ok = |answer: &str| check(answer, &cited, &catalog());
        assert!(ok("Los sábados atendemos de 9:00 a 14:00.").is_ok());
        assert!(
            ok("El sábado, de 9 a 14.").is_ok(),
            "a time given as an hour"
        );
        assert!(ok("A Sopocachi el envío cuesta Bs 10,00.").is_ok());
        // 18 is a price in the catalog, not an hour the passage gives.
        assert!(ok("Los sábados abrimos de 9:00 a 18:00.").is_err());
        assert!(
            ok("El envío cuesta Bs 18.").is_err(),
            "a price only with its product"
        );
        assert!(ok("La Limonada cuesta Bs 18.").is_ok());
        assert!(
            ok("También llevamos a Calacoto.").is_err(),
            "a place not in the passage"
        );
    }

    #[test]
    fn a_date_is_answered_only_by_a_passage_that_names_it() {
        let passage = |text: &str| Passage {
            hit: hit(text),
            text: text.into(),
            matched: BTreeSet::new(),
        };
        let week = passage("Lunes a viernes: 7:30 a 20:00. Domingos: 9:00 a 14:00.");
        let holidays = passage("Feriados: cerramos el 1 de mayo y el 25 de diciembre.");
        let asked = |q: &str| Question::new(q);
        assert!(!week.holds_dates_of(&asked("el 24 de diciembre hasta qué hora atienden?")));
        assert!(!week.holds_dates_of(&asked("abren el viernes santo?")));
        assert!(!holidays.holds_dates_of(&asked("el 24 de diciembre abren?")));
        assert!(holidays.holds_dates_of(&asked("abren el 25 de diciembre?")));
        assert!(week.holds_dates_of(&asked("a qué hora abren los domingos?")));
    }
}
