//! What kind of message a customer sent, before any proposer reads it (the
//! guarded chatbot's classifier): a shop request, small talk, something off the
//! shop's topic, or abuse. Decided by the backend; no proposer is asked.

use crate::text::{contains_phrase, normalize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageClass {
    /// Anything about products, the cart, the order or payment.
    Shop,
    /// Small talk: how are you, who are you, laughter.
    Social,
    /// A question the shop has nothing to do with.
    OffTopic,
    /// Insults.
    Abusive,
}

impl MessageClass {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageClass::Shop => "shop",
            MessageClass::Social => "social",
            MessageClass::OffTopic => "off_topic",
            MessageClass::Abusive => "abusive",
        }
    }
}

const ABUSIVE: &[&str] = &[
    "idiota",
    "idiotas",
    "estupido",
    "estupida",
    "imbecil",
    "pendejo",
    "pendeja",
    "pendejos",
    "tarado",
    "tarada",
    "inutil",
    "inutiles",
    "mierda",
    "carajo",
    "puta",
    "puto",
    "putos",
    "chinga",
    "chingada",
    "chingas",
    "verga",
    "cabron",
    "cabrona",
    "maldito",
    "maldita",
    "basura",
    "vete a la",
    "te odio",
    "callate",
    "animal",
    "burro",
    "burra",
    "pelotudo",
    "boludo",
    "huevon",
    "cojudo",
    "cojuda",
    "mamon",
    "ojete",
    "culero",
    "culera",
    // (Not «hijo de» alone: «es para mi hijo de 8 años».)
    "hijo de perra",
    "hijo de tu madre",
    "hijo de su madre",
];

const SOCIAL: &[&str] = &[
    "como estas",
    "como esta",
    "que tal estas",
    "como te va",
    "como vas",
    "quien eres",
    "eres un bot",
    "eres una persona",
    "eres real",
    "eres humano",
    "eres robot",
    "como te llamas",
    "te quiero",
    "eres lo maximo",
    "que haces",
    "todo bien",
    "bien y tu",
    "y tu",
    "mucho gusto",
    "encantado",
    "encantada",
];

const OFF_TOPIC: &[&str] = &[
    "clima",
    "lluvia",
    "llover",
    "futbol",
    "partido",
    "mundial",
    "gol",
    "politica",
    "presidente",
    "elecciones",
    "chiste",
    "cuentame un chiste",
    "tarea",
    "capital de",
    "quien gano",
    "receta",
    "horoscopo",
    "bitcoin",
    "criptomoneda",
    "noticias",
    "que hora es",
    "que dia es",
    "pelicula",
    "cancion",
    "novia",
    "novio",
    "matematicas",
    "traduce",
    "traducir",
    "dolar",
    "bolsa de valores",
];

/// Words of a question about the shop's own service: with them, «¿aceptan
/// bitcoin?» or «¿reciben dólares?» is for the shop, not off topic.
const SERVICE: &[&str] = &[
    "aceptan",
    "aceptas",
    "acepta",
    "reciben",
    "recibes",
    "cobran",
    "pagar",
    "pago",
    "pagos",
    "envio",
    "envios",
    "delivery",
    "domicilio",
    "abren",
    "cierran",
    "horario",
    "atienden",
    "factura",
    "local",
    "tienda",
];

/// Words of someone shopping: «y algo dulce pa' mi novia, ¿qué tienen?» is a
/// request, whatever else it mentions.
const SHOPPING: &[&str] = &[
    "que tienen",
    "que tienes",
    "tienen algo",
    "algo dulce",
    "algo frio",
    "algo caliente",
    "algo salado",
    "algo rico",
    // «algo sin lactosa», «algo con cafeína», «algo de tomar»: a kind asked for.
    "algo sin",
    "algo con",
    "algo de",
    "algo para",
    "para mi novia",
    "para mi novio",
    "quiero pedir",
    "hacer un pedido",
    "mi pedido",
    "para llevar",
    "me das",
    "dame",
    "ponme",
    "agregame",
    "me llevo",
];

/// The class of `text`. `names_a_product` is true when the message names one of
/// the shop's products (then it is a shop message, whatever else it says).
pub fn classify(text: &str, names_a_product: bool) -> MessageClass {
    let text = normalize(text);
    let any = |list: &[&str]| list.iter().any(|p| contains_phrase(&text, p));
    if any(ABUSIVE) {
        return MessageClass::Abusive;
    }
    if names_a_product || any(SERVICE) || any(SHOPPING) {
        return MessageClass::Shop;
    }
    if any(OFF_TOPIC) {
        return MessageClass::OffTopic;
    }
    if any(SOCIAL) || only_laughter(&text) {
        return MessageClass::Social;
    }
    MessageClass::Shop
}

/// «jajaja», «xd»: laughing and nothing else («jaja ok, eso nomás» says more).
fn only_laughter(text: &str) -> bool {
    let words: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
    !words.is_empty()
        && words.iter().all(|w| {
            matches!(*w, "xd" | "lol" | "jsjs" | "jsjsjs")
                || (w.len() >= 4
                    && (w.starts_with("ja") || w.starts_with("je") || w.starts_with("ha"))
                    && w.chars().all(|c| matches!(c, 'j' | 'a' | 'e' | 'h')))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_told_apart() {
        assert_eq!(classify("quiero 2 matchas", true), MessageClass::Shop);
        assert_eq!(
            classify("Y algo dulce más pa' mi novia, ¿qué tienen?", false),
            MessageClass::Shop
        );
        assert_eq!(
            classify(
                "Y para mi novia algo sin lactosa, que le sienta fatal",
                false
            ),
            MessageClass::Shop
        );
        assert_eq!(classify("¿cómo estás?", false), MessageClass::Social);
        assert_eq!(classify("jajaja", false), MessageClass::Social);
        assert_eq!(classify("jaja ok, eso nomás", false), MessageClass::Shop);
        assert_eq!(
            classify("¿quién ganó el partido ayer?", false),
            MessageClass::OffTopic
        );
        assert_eq!(
            classify("cuéntame un chiste", false),
            MessageClass::OffTopic
        );
        assert_eq!(classify("eres un inútil", false), MessageClass::Abusive);
        assert_eq!(
            classify("el chocolate tiene café? es para mi hijo de 8 años", true),
            MessageClass::Shop
        );
        assert_eq!(classify("hijo de perra", false), MessageClass::Abusive);
        assert_eq!(
            classify("pinche bot idiota, dame el matcha", true),
            MessageClass::Abusive
        );
        assert_eq!(classify("¿qué tienen?", false), MessageClass::Shop);
        assert_eq!(classify("asdf", false), MessageClass::Shop);
        assert_eq!(classify("¿aceptan bitcoin?", false), MessageClass::Shop);
        assert_eq!(
            classify("¿cuánto está el dólar?", false),
            MessageClass::OffTopic
        );
    }
}
