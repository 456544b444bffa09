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
    "sea",
    "sean",
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
    &["gratis", "gratuito", "gratuita"],
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
        "harina",
        "trigo",
        "celiaco",
        "celiaca",
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
    &["estacionamiento", "parqueo", "parqueos", "parking"],
    &[
        "direccion",
        "ubicacion",
        "donde",
        "ubicados",
        "llegar",
        "calle",
        "local",
    ],
    &["recoger", "recojo", "pasar", "retirar", "llevar", "pickup"],
    &["minimo", "monto", "compra"],
    &[
        "cobran",
        "cobra",
        "costo",
        "cuesta",
        "cuestan",
        "adicional",
        "extra",
        "cargo",
        "recargo",
    ],
    &["cafeina", "descafeinado"],
    // Someone else than the customer: «¿puede recoger mi hermano?» is about
    // «otra persona».
    &[
        "persona", "alguien", "hermano", "hermana", "amigo", "amiga", "mama", "papa", "esposo",
        "esposa", "hijo", "hija", "novio", "novia", "primo", "prima", "tio", "tia", "abuela",
        "abuelo", "chofer", "tercero",
    ],
    &["tiempo", "plazo"],
];

/// Words that name what a shop's knowledge is about (where, when, how long,
/// delivery, payment, invoices, allergies, returns, events, the place itself),
/// by topic. A question holding one is for the knowledge even when it also names
/// a product («¿el capuchino llega frío si lo mandan?»), and none of them makes a
/// question unanswerable: the passages decide. Each group also widens the search.
const TOPICS: &[&[&str]] = &[
    &[
        "direccion",
        "ubicacion",
        "ubicados",
        "ubicadas",
        "ubican",
        "quedan",
        "donde",
        "adonde",
        "llegar",
        "minibus",
        "micro",
        "trufi",
        "mapa",
        "maps",
        "google",
        "calle",
        "avenida",
        "cerca",
        "lejos",
        "local",
        "estamos",
        "teleferico",
        "estacion",
        "taxi",
        "taxista",
    ],
    &[
        "horario",
        "horarios",
        "hora",
        "horas",
        "abren",
        "abre",
        "abierto",
        "abiertos",
        "cierran",
        "cierra",
        "cerrado",
        "cerrados",
        "atienden",
        "atiende",
        "atencion",
        "feriado",
        "feriados",
        "domingo",
        "domingos",
        "sabado",
        "sabados",
        "lunes",
        "martes",
        "miercoles",
        "jueves",
        "viernes",
    ],
    &[
        "tarda",
        "tardan",
        "tardaria",
        "demora",
        "demoran",
        "demoraria",
        "minutos",
        "tiempo",
        "rapido",
        "esperar",
    ],
    &[
        "envio",
        "envios",
        "delivery",
        "domicilio",
        "reparto",
        "despacho",
        "envian",
        "entregan",
        "entrega",
        "entregas",
        "repartidor",
        "motoquero",
        "traigan",
        "traen",
        "mandan",
        "manden",
        "mandar",
        "zona",
        "zonas",
        "llega",
        "lleguen",
    ],
    &[
        "pago",
        "pagos",
        "pagar",
        "qr",
        "transferencia",
        "efectivo",
        "tarjeta",
        "tarjetas",
        "cobran",
        "vuelto",
        "deposito",
        "billetera",
        "debito",
        "credito",
        "vence",
        "acreditado",
    ],
    &[
        "factura",
        "facturas",
        "facturan",
        "facturita",
        "nit",
        "carnet",
        "ci",
        "recibo",
        "comprobante",
        "razon",
        "social",
        "empresa",
    ],
    &[
        "alergia",
        "alergias",
        "alergico",
        "alergica",
        "alergicos",
        "alergeno",
        "alergenos",
        "celiaco",
        "celiaca",
        "intolerante",
        "intolerancia",
        "lactosa",
        "mani",
        "trazas",
        "contaminacion",
        "cruzada",
        "diabetico",
        "diabetica",
        "azucar",
        "dieta",
        "dietas",
    ],
    &[
        "devolucion",
        "devoluciones",
        "devolver",
        "devuelven",
        "reembolso",
        "reclamo",
        "reclamos",
        "queja",
        "quejas",
        "plata",
        "dinero",
        "compensacion",
        "derramado",
        "derramada",
        "derramo",
        "falto",
        "faltaron",
        "faltaba",
        "equivocado",
        "equivocaron",
        "arrepiento",
        "garantia",
        "cancelo",
    ],
    &[
        "evento",
        "eventos",
        "fiesta",
        "cumple",
        "cumpleanos",
        "reunion",
        "catering",
        "anticipacion",
        "anticipo",
        "adelantar",
        "adelanto",
        "adelantado",
        "aviso",
        "avisar",
        "termos",
        "termo",
        "oficina",
        "personas",
    ],
    &["wifi", "internet", "clave", "contrasena"],
    &["mascota", "mascotas", "perro", "perros", "perrito", "gato"],
    &["enchufe", "enchufes", "laptop", "trabajar", "computadora"],
    &[
        "mesas",
        "mesa",
        "terraza",
        "gente",
        "capacidad",
        "sentarse",
        "fumar",
        "vapear",
        "afuera",
    ],
    &["parqueo", "estacionamiento"],
    // Another branch is another thing than where the shop is.
    &["sucursal", "sucursales", "sede", "sedes"],
    &["bano", "banos"],
    &[
        "recoger",
        "recojo",
        "llevar",
        "recogerlo",
        "recogerla",
        "retirar",
        "pickup",
        "buscarlo",
        "guardan",
        "guardar",
    ],
    // What an order must reach, for delivery and for pickup alike.
    &["minimo", "monto"],
];

/// The topic `word` (folded) is a word of, as [`is_topic_word`] reads it.
pub fn topic_of(word: &str) -> Option<&'static [&'static str]> {
    TOPICS
        .iter()
        .copied()
        .find(|group| {
            group.contains(&word)
                || (word.len() >= 6
                    && group
                        .iter()
                        .any(|t| t.len() >= 6 && strsim::levenshtein(t, word) <= 1))
        })
        .or_else(|| {
            // «mi perrita», «las mesitas»: the word the diminutive is of.
            let (stem, plural) = [("itos", "os"), ("itas", "as"), ("ito", "o"), ("ita", "a")]
                .iter()
                .find_map(|(end, plain)| Some((word.strip_suffix(end)?, *plain)))?;
            (stem.len() >= 3)
                .then(|| {
                    let plain = format!("{stem}{plural}");
                    TOPICS
                        .iter()
                        .copied()
                        .find(|group| group.contains(&plain.as_str()))
                })
                .flatten()
        })
}

/// Whether `word` (folded) is, as written, a word of a topic.
pub fn names_a_topic(word: &str) -> bool {
    TOPICS.iter().any(|group| group.contains(&word))
}

/// The services a question asks the shop to do to something, as infinitives:
/// the verb after «pueden», «podrían», «se puede»… with its pronouns before
/// («¿me los pueden calentar?») or attached («¿pueden calentarlos?»). What
/// the customer can do («¿puedo pagar…?») is no service asked. A verb of a
/// topic of the knowledge («traer», «mandar», «enviar») is left out: its
/// topic answers it; so is one that changes the order («quitar»).
pub fn services_asked(folded: &str) -> Vec<String> {
    const MODALS: &[&str] = &[
        "pueden", "puedes", "puede", "podrian", "podrias", "podria", "podran", "podra", "podes",
    ];
    const PRONOUNS: &[&str] = &[
        "me", "te", "se", "le", "les", "nos", "lo", "la", "los", "las",
    ];
    let words = tokens(folded);
    let mut out: Vec<String> = Vec::new();
    for (at, word) in words.iter().enumerate() {
        if !MODALS.contains(word) {
            continue;
        }
        let Some(verb) = words[at + 1..].iter().find(|w| !PRONOUNS.contains(w)) else {
            continue;
        };
        // The verb without a pronoun attached («calentarlos»).
        let infinitive = [
            "selos", "selas", "melo", "mela", "los", "las", "lo", "la", "le", "me", "nos",
        ]
        .iter()
        .filter_map(|end| verb.strip_suffix(end))
        .find(|root| ["ar", "er", "ir"].iter().any(|e| root.ends_with(e)))
        .unwrap_or(verb);
        let of_a_topic = TOPICS
            .iter()
            .flat_map(|group| group.iter())
            .any(|t| stem(t) == stem(infinitive));
        if infinitive.len() >= 5
            && ["ar", "er", "ir"].iter().any(|e| infinitive.ends_with(e))
            && !of_a_topic
            && !STOP.contains(&infinitive)
            // «¿me pueden quitar el brownie?», «¿pueden agregar otro?»: a
            // change to the order, not a service.
            && !crate::shop::rules::shop_phrases(infinitive).request
            && !crate::shop::rules::orders_word(infinitive)
            && !out.iter().any(|o| o == infinitive)
        {
            out.push(infinitive.to_owned());
        }
    }
    out
}

/// Whether `word` (folded) names something a shop's knowledge is about, give
/// or take a typo in a long word («deliveri»).
pub fn is_topic_word(word: &str) -> bool {
    topic_of(word).is_some()
}

/// Whether `word` (folded) tells of something that went wrong with an order
/// («me faltó un croissant», «llegó derramado»): a complaint is for the
/// knowledge (returns and claims) however it is phrased, never an order.
pub fn is_complaint_word(word: &str) -> bool {
    COMPLAINTS.contains(&word)
}

/// `folded` up to the reason given after it («…lleva café o no porque es para
/// mi hija que tiene 8 años»): the reason is no part of what is asked, and its
/// numbers order nothing. A reason that asks for something («…porque si no
/// tiene leche me da uno», «…porque lo que quiero es…») is kept, and so is a
/// message that opens with it («oye porque tarda tanto», «buenas, es que el
/// brownie tiene maní?»: «why», or a way to begin).
pub fn without_reason(folded: &str) -> String {
    let cut = [" porque ", " ya que ", " es que ", " pq "]
        .iter()
        .filter_map(|cut| folded.find(cut))
        .min();
    match cut {
        Some(at) if tokens(&folded[..at]).len() >= 3 => {
            let reason = &folded[at..];
            let requests = crate::shop::rules::shop_phrases(reason).request
                || tokens(reason)
                    .iter()
                    .any(|w| matches!(*w, "si" | "quiero" | "quisiera"));
            if requests {
                folded.to_owned()
            } else {
                folded[..at].to_owned()
            }
        }
        _ => folded.to_owned(),
    }
}

/// A word of a claim («faltó», «derramado», «reclamo»): said beside an order,
/// the order is the claim's («me faltó un croissant»).
pub fn claims(clause: &str) -> bool {
    tokens(&normalize(clause))
        .iter()
        .any(|w| is_complaint_word(w))
}

/// What came, told with what was wrong with it: «el pedido vino sin uno de los
/// brownies», «llegó frío».
const TOLD_WRONG: &[&str] = &[
    "vino sin",
    "vinieron sin",
    "llego sin",
    "llegaron sin",
    "trajeron sin",
    "mandaron sin",
    "llego frio",
    "llego fria",
    "llegaron frios",
    "llegaron frias",
    "vino frio",
    "vino fria",
    "llego tarde",
    "nunca llego",
    "no me llego",
];

/// Whether `clause` tells of something that went wrong with an order: a word
/// of a claim, or what came and how («vino sin…», «llegó frío») said of an
/// order («el pedido», «me», «nos», «lo que me trajeron») — never «si llego
/// tarde a recoger» or «¿tienen vino sin alcohol?» (accents are folded, so
/// «llego» is also «I arrive»).
pub fn complains(clause: &str) -> bool {
    let folded = normalize(clause);
    let words = tokens(&folded);
    let of_an_order = words.iter().any(|w| {
        matches!(
            *w,
            "pedido" | "orden" | "me" | "nos" | "delivery" | "repartidor" | "trajeron" | "mandaron"
        )
    });
    let hypothetical = words
        .iter()
        .any(|w| matches!(*w, "si" | "cuando" | "yo" | "voy"));
    claims(clause)
        || (of_an_order
            && !hypothetical
            && TOLD_WRONG
                .iter()
                .any(|p| crate::text::contains_phrase(&folded, p)))
}

/// Whether `clause` is a claim: a word of one, or a story of what went wrong
/// with no request beside it («…me llegó tarde pero bueno, ahora lo que
/// quiero es…» is the request's).
pub fn is_a_claim(clause: &str) -> bool {
    claims(clause) || (complains(clause) && !requests_beside_a_story(clause))
}

/// Whether `clause`, past what it tells went wrong («vino sin…»), asks for
/// something of the shop («…ahora lo que quiero es…»).
fn requests_beside_a_story(clause: &str) -> bool {
    let told = TOLD_WRONG
        .iter()
        .fold(format!(" {} ", normalize(clause)), |text, p| {
            text.replace(&format!(" {p} "), " ")
        });
    crate::shop::rules::shop_phrases(&told).request
}

const COMPLAINTS: &[&str] = &[
    "derramado",
    "derramada",
    "derramo",
    // «me llegó todo regado dentro de la bolsa»: spilled, as Peru says it.
    "regado",
    "regada",
    "chorreado",
    "chorreada",
    "volcado",
    "volcada",
    "falto",
    "faltaron",
    "faltaba",
    "faltan",
    "equivocado",
    "equivocada",
    "equivocaron",
    "reclamo",
    "queja",
    "reembolso",
    "devuelven",
    "devolver",
    "devolucion",
    "roto",
    "rota",
    "aplastado",
    // «igual me lo reponen?»: putting back what went wrong.
    "reponen",
    "reponer",
    "repongan",
    "reposicion",
    "reclamar",
    "reclamos",
];

/// Words of everyday life around a question, never its subject: when, who,
/// and the verbs of going, buying, forgetting or fixing. A question about a
/// topic the knowledge covers is not unanswerable for holding one («¿puede
/// recoger mi hermano?»); a specific thing nobody wrote about («¿hacen envíos a
/// Mallasa?», «¿tienen parqueo?») still is.
pub fn is_general_word(word: &str) -> bool {
    const GENERAL: &[&str] = &[
        "temprano",
        "tarde",
        "ayer",
        "recien",
        "antes",
        "despues",
        "luego",
        "nunca",
        "siempre",
        "rato",
        "mes",
        "meses",
        "semana",
        "ano",
        "fecha",
        "dia",
        "primero",
        "primera",
        "hermano",
        "hermana",
        "hijo",
        "hija",
        "hijos",
        "esposo",
        "esposa",
        "mama",
        "papa",
        "amigo",
        "amiga",
        "amigos",
        // «cuando llegue el muchacho»: the one who brings it.
        "muchacho",
        "muchacha",
        "familia",
        "novia",
        "novio",
        "jefe",
        "vivo",
        "vive",
        "vivimos",
        "dura",
        "duran",
        "traigan",
        "traen",
        "trae",
        "compre",
        "compro",
        "compra",
        "olvide",
        "olvido",
        "equivoque",
        "riesgo",
        "problema",
        "problemas",
        "exacta",
        "exacto",
        "cosa",
        "cosas",
        "vez",
        "veces",
        "caso",
        "mismo",
        "misma",
        "igual",
        "datos",
        "dato",
        "nombre",
        "pasa",
        "paso",
        "llego",
        "llegue",
        "voy",
        "vamos",
        "ir",
        "venir",
        "vengo",
        "puedes",
        "podemos",
        "tenemos",
        "necesitan",
        "sirve",
        "funciona",
        "mas",
        "menos",
        "todavia",
        "aun",
        "ojala",
        "preocupa",
        "seguro",
        "segura",
        "verdad",
        "nomas",
        "cerca",
        "lejos",
        "mucha",
        "poca",
        "grande",
        "chico",
        "chica",
        "pedi",
        "pedimos",
        "pidio",
        "pidieron",
        "suegro",
        "suegros",
        "suegra",
        "suegras",
        "abuelo",
        "abuela",
        "abuelos",
        "abuelas",
        "abuelitos",
        "abuelita",
        "abuelito",
        "hijas",
        "companero",
        "companera",
        "companeros",
        "companeras",
        "cuate",
        "vecino",
        "vecina",
        // «mi abuela no tolera la lactosa»: what someone can take, told.
        "tolera",
        "toleran",
        "nieto",
        "nieta",
        "nietos",
        "tio",
        "tia",
        "tios",
        "primo",
        "prima",
        "primos",
        "sobrino",
        "sobrina",
        "mejor",
        "tenga",
        "tengan",
        "tengo",
        "pierdo",
        "pierde",
        "pierden",
        "cole",
        "colegio",
        "escuela",
        "universidad",
        "trabajo",
        "oficina",
        "casa",
        // Everyday words around a question («además llegó como 40 min
        // tarde», «si prefiero que me devuelvan…», «mi hijo de 7 años»,
        // «perdón la molestia»): never its subject.
        "ademas",
        "prefiero",
        "prefiere",
        "prefieren",
        "preferimos",
        "min",
        "mins",
        "minuto",
        "minutos",
        "anos",
        "perdon",
        "molestia",
        "molesta",
        "molestar",
        "disculpa",
        "disculpe",
        // The story's everyday words («encima tardó casi una hora», «ya son
        // las 10 y cuarto, ¿alcanzan a llegar?», «200 lucas digo
        // bolivianos», «vengo de…», «anda muy triste»): never its subject.
        "casi",
        "encima",
        "digo",
        "pensaba",
        "tipo",
        "posible",
        "alcanza",
        "alcanzan",
        "cuarto",
        "anda",
        "andan",
        "ando",
        "triste",
        "vengo",
        "venimos",
        "contabilidad",
        "conmigo",
        "contigo",
        "dentro",
        "adentro",
        "visita",
        "mejor",
        "moda",
        "riesgo",
        "tiro",
        "porfis",
        "porfi",
        "venia",
        "venian",
        "diagnosticada",
        "diagnosticado",
        "epa",
        "super",
        "piola",
        "chiquito",
        "chiquita",
        "chiquitito",
        "chiquitita",
    ];
    GENERAL.contains(&word)
        // «quería preguntarle», «para llevarla»: a verb with its pronoun (not
        // a topic's own: «recogerlo» asks about pickup).
        || (word.len() >= 7
            && !is_topic_word(word)
            && [
                "arle", "erle", "irle", "arles", "erles", "irles", "arlo", "erlo", "irlo", "arla",
                "erla", "irla", "arlos", "erlos", "irlos", "arlas", "erlas", "irlas", "arme",
                "erme", "irme", "arte", "erte", "irte", "arnos", "ernos", "irnos", "arse",
                "erse", "irse",
            ]
            .iter()
            .any(|end| word.ends_with(end)))
        || crate::detect::GREETINGS.contains(&word)
        || crate::text::MONTHS.contains(&word)
        || (word.len() >= 5
            && ["ar", "er", "ir", "ando", "iendo"]
                .iter()
                .any(|end| word.ends_with(end))
            && !word.ends_with("lar"))
        || is_plural_verb(word)
        // «¿cuánto me cobrarían?», «¿aplicaría…?»: a verb in the conditional
        // (not «cafetería», «panadería»).
        // («veterinaria», «categoría» are things: only plurals and the verbs
        // customers ask with.)
        || (word.len() > 6 && ["rian", "riamos"].iter().any(|end| word.ends_with(end)))
        || matches!(
            word,
            "ocurre"
                | "sucede"
                | "pasaria"
                | "aplicaria"
                | "cobraria"
                | "costaria"
                | "saldria"
                | "podria"
                | "tendria"
                | "haria"
        )
}

/// «¿realizan entregas…?», «¿manejan…?», «¿ofrecen…?»: the verbs a customer
/// asks a shop whether it does something with, in any person; the thing asked
/// is the rest of the question. A verb that is itself the subject («¿contratan
/// personal?») is not one of them.
fn is_plural_verb(word: &str) -> bool {
    static SERVICE: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        [
            "realizar", "efectuar", "ofrecer", "brindar", "manejar", "contar", "disponer",
            "aceptar", "recibir", "preparar", "trabajar", "hacer", "tener", "dar", "usar",
            "utilizar",
        ]
        .iter()
        .map(|verb| stem(verb))
        .collect()
    });
    word.len() >= 4 && SERVICE.contains(&stem(word))
}

/// Words a question holds only as its circumstances, read from where they
/// stand rather than from a list: the word after a possessive («mi empresa»,
/// «para mi nieta»), after an object pronoun — a verb («me cobran», «se puede»,
/// «me lo pueden calentar») —, an adverb in -mente, and a verb with its pronoun
/// attached («corregirla», «sacármela»). Such a word never makes a question
/// unanswerable by itself; its subject still has to be in the knowledge.
pub fn circumstances(raw: &str) -> Circumstances {
    const POSSESSIVES: &[&str] = &["mi", "mis", "tu", "tus", "su", "sus", "nuestro", "nuestra"];
    const CLITICS: &[&str] = &["me", "te", "se", "le", "les", "nos"];
    let mut found = Circumstances::default();
    let push = |into: &mut Vec<String>, w: &str| {
        if !w.is_empty() && !into.iter().any(|o| o == w) {
            into.push(w.to_owned());
        }
    };
    let folded = normalize(raw);
    let words: Vec<&str> = tokens(&folded);
    for (i, w) in words.iter().enumerate() {
        let before = if i > 0 { words[i - 1] } else { "" };
        let two_before = if i > 1 { words[i - 2] } else { "" };
        if POSSESSIVES.contains(&before) || (w.len() >= 7 && w.ends_with("mente")) {
            push(&mut found.context, w);
        } else if matches!(*w, "lo" | "la" | "los" | "las") {
            // «me la pueden…»: the second pronoun, then the verb.
        } else if CLITICS.contains(&before)
            || (matches!(before, "lo" | "la" | "los" | "las") && CLITICS.contains(&two_before))
            || (w.len() >= 7
                && [
                    "arla", "arlo", "arlas", "arlos", "erla", "erlo", "irla", "irlo", "arme",
                    "erme", "irme", "ndome", "ndola", "ndolo",
                ]
                .iter()
                .any(|end| w.ends_with(end)))
        {
            // «¿cuánto me saldrían 3?» asks a price: the catalog's, not a
            // circumstance.
            if !(w.starts_with("saldr") || w.starts_with("costar") || w.starts_with("cobrar")) {
                push(&mut found.verbs, w);
            }
        }
    }
    found
}

/// A question's circumstances (see [`circumstances`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Circumstances {
    /// Whose, who, how: never the subject, and never searched for.
    pub context: Vec<String>,
    /// Verbs (after an object pronoun, or with one attached): never the
    /// subject, but searched for («se derrame» finds the claims).
    pub verbs: Vec<String>,
}

/// Words said around a question that carry no topic: interjections («épale»,
/// «uy», «chuta»), tags asking to agree («…, no cierto», «¿verdad?»),
/// discourse markers («por cierto», «o sea», «digamos»), nobody and somebody
/// («nadie me respondió»), and the days just gone («anoche»). A question is
/// never about one of them, so none makes it unanswerable or steers its search.
pub fn is_filler(word: &str) -> bool {
    const FILLER: &[&str] = &[
        // Interjections and laughter.
        "epale",
        "ole",
        "oe",
        "ey",
        "hey",
        "che",
        "uy",
        "uyy",
        "ay",
        "ayy",
        "ah",
        "ahh",
        "eh",
        "oh",
        "uf",
        "uff",
        "pucha",
        "puchica",
        "chuta",
        "caramba",
        "caray",
        "vaya",
        "ojo",
        "aja",
        "jaja",
        "jajaja",
        "jajajaja",
        "jeje",
        "jejeje",
        "jiji",
        "wow",
        "guau",
        "bah",
        "ups",
        // Tags asking to agree, and agreeing.
        "cierto",
        "verdad",
        "correcto",
        "claro",
        "obvio",
        "sip",
        "sep",
        "nop",
        "nel",
        "dale",
        "okey",
        "okay",
        "oki",
        // Discourse markers.
        "osea",
        "digamos",
        "fijate",
        "mira",
        "escucha",
        "resulta",
        "bueno",
        "pues",
        "nomas",
        // Compliments around the question.
        "genial",
        "perfecto",
        "excelente",
        "chevere",
        "bacan",
        "buenisimo",
        "lindo",
        "linda",
        // Nobody, somebody.
        "nadie",
        "alguien",
        "ninguno",
        "ninguna",
        // The days just gone.
        "ayer",
        "anoche",
        "anteayer",
        "antier",
    ];
    // «jajaja», «jsjs», «jejej»: laughter however long.
    let laugh = word.len() >= 4
        && word.starts_with('j')
        && word.matches('j').count() >= 2
        && word
            .chars()
            .all(|c| matches!(c, 'j' | 'a' | 'e' | 'i' | 's'));
    FILLER.contains(&word) || laugh || matches!(word, "xd" | "xdd" | "lol")
}

/// Key words of a text: folded, two letters or more, not a stop word nor a
/// filler ([`is_filler`]).
pub fn key_words(text: &str) -> Vec<String> {
    let folded = read_as_spanish(text);
    let mut out: Vec<String> = Vec::new();
    for word in tokens(&folded) {
        if word.chars().count() >= 2
            && !STOP.contains(&word)
            && !is_filler(word)
            && !out.iter().any(|w| w == word)
        {
            out.push(word.to_owned());
        }
    }
    out
}

/// A tourist's question in English read as the Spanish words the shop wrote
/// («what time do you close today» → «hora cierran hoy»): the words every
/// English question has are dropped, the words of a shop's topics are put in
/// Spanish, and the rest (names, places) kept. A Spanish question is left as
/// it is: it takes two English words to read one this way.
fn english_read(folded: &str, spanglish: bool) -> String {
    const FUNCTION: &[&str] = &[
        "the",
        "do",
        "does",
        "did",
        "you",
        "your",
        "can",
        "could",
        "i",
        "im",
        "is",
        "are",
        "am",
        "what",
        "which",
        "how",
        "much",
        "many",
        "it",
        "its",
        "my",
        "we",
        "our",
        "there",
        "any",
        "a",
        "an",
        "of",
        "to",
        "on",
        "at",
        "in",
        "for",
        "with",
        "from",
        "or",
        "and",
        "this",
        "that",
        "still",
        "through",
        "get",
        "off",
        "take",
        "taking",
        "have",
        "has",
        "will",
        "would",
        "be",
        "if",
        "me",
        "please",
        "hi",
        "hello",
        "ok",
        "just",
        "also",
        "should",
        "need",
        "want",
        "like",
        "here",
        "up",
        "about",
        "whats",
        "car",
        // Greetings, thanks and manners around the question.
        "hey",
        "good",
        "morning",
        "afternoon",
        "evening",
        "thanks",
        "thank",
        "sorry",
        "excuse",
        "dear",
        "sir",
        "madam",
        "exactly",
        "really",
        "right",
        "was",
        "were",
        "been",
        "so",
        "very",
        "too",
        "then",
        "now",
        "one",
        "some",
        "they",
        "them",
        "she",
        "his",
        "her",
        "us",
        "ur",
        "guys",
        "cant",
        "cannot",
        "dont",
        "doesnt",
        "not",
        "yes",
        // («plant-based»: the plant is the word.)
        "based",
    ];
    const WORDS: &[(&str, &str)] = &[
        ("drinks", "bebidas"),
        ("drink", "bebida"),
        ("plant", "vegetal"),
        ("time", "hora"),
        ("hours", "horario"),
        ("open", "abren"),
        ("close", "cierran"),
        ("closing", "cierre"),
        ("today", "hoy"),
        ("tomorrow", "manana"),
        ("sunday", "domingo"),
        ("saturday", "sabado"),
        ("monday", "lunes"),
        ("tuesday", "martes"),
        ("wednesday", "miercoles"),
        ("thursday", "jueves"),
        ("friday", "viernes"),
        ("holiday", "feriado"),
        ("holidays", "feriados"),
        ("where", "donde"),
        ("address", "direccion"),
        ("located", "ubicados"),
        ("station", "estacion"),
        ("line", "linea"),
        ("cable", "teleferico"),
        ("taxi", "taxi"),
        ("deliver", "delivery"),
        ("delivery", "delivery"),
        ("shipping", "envio"),
        ("area", "zona"),
        ("areas", "zonas"),
        ("zone", "zona"),
        ("minimum", "minimo"),
        ("order", "pedido"),
        ("pickup", "recojo"),
        ("pick", "recoger"),
        ("pay", "pago"),
        ("payment", "pago"),
        ("card", "tarjeta"),
        ("cards", "tarjetas"),
        ("credit", "credito"),
        ("debit", "debito"),
        ("cash", "efectivo"),
        ("dollars", "dolares"),
        ("transfer", "transferencia"),
        ("invoice", "factura"),
        ("receipt", "factura"),
        ("refund", "devolucion"),
        ("return", "devolucion"),
        ("complaint", "reclamo"),
        ("smoke", "fumar"),
        ("smoking", "fumar"),
        ("terrace", "terraza"),
        ("outside", "afuera"),
        ("tables", "mesas"),
        ("table", "mesa"),
        ("dog", "perro"),
        ("dogs", "perros"),
        ("pets", "mascotas"),
        ("pet", "mascota"),
        ("password", "clave"),
        ("milk", "leche"),
        ("almond", "almendras"),
        ("oat", "avena"),
        ("soy", "soya"),
        ("coconut", "coco"),
        ("sugar", "azucar"),
        ("caffeine", "cafeina"),
        ("decaf", "descafeinado"),
        ("size", "tamano"),
        ("juice", "jugo"),
        ("fruit", "fruta"),
        ("event", "evento"),
        ("events", "eventos"),
        ("party", "fiesta"),
        ("discount", "descuento"),
        ("allergic", "alergia"),
        ("allergy", "alergia"),
        ("gluten", "gluten"),
        ("nuts", "nueces"),
        ("vegan", "vegano"),
        ("wifi", "wifi"),
        // The shop's topics, as a tourist asks them.
        // («tienda» would find «Recojo en tienda» for «where is the shop».)
        ("shop", "local"),
        ("store", "local"),
        ("coffeeshop", "cafeteria"),
        ("location", "ubicacion"),
        ("find", "encontrar"),
        ("near", "cerca"),
        ("far", "lejos"),
        ("delivers", "delivery"),
        ("deliveries", "delivery"),
        ("delivering", "delivery"),
        ("ship", "envio"),
        ("send", "envian"),
        ("free", "gratis"),
        ("opens", "abren"),
        ("opening", "abren"),
        ("closes", "cierran"),
        ("closed", "cerrado"),
        ("hour", "hora"),
        ("late", "tarde"),
        ("long", "tiempo"),
        ("minutes", "minutos"),
        ("ready", "listo"),
        ("paying", "pago"),
        ("visa", "tarjeta"),
        ("mastercard", "tarjeta"),
        ("usd", "dolares"),
        ("bill", "factura"),
        ("refunds", "devolucion"),
        ("money", "dinero"),
        ("cancel", "cancelar"),
        ("allergies", "alergia"),
        ("nut", "nueces"),
        ("peanut", "mani"),
        ("peanuts", "mani"),
        ("dairy", "lacteos"),
        ("lactose", "lactosa"),
        ("egg", "huevo"),
        ("eggs", "huevo"),
        ("vegetarian", "vegetariano"),
        ("coffee", "cafe"),
        ("caffeine", "cafeina"),
        ("tea", "te"),
        ("hot", "caliente"),
        ("warm", "caliente"),
        ("cold", "frio"),
        ("iced", "frio"),
        ("ice", "hielo"),
        ("sweet", "dulce"),
        ("sugarfree", "sin azucar"),
        ("parking", "parqueo"),
        ("park", "parqueo"),
        ("bathroom", "bano"),
        ("toilet", "bano"),
        ("restroom", "bano"),
        ("reserve", "reservar"),
        ("reservation", "reservar"),
        ("book", "reservar"),
        ("friend", "amigo"),
        ("wife", "esposa"),
        ("husband", "esposo"),
        ("daughter", "hija"),
    ];
    let words: Vec<&str> = tokens(folded);
    let english = words.iter().filter(|w| FUNCTION.contains(w)).count();
    // «¿tienen oat milk?», «qué drinks tienen que sean plant-based?»: in a
    // Spanish question, English nouns no Spanish speaker writes otherwise are
    // read alone (for the words searched, not to tell an English question).
    const SPANGLISH: &[&str] = &[
        "drinks", "drink", "milk", "oat", "almond", "coconut", "plant", "decaf",
    ];
    if english < 2 {
        if !spanglish || !words.iter().any(|w| SPANGLISH.contains(w)) {
            return folded.to_owned();
        }
        return words
            .into_iter()
            .filter(|w| *w != "based")
            .map(|w| match WORDS.iter().find(|(said, _)| *said == w) {
                Some((_, meant)) if SPANGLISH.contains(&w) => *meant,
                _ => w,
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
    words
        .into_iter()
        .filter(|w| !FUNCTION.contains(w))
        .map(|w| {
            WORDS
                .iter()
                .find(|(said, _)| *said == w)
                .map_or(w, |(_, meant)| *meant)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `text` is a question in English (read with [`english_read`]).
pub fn is_english(text: &str) -> bool {
    let folded = normalize(text);
    english_read(&folded, false) != folded
}

/// A question folded, with chat spellings, Portuguese and English read as the
/// Spanish the shop wrote in.
fn read_as_spanish(text: &str) -> String {
    let folded = english_read(
        &crate::shop::rules::question_in_spanish(&normalize(text)),
        true,
    );
    // «¿en cuánto rato está?»: how long until it is ready.
    let folded = ready_in(&folded);
    // «¿me lo apartan hasta mañana?»: to hold an order is to keep it, as the
    // shop writes it («guardamos tu pedido»), not a word of «aparte».
    let folded = if asks_to_hold(&folded) {
        tokens(&folded)
            .into_iter()
            .map(|w| if is_hold_verb(w) { "guardan" } else { w })
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        folded
    };
    // «Buenas tardes, …»: a greeting's «tardes» asks nothing about afternoons.
    let mut words: Vec<&str> = tokens(&folded);
    if let Some(at) = words
        .windows(2)
        .position(|w| matches!(w, ["buenas" | "buenos", "tardes" | "noches" | "dias"]))
    {
        words.drain(at..at + 2);
    }
    words.join(" ")
}

/// «guardan», «apártamelo», «separar», «reservan»: a verb of holding something
/// for later (not «aparte», «por separado», «una reserva»).
pub fn is_hold_verb(word: &str) -> bool {
    ["guard", "apart", "separ", "reserv"]
        .iter()
        .any(|stem| word.starts_with(stem))
        && !matches!(
            word,
            "aparte"
                | "apartado"
                | "apartada"
                | "separado"
                | "separados"
                | "separada"
                | "separadas"
                | "separacion"
                | "reserva"
                | "reservas"
                | "reservado"
                | "reservada"
                | "guardia"
        )
}

/// «¿me lo pueden guardar hasta mañana?», «me apartan el pedido para la
/// tarde», «resérvamelo»: asking the shop to hold what was ordered (or said
/// before: a pronoun, or the order itself) — a question about a service,
/// whatever its verb orders elsewhere. A table is another thing («¿reservan
/// mesas?»).
pub fn asks_to_hold(folded: &str) -> bool {
    let words = tokens(folded);
    if words.iter().any(|w| w.starts_with("mesa")) {
        return false;
    }
    // «¿me los pueden separar en dos bolsas?»: separated into packages is how
    // it is packed, not held for later.
    let packed = |w: &str| {
        ["bols", "paquet", "empaq", "caj", "envolt"]
            .iter()
            .any(|stem| w.starts_with(stem))
    };
    if words.iter().any(|w| packed(w)) && words.iter().any(|w| w.starts_with("separ")) {
        return false;
    }
    words.iter().enumerate().any(|(at, w)| {
        let attached = ["lo", "la", "los", "las"]
            .iter()
            .any(|clitic| w.ends_with(clitic) && w.len() > 7);
        let before = words[..at]
            .iter()
            .rev()
            .take(3)
            .any(|b| matches!(*b, "lo" | "la" | "los" | "las"));
        let object = words
            .iter()
            .any(|o| matches!(*o, "pedido" | "orden" | "compra" | "encargo"));
        is_hold_verb(w) && (attached || before || object)
    })
}

/// «¿en cuánto rato está?», «¿en cuánto tiempo estará?»: a while asked is a
/// time («rato» is «tiempo»), and «está» after it asks when the order is
/// ready («listo»), not where it is.
fn ready_in(folded: &str) -> String {
    let words: Vec<&str> = tokens(folded);
    let mut out: Vec<&str> = Vec::with_capacity(words.len() + 1);
    for (at, word) in words.iter().enumerate() {
        let after_how_much = at > 0 && matches!(words[at - 1], "cuanto" | "que");
        if *word == "rato" && after_how_much {
            out.push("tiempo");
            continue;
        }
        out.push(word);
        let a_while = at > 0 && matches!(words[at - 1], "rato" | "tiempo");
        let asked = at > 1 && matches!(words[at - 2], "cuanto");
        if a_while
            && asked
            && matches!(*word, "esta" | "estara" | "estaria" | "estan" | "estaran")
            && words.get(at + 1) != Some(&"listo")
        {
            out.push("listo");
        }
    }
    out.join(" ")
}

/// «de qué es», «qué trae», «qué lleva», «de qué está hecho»: a question about
/// what something is made of.
pub fn asks_what_it_is_made_of(clause: &str) -> bool {
    let folded = normalize(clause);
    [
        "de que es",
        "de que son",
        "de que esta hecho",
        "de que esta hecha",
        "que trae",
        "que traen",
        "que lleva",
        "que llevan",
        "que ingredientes",
        "con que es",
        "con que esta",
    ]
    .iter()
    .any(|p| crate::text::contains_phrase(&folded, p))
}

/// «leche de almendras», «leche vegetal», «deslactosada»: a milk other than the
/// one a product is made with, which the knowledge answers (not the catalog).
pub fn asks_another_milk(folded: &str) -> bool {
    [
        "leche de",
        "leche vegetal",
        "leche deslactosada",
        "deslactosada",
        "sin lactosa",
        "leches",
        // English word order, read word by word: «oat milk», «almond milk».
        "avena leche",
        "almendras leche",
        "soya leche",
        "coco leche",
    ]
    .iter()
    .any(|p| crate::text::contains_phrase(folded, p))
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
            folded: read_as_spanish(text),
            words: key_words(text),
        }
    }

    /// The key words with the words customers use for the same things.
    pub fn widened(&self) -> Vec<String> {
        let mut out = self.words.clone();
        for word in &self.words {
            for group in SAME.iter().chain(TOPICS) {
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
    // The same stem in nearly the same length: a person of the verb
    // («aceptan», «aceptamos»), not a derived word («estación», «estacionamiento»).
    if a.len() >= 4 && b.len() >= 4 && a.len().abs_diff(b.len()) <= 3 && stem(a) == stem(b) {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    // A plural or a pronoun more («envíos», «recogerlo»), not another word
    // («estación» is not «estacionar»).
    if short.len() >= 4
        && long.starts_with(short)
        && matches!(
            &long[short.len()..],
            "s" | "es" | "lo" | "la" | "los" | "las" | "le"
        )
    {
        return true;
    }
    short.len() >= 5 && strsim::levenshtein(a, b) <= 1
}

#[cfg(test)]
mod tests {
    #[test]
    fn circumstances_are_read_from_where_words_stand() {
        let c = circumstances("Necesito factura con el NIT de mi empresa, me la pueden sacar hoy?");
        assert_eq!(c.context, ["empresa"]);
        assert_eq!(c.verbs, ["pueden"]);
        // A capital is no sign: «El Alto» is a place asked about.
        let c = circumstances(
            "Le escribe doña Carmen desde El Alto. Mi nieta es alérgica; ¿me lo pueden calentar exactamente?",
        );
        assert!(!c.context.contains(&"alto".to_owned()), "{c:?}");
        assert!(c.context.contains(&"nieta".to_owned()), "{c:?}");
        assert!(c.context.contains(&"exactamente".to_owned()), "{c:?}");
        assert!(c.verbs.contains(&"pueden".to_owned()), "{c:?}");
        // A price asked is the catalog's, not a circumstance.
        let c = circumstances("Brownies: ¿cuánto me saldrían 3?");
        assert!(c.verbs.is_empty() && c.context.is_empty(), "{c:?}");
    }

    use super::*;

    /// «¿tienen oat milk?», «qué drinks tienen que sean plant-based?»:
    /// English nouns in a Spanish question are read; «soy vegana» stays.
    /// «mi perrita» is a word of the pets' topic; everyday words around a
    /// question are general.
    #[test]
    fn spanglish_nouns_diminutives_and_everyday_words_are_read() {
        assert_eq!(
            english_read("y tienen oat milk", true),
            "y tienen avena leche"
        );
        assert_eq!(
            english_read("soy vegana que drinks tienen que sean plant based", true),
            "soy vegana que bebidas tienen que sean vegetal"
        );
        assert_eq!(
            english_read("soy vegana que tienen", true),
            "soy vegana que tienen"
        );
        assert_eq!(topic_of("perrita"), topic_of("perro"));
        assert!(topic_of("perrita").is_some());
        assert!(topic_of("bonita").is_none());
        for word in [
            "ademas", "prefiero", "min", "anos", "perdon", "casi", "encima", "alcanzan",
        ] {
            assert!(is_general_word(word), "{word}");
        }
    }

    #[test]
    fn verbs_addressed_to_the_shop_are_general_and_nouns_are_not() {
        for verb in ["realizan", "manejan", "aceptan"] {
            assert!(is_general_word(verb), "{verb}");
        }
        for noun in ["volumen", "imagen", "almacen", "orden", "sucursal"] {
            assert!(!is_general_word(noun), "{noun}");
        }
        // A Brazilian's question is read in Spanish.
        assert!(
            Question::new("vocês aceitam cartão de crédito?")
                .words
                .contains(&"tarjeta".to_owned())
        );
    }

    #[test]
    fn fillers_around_a_question_are_no_words_of_it() {
        assert_eq!(
            key_words("Épale, si llego a 200 el envío sale gratis?"),
            ["llego", "200", "envio", "sale", "gratis"]
        );
        assert_eq!(
            key_words("es gratis el envio a miraflores no cierto"),
            ["gratis", "envio", "miraflores"]
        );
        let words = key_words(
            "Por cierto, ayer me llegó el capuchino derramado y nadie me respondió, ¿qué hago?",
        );
        for filler in ["cierto", "ayer", "nadie"] {
            assert!(!words.contains(&filler.to_owned()), "{words:?}");
        }
        for laugh in ["jsjs", "jajajaj", "xd"] {
            let words = key_words(&format!("soy intolerante {laugh}"));
            assert!(words.contains(&"intolerante".to_owned()), "{words:?}");
            assert!(!words.contains(&laugh.to_owned()), "{words:?}");
        }
        // A word that only starts like a laugh is a word.
        assert!(key_words("¿tienen jugos?").contains(&"jugos".to_owned()));
        // The thing asked stays, fillers or not.
        assert_eq!(key_words("uy, ¿tienen parqueo o no?"), ["parqueo"]);
    }

    #[test]
    fn a_tourist_s_question_on_the_shop_s_topics_is_read_in_spanish() {
        assert_eq!(
            Question::new("hello good morning, do you deliver to Obrajes?").words,
            ["delivery", "obrajes"]
        );
        let words = Question::new("where is the shop exactly? I am near Plaza Avaroa").words;
        assert!(words.contains(&"donde".to_owned()), "{words:?}");
        for english in ["shop", "exactly", "tienda", "am"] {
            assert!(!words.contains(&english.to_owned()), "{words:?}");
        }
        let words =
            Question::new("the hot chocolate have coffee? my friend cannot have caffeine").words;
        for spanish in ["caliente", "chocolate", "cafe", "cafeina"] {
            assert!(words.contains(&spanish.to_owned()), "{words:?}");
        }
        // Something never written is still named: the gray zone answers it.
        assert_eq!(Question::new("do you have parking?").words, ["parqueo"]);
        // Spanish is left as it is, English-looking small words or not.
        assert!(key_words("me das un café a las 5?").contains(&"cafe".to_owned()));
    }

    #[test]
    fn a_while_asked_is_a_time_and_how_soon_it_is_ready() {
        let words = Question::new("listo, pagué 🙏 ¿en cuánto rato está?").words;
        assert!(words.contains(&"tiempo".to_owned()) && words.contains(&"listo".to_owned()));
        let words = Question::new("¿en cuánto tiempo estará?").words;
        assert!(words.contains(&"listo".to_owned()), "{words:?}");
        // A while told, not asked, is no time asked.
        let words = Question::new("hace un rato me llegó el pedido frío").words;
        assert!(!words.contains(&"tiempo".to_owned()), "{words:?}");
        let words = Question::new("¿dónde está la tienda?").words;
        assert!(!words.contains(&"listo".to_owned()), "{words:?}");
    }

    #[test]
    fn a_service_asked_of_the_shop_is_read_and_a_change_to_the_order_is_not_one() {
        let asked = |q: &str| services_asked(&normalize(q));
        assert_eq!(
            asked("me los pueden calentar los croissants?"),
            ["calentar"]
        );
        assert_eq!(asked("¿pueden calentarlos?"), ["calentar"]);
        assert_eq!(asked("¿se puede cortar el cheesecake en 8?"), ["cortar"]);
        // A topic's verb, what the customer does, a change to the order.
        assert!(asked("¿me lo pueden mandar a Obrajes?").is_empty());
        assert!(asked("¿nos lo pueden traer a San Pedro?").is_empty());
        assert!(asked("¿puedo pagar con QR?").is_empty());
        assert!(asked("¿me pueden quitar el brownie?").is_empty());
        assert!(asked("¿me pueden agregar otro brownie?").is_empty());
    }

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
        assert!(!same_word("estacion", "estacionamiento") && same_word("recoger", "recogerlo"));
    }
}
