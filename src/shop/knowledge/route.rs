//! Telling a question for the shop's knowledge from a shop request, clause by
//! clause, before any proposer reads the message: «¿hacen envíos a Miraflores? si
//! sí, mándame 2 brownies» is a question and an order. A question about a named
//! product's price or availability stays a shop request (the catalog answers it);
//! one about what a product is like, or about anything the catalog does not hold
//! (hours, delivery, payment, allergens, returns…), is a knowledge question.

use super::answer::{Library, attributes_asked};
use super::words::Question;
use crate::text::{normalize, tokens};

/// A message split into what the knowledge answers and what is left for the shop.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    /// The knowledge questions, as written.
    pub questions: Vec<String>,
    /// What is left, for the shop's proposer (empty when nothing is).
    pub rest: String,
}

/// Words a shop request or a question about a product's price is made of.
const SHOP: &[&str] = &[
    "cuanto",
    "cuesta",
    "cuestan",
    "precio",
    "precios",
    "sale",
    "salen",
    "vale",
    "valen",
    "carrito",
    "pedido",
    "pedir",
    "quiero",
    "dame",
    "ponme",
    "agrega",
    "agregame",
    "manda",
    "mandame",
    "mandeme",
    "quita",
    "catalogo",
    "menu",
    "carta",
    "tienen",
    "tienes",
    "hay",
    "venden",
    "algo",
    "recomiendas",
    "recomiendan",
    "recomienda",
    "recomendacion",
    "sugieres",
    "sugerencia",
    "rico",
    "rica",
    "ricos",
    "mejor",
    "favorito",
    "popular",
    "vendido",
    "total",
    "cuenta",
    "pagar",
    "confirmo",
    "confirmar",
    "cancelar",
    "cancela",
];

/// Words that open a question even without a question mark.
const OPENERS: &[&str] = &[
    "que", "cual", "cuales", "cuando", "donde", "como", "cuanto", "cuanta", "cuantos", "hacen",
    "tienen", "aceptan", "puedo", "podemos", "se", "hay", "abren", "atienden", "llegan", "mandan",
    "envian", "incluye", "lleva", "llevan", "tiene", "es", "son", "estan", "trabajan", "cobran",
    "dan", "emiten", "facturan", "reciben", "permiten", "sirven",
];

/// Clauses of a message: sentences, and the parts of a sentence that «si sí»,
/// «y si no», «entonces» or a question mark set apart.
fn clauses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if matches!(c, '?' | '.' | '!' | ';' | '\n') {
            out.push(std::mem::take(&mut current));
        }
    }
    out.push(current);
    let mut split = Vec::new();
    for clause in out {
        let folded = normalize(&clause);
        let mut cut = None;
        for marker in [" si si ", " si es asi ", " entonces ", " si no "] {
            if let Some(at) = format!(" {folded} ").find(marker) {
                cut = Some((at, marker));
                break;
            }
        }
        match cut {
            // The marker's position in the folded text maps to the original only
            // roughly; cut at the matching word count instead.
            Some((at, marker)) => {
                let before_words = format!(" {folded} ")[..at].split_whitespace().count();
                let words: Vec<&str> = clause.split_whitespace().collect();
                let marker_words = marker.split_whitespace().count();
                split.push(words[..before_words.min(words.len())].join(" "));
                split.push(words[(before_words + marker_words).min(words.len())..].join(" "));
            }
            None => split.push(clause),
        }
    }
    split
        .into_iter()
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect()
}

/// Whether `clause` asks something.
fn asks(clause: &str) -> bool {
    let folded = normalize(clause);
    // Skip the small words a question may start with: «a qué hora», «y si»,
    // «oye, cuánto», «en dónde», «para cuándo».
    let first = tokens(&folded)
        .into_iter()
        .find(|w| !LEAD_INS.contains(w))
        .map(|w| w.to_string());
    clause.contains('?')
        || clause.trim_start().starts_with('¿')
        || first.is_some_and(|w| OPENERS.contains(&w.as_str()))
}

/// Words that may come before a question's opener.
const LEAD_INS: &[&str] = &[
    "a", "y", "e", "o", "oye", "oiga", "hola", "buenas", "en", "de", "para", "por", "desde",
    "hasta", "con", "pero", "entonces", "disculpa", "disculpe", "perdon", "una", "pregunta",
];

/// Splits `text` into knowledge questions and the rest. `product_words` are the
/// folded words of the catalog's names.
pub fn split(text: &str, library: &Library, names_product: impl Fn(&str) -> bool) -> Split {
    let mut split = Split::default();
    let mut rest = Vec::new();
    for clause in clauses(text) {
        if asks(&clause) && is_knowledge(&clause, library, &names_product) {
            split.questions.push(clause);
        } else {
            rest.push(clause);
        }
    }
    split.rest = rest.join(" ");
    split
}

/// A question the catalog's names and prices do not answer: about what a
/// product is like, or about something else the shop may know.
fn is_knowledge(clause: &str, library: &Library, names_product: &impl Fn(&str) -> bool) -> bool {
    let question = Question::new(clause);
    if !attributes_asked(&question).is_empty() {
        return true;
    }
    let names = names_product(clause);
    // What the question is about, beyond products and shop words.
    let subject: Vec<&String> = question
        .words
        .iter()
        .filter(|w| !SHOP.contains(&w.as_str()))
        .filter(|w| !library.is_catalog_word(w))
        .filter(|w| w.parse::<f64>().is_err())
        .collect();
    if subject.is_empty() {
        return false;
    }
    // «¿tienen brownie?»: the catalog answers; «¿el brownie es para llevar?» asks
    // something the catalog does not say.
    !names || subject.iter().any(|w| library.is_knowledge_word(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_cut_into_its_clauses() {
        assert_eq!(
            clauses("¿hacen envíos a Miraflores? si sí, mándame 2 brownies"),
            ["¿hacen envíos a Miraflores?", "mándame 2 brownies"]
        );
        assert_eq!(clauses("quiero 2 matchas"), ["quiero 2 matchas"]);
        assert!(asks("a que hora abren"));
        assert!(!asks("quiero 2 matchas"));
    }
}
