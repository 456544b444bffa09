//! A question as retrieval reads it: its key words (folded, without the words
//! every question has), and the words a shop's customers use for the same thing
//! ("delivery" for «envío», «parqueo» for «estacionamiento»), for the refined
//! search when the first finds too little.

use crate::text::{normalize, tokens};

/// Words that carry no subject: articles, pronouns, question words, politeness,
/// and verbs every question uses.
const STOP: &[&str] = &[
    "a",
    "al",
    "algo",
    "alguna",
    "alguno",
    "algun",
    "ante",
    "aqui",
    "asi",
    "bien",
    "bueno",
    "buenas",
    "buenos",
    "cada",
    "como",
    "con",
    "cual",
    "cuales",
    "cuando",
    "cuanto",
    "cuanta",
    "cuantos",
    "cuantas",
    "de",
    "del",
    "desde",
    "donde",
    "el",
    "ella",
    "ellos",
    "en",
    "entre",
    "era",
    "es",
    "esa",
    "ese",
    "eso",
    "esta",
    "estan",
    "este",
    "esto",
    "estoy",
    "favor",
    "fue",
    "gracias",
    "hay",
    "hola",
    "la",
    "las",
    "le",
    "les",
    "lo",
    "los",
    "mas",
    "me",
    "mi",
    "mis",
    "mucho",
    "muy",
    "nada",
    "ni",
    "no",
    "nos",
    "o",
    "otra",
    "otro",
    "para",
    "pero",
    "poco",
    "por",
    "porfa",
    "porfavor",
    "pregunta",
    "preguntar",
    "puede",
    "pueden",
    "puedo",
    "pues",
    "que",
    "quiero",
    "quisiera",
    "saber",
    "se",
    "sera",
    "ser",
    "si",
    "sin",
    "sobre",
    "solo",
    "son",
    "su",
    "sus",
    "tambien",
    "te",
    "tendran",
    "tener",
    "tengo",
    "tiene",
    "tienen",
    "tienes",
    "todo",
    "todos",
    "tu",
    "tus",
    "u",
    "un",
    "una",
    "uno",
    "unos",
    "unas",
    "usted",
    "ustedes",
    "va",
    "van",
    "vos",
    "y",
    "ya",
    "yo",
    "hacen",
    "hace",
    "hacer",
    "dan",
    "dar",
    "ofrecen",
    "manejan",
    "cuentan",
    "tan",
    "ahi",
    "alli",
    "entonces",
    "oiga",
    "disculpe",
    "consulta",
    "info",
    "informacion",
    "necesito",
    "quería",
    "queria",
    "podria",
    "podrian",
    "seria",
    "hoy",
    "ahora",
    "acaso",
    "ok",
];

/// Words customers use for the same thing; the refined search adds the group.
const SAME: &[&[&str]] = &[
    &[
        "envio",
        "envios",
        "delivery",
        "domicilio",
        "reparto",
        "despacho",
        "mandan",
        "envian",
        "llevan",
        "entrega",
        "entregas",
    ],
    &[
        "horario", "horarios", "hora", "horas", "abren", "abierto", "cierran", "cerrado",
        "atienden", "atencion",
    ],
    &[
        "pago",
        "pagos",
        "pagar",
        "tarjeta",
        "tarjetas",
        "qr",
        "transferencia",
        "efectivo",
        "cobran",
    ],
    &[
        "alergia",
        "alergias",
        "alergeno",
        "alergenos",
        "gluten",
        "celiaco",
        "lactosa",
        "lacteos",
        "nueces",
        "frutos",
    ],
    &[
        "vegano",
        "vegana",
        "veganos",
        "vegetariano",
        "vegetal",
        "almendras",
        "plant",
    ],
    &[
        "devolucion",
        "devoluciones",
        "devolver",
        "reembolso",
        "reclamo",
        "reclamos",
        "queja",
        "quejas",
        "cambio",
    ],
    &["factura", "facturas", "facturan", "nit", "comprobante"],
    &[
        "evento",
        "eventos",
        "fiesta",
        "cumpleanos",
        "catering",
        "mayor",
        "grande",
        "encargo",
        "anticipacion",
    ],
    &["wifi", "internet", "clave", "contrasena"],
    &["mascota", "mascotas", "perro", "perros", "gato", "pet"],
    &[
        "estacionamiento",
        "parqueo",
        "parqueos",
        "estacionar",
        "parking",
        "auto",
    ],
    &[
        "direccion",
        "ubicacion",
        "donde",
        "ubicados",
        "llegar",
        "calle",
        "local",
        "sucursal",
    ],
    &["recoger", "recojo", "pasar", "retirar", "llevar", "pickup"],
    &["minimo", "monto", "compra"],
    &["cafeina", "descafeinado"],
];

/// Key words of a text: folded, two letters or more, not a stop word.
pub fn key_words(text: &str) -> Vec<String> {
    let folded = normalize(text);
    let mut out: Vec<String> = Vec::new();
    for word in tokens(&folded) {
        if word.chars().count() >= 2 && !STOP.contains(&word) && !out.iter().any(|w| w == word) {
            out.push(word.to_owned());
        }
    }
    out
}

/// A customer's question, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub folded: String,
    pub words: Vec<String>,
}

impl Question {
    pub fn new(text: &str) -> Self {
        Question {
            folded: normalize(text),
            words: key_words(text),
        }
    }

    /// The key words with the words customers use for the same things.
    pub fn widened(&self) -> Vec<String> {
        let mut out = self.words.clone();
        for word in &self.words {
            for group in SAME {
                if group.iter().any(|g| same_word(g, word)) {
                    for other in group.iter() {
                        if !out.iter().any(|w| w == other) {
                            out.push((*other).to_owned());
                        }
                    }
                }
            }
        }
        out
    }
}

/// The Spanish stem of a folded word: «aceptan», «aceptamos» and «acepta» share
/// one (Snowball's Spanish stemmer, as PostgreSQL's `spanish` full text uses).
pub fn stem(word: &str) -> String {
    static STEMMER: std::sync::LazyLock<rust_stemmers::Stemmer> = std::sync::LazyLock::new(|| {
        rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::Spanish)
    });
    STEMMER.stem(word).into_owned()
}

/// The same word give or take a plural, a person of the verb or a typo:
/// "envíos"/"envio", "aceptan"/"aceptamos", "orario"/"horario".
pub fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if a.len() >= 4 && b.len() >= 4 && stem(a) == stem(b) {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() >= 4 && long.starts_with(short) && long.len() - short.len() <= 2 {
        return true;
    }
    short.len() >= 5 && strsim::levenshtein(a, b) <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_keeps_its_subject_and_drops_the_rest() {
        assert_eq!(
            key_words("¿A qué hora abren los domingos?"),
            ["hora", "abren", "domingos"]
        );
        assert_eq!(
            key_words("hacen delivery a sopocachi?"),
            ["delivery", "sopocachi"]
        );
        let widened = Question::new("¿hacen delivery?").widened();
        assert!(widened.contains(&"envio".to_owned()), "{widened:?}");
        assert!(same_word("envios", "envio") && same_word("orario", "horario"));
        assert!(!same_word("pan", "pago"));
        assert!(same_word("aceptan", "aceptamos") && same_word("envian", "envios"));
        assert!(!same_word("pago", "pagina"));
    }
}
