//! Telling a question for the shop's knowledge from a shop request, clause by
//! clause, before any proposer reads the message: «¿hacen envíos a Miraflores? si
//! sí, mándame 2 brownies» is a question and an order. A question about a named
//! product's price or availability stays a shop request (the catalog answers it);
//! one about what a product is like, or about anything the catalog does not hold
//! (hours, delivery, payment, allergens, returns…), is a knowledge question.

use super::answer::{Library, attributes_asked};
use super::words::{Question, is_topic_word};
use crate::text::{normalize, tokens};

/// A message split into what the knowledge answers and what is left for the shop.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    /// The knowledge questions, as written.
    pub questions: Vec<String>,
    /// What is left, for the shop's proposer (empty when nothing is).
    pub rest: String,
    /// Clauses that only explain a question («es que soy diabética»), as
    /// written: neither asked nor left for the proposer.
    pub explanations: Vec<String>,
    /// The rest is wanted only on one answer to the question before it: «¿…?
    /// si sí, mándame 2» on a yes (`Some(true)`), «¿el chai lleva leche? si no,
    /// dame dos» on a no (`Some(false)`).
    pub condition: Option<bool>,
    /// What is wanted on the other answer, when the request names both: «¿el
    /// chai tiene cafeína? si tiene dame una limonada, si no un chai» → «un
    /// chai» (and the rest is «dame una limonada»).
    pub otherwise: Option<String>,
}

/// The condition a request after a question is put on its answer.
fn condition(text: &str, names_product: &impl Fn(&str) -> bool) -> Option<bool> {
    let after = &text[text.find('?')? + 1..];
    let after =
        told_before_condition(after, names_product).map_or(after, |(_, condition)| condition);
    let folded = normalize(after);
    let words = tokens(&folded);
    match words.as_slice() {
        // «si no es molestia»: manners, no condition.
        ["si", "no", "es", "molestia" | "mucha", ..] => None,
        ["si", "no", ..] => Some(false),
        // «si sí», «si es así», «si es», «si hay», «si lleva», «si tienen»…
        ["si", second, ..]
            if matches!(
                *second,
                "si" | "es" | "hay" | "tienen" | "tiene" | "lleva" | "llevan" | "son"
            ) =>
        {
            Some(true)
        }
        _ => None,
    }
}

/// «mi hija es alérgica, si tiene sácalo» after «¿el brownie tiene nueces?»:
/// why one asks, told before the condition (short clauses that order, count
/// and ask nothing), and the condition with what follows it.
fn told_before_condition<'a>(
    text: &'a str,
    names_product: &impl Fn(&str) -> bool,
) -> Option<(&'a str, &'a str)> {
    // (Naming no product: «¿tienen leche de almendra? el capuchino grande,
    // si tienen con almendra» keeps the capuchino.)
    let told = |part: &str| {
        let folded = normalize(part);
        let words = tokens(&folded);
        !words.is_empty()
            && !names_product(part)
            && words.len() <= 6
            && words.first() != Some(&"si")
            && !part.contains('?')
            && !crate::shop::rules::shop_phrases(&folded).request
            && !words.iter().any(|w| crate::text::token_number(w).is_some())
    };
    let mut at = 0;
    for part in text.split_inclusive([',', '.', ';']).take(3) {
        let folded = normalize(part);
        if folded.starts_with("si ") {
            // («¡uy!, si tiene…»: punctuation alone tells nothing.)
            let told_words = text[..at].chars().any(char::is_alphanumeric);
            return told_words.then(|| (&text[..at], &text[at..]));
        }
        if !told(part) && !folded.trim().is_empty() {
            return None;
        }
        at += part.len();
    }
    None
}

/// «si es, quiero uno», «si no lleva, poneme uno»: the request after the
/// condition's own words (up to the comma).
fn after_condition(clause: &str) -> Option<String> {
    let folded = normalize(clause);
    if !folded.starts_with("si ") {
        return None;
    }
    let words: Vec<&str> = clause.split_whitespace().collect();
    // «si no tiene dame dos»: without a comma, the request starts at its verb.
    // («si pido 12 chocolates…» puts the order itself in a hypothesis: a
    // condition has words between «si» and the request.)
    let at = match words.iter().take(4).position(|w| w.ends_with(',')) {
        Some(comma) => comma + 1,
        None => request_start(&words, 7).filter(|&verb| verb >= 2)?,
    };
    (at < words.len()).then(|| words[at..].join(" "))
}

/// Where the request starts after a condition said without a comma («si no
/// tiene dame dos»): its first ordering word among the first `within`, unless
/// a «no» comes on the way («si tiene no quiero el chai» keeps it all).
fn request_start(words: &[&str], within: usize) -> Option<usize> {
    let verb = words.iter().take(within).position(|w| {
        let w = normalize(w);
        // («si tiene sácalo y poneme un cheesecake»: a removal too.)
        crate::shop::rules::orders_word(&w) || crate::shop::rules::removes_word(&w)
    })?;
    (!words[..verb].iter().any(|w| negates(&normalize(w)))).then_some(verb)
}

/// «no», «ni», «nunca», «tampoco»: a word that turns what follows around.
fn negates(word: &str) -> bool {
    matches!(word, "no" | "ni" | "nunca" | "tampoco" | "nada")
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
    "saldria",
    "saldrian",
    "saldra",
    "saldran",
    "costaria",
    "costarian",
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
    "comer",
    "comida",
    "desayunar",
    "desayuno",
    "almorzar",
    "almuerzo",
    "merendar",
    "merienda",
    "tomar",
    "beber",
    "picar",
];

/// Words that open a question even without a question mark.
const OPENERS: &[&str] = &[
    "que", "cual", "cuales", "cuando", "donde", "como", "cuanto", "cuanta", "cuantos", "hacen",
    "tienen", "aceptan", "puedo", "podemos", "se", "hay", "abren", "atienden", "llegan", "mandan",
    "envian", "incluye", "lleva", "llevan", "tiene", "es", "son", "estan", "trabajan", "cobran",
    "dan", "emiten", "facturan", "reciben", "permiten", "sirven", "venden", "vende", "preparan",
    "ofrecen", "usan",
];

/// Clauses of a message: sentences, and the parts of a sentence that «si sí»,
/// «y si no», «entonces» or a question mark set apart.
pub fn clauses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        // «agrégame un cheesecake, ¿lleva gluten?»: an opening mark starts a clause.
        if c == '¿' && !current.trim().is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.push(c);
        if matches!(c, '?' | '.' | '!' | ';' | '\n') {
            out.push(std::mem::take(&mut current));
        }
    }
    out.push(current);
    // «…y tres croissants y también quería saber si hacen delivery…»: a
    // question begun in the middle of a dictated line is a clause of its own.
    let out: Vec<String> = out
        .into_iter()
        .flat_map(|clause| {
            let folded = format!(" {} ", normalize(&clause));
            let lead = [
                " y tambien queria saber ",
                " y tambien quisiera saber ",
                " y queria saber ",
                " y quisiera saber ",
                " tambien queria saber ",
                " queria saber ",
                " quisiera saber ",
                " quiero saber ",
                " ademas queria preguntar ",
                " y queria preguntar ",
                " queria preguntar ",
                " quisiera preguntar ",
                " quiero preguntar ",
                " y una pregunta ",
                " una pregunta ",
                " y una consulta ",
                // «…mejor voy a recoger yo a qué hora cierran»: the hour asked
                // after what was said.
                " a que hora ",
                " hasta que hora ",
            ]
            .iter()
            .find_map(|lead| folded.find(lead).filter(|at| *at > 0))
            // «el 24 de diciembre hasta qué hora atienden»: a date said before
            // the hour asked is what the hour is asked of, not a clause.
            .filter(|at| !names_a_date(&folded[..*at]));
            match lead {
                Some(at) => {
                    let before_words = folded[..at].split_whitespace().count();
                    let words: Vec<&str> = clause.split_whitespace().collect();
                    vec![
                        words[..before_words.min(words.len())]
                            .join(" ")
                            .trim_end_matches(',')
                            .to_owned(),
                        words[before_words.min(words.len())..].join(" "),
                    ]
                }
                None => vec![clause],
            }
        })
        .collect();
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
                let mut after = &words[(before_words + marker_words).min(words.len())..];
                // «si no tiene, dame uno»: the condition's own verb ends at the
                // comma; the request is what follows. («entonces mejor cancelo
                // todo, no llego» has no condition: all of it is said.)
                if marker.starts_with(" si ")
                    && let Some(comma) = after.iter().take(3).position(|w| w.ends_with(','))
                    && comma + 1 < after.len()
                {
                    after = &after[comma + 1..];
                } else if marker.starts_with(" si ")
                    && after.first().is_some_and(|w| {
                        matches!(
                            normalize(w).as_str(),
                            "tiene" | "tienen" | "lleva" | "llevan" | "es" | "son" | "hay" | "trae"
                        )
                    })
                    && let Some(verb) = request_start(after, 5)
                {
                    // «si no tiene dame dos»: with no comma, up to the verb
                    // that orders.
                    after = &after[verb..];
                }
                // «si tiene dame una limonada, si no un chai»: the other
                // branch keeps its «si no», for the split to tell it apart.
                let before = normalize(&words[..before_words.min(words.len())].join(" "));
                if marker == " si no " && before.starts_with("si ") {
                    split.push(format!("si no {}", after.join(" ")));
                } else {
                    split.push(after.join(" "));
                }
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

/// «el 24 de diciembre», «el sábado», «en Navidad», «mañana»: words that only
/// say a day (a month with its day, a weekday, a holiday, today or tomorrow),
/// with no order or other request among them.
fn names_a_date(folded: &str) -> bool {
    let words = tokens(folded);
    let day = |w: &str| {
        crate::text::MONTHS.contains(&w)
            || matches!(
                w.trim_end_matches('s'),
                "lune"
                    | "martes"
                    | "miercole"
                    | "jueve"
                    | "vierne"
                    | "sabado"
                    | "domingo"
                    | "feriado"
                    | "navidad"
                    | "nochebuena"
                    | "carnaval"
                    | "hoy"
                    | "manana"
            )
            || matches!(w, "lunes" | "martes" | "miercoles" | "jueves" | "viernes")
    };
    let filler = |w: &str| {
        matches!(
            w,
            "el" | "la"
                | "los"
                | "las"
                | "de"
                | "del"
                | "en"
                | "y"
                | "e"
                | "o"
                | "para"
                | "este"
                | "esta"
                | "ese"
                | "esa"
                | "proximo"
                | "proxima"
                | "que"
                | "viene"
                | "oye"
                | "hola"
                | "buenas"
                | "pregunta"
                | "una"
                | "consulta"
                | "primero"
                | "dia"
        ) || crate::text::token_number(w).is_some()
            || w.chars().all(|c| c.is_ascii_digit())
    };
    !words.is_empty()
        && words.len() <= 8
        && words.iter().any(|w| day(w))
        && words.iter().all(|w| day(w) || filler(w))
}

/// «Es que mi hijo quiere una», «porque soy diabética»: the reason behind
/// something asked, with no question of its own.
fn explains(clause: &str) -> bool {
    let folded = normalize(clause);
    let lead = tokens(&folded)
        .into_iter()
        .skip_while(|w| LEAD_INS.contains(w))
        .take(2)
        .collect::<Vec<_>>();
    !clause.contains('?')
        && matches!(
            lead.as_slice(),
            ["es", "que"] | ["porque", ..] | ["ya", "que"]
            // «por si acaso para mi capuchino», «en caso de que…».
            | ["si", "acaso"] | ["caso", "de"]
        )
        // «no quisiera que se sienta mal» wants something of the world, not
        // of the shop.
        && !crate::shop::rules::shop_phrases(
            &folded
                .replace("quisiera que", "")
                .replace("quiero que", "")
                .replace("queria que", ""),
        )
        .request
        && !tokens(&folded).iter().any(|w| crate::text::token_number(w).is_some() && !matches!(*w, "un" | "una" | "uno"))
}

/// «estoy a dieta», «soy celíaca», «andamos apurados»: the customer telling
/// of themselves, with nothing asked, ordered or counted.
fn tells_of_oneself(clause: &str) -> bool {
    let folded = normalize(clause);
    // («mañana tengo examen y no quiero quedarme despierta»: when, then
    // what one has.)
    let words: Vec<&str> = tokens(&folded)
        .into_iter()
        .skip_while(|w| {
            LEAD_INS.contains(w)
                || super::words::is_filler(w)
                || matches!(*w, "manana" | "hoy" | "ahora" | "ahorita" | "luego")
        })
        .collect();
    let of_oneself = words.first().is_some_and(|w| {
        matches!(
            *w,
            "estoy" | "estamos" | "soy" | "somos" | "ando" | "andamos" | "tengo" | "tenemos"
        )
    });
    // («soy alérgico», «soy celíaca»: an allergy told is always answered
    // with what the shop says of allergies.)
    let allergy = words.iter().any(|w| tells_an_allergy(w));
    // («…y no quiero quedarme despierta»: a wish about oneself, told with
    // a verb that orders nothing.)
    let all: Vec<&str> = tokens(&folded);
    let told: Vec<&str> = all
        .iter()
        .enumerate()
        .filter(|(k, w)| {
            !(matches!(**w, "quiero" | "queremos")
                && all.get(k + 1).is_some_and(|next| {
                    [
                        "ar", "er", "ir", "arme", "erme", "irme", "arse", "erse", "irse",
                    ]
                    .iter()
                    .any(|end| next.ends_with(end))
                        && !crate::shop::rules::orders_word(next)
                }))
        })
        .map(|(_, w)| *w)
        .collect();
    of_oneself
        && !allergy
        && !asks(clause)
        && !crate::shop::rules::shop_phrases(&told.join(" ")).request
        && !words
            .iter()
            .any(|w| crate::text::token_number(w).is_some() && !matches!(*w, "un" | "una" | "uno"))
}

/// «Hola, vengo de Madrid con mi perro», «mi hija es celíaca y el sábado
/// vamos con mi hermana»: a scene told before a question — nothing asked,
/// ordered, counted or named of the catalog (a time said is no count: «de 5
/// meses»).
fn scene(part: &str, names_product: &impl Fn(&str) -> bool) -> bool {
    let folded = normalize(part);
    let words = tokens(&folded);
    let counted = words.iter().enumerate().any(|(i, w)| {
        (crate::text::token_number(w).is_some() || w.chars().any(|c| c.is_ascii_digit()))
            && !matches!(*w, "un" | "una" | "uno")
            && !words.get(i + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "meses" | "mes" | "anos" | "ano" | "dias" | "semanas" | "horas" | "minutos"
                )
            })
    });
    // («algo frío pe», «un postre que no tenga nueces»: a thing asked for by
    // its kind is a request.)
    !english(part)
        && !part.contains(['?', '¿'])
        && !asks_whole(part)
        && !names_product(part)
        && !counted
        && !words.contains(&"algo")
        && !crate::shop::rules::says_a_kind(&folded)
        && !crate::shop::rules::shop_phrases(&folded).request
        && !crate::shop::rules::calls_off_or_closes(part)
        && crate::shop::rules::delivery::mode_said(part).is_none()
}

/// English is read whole: «my hotel is in El Prado, you deliver?», «my son is
/// allergic to nuts. brownie have nuts?».
fn english(text: &str) -> bool {
    tokens(&normalize(text))
        .iter()
        .any(|w| matches!(*w, "you" | "my" | "is" | "the" | "do" | "are" | "i"))
}

/// The words of a scene that name a topic the knowledge covers («perro»,
/// «celíaca»), asked with the question after it; the rest of the scene is no
/// part of what is asked.
fn topic_words_of(scene: &str) -> Vec<String> {
    Question::new(scene)
        .words
        .into_iter()
        .filter(|w| is_topic_word(w))
        .collect()
}

/// «¿qué hago?», «¿y ahora?»: a question of a word or three naming no topic
/// asks of what was told before it.
fn asks_nothing_of_its_own(question: &str) -> bool {
    let words = Question::new(question).words;
    tokens(&normalize(question)).len() <= 3 && !words.iter().any(|w| is_topic_word(w))
}

/// «alérgico», «celíaca», «intolerante»: a word telling an allergy.
fn tells_an_allergy(word: &str) -> bool {
    ["alerg", "celiac", "intoleran"]
        .iter()
        .any(|stem| word.starts_with(stem))
}

/// Where «qué» opens a question of a kind of thing («qué postres…», «que
/// bebidas no tienen cafeína»), among folded `words`.
fn que_before_a_kind(words: &[&str]) -> Option<usize> {
    words
        .windows(2)
        .position(|w| w[0] == "que" && KIND_NOUNS.contains(&w[1]))
}

/// «celíaca», «alérgico», «vegana», «diabético»: a word of what one cannot eat.
fn tells_a_diet(word: &str) -> bool {
    [
        "alerg",
        "celiac",
        "intoleran",
        "vegan",
        "vegetarian",
        "diabet",
        "dieta",
        "lactosa",
        "gluten",
    ]
    .iter()
    .any(|stem| word.starts_with(stem))
}

/// «buenas, mi hija es celíaca…, que postre le puedo pedir sin gluten», «soy
/// caraqueña y estoy embarazada que bebidas no tienen cafeína»: the scene
/// before the words that open the question, and the question.
fn after_a_scene(clause: &str, names_product: &impl Fn(&str) -> bool) -> Option<(String, String)> {
    if english(clause) {
        return None;
    }
    let parts: Vec<&str> = clause.split(',').collect();
    // (The part after the comma opens a question of its own: marked, or
    // opened by an interrogative — not a «que» giving a reason.)
    let opens = |part: &str| {
        let folded = normalize(part);
        let first = tokens(&folded)
            .into_iter()
            .find(|w| !LEAD_INS.contains(w))
            .map(str::to_owned);
        part.trim_start().starts_with('¿')
            || first.is_some_and(|w| {
                INTERROGATIVES.contains(&w.as_str()) || matches!(w.as_str(), "como" | "que")
            })
            || que_before_a_kind(&tokens(&folded)).is_some()
    };
    let at_comma = (1..parts.len()).find(|&k| {
        opens(parts[k])
            && asks_whole(parts[k])
            && parts[..k].iter().all(|p| scene(p, names_product))
    });
    let (told, question) = match at_comma {
        Some(k) => (parts[..k].join(","), parts[k..].join(",")),
        None => {
            // «…de 5 meses que bebidas no tienen cafeína»: «qué» before a kind
            // of thing, with no comma before it.
            let folded = normalize(clause);
            let words = tokens(&folded);
            let at = que_before_a_kind(&words)?;
            if at == 0 {
                return None;
            }
            (words[..at].join(" "), words[at..].join(" "))
        }
    };
    // («ayer dejé mi paraguas en una mesa, ¿lo tienen?»: a question pointing
    // back asks of the scene's own thing; «me cobraron doble con la tarjeta,
    // ¿qué hago?»: a bare question is about the scene, asked whole.)
    if !scene(&told, names_product)
        || tokens(&normalize(&told)).len() < 3
        || points_back(&question)
        || asks_nothing_of_its_own(&question)
    {
        return None;
    }
    Some((told.trim().to_owned(), question.trim().to_owned()))
}

/// Kinds of thing a shop sells, asked after «qué» («qué postres tienen»).
const KIND_NOUNS: &[&str] = &[
    "postre",
    "postres",
    "bebida",
    "bebidas",
    "opciones",
    "productos",
    "jugos",
    "tortas",
    "dulces",
    "sabores",
    "cafes",
    "tes",
];

/// «Le agradecería mucho la información.», «Adicionalmente,», «Gracias de
/// antemano»: manners around a question, with nothing asked or ordered.
fn courtesy(clause: &str) -> bool {
    let folded = normalize(clause);
    let words = tokens(&folded);
    let thanks = matches!(
        words.as_slice(),
        [first, ..] if first.starts_with("agradec")
            || (matches!(*first, "le" | "te" | "les" | "se" | "lo") && words.get(1).is_some_and(|w| w.starts_with("agradec")))
    ) || folded.starts_with("gracias")
        || folded.starts_with("muchas gracias")
        || folded.starts_with("de antemano")
        || folded.starts_with("quedo atent")
        || folded.starts_with("saludos");
    let connector =
        matches!(
            words.as_slice(),
            ["adicionalmente"
                | "ademas"
                | "tambien"
                | "perfecto"
                | "bueno"
                | "ok"
                | "vale"
                | "listo"]
        );
    // «Una más:», «otra cosa», «una última pregunta»: announcing the next
    // question.
    // («y una más» alone may be one more of something: only with a colon
    // or a word of asking.)
    let announces = !words.is_empty()
        && (clause.trim_end().ends_with(':')
            || words
                .iter()
                .any(|w| matches!(*w, "cosa" | "pregunta" | "preguntita" | "consulta" | "duda")))
        && words.iter().all(|w| {
            matches!(
                *w,
                "una"
                    | "otra"
                    | "mas"
                    | "cosa"
                    | "pregunta"
                    | "preguntita"
                    | "consulta"
                    | "duda"
                    | "ultima"
                    | "y"
                    | "ah"
                    | "oye"
                    | "oiga"
            )
        });
    !clause.contains('?') && (thanks || connector || announces)
}

/// «sacá los dos», «quítalos», «cámbialo»: a request whose object is what was
/// just said.
fn refers_back(clause: &str) -> bool {
    let folded = normalize(clause);
    let words = tokens(&folded);
    words.windows(2).any(|w| {
        matches!(w[0], "los" | "las") && matches!(w[1], "dos" | "tres" | "ambos" | "ambas")
    }) || words.iter().any(|w| {
        matches!(*w, "ambos" | "ambas")
            || ["los", "las", "lo", "la"].iter().any(|clitic| {
                w.strip_suffix(clitic).is_some_and(|verb| {
                    verb.len() > 3
                        && ["sac", "quit", "borr", "elimin", "camb"]
                            .iter()
                            .any(|stem| verb.starts_with(stem))
                })
            })
    })
}

/// «ese día», «a esa hora», «ahí»: words that point back at something told.
fn points_back(clause: &str) -> bool {
    tokens(&normalize(clause))
        .iter()
        .any(|w| matches!(*w, "ese" | "esa" | "eso" | "esos" | "esas" | "ahi" | "alla"))
}

/// «¿se los doy ahora?», «¿me la mandan?»: an object pronoun before the verb
/// stands for something named before.
fn points_back_by_pronoun(clause: &str) -> bool {
    let folded = normalize(clause);
    let words = tokens(&folded);
    words.windows(2).any(|w| {
        matches!(w[0], "se" | "me" | "nos" | "te") && matches!(w[1], "lo" | "la" | "los" | "las")
    })
}

/// «¿hasta cuándo vale pues?»: a short marked question with no subject of its
/// own (no product, no topic, at most two words of content), which asks
/// about what was named before it.
fn bare_question(clause: &str, names_product: &impl Fn(&str) -> bool) -> bool {
    let question = Question::new(clause);
    asks(clause)
        && clause.contains('?')
        && !names_product(clause)
        // («¿se los doy ahora o después?»: a pronoun points back at it.)
        && tokens(&normalize(clause)).len() <= if points_back_by_pronoun(clause) { 7 } else { 5 }
        // («…, ¿no?» only asks to agree.)
        && (1..=2).contains(&question.words.len())
        && !question.words.iter().any(|w| is_topic_word(w))
        // «¿Cuánto es el total?» asks the order's sum, not of what came before.
        && !crate::shop::rules::asks_the_order_total(clause)
        // «¿Qué cosas dulces tienen?» asks the catalog.
        && !tokens(&normalize(clause))
            .iter()
            .any(|w| matches!(*w, "tienen" | "tiene" | "hay" | "venden" | "vende"))
}

/// Whether `clause` asks something: as a whole, or in a part after a comma
/// that opens as a question does («soy alérgica al maní, qué no debería
/// pedir», «…a nombre de mi empresa, qué datos les paso»).
pub fn asks(clause: &str) -> bool {
    asks_whole(clause) || clause.split([',', ';']).skip(1).any(opens_a_question)
}

/// Whether a part of a sentence opens as a question with «qué» before what one
/// should do or give («…, qué no debería pedir», «…, qué datos les paso»); a
/// «que» giving a reason («…, que hay gente a dieta», «…, que puedo pasar a
/// las 5») asks nothing. (An interrogative anywhere already asks.)
fn opens_a_question(part: &str) -> bool {
    let folded = normalize(part);
    let words: Vec<&str> = tokens(&folded)
        .into_iter()
        .skip_while(|w| LEAD_INS.contains(w))
        .collect();
    match words.as_slice() {
        ["que", rest @ ..] => rest.iter().take(3).any(|w| {
            matches!(
                *w,
                "deberia" | "debo" | "hago" | "hacemos" | "datos" | "recomiendan" | "recomiendas"
            )
        }),
        _ => false,
    }
}

fn asks_whole(clause: &str) -> bool {
    // «unos cuantos brownies»: a count, no «¿cuántos?».
    let folded = normalize(clause)
        .replace("unos cuantos", "unos")
        .replace("unas cuantas", "unas");
    // «Que Dios le pague», «que tenga buen día»: a wish, no «¿qué?».
    if !clause.contains('?')
        && matches!(
            tokens(&folded).as_slice(),
            ["que", "dios", ..]
                | ["que", "le" | "te" | "les", "vaya", ..]
                | [
                    "que",
                    "tenga" | "tengas" | "tengan" | "pase" | "pases" | "pasen",
                    ..
                ]
        )
    {
        return false;
    }
    // Skip the small words a question may start with: «a qué hora», «y si»,
    // «oye, cuánto», «en dónde», «para cuándo».
    let first = tokens(&folded)
        .into_iter()
        .find(|w| !LEAD_INS.contains(w))
        .map(|w| w.to_string());
    // «Es que mi hijo quiere una.»: an explanation, not a question.
    if folded.starts_with("es que ") && !clause.contains('?') {
        return false;
    }
    clause.contains('?')
        || clause.trim_start().starts_with('¿')
        // «venden salteñas no cierto», «abren los domingos verdad»: a tag
        // asking to agree ends a question said without its mark.
        || ends_with_a_tag(&folded)
        // «Quisiera saber hasta qué hora atienden», «quería preguntar si…».
        || tokens(&folded)
            .iter()
            .any(|w| matches!(*w, "saber" | "preguntar" | "consultar") || ASKING_NOUNS.contains(w))
        // «y con tarjeta se puede pagar»: asking leave, the mark left out.
        || crate::text::contains_phrase(&folded, "se puede")
        || first.is_some_and(|w| OPENERS.contains(&w.as_str()))
        // «how much is the delivery», «what time do you close»: English asks
        // with its own words, the mark often left out.
        // (A wh-word with its verb: «when you get a chance add 2 brownies»
        // orders.)
        || matches!(
            tokens(&folded).as_slice(),
            ["how", "much" | "many" | "long" | "do" | "does" | "is" | "are" | "can", ..]
                | ["what", "is" | "are" | "time" | "do" | "does" | "s" | "kind", ..]
                | ["whats" | "which" | "why", ..]
                | ["when" | "where", "do" | "does" | "is" | "are" | "will" | "can" | "s", ..]
                | ["do" | "does", "you" | "it" | "the", ..]
                | ["is" | "are", "there" | "it" | "the", ..]
        )
        || tokens(&folded).iter().any(|w| INTERROGATIVES.contains(w))
        // «…, que postre le puedo pedir sin gluten», «que bebidas no tienen
        // cafeína»: «qué» before a kind of thing the shop sells, with no
        // article (a «que» giving a reason goes on with a verb or «el»).
        || que_before_a_kind(&tokens(&folded)).is_some()
        || asks_leave(&folded)
}

/// «le pueden poner un shot al capuchino», «me podrían hacer el matcha
/// caliente»: whether the shop can do a thing, asked without a mark (a modal
/// of the shop's before a verb).
fn asks_leave(folded: &str) -> bool {
    // (Asking the shop to act on the order is a request: «me pueden mandar el
    // pedido a la oficina», «pueden agregar un brownie».)
    let orders = |verb: &str| {
        [
            "mand", "envi", "agreg", "quit", "sac", "cambi", "anot", "separ", "apart", "guard",
            "reserv", "llev", "cancel", "borr", "confirm",
        ]
        .iter()
        .any(|stem| verb.starts_with(stem))
    };
    tokens(folded).windows(2).any(|w| {
        !orders(w[1])
            && matches!(w[0], "pueden" | "podrian" | "podria" | "puede")
            && [
                "ar", "er", "ir", "arlo", "erlo", "irlo", "arla", "erla", "irla", "arme", "erme",
                "irme",
            ]
            .iter()
            .any(|end| w[1].len() > end.len() + 1 && w[1].ends_with(end))
    })
}

/// «…no cierto», «…verdad», «…o no», «…sí o no», «…no es así»: the tag that
/// asks the listener to agree, ending a clause of more than the tag. (A lone
/// «no» is left alone: «ya no», «mejor no» answer.)
fn ends_with_a_tag(folded: &str) -> bool {
    let words = tokens(folded);
    let tags: [&[&str]; 8] = [
        &["no", "cierto"],
        &["no", "es", "cierto"],
        &["no", "es", "verdad"],
        &["no", "es", "asi"],
        &["si", "o", "no"],
        &["o", "no"],
        &["verdad"],
        &["cierto"],
    ];
    tags.iter().any(|tag| {
        words.len() > tag.len() + 1
            && words.ends_with(tag)
            // («por cierto» is a way to go on, «la verdad» a way to say it.)
            && !(tag.len() == 1
                && matches!(words[words.len() - 2], "por" | "la" | "de" | "es"))
    })
}

/// Whether `text` asks something about a topic the knowledge covers (the
/// hours, the place, the menu, payment…), whatever else it mentions.
pub fn asks_of_a_topic(text: &str) -> bool {
    asks(text) && Question::new(text).words.iter().any(|w| is_topic_word(w))
}

/// Whether `text` asks something, or tells of something the knowledge covers
/// (a complaint, a topic such as the hours or the delivery) without ordering.
pub fn asks_or_tells(text: &str) -> bool {
    let folded = normalize(text);
    // «falta un croissant que hago»: what to do, asked without a mark.
    asks(text)
        || [
            "que hago",
            "que hacemos",
            "que puedo hacer",
            "que debo hacer",
            "como hago",
        ]
        .iter()
        .any(|p| folded.ends_with(p))
        || tells(text, false)
}

/// Whether `clause` asks without a question's shape: a complaint («me faltó un
/// croissant»), or a topic of the knowledge with no shop request («formas de
/// pago», «delivery a Obrajes»).
fn tells(clause: &str, names_product: bool) -> bool {
    if super::words::is_a_claim(clause) {
        return true;
    }
    // «y lo mismo para mis dos compañeras de la oficina»: the order said
    // again for others; the place is whom it is for.
    if !clause.contains('?')
        && [
            "lo mismo",
            "la misma",
            "el mismo",
            "los mismos",
            "las mismas",
            "otro igual",
            "otra igual",
        ]
        .iter()
        .any(|p| crate::text::contains_phrase(&normalize(clause), p))
    {
        return false;
    }
    // «buen día, les escribo de la oficina de contabilidad»: who writes, no
    // question about the place they write from.
    if introduces_oneself(clause) {
        return false;
    }
    let shop = crate::shop::rules::shop_phrases(clause);
    !names_product
        && (!shop.request || wants_a_topic(clause))
        && shop.unexplained.iter().any(|w| is_topic_word(w))
}

/// «les escribo de la oficina», «te hablo desde el colegio», «somos de la
/// empresa X»: the customer says who writes, and asks nothing.
fn introduces_oneself(clause: &str) -> bool {
    if clause.contains('?') || clause.contains('¿') {
        return false;
    }
    let folded = normalize(clause);
    let words = tokens(&folded);
    words.windows(2).any(|w| {
        matches!(w[0], "escribo" | "escribimos" | "soy" | "somos")
            && matches!(w[1], "de" | "desde" | "del")
    }) && !words.iter().any(|w| {
        // («somos del colegio, necesitamos factura»: a request beside it is
        // still heard.)
        matches!(
            *w,
            "necesito" | "necesitamos" | "quiero" | "queremos" | "quisiera" | "quisieramos"
        )
    })
}

/// «Necesito factura con NIT», «quisiera una factura»: a wish whose object is
/// a topic of the knowledge (no product, no count) asks about that topic; it
/// orders nothing.
fn wants_a_topic(clause: &str) -> bool {
    let folded = normalize(clause);
    let words = tokens(&folded);
    let counted = words
        .iter()
        .any(|w| crate::text::token_number(w).is_some() && !matches!(*w, "un" | "una" | "uno"));
    // («quiero delivery a Obrajes», «quiero pagar con QR» choose how the
    // order goes: the shop's.)
    let chooses = about_the_way(clause)
        || words.iter().any(|w| {
            w.starts_with("pag")
                || matches!(
                    *w,
                    "qr" | "efectivo" | "transferencia" | "tarjeta" | "cancelar"
                )
        });
    !counted
        && !chooses
        && words.iter().enumerate().any(|(at, w)| {
            matches!(
                *w,
                "necesito" | "necesitamos" | "quiero" | "queremos" | "quisiera" | "queria"
            ) && words[at + 1..]
                .iter()
                .find(|next| !matches!(**next, "un" | "una" | "la" | "el" | "mi" | "su"))
                // (A thing, not a verb: «quiero llevar», «necesito avisar».)
                .is_some_and(|object| {
                    is_topic_word(object)
                        && !["ar", "er", "ir"].iter().any(|end| object.ends_with(end))
                })
        })
}

/// The order said before a comma with a question after it, when the words
/// before the comma order (a product with a count or an order verb) and those
/// after ask («quita el croissant y pon un brownie, ¿el brownie tiene gluten?»).
fn order_before_question(clause: &str, names_product: &impl Fn(&str) -> bool) -> Option<String> {
    clause.match_indices(',').find_map(|(at, _)| {
        let (order, question) = (clause[..at].trim(), clause[at + 1..].trim());
        let verb = crate::shop::rules::shop_phrases(order).request;
        // («el capuchino que sea con leche de almendras, ¿eso cobra extra?»:
        // a milk wished, with no count, is what is asked about.)
        let orders_here = names_product(order)
            && !asks(order)
            && (orders(order, true) || verb)
            && !wishes_another_milk(order);
        // «si confirmo paso a recoger yo misma, en cuanto tiempo esta
        // listo?»: the order confirmed, then a question.
        let confirms_here = !asks(order) && crate::shop::rules::says_confirmed(order);
        ((orders_here || confirms_here) && !question.is_empty() && asks(question))
            .then(|| order.to_owned())
    })
}

/// «media docena de croissants para la oficina», «si tienen brownie me guardan
/// tres»: a product with a quantity, not asked about, is an order whatever
/// other words come with it.
fn orders(clause: &str, names: bool) -> bool {
    let folded = crate::shop::rules::in_shop_words(clause);
    let words = tokens(&folded);
    // «una consulta», «una pregunta»: the article of the asking, no count.
    let quantity = words.iter().enumerate().any(|(at, w)| {
        (crate::text::token_number(w).is_some() || matches!(*w, "par" | "docena"))
            && !words
                .get(at + 1)
                .is_some_and(|next| ASKING_NOUNS.contains(next))
    });
    let interrogative = words.iter().any(|w| INTERROGATIVES.contains(w));
    names
        && quantity
        && !interrogative
        && (!clause.contains('?') || crate::shop::rules::asks_for(clause))
}

/// Nouns that announce a question: «una consulta», «una pregunta», «una duda».
const ASKING_NOUNS: &[&str] = &[
    "consulta",
    "consultita",
    "pregunta",
    "preguntita",
    "duda",
    "dudita",
];

/// Verbs that say what a product is or holds: «el brownie lleva nueces».
/// («el chocolate es muy dulce», said without a mark, is left to the shop: it
/// shows the product, description and all.)
const DESCRIBING: &[&str] = &[
    "tiene",
    "tienen",
    "lleva",
    "llevan",
    "viene",
    "vienen",
    "trae",
    "traen",
    "contiene",
    "contienen",
];

/// «una consulta el brownie lleva nueces», «el capuchino tiene canela no»,
/// «mi hijo es alérgico, el brownie tiene maní»: a product named right before
/// a verb that says what it is or holds is that verb's subject, and the clause
/// is about it, question mark or not — never an order for it. A count before
/// the name («dos brownies tienen…») or an order verb anywhere leaves it a
/// request.
fn asks_of_product(clause: &str, names_product: &impl Fn(&str) -> bool) -> bool {
    let folded = super::words::without_reason(&normalize(clause));
    // «…tiene canela, no?», «…es dulce verdad»: the tag asks for a yes.
    let folded = ["o no", "no", "verdad", "cierto", "si o no"]
        .iter()
        .find_map(|tag| folded.strip_suffix(&format!(" {tag}")))
        .unwrap_or(&folded)
        .to_owned();
    // «el brownie trae nuez»: the verb that says what the product holds is no
    // «tráelo»; an order verb anywhere else still makes it a request.
    let words = tokens(&folded);
    let request = |verb_at: usize| {
        let others: Vec<&str> = words
            .iter()
            .enumerate()
            .filter(|(at, _)| *at != verb_at)
            .map(|(_, w)| *w)
            .collect();
        crate::shop::rules::shop_phrases(&others.join(" ")).request
    };
    if crate::shop::rules::shop_phrases(&folded).request
        && !words
            .iter()
            .enumerate()
            .any(|(at, w)| matches!(*w, "trae" | "traen") && at > 0 && !request(at))
    {
        return false;
    }
    // «y el cheesecake de qué es»: what a named product is made of.
    if names_product(&folded) && super::words::asks_what_it_is_made_of(&folded) {
        return true;
    }
    words.iter().enumerate().any(|(at, verb)| {
        if at == 0 || !DESCRIBING.contains(verb) || request(at) {
            return false;
        }
        // The product's words just before the verb (one or two), after an
        // article; the word before them neither a count nor «que».
        (1..=4.min(at)).any(|len| {
            let subject = words[at - len..at].join(" ");
            let before = at.checked_sub(len + 1).map(|i| words[i]);
            let article = before.filter(|w| matches!(*w, "el" | "la" | "los" | "las"));
            let lead = match article {
                Some(_) => (at - len).checked_sub(2).map(|i| words[i]),
                None => before,
            };
            names_product(&subject)
                && !subject
                    .split(' ')
                    .any(|w| crate::text::token_number(w).is_some())
                && !lead.is_some_and(|w| {
                    crate::text::token_number(w).is_some() || matches!(w, "que" | "de")
                })
        })
    })
}

/// Question words that ask wherever they stand («y el horario cuál es»); «que»
/// is not one of them (it also joins clauses: «dame de los que tienen»).
const INTERROGATIVES: &[&str] = &[
    "cual", "cuales", "cuando", "donde", "adonde", "cuanto", "cuanta", "cuantos", "cuantas",
];

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
    // «el brownie, ¿tiene nueces?»: a product named alone before a question
    // is what the question asks about, never an order of its own.
    let mut all: Vec<String> = Vec::new();
    for clause in clauses(text) {
        let subject = all.last().filter(|prev: &&String| {
            names_product(prev)
                && !orders(prev, true)
                && !crate::shop::rules::shop_phrases(prev).request
                && !asks(prev)
        });
        if asks(&clause) && subject.is_some() {
            let prev = all.pop().unwrap_or_default();
            all.push(format!("{prev} {clause}"));
        } else {
            all.push(clause);
        }
    }
    // «¿el chai lleva leche? Es que una compañera es intolerante…»: a clause
    // explaining a question is the question's, never an order of its own.
    let asks_any = all.iter().any(|c| asks(c));
    let mut told: Option<String> = None;
    // The topic words of a scene told before the next question.
    let mut scene_topics: Vec<String> = Vec::new();
    // Whether a request was put on a condition («si tiene dame…»).
    let mut conditioned = false;
    // The next clause with words («…secos!! Sacá los dos»: not the lone «!»).
    let following: Vec<Option<String>> = (0..all.len())
        .map(|k| {
            all[k + 1..]
                .iter()
                .find(|c| c.chars().any(char::is_alphanumeric))
                .cloned()
        })
        .collect();
    for (clause, next) in all.into_iter().zip(following) {
        let next = next.as_ref();
        // «Tudo bem?», «¿qué tal?», «¿cómo estás?»: asking how one is, a
        // greeting's, never the shop's knowledge.
        if asks_how_one_is(&clause) {
            split.explanations.push(clause);
            continue;
        }
        if asks_any && courtesy(&clause) {
            split.explanations.push(clause);
            continue;
        }
        if asks_any && explains(&clause) {
            told = Some(clause.clone());
            split.explanations.push(clause);
            continue;
        }
        // «Hola, vengo de Madrid con mi perro, un galgo muy tranquilo. ¿Puede
        // entrar conmigo?»: a scene told right before a question is why it is
        // asked; its topic words go with the question, the rest asks nothing.
        // (A question pointing back asks of the scene's thing. An allergy
        // told is also answered of its own: «Mi hijo es intolerante a la
        // lactosa. ¿Qué bebidas le puedo pedir?».)
        let folded_words = normalize(&clause);
        let words = tokens(&folded_words);
        if next.is_some_and(|n: &String| asks(n) && !points_back(n) && !asks_nothing_of_its_own(n))
            && scene(&clause, &names_product)
            && words.len() >= 3
        {
            scene_topics.extend(topic_words_of(&clause));
            if !words.iter().any(|w| tells_an_allergy(w)) {
                split.explanations.push(clause);
                continue;
            }
        }
        // (The scene's topic words go with a question for the knowledge;
        // «…, qué tienen?» is the catalog's all the same.)
        let (clause, lent) = match after_a_scene(&clause, &names_product) {
            Some((told, question)) => {
                let lent = topic_words_of(&told);
                split.explanations.push(told);
                (question, lent)
            }
            None if asks(&clause) => (clause, std::mem::take(&mut scene_topics)),
            None => (clause, Vec::new()),
        };
        // «¿cuántas calorías tiene el brownie? estoy a dieta jaja»: what the
        // customer tells of themselves after a question is why they ask it.
        if !split.questions.is_empty() && tells_of_oneself(&clause) {
            split.explanations.push(clause);
            continue;
        }
        // «es que el domingo vienen mis suegros… ¿hacen delivery ese día?»:
        // a question pointing back at what was just told carries it along.
        let clause = match told.take() {
            Some(story) if points_back(&clause) => format!("{story} {clause}"),
            // «Deseo encargar un pedido grande para cuarenta personas. ¿Cómo
            // se hace eso?»: a short question pointing back carries the
            // sentence before it, when that one names no product.
            // «Joven, el QR que me mandan ¿hasta cuándo vale pues?»: a short
            // question naming no topic of its own is about the thing the
            // words before it named.
            _ if bare_question(&clause, &names_product)
                && split.questions.last().is_some_and(|prev: &String| {
                    !prev.contains('?')
                        && !names_product(prev)
                        && Question::new(prev).words.iter().any(|w| is_topic_word(w))
                }) =>
            {
                let prev = split.questions.pop().unwrap_or_default();
                format!("{prev} {clause}")
            }
            _ if bare_question(&clause, &names_product)
                // (Naming no product, the words before order nothing: «el QR
                // que me mandan».)
                && rest.last().is_some_and(|prev: &String| {
                    !prev.contains('?')
                        && !names_product(prev)
                        && !crate::shop::rules::calls_off_or_closes(prev)
                        // «mándalo a la calle Arce 2450 ¿cuánto sale?»: the way
                        // is the shop's to set.
                        && crate::shop::rules::delivery::mode_said(prev).is_none()
                        && Question::new(prev).words.iter().any(|w| is_topic_word(w))
                }) =>
            {
                let prev = rest.pop().unwrap_or_default();
                format!("{prev} {clause}")
            }
            // «…el capuchino que sea con leche de almendras, ¿eso cobra
            // extra?»: a product wished with another milk, with no count, is
            // what the short question after it points back at.
            _ if asks(&clause)
                && points_back(&clause)
                && tokens(&normalize(&clause)).len() <= 6
                && rest.last().is_some_and(|prev: &String| {
                    (!names_product(prev) || wishes_another_milk(prev)) && !asks(prev)
                }) =>
            {
                let prev = rest.pop().unwrap_or_default();
                format!("{prev} {clause}")
            }
            _ => clause,
        };
        // «¿…? si tiene dame una limonada, si no un chai»: the request on
        // the other answer, after one put on a condition.
        let folded_clause = normalize(&clause);
        if asks_any && conditioned {
            let words = tokens(&folded_clause);
            let other = match words.as_slice() {
                ["si", "no", rest @ ..] | ["y", "si", "no", rest @ ..] | ["sino", rest @ ..] => {
                    Some(rest.join(" "))
                }
                _ => None,
            };
            // («si no no», «si no nada»: nothing on the other answer.)
            let nothing = |o: &String| tokens(o).iter().all(|w| matches!(*w, "no" | "nada"));
            match other.filter(|o| !o.starts_with("es molestia")) {
                Some(other) if nothing(&other) => continue,
                Some(other) => {
                    split.otherwise = Some(other);
                    continue;
                }
                None => {}
            }
        }
        // «¿…? mi hija es alérgica, si tiene sácalo»: why one asks explains
        // it; the condition follows.
        let clause = match told_before_condition(&clause, &names_product) {
            Some((why, condition)) if asks_any => {
                split.explanations.push(why.trim().to_owned());
                condition.trim().to_owned()
            }
            _ => clause,
        };
        // «¿…? si es, quiero uno»: the request, without the condition's words.
        // (Only after a question: «Si pido 12 chocolates, ¿cuenta como
        // evento?» hypothesises before it.)
        let clause = match after_condition(&clause) {
            Some(request) if asks_any && !split.questions.is_empty() => {
                conditioned = true;
                request
            }
            _ => clause,
        };
        // «buenas, 2 capuchinos y 1 croissant, a qué hora cierran hoy?», «y
        // agrega una limonada sin azúcar, se puede?»: an order before a comma
        // and a question after it are both heard — the question with the
        // order around it («…30 cafés para una reunión, ¿con cuánto tiempo
        // aviso?» is about an event).
        if asks(&clause)
            && let Some(order) = order_before_question(&clause, &names_product)
            && is_knowledge(&clause, library, &names_product)
        {
            // A question naming its own product is asked alone («…, ¿el
            // brownie tiene gluten?»).
            let question = clause[order.len()..]
                .trim_start_matches([',', ' '])
                .to_owned();
            let alone = names_product(&question);
            rest.push(order);
            split.questions.push(if alone { question } else { clause });
            continue;
        }
        let tells = tells(&clause, names_product(&clause));
        // «el brownie tiene nueces y soy alérgica!! Sacá los dos»: what is
        // said of products, with no mark of a question, is the reason for the
        // request after it that points back at them.
        let told_for_next = !asks(&clause)
            && !tells
            && asks_of_product(&clause, &names_product)
            && next.is_some_and(|n: &String| refers_back(n));
        // «entonces mejor cancelo todo, no llego a tiempo», «ya entonces
        // recojo, cuánto es»: calling the order off or closing it is a
        // request, whatever the policy on it says.
        let calls_off = !clause.contains('?') && crate::shop::rules::calls_off_or_closes(&clause);
        // «lo recojo yo en unos 20 min», «paso por ahí a las 8 y lo recojo»:
        // the way the order goes, said and not asked, is a request.
        // (The customer's own coming by: «mi sobrino pasará a recogerlo» is
        // heard with the question beside it.)
        let says_pickup = !clause.contains(['?', '¿'])
            && !asks(&clause)
            && tokens(&normalize(&clause)).iter().any(|w| {
                matches!(
                    *w,
                    "recojo" | "recogemos" | "paso" | "pasamos" | "retiro" | "busco" | "buscamos"
                )
            })
            && crate::shop::rules::delivery::mode_said(&clause)
                == Some(crate::shop::core::Mode::Pickup);
        if (asks(&clause)
            || tells
            || asks_of_product(&clause, &names_product)
            || asks_to_hold(&clause, names_product(&clause)))
            && !told_for_next
            && !calls_off
            && !says_pickup
            // «¿cuánto llevamos?», «total please?»: the order's sum, the
            // summary's to show.
            && !crate::shop::rules::asks_the_order_total(&clause)
            && (is_knowledge(&clause, library, &names_product)
                // «mi hija es celíaca, qué tienen?»: a diet told makes the
                // menu asked a question of what fits.
                || (lent.iter().any(|w| tells_a_diet(w))
                    && is_knowledge(
                        &format!("{clause} {}", lent.join(" ")),
                        library,
                        &names_product,
                    )))
        {
            split.questions.push(if lent.is_empty() {
                clause
            } else {
                format!("{} ({})", clause.trim(), lent.join(" "))
            });
        } else {
            // «2 capuchinos con leche de almendras»: an order with another
            // milk is taken, and the milk is asked of the knowledge beside it
            // (what milks there are, what they cost), as it is without a count.
            if orders_another_milk(&clause, &names_product) {
                split.questions.push(clause.clone());
            }
            rest.push(clause);
        }
    }
    // A list's lines stay lines: «1. cuatro americanos» keeps its number a
    // list marker, not a count.
    split.rest = rest.join(if text.contains('\n') { "\n" } else { " " });
    if !split.questions.is_empty() && !split.rest.is_empty() {
        split.condition = condition(text, &names_product);
    }
    split
}

/// «¿me lo pueden guardar hasta mañana?», «me apartan el pedido hasta las
/// 7»: the shop asked to hold what was ordered, with no product named, no
/// count (an hour is none) and no other request beside it. («si tienen
/// brownie me guardan tres», «apártame dos» order.)
fn asks_to_hold(clause: &str, names: bool) -> bool {
    let folded = normalize(clause);
    if names || !super::words::asks_to_hold(&folded) {
        return false;
    }
    let words = tokens(&folded);
    let counted = words.iter().enumerate().any(|(at, w)| {
        let before = at.checked_sub(1).map(|i| words[i]);
        let after = words.get(at + 1).copied();
        crate::text::token_number(w).is_some()
            // «hasta las 6», «a la una», «a las 5 pm», «un rato».
            && !before.is_some_and(|b| matches!(b, "las" | "la" | "a"))
            && !after.is_some_and(|a| {
                matches!(
                    a,
                    "pm" | "am" | "hs" | "hrs" | "horas" | "hora" | "minutos" | "min" | "rato"
                        | "ratito" | "momento" | "dia" | "dias" | "ratos"
                )
            })
            && !w.contains(':')
    });
    let others: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !super::words::is_hold_verb(w))
        .collect();
    !counted && !crate::shop::rules::shop_phrases(&others.join(" ")).request
}

/// «el capuchino que sea con leche de almendras»: a product wished with
/// another milk than its own, with no count — a wish the knowledge answers
/// (what milks there are, what they cost), no order.
fn wishes_another_milk(clause: &str) -> bool {
    super::words::asks_another_milk(&normalize(clause)) && !orders(clause, true)
}

/// «2 capuchinos con leche de almendras», «un chai con leche vegetal»: a
/// product ordered with a count and another milk than its own.
fn orders_another_milk(clause: &str, names_product: &impl Fn(&str) -> bool) -> bool {
    super::words::asks_another_milk(&normalize(clause))
        && orders(clause, names_product(clause))
        && !calls_off_or_removes(clause)
}

/// «quita los 2 capuchinos con leche de almendras»: a line taken out or the
/// order called off asks nothing of the milks.
fn calls_off_or_removes(clause: &str) -> bool {
    let folded = normalize(clause);
    crate::shop::rules::calls_off_or_closes(clause)
        || tokens(&folded).iter().any(|w| {
            ["quit", "sac", "borr", "elimin", "cancel", "anul"]
                .iter()
                .any(|stem| w.starts_with(stem))
        })
}

/// «cuánto cuesta», «qué precio tiene», «cuánto vale»: the price asked, and
/// nothing the knowledge keeps (a fee, a topic's word) beside it.
fn asks_the_price(words: &[String]) -> bool {
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "cuesta" | "cuestan" | "precio" | "precios" | "vale" | "valen" | "costaria"
        )
    }) && !words.iter().any(|w| is_topic_word(w))
}

/// A question the catalog's names and prices do not answer: about what a
/// product is like, or about something else the shop may know.
///
/// In order: an attribute asked of a product («¿el chai lleva leche?») is
/// knowledge, while one asked of the whole shop by kind («¿algo frío?») is the
/// catalog's; a word of a topic the knowledge covers (hours, delivery, payment…)
/// that no shop phrase explains makes it knowledge; a shop request (an order
/// verb, «cuánto te debo», «qué tienen») makes it the shop's; what is left must be
/// about something the catalog does not hold.
fn is_knowledge(clause: &str, library: &Library, names_product: &impl Fn(&str) -> bool) -> bool {
    // «…nos vamos a quedar toda la tarde antes del feriado, qué tienen?»,
    // «me muestras la carta?»: what the shop sells is the catalog's, whatever
    // is told before it.
    // («mi hija es celíaca, qué tienen?» asks what fits her.)
    let diet = [
        "celiac",
        "vegan",
        "alerg",
        "intoleran",
        "diabet",
        "sin gluten",
        "sin lactosa",
    ]
    .iter()
    .any(|w| normalize(clause).contains(w));
    if !diet
        && clause
            .rsplit([',', '.', '!', ';'])
            .find(|part| part.chars().any(char::is_alphanumeric))
            .is_some_and(asks_for_the_menu)
    {
        return false;
    }
    let question = Question::new(clause);
    let names = names_product(clause);
    // An order with its quantity, not asked about, is an order even when a
    // product's own name holds an attribute («un chocolate caliente»).
    // (Cut from the clause as written: its marks say whether it asks.)
    let asked_part = super::words::without_reason(&clause.to_lowercase());
    let complaint = super::words::is_a_claim(clause);
    if orders(&asked_part, names) && !complaint {
        return false;
    }
    // «¿me lo apartan para la tarde?»: holding what was ordered is a service
    // the knowledge answers, never an order of its own.
    if asks_to_hold(clause, names) {
        return true;
    }
    let asked = attributes_asked(&question);
    // «¿cuánto cuesta el chocolate caliente?»: a named product's price is the
    // catalog's, even when its name holds a kind's word.
    if names
        && !asked.is_empty()
        && asked.iter().all(|a| is_kind(a))
        && asks_the_price(&question.words)
        && !super::words::asks_another_milk(&question.folded)
    {
        return false;
    }
    if !asked.is_empty() && (names || asked.iter().any(|a| !is_kind(a))) {
        return true;
    }
    // «¿el matcha de cuántos ml es?», «¿cuántas calorías tiene?»: a measure
    // asked of a product; «¿tienen descafeinado?»: a word the shop wrote in
    // its knowledge and never in its catalog, asked — the knowledge's, not a
    // browse by kind.
    let measure = question.words.iter().any(|w| {
        matches!(
            w.as_str(),
            "ml" | "mililitros"
                | "onzas"
                | "oz"
                | "gramos"
                | "calorias"
                | "kcal"
                | "miligramos"
                | "mg"
                | "tamano"
                | "tamanos"
        )
    });
    let written_apart = asks(clause)
        && question
            .words
            .iter()
            .any(|w| w.chars().count() >= 6 && library.wrote(w) && !library.is_catalog_word(w));
    if (measure && (names || asks(clause))) || (written_apart && !asked.is_empty()) {
        return true;
    }
    // «¿de qué es el cheesecake?», «¿qué trae la limonada?»: what a named
    // product is made of, never an order for it; «el capuchino tiene canela,
    // no?»: what it holds, said of it.
    let holds = tokens(&normalize(clause)).iter().any(|w| {
        matches!(
            *w,
            "tiene" | "tienen" | "lleva" | "llevan" | "trae" | "traen" | "contiene" | "contienen"
        )
    });
    if names
        && (super::words::asks_what_it_is_made_of(clause)
            || (holds && asks_of_product(clause, names_product)))
    {
        return true;
    }
    // «What time do you close today?»: a tourist's question on a topic the
    // knowledge covers, read in Spanish.
    if super::words::is_english(clause) && question.words.iter().any(|w| is_topic_word(w)) {
        return true;
    }
    // «¿tienen leche de avena o deslactosada?»: another milk is the
    // knowledge's, not a product of the catalog.
    if super::words::asks_another_milk(&normalize(clause))
        || super::words::asks_another_milk(&question.folded)
    {
        return true;
    }
    // «¿puedo pagar con Tigo Money?»: how to pay, not a wish to pay now.
    if [
        "pagar con",
        "pago con",
        "pagarles con",
        "pagarte con",
        "pagar en",
        "pago en",
    ]
    .iter()
    .any(|p| crate::text::contains_phrase(&normalize(clause), p))
    {
        return true;
    }
    // («…me llegó tarde pero bueno, ahora lo que quiero es…»: a story of what
    // went wrong, beside a request, is the request's.)
    if complaint {
        return true;
    }
    if orders(clause, names) {
        return false;
    }
    let shop = crate::shop::rules::shop_phrases(clause);
    let unexplained: Vec<&String> = shop
        .unexplained
        .iter()
        .filter(|w| !STOP_AROUND.contains(&w.as_str()))
        .collect();
    if unexplained.iter().any(|w| is_topic_word(w)) {
        return true;
    }
    // «¿en cuánto rato está?» is read «en cuánto tiempo está listo»: a topic
    // the question is read as asks about it as much as one it says.
    let said = normalize(clause);
    let said: Vec<&str> = tokens(&said);
    if asks(clause)
        && question
            .words
            .iter()
            .any(|w| is_topic_word(w) && !said.contains(&w.as_str()))
    {
        return true;
    }
    // «¿me lo pueden calentar el brownie?»: a service asked of a product
    // (no order verb, no topic's) is a question, whatever else it names.
    if names && asks(clause) && !super::words::services_asked(&question.folded).is_empty() {
        return true;
    }
    // «¿algo caliente?» browses the catalog by kind; «¿cómo llegarían
    // calientes?» asks something else that holds a kind's word.
    if shop.request || (!asked.is_empty() && asks_the_whole_shop(clause)) {
        return false;
    }
    // What the question is about, beyond products and shop words.
    let subject: Vec<&&String> = unexplained
        .iter()
        .filter(|w| question.words.contains(w))
        .filter(|w| !SHOP.contains(&w.as_str()))
        .filter(|w| !library.is_catalog_word(w))
        // («¿tienen medialunas?»: a product's other name is the product.)
        .filter(|w| !names_product(w))
        .filter(|w| w.parse::<f64>().is_err())
        .collect();
    if subject.is_empty() {
        return false;
    }
    // «¿tienen brownie?»: the catalog answers; «¿el brownie es para llevar?» asks
    // something the catalog does not say, and «¿cuántas calorías tiene el
    // brownie?» something nobody wrote (the gray zone says so).
    !names || subject.iter().any(|w| !library.knows(w))
}

/// «¿qué tal?», «¿cómo estás?», «Tudo bem?»: how one is, asked alone.
fn asks_how_one_is(clause: &str) -> bool {
    let folded = normalize(clause);
    let words: Vec<&str> = tokens(&folded)
        .into_iter()
        .filter(|w| {
            !matches!(
                *w,
                "y" | "hola" | "buenas" | "oi" | "ola" | "usted" | "ustedes"
            )
        })
        .collect();
    matches!(
        words.as_slice(),
        ["que", "tal"]
            | [
                "como",
                "estas" | "esta" | "estan" | "va" | "vas" | "andas" | "anda"
            ]
            | ["tudo", "bem" | "bom"]
            | ["todo", "bien"]
            | ["how", "are", "you"]
    )
}

/// «¿qué tienen?», «me muestras la carta?», «vocês tienen cardápio?»: the
/// menu asked for, and nothing else.
fn asks_for_the_menu(part: &str) -> bool {
    let folded = normalize(part);
    let words: Vec<&str> = tokens(&folded)
        .into_iter()
        .filter(|w| {
            !matches!(
                *w,
                "y" | "oye"
                    | "oiga"
                    | "me"
                    | "nos"
                    | "la"
                    | "el"
                    | "su"
                    | "tu"
                    | "por"
                    | "favor"
                    | "porfa"
                    | "ustedes"
                    | "voces"
                    | "pueden"
                    | "puedes"
                    | "podrias"
                    | "podria"
                    | "ahora"
                    | "hoy"
                    | "pues"
            )
        })
        .collect();
    let menu = |w: &str| matches!(w, "carta" | "menu" | "catalogo" | "cardapio");
    match words.as_slice() {
        [
            "que",
            "tienen" | "venden" | "hay" | "ofrecen" | "tienes" | "vendes",
        ] => true,
        [verb, noun]
            if menu(noun)
                && matches!(
                    *verb,
                    "muestras"
                        | "muestra"
                        | "mostras"
                        | "pasas"
                        | "pasa"
                        | "mandas"
                        | "manda"
                        | "tienen"
                        | "tienes"
                        | "ver"
                        | "mostrar"
                        | "pasar"
                        | "mandar"
                ) =>
        {
            true
        }
        [noun] => menu(noun),
        _ => false,
    }
}

/// Whether `question` asks about how the order reaches the customer: delivery,
/// zones, pickup («¿hacen envíos a Calacoto?», «¿puede recoger mi hermano?»).
pub fn about_the_way(question: &str) -> bool {
    let folded = normalize(question);
    crate::shop::rules::delivery::mode_said(question).is_some()
        || tokens(&folded).iter().any(|w| {
            matches!(
                *w,
                "envio"
                    | "envios"
                    | "envian"
                    | "delivery"
                    | "domicilio"
                    | "zona"
                    | "zonas"
                    | "llegan"
                    | "mandan"
                    | "recoger"
                    | "recojo"
                    | "repartidor"
            )
        })
}

/// «¿en cuánto tiempo está?», «¿cuánto demora?», «¿en cuánto rato llega?»: how
/// long until the order is there, asked with nothing else — no way (pickup or
/// delivery), no other topic, no product. What it is asked of is the way the
/// conversation chose or talked about.
pub fn asks_only_how_long(question: &str) -> bool {
    let folded = normalize(question);
    let words = tokens(&folded);
    let how_long = words.windows(2).any(|w| {
        // («¿qué falta?» asks what is missing; «¿cuánto está?» the price.)
        (w[0] == "cuanto"
            && matches!(
                w[1],
                "tiempo" | "rato" | "tarda" | "tardan" | "demora" | "demoran" | "falta"
            ))
            || (w[0] == "que" && w[1] == "tiempo")
    }) || words.windows(3).any(|w| {
        w[0] == "cuanto" && w[1] == "se" && matches!(w[2], "demora" | "demoran" | "tarda")
    });
    let asked_of = Question::new(question);
    let beyond: Vec<&String> = asked_of
        .words
        .iter()
        .filter(|w| {
            !matches!(
                w.as_str(),
                "cuanto"
                    | "tiempo"
                    | "rato"
                    | "ratito"
                    | "tarda"
                    | "tardan"
                    | "tardaria"
                    | "demora"
                    | "demoran"
                    | "demoraria"
                    | "esta"
                    | "estara"
                    | "estaria"
                    | "listo"
                    | "lista"
                    | "llega"
                    | "llegaria"
                    | "falta"
                    | "mas"
                    | "menos"
                    | "aproximadamente"
                    | "pedido"
                    | "orden"
                    | "mi"
                    | "el"
            )
        })
        .collect();
    how_long && beyond.is_empty() && !about_the_way(question)
}

/// Whether `text` speaks of delivery (not of pickup): «¿hacen delivery a
/// Miraflores?», «¿me lo mandan a Obrajes?».
pub fn speaks_of_delivery(text: &str) -> bool {
    use crate::shop::core::Mode;
    let folded = normalize(text);
    let words = tokens(&folded);
    let delivery = crate::shop::rules::delivery::mode_said(text) == Some(Mode::Delivery)
        || words.iter().any(|w| {
            matches!(
                *w,
                "envio"
                    | "envios"
                    | "envian"
                    | "delivery"
                    | "domicilio"
                    | "mandan"
                    | "manden"
                    | "traigan"
                    | "llegan"
                    | "repartidor"
            )
        });
    let pickup = crate::shop::rules::delivery::mode_said(text) == Some(Mode::Pickup)
        || words
            .iter()
            .any(|w| matches!(*w, "recoger" | "recojo" | "recogerlo" | "recogerla"));
    delivery && !pickup
}

/// Whether `question` asks about the shop's products as a whole («¿tienen algo
/// vegano?», «¿qué postres hay?») rather than about the one just talked about.
pub fn asks_the_whole_shop(question: &str) -> bool {
    let folded = normalize(question);
    tokens(&folded).iter().any(|w| {
        matches!(
            *w,
            "tienen"
                | "tienes"
                | "hay"
                | "algo"
                | "alguna"
                | "alguno"
                | "algun"
                | "opciones"
                | "cuales"
                | "que"
                | "venden"
        )
    })
}

/// Words around a question that never carry its subject.
const STOP_AROUND: &[&str] = &["q", "k", "pa", "pal"];

/// Kinds of products a customer browses by: asked of the whole shop they are a
/// catalog request, not a knowledge question.
fn is_kind(attribute: &str) -> bool {
    matches!(
        attribute,
        "frío"
            | "caliente"
            | "sin cafeína"
            | "con cafeína"
            | "dulce"
            | "salado"
            | "postre"
            | "bebida"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word of small talk beside a question about the shop leaves it the
    /// shop's; small talk alone is not.
    #[test]
    fn a_question_of_a_topic_is_the_shops_whatever_else_it_mentions() {
        assert!(asks_of_a_topic(
            "¡Hola! Estoy de mochilero con mi novia y el celu tiene 5% de batería. ¿Para qué lado quedan ustedes y cuánto se camina?"
        ));
        assert!(asks_of_a_topic(
            "mi novio y yo vamos para allá, ¿dónde quedan exactamente?"
        ));
        assert!(!asks_of_a_topic("¿quién ganó el partido ayer?"));
        assert!(!asks_of_a_topic("cuéntame un chiste"));
        assert!(!asks_of_a_topic("¿quieres ser mi novia?"));
    }

    #[test]
    fn wishes_counts_and_orders_said_again_ask_nothing_and_english_asks() {
        assert!(!asks("Que Dios le pague."));
        assert!(!asks("ah ya bueno y unos cuantos brownies para la oficina"));
        assert!(asks("how much is the delivery"));
        assert!(asks("what time do you close"));
        assert!(!asks("When you get a chance add 2 brownies"));
        assert!(!tells(
            "y lo mismo para mis dos compañeras de la oficina",
            false
        ));
    }

    /// A scene told before a question is why it is asked: the question is
    /// asked with the scene's topic words only, and the scene is answered on
    /// its own only when it tells an allergy.
    #[test]
    fn a_scene_told_before_a_question_lends_it_only_its_topic_words() {
        let library = Library::default();
        let none = |_: &str| false;
        let s = split(
            "Hola, vengo de Madrid con mi perro, un galgo muy tranquilo. ¿Puede entrar conmigo dentro del local?",
            &library,
            none,
        );
        assert_eq!(s.questions.len(), 1, "{s:?}");
        assert!(s.questions[0].contains("perro"), "{s:?}");
        assert!(!s.questions[0].contains("Madrid"), "{s:?}");
        let s = split(
            "buenas, mi hija es celiaca y el sabado vamos a ir con mi hermana, que postre le puedo pedir sin gluten",
            &library,
            none,
        );
        assert_eq!(s.questions.len(), 1, "{s:?}");
        assert!(s.questions[0].starts_with("que postre"), "{s:?}");
        assert!(s.questions[0].contains("celiaca"), "{s:?}");
        // «qué» before a kind, with no comma, opens the question.
        let s = split(
            "hola soy caraqueña y estoy embarazada de 5 meses que bebidas no tienen cafeina",
            &library,
            none,
        );
        assert!(
            s.questions.iter().any(|q| q.starts_with("que bebidas"))
                || s.rest.starts_with("que bebidas"),
            "{s:?}"
        );
        // A question pointing back asks of the scene's own thing; a request
        // by kind is no scene; a «que» giving a reason opens nothing.
        for whole in [
            "ayer deje olvidado mi paraguas en una mesa, lo tienen?",
            "estoy en la plaza avaroa, estoy cerca de ustedes?",
        ] {
            let s = split(whole, &library, none);
            assert!(s.explanations.is_empty(), "{whole}: {s:?}");
        }
        let s = split(
            "Ya, entonces algo frío pe, ¿qué me recomiendas?",
            &library,
            none,
        );
        assert!(!s.explanations.iter().any(|e| e.contains("frío")), "{s:?}");
        // A bare question beside a scene asks of the scene, whole.
        let s = split(
            "me cobraron doble con la tarjeta, ¿qué hago?",
            &library,
            none,
        );
        assert!(s.explanations.is_empty(), "{s:?}");
        // An allergy told is still answered of its own.
        let s = split(
            "Mi hijo es intolerante a la lactosa. ¿Qué bebidas le puedo pedir sin problema?",
            &library,
            none,
        );
        assert!(
            s.questions.iter().any(|q| q.contains("intolerante")),
            "{s:?}"
        );
    }

    #[test]
    fn a_request_on_each_answer_is_kept_apart() {
        let library = Library::default();
        let s = split(
            "el chai tiene cafeina? si tiene dame mejor una limonada, si no un chai",
            &library,
            |c| c.contains("chai") || c.contains("limonada"),
        );
        assert_eq!(s.questions, ["el chai tiene cafeina?"]);
        assert_eq!(s.condition, Some(true));
        assert_eq!(s.rest, "dame mejor una limonada,");
        assert_eq!(s.otherwise.as_deref(), Some("un chai"));
        // «si no no»: nothing on the other answer, and no bare «no» left.
        let none = split(
            "el chai tiene cafeina? si tiene dame una limonada, si no no",
            &library,
            |c| c.contains("chai") || c.contains("limonada"),
        );
        assert_eq!(none.otherwise, None);
        assert!(
            !tokens(&normalize(&none.rest)).contains(&"no"),
            "{:?}",
            none.rest
        );
        // One branch alone, as before.
        let one = split("el chai lleva leche? si no, dame dos", &library, |c| {
            c.contains("chai")
        });
        assert_eq!(one.condition, Some(false));
        assert_eq!(one.otherwise, None);
    }

    #[test]
    fn leave_asked_of_the_shop_is_a_question_and_an_errand_is_a_request() {
        assert!(asks(
            "le pueden poner un shot extra de espresso al capuchino"
        ));
        assert!(asks("venden cerveza o algo con alcohol"));
        assert!(!asks_leave("me pueden mandar el pedido a la oficina"));
        assert!(!asks_leave("pueden agregar un brownie"));
    }

    /// Whether a clause names one of `products` (a stand-in for the catalog).
    fn naming(products: &'static [&'static str]) -> impl Fn(&str) -> bool + Copy {
        move |clause: &str| {
            let folded = normalize(clause);
            products.iter().any(|p| folded.contains(p))
        }
    }

    #[test]
    fn one_s_own_pickup_told_is_a_request_and_asked_is_a_question() {
        let library = Library::default();
        let names = naming(&["brownie"]);
        for told in [
            "lo recojo yo en unos 20 min",
            "paso por ahí a las 8 y lo recojo",
        ] {
            let split = super::split(told, &library, names);
            assert!(split.questions.is_empty(), "{told}: {:?}", split.questions);
            assert!(!split.rest.is_empty(), "{told}");
        }
        for asked in [
            "¿puedo recoger en la tienda?",
            "Mi sobrino Marcelo pasará a recogerlo, ¿él lo puede recoger?",
        ] {
            assert!(
                !super::split(asked, &library, names).questions.is_empty(),
                "{asked}"
            );
        }
    }

    #[test]
    fn a_reason_after_a_question_and_a_story_of_what_went_wrong_are_read_for_what_they_are() {
        let library = Library::default();
        let names = naming(&["chocolate", "brownie", "maracuya"]);
        for asked in [
            "oye y el chocolate caliente lleva café o no porque es para mi hija que tiene 8 años",
            "el pedido vino sin uno de los brownies",
        ] {
            let split = super::split(asked, &library, names);
            assert_eq!(split.rest, "", "{asked}");
            assert_eq!(split.questions.len(), 1, "{asked}");
        }
        // A story told beside an order leaves the order to the shop.
        let story = "la otra vez me llegó tarde pero bueno, ahora lo que quiero es 2 maracuya";
        assert!(!super::split(story, &library, names).rest.is_empty());
        // A reason that asks for something is kept whole.
        assert_eq!(
            super::super::words::without_reason("el americano tiene leche porque si no me da uno"),
            "el americano tiene leche porque si no me da uno"
        );
        assert_eq!(
            super::super::words::without_reason("el chai tiene cafeina porque es para mi hija"),
            "el chai tiene cafeina"
        );
    }

    /// «Una más:» announces a question and «por si acaso para mi capuchino»
    /// tells why it is asked: neither orders anything; «¿Cuánto es el
    /// total?» after an invoice's data asks the order's sum, not of them.
    #[test]
    fn an_announced_question_and_its_reason_order_nothing() {
        let library = Library::default();
        let names = naming(&["capuchino"]);
        let asked = "Una más: ¿tienen leche deslactosada? por si acaso para mi capuchino";
        let split = super::split(asked, &library, names);
        assert_eq!(split.rest, "", "{split:?}");
        assert_eq!(split.questions.len(), 1, "{split:?}");
        assert!(!bare_question("¿Cuánto es el total?", &names));
        assert!(courtesy("otra pregunta:"));
        assert!(!courtesy("otra limonada"));
    }

    /// The menu asked after a story is the catalog's, never a question for
    /// the knowledge; a kind asked of it still is.
    #[test]
    fn the_menu_asked_after_a_story_is_the_catalogs() {
        let library = Library::default();
        let names = naming(&["capuchino"]);
        for asked in [
            "holaaa somos un grupo de la u, nos vamos a quedar a estudiar toda la tarde antes del feriado, qué tienen?",
            "Buenas tardes, quiero mandarles algo rico a mis abuelitos que viven en Obrajes por el feriado, me muestras la carta?",
            "vocês tienen cardápio?",
        ] {
            let split = super::split(asked, &library, names);
            assert!(split.questions.is_empty(), "{asked}: {split:?}");
        }
        assert!(!asks_for_the_menu("qué tienen sin gluten"));
        let split = super::split(
            "Oi, buenas tardes! Tudo bem? vocês tienen cardápio?",
            &library,
            names,
        );
        assert!(split.questions.is_empty(), "{split:?}");
        assert!(asks_how_one_is("¿qué tal?"));
        // A diet told beside it asks what fits; «y una más» may be an order.
        let split = super::split("mi hija es celíaca, qué tienen?", &library, names);
        assert!(!split.questions.is_empty(), "{split:?}");
        assert!(!courtesy("y una más"));
        assert!(!asks_how_one_is("¿qué tal el brownie?"));
        assert!(asks_for_the_menu(" qué tienen?"));
    }

    #[test]
    fn what_a_product_brings_is_asked_of_it_and_a_bring_me_is_an_order() {
        let library = Library::default();
        let names = naming(&["brownie", "capuchino", "croissant"]);
        let asked = "oye y el brownie trae nuez verdad porque uno de mis compañeros es alergico";
        let split = super::split(asked, &library, names);
        assert_eq!(split.questions.len(), 1, "{split:?}");
        assert_eq!(split.rest, "", "{split:?}");
        let order = "tráeme un brownie y dos capuchinos";
        let split = super::split(order, &library, names);
        assert!(split.questions.is_empty(), "{split:?}");
    }

    #[test]
    fn a_short_question_pointing_back_carries_the_milk_wished_before_it() {
        let library = Library::default();
        let names = naming(&["brownie", "capuchino", "croissant"]);
        let asked =
            "ah y el capuchino de la Vane que sea con leche de almendras, ¿eso cobra extra?";
        let split = super::split(asked, &library, names);
        assert_eq!(split.questions, [asked], "{split:?}");
        assert_eq!(split.rest, "");
        // With a count it is an order, left to the shop.
        let order = "dos capuchinos con leche de almendras, ¿eso cobra extra?";
        let split = super::split(order, &library, names);
        assert!(!split.rest.is_empty(), "{split:?}");
    }

    #[test]
    fn an_order_with_another_milk_is_taken_and_the_milk_asked_beside_it() {
        let library = Library::default();
        let names = naming(&["chai", "capuchino", "croissant"]);
        for ordered in [
            "tres chais con leche vegetal porfa",
            "mándame 1 capuchino con leche de soya",
            "quiero 2 capuchinos deslactosados, sin lactosa",
        ] {
            let split = super::split(ordered, &library, names);
            assert_eq!(split.rest, ordered, "{split:?}");
            assert_eq!(split.questions, [ordered], "{split:?}");
        }
        // Its own milk, no milk, or a line taken out: the order alone.
        for ordered in [
            "2 capuchinos con leche",
            "dos chais y un croissant",
            "quita los 2 capuchinos con leche de almendras",
        ] {
            let split = super::split(ordered, &library, names);
            assert!(split.questions.is_empty(), "{ordered}: {split:?}");
        }
    }

    #[test]
    fn what_the_customer_tells_of_themselves_after_a_question_is_no_question() {
        let library = Library::default();
        let names = naming(&["brownie", "capuchino", "croissant"]);
        let split = super::split(
            "¿cuántas calorías tiene el brownie más o menos? estoy a dieta jaja",
            &library,
            names,
        );
        assert_eq!(split.questions.len(), 1, "{split:?}");
        assert_eq!(split.explanations, ["estoy a dieta jaja"], "{split:?}");
        // An allergy told is answered.
        let split = super::split("hay algo que tenga soya? soy alérgico", &library, names);
        assert!(split.explanations.is_empty(), "{split:?}");
        // Before a question, it is the scene the question is asked in.
        let split = super::split("estoy a dieta. ¿tienen algo sin azúcar?", &library, names);
        assert_eq!(
            split.questions,
            ["¿tienen algo sin azúcar? (dieta)"],
            "{split:?}"
        );
        // With an order, it is no explanation.
        let split = super::split(
            "¿el brownie lleva nueces? somos 3, danos 3 croissants",
            &library,
            names,
        );
        assert!(split.explanations.is_empty(), "{split:?}");
    }

    #[test]
    fn a_service_asked_of_a_product_is_a_question_and_a_change_to_the_order_is_not() {
        let library = Library::default();
        let names = naming(&["brownie", "capuchino", "croissant"]);
        for asked in [
            "me los pueden calentar los croissants?",
            "me lo pueden calentar el brownie antes de mandarlo?",
        ] {
            let split = super::split(asked, &library, names);
            assert_eq!(split.questions.len(), 1, "{asked}: {split:?}");
        }
        let change = "¿me pueden quitar el brownie?";
        assert!(super::split(change, &library, names).questions.is_empty());
    }

    #[test]
    fn a_story_is_told_of_an_order_and_a_reason_never_opens_the_message() {
        use super::super::words::{complains, without_reason};
        assert!(complains("el pedido vino sin uno de los brownies"));
        assert!(complains("me llegó frío el capuchino"));
        // «llego» is also «I arrive»; «vino» also wine.
        assert!(!complains("¿qué pasa si llego tarde a recoger mi pedido?"));
        assert!(!complains("¿tienen vino sin alcohol?"));
        // «porque» as «why», «es que» opening a message: nothing is cut.
        assert_eq!(
            without_reason("oye porque tarda tanto el delivery"),
            "oye porque tarda tanto el delivery"
        );
        assert_eq!(
            without_reason("buenas es que el brownie tiene mani"),
            "buenas es que el brownie tiene mani"
        );
    }

    #[test]
    fn a_date_before_the_hour_asked_stays_with_it_and_a_story_before_it_does_not() {
        for asked in [
            "el 31 de octubre a qué hora cierran",
            "para el sábado que viene hasta qué hora atienden",
            "en navidad a que hora abren",
        ] {
            assert_eq!(clauses(asked).len(), 1, "{asked}: {:?}", clauses(asked));
        }
        // Something said before the hour that is no date is still its own.
        assert_eq!(
            clauses("mejor paso yo a recoger, a qué hora cierran").len(),
            2
        );
        assert_eq!(
            clauses("quiero 3 brownies para el sábado a qué hora abren").len(),
            2
        );
        assert!(names_a_date("el 2 de noviembre"));
        assert!(!names_a_date("voy a recoger el lunes"));
    }

    #[test]
    fn a_tag_asking_to_agree_makes_a_question_without_its_mark() {
        for asked in [
            "ustedes aceptan tarjeta no cierto",
            "el local queda en sopocachi verdad",
            "hacen factura electronica o no",
            "llevan hasta calacoto si o no",
        ] {
            assert!(asks(asked), "{asked}");
        }
        for told in [
            "ya no",
            "mejor no",
            "dame dos brownies por cierto",
            "eso es verdad",
            "verdad",
            "te digo la verdad",
        ] {
            assert!(!ends_with_a_tag(&normalize(told)), "{told}");
        }
    }

    #[test]
    fn holding_what_was_ordered_is_asked_and_a_counted_hold_orders() {
        let library = Library::default();
        let names = naming(&["brownie", "capuchino", "croissant"]);
        for asked in [
            "me lo separan hasta la noche?",
            "me los pueden apartar hasta las 6",
            "resérvamelo para mañana porfa",
            "me guardan la orden hasta la una?",
        ] {
            let split = super::split(asked, &library, names);
            assert_eq!(split.questions.len(), 1, "{asked}: {split:?}");
            assert_eq!(split.rest, "", "{asked}: {split:?}");
        }
        // A count or a product ordered, another request, or a table: not this.
        for ordered in [
            "apártame dos",
            "si tienen croissant me guardan tres",
            "me apartan un brownie para la tarde",
        ] {
            assert!(
                super::split(ordered, &library, names).questions.is_empty(),
                "{ordered}"
            );
        }
        assert!(!super::asks_to_hold(
            "quita el brownie y guárdame lo demás",
            false
        ));
        assert!(!super::super::words::asks_to_hold(
            "se puede reservar mesa para 6"
        ));
        assert!(!super::super::words::asks_to_hold(
            "mandalo aparte en otra bolsa"
        ));
        // Separated into bags is packing, not holding.
        assert!(!super::super::words::asks_to_hold(
            "¿me los pueden separar en dos bolsas?"
        ));
        assert!(super::super::words::asks_to_hold(
            "me los pueden separar hasta las 6?"
        ));
    }

    #[test]
    fn how_long_asked_alone_is_asked_of_the_way_talked_about() {
        for alone in [
            "¿en cuánto tiempo está?",
            "y cuánto demora más o menos",
            "en cuanto rato esta mi pedido",
            "cuánto se tarda?",
        ] {
            assert!(asks_only_how_long(alone), "{alone}");
        }
        for said in [
            "¿en cuánto tiempo está listo si paso a recoger?",
            "cuánto tarda el delivery a Obrajes",
            "en cuanto tiempo me devuelven la plata",
            "con cuanto tiempo hay que avisar para un evento",
            "a qué hora abren",
        ] {
            assert!(!asks_only_how_long(said), "{said}");
        }
        assert!(speaks_of_delivery("¿hacen envíos a Calacoto?"));
        assert!(speaks_of_delivery("me lo mandan a Sopocachi?"));
        assert!(!speaks_of_delivery("mejor paso a recoger"));
        assert!(!speaks_of_delivery("¿aceptan QR?"));
    }

    #[test]
    fn a_message_is_cut_into_its_clauses() {
        assert_eq!(
            clauses("¿hacen envíos a Miraflores? si sí, mándame 2 brownies"),
            ["¿hacen envíos a Miraflores?", "mándame 2 brownies"]
        );
        assert_eq!(clauses("quiero 2 matchas"), ["quiero 2 matchas"]);
        assert_eq!(
            clauses("agrégame un cheesecake, ¿lleva gluten?"),
            ["agrégame un cheesecake,", "¿lleva gluten?"]
        );
        assert!(asks("a que hora abren"));
        assert!(asks("y el orario de los sabados cual es"));
        assert!(!asks("dame 2 de los que tienen nueces"));
        assert!(!asks("quiero 2 matchas"));
    }

    #[test]
    fn a_condition_keeps_its_no() {
        let library = Library::default();
        let names = naming(&["chai", "limonada"]);
        let split = super::split(
            "¿el chai tiene cafeína? si tiene no quiero el chai, dame una limonada",
            &library,
            names,
        );
        assert!(split.rest.contains("no quiero"), "{split:?}");
        let split = super::split("¿hay brownies? si no hay no quiero nada", &library, names);
        assert!(!split.rest.starts_with("quiero"), "{split:?}");
    }

    #[test]
    fn a_condition_without_a_comma_leaves_its_request() {
        let library = Library::default();
        let names = naming(&["limonada", "brownie"]);
        let split = super::split(
            "la limonada tiene cafeína? si no tiene dame dos que hoy quiero dormir temprano jaja",
            &library,
            names,
        );
        assert_eq!(split.condition, Some(false), "{split:?}");
        assert!(split.rest.starts_with("dame dos"), "{split:?}");
    }

    #[test]
    fn a_product_before_a_verb_of_what_it_is_is_asked_about_whatever_the_marks() {
        let library = Library::default();
        let names = naming(&["capuchino", "croissant", "brownie", "chai", "cheesecake"]);
        for asked in [
            "una consulta el brownie lleva nueces porque soy alergica",
            "el capuchino tiene canela no",
            "una pregunta el chai es muy dulce",
            "el chai viene con leche",
            "una duda, el croissant tiene huevo",
            "y el cheesecake de que es",
        ] {
            let split = super::split(asked, &library, names);
            assert_eq!(split.rest, "", "{asked}");
            assert!(!split.questions.is_empty(), "{asked}");
        }
        // A count before the name, an order verb, or «que» before the verb:
        // an order.
        for ordered in [
            "dos brownies tienen que ser para llevar",
            "ponme el capuchino que tiene canela",
            "quiero un chai es para mi mamá",
        ] {
            assert_eq!(super::split(ordered, &library, names).rest, ordered);
        }
        // Said of products as the reason for a request pointing back at them:
        // the request's, not a question.
        let told = "el brownie tiene nueces y soy alérgica!! Sacá los dos y poneme un chai";
        let split = super::split(told, &library, names);
        assert!(split.questions.is_empty(), "{split:?}");
        assert!(split.rest.contains("brownie"));
        // «a qué hora» in the middle of a dictated line starts a question.
        let split = super::split(
            "ya ya está bien entonces mejor voy a recoger yo a que hora cierran",
            &library,
            names,
        );
        assert_eq!(split.questions, ["a que hora cierran"]);
    }

    #[test]
    fn an_order_before_a_comma_is_kept_beside_the_question_after_it() {
        let library = Library::default();
        let names = naming(&["capuchino", "croissant", "brownie", "limonada"]);
        let split = super::split(
            "buenas, 2 capuchinos y 1 croissant, a que hora cierran hoy sabado?",
            &library,
            names,
        );
        assert_eq!(split.rest, "buenas, 2 capuchinos y 1 croissant");
        assert_eq!(split.questions.len(), 1);
        // A product named alone before a question is what it asks about.
        let split = super::split("el brownie, ¿tiene nueces?", &library, names);
        assert_eq!(split.rest, "");
        assert_eq!(split.questions, ["el brownie, ¿tiene nueces?"]);
        // A question before the comma is no order.
        let split = super::split("qué trae la limonada, es de menta?", &library, names);
        assert_eq!(split.rest, "");
    }

    #[test]
    fn questions_are_told_from_requests_by_their_words_not_their_marks() {
        let library = Library::default();
        let names = naming(&["brownie", "americano", "cruasanes", "croissant"]);
        let questions = |text: &str| split(text, &library, names).questions;
        // Knowledge: a topic with or without a question's shape, a complaint,
        // an attribute of a named product.
        assert_eq!(questions("formas de pago"), ["formas de pago"]);
        assert_eq!(
            questions("me faltó un croissant en el pedido"),
            ["me faltó un croissant en el pedido"]
        );
        assert_eq!(questions("¿el brownie tiene nueces?").len(), 1);
        assert_eq!(questions("donde quedan?").len(), 1);
        // Flour is the allergens' topic.
        assert_eq!(questions("el croissant tiene harina?").len(), 1);
        // A short question pointing back carries the sentence it points at.
        assert_eq!(
            questions(
                "Muy amable. Deseo encargar un pedido grande para cuarenta personas. ¿Cómo se hace eso?"
            ),
            ["Deseo encargar un pedido grande para cuarenta personas. ¿Cómo se hace eso?"]
        );
        // The shop's: the total, an order with a greeting, browsing by kind.
        for request in [
            "¿cuánto te debo?",
            "ahora sí, cuánto queda",
            "que onda, me mandas un americano y dos cruasanes",
            "¿tienen algo frío para tomar?",
            "wenas, q tienen?",
            "quiero pagar",
            "que sea doble, 2 americanos",
            // A request said as a question orders, in Spanish or English.
            "¿me das un americano caliente y un brownie?",
            "Hi! Can I get a brownie and a croissant?",
        ] {
            assert!(questions(request).is_empty(), "{request}");
        }
        // A question and an order in one line.
        let both = split("agrégame un brownie, ¿aceptan QR?", &library, names);
        assert_eq!(both.questions, ["¿aceptan QR?"]);
        assert_eq!(both.rest, "agrégame un brownie,");
        assert_eq!(both.condition, None);
    }

    #[test]
    fn a_request_put_on_an_answer_keeps_its_condition_and_manners_are_no_request() {
        assert_eq!(
            condition("¿el chai lleva leche? si no, dame dos", &|_: &str| false),
            Some(false)
        );
        assert_eq!(
            condition(
                "¿hacen envíos a Miraflores? si sí mándame 2",
                &|_: &str| false
            ),
            Some(true)
        );
        assert_eq!(
            condition("¿y del cheesecake hay? si hay también uno", &|_: &str| {
                false
            }),
            Some(true)
        );
        assert_eq!(
            condition("agrégame un brownie, ¿aceptan QR?", &|_: &str| false),
            None
        );
        // Why one asks, told before the condition, is passed over.
        assert_eq!(
            condition(
                "el brownie tiene nueces? mi hija es alérgica, si tiene sacalo y poneme un cheesecake",
                &|_: &str| false
            ),
            Some(true)
        );
        assert_eq!(
            condition(
                "¿tiene nueces? quiero 2 brownies, si no es molestia",
                &|_: &str| false
            ),
            None
        );
        assert!(courtesy("Le agradecería mucho la información."));
        assert!(courtesy("Adicionalmente,"));
        assert!(!courtesy("Adicionalmente, dos brownies"));
        let library = Library::default();
        let names = |clause: &str| normalize(clause).contains("croissant");
        let split = split(
            "tres croissants. Adicionalmente, ¿realizan entregas a San Miguel? Le agradecería la información.",
            &library,
            names,
        );
        assert_eq!(split.questions, ["¿realizan entregas a San Miguel?"]);
        assert_eq!(split.rest, "tres croissants.");
    }

    #[test]
    fn a_topic_wanted_is_asked_about_and_a_short_question_pointing_back_carries_it() {
        let library = Library::default();
        let names = naming(&["brownie", "capuchino"]);
        let split = super::split(
            "Necesito factura con NIT, ¿se los doy ahora o después?",
            &library,
            names,
        );
        assert_eq!(split.rest, "", "{split:?}");
        assert_eq!(split.questions.len(), 1, "{split:?}");
        assert!(wants_a_topic("quisiera una factura"));
        // A product, a count, the way or the payment chosen, a verb: the shop's.
        for request in [
            "necesito 2 brownies con factura",
            "quiero delivery a Obrajes",
            "quiero pagar con QR",
            "quiero llevar un capuchino",
        ] {
            assert!(!wants_a_topic(request) || names(request), "{request}");
            assert!(
                !super::split(request, &library, names).rest.is_empty(),
                "{request}"
            );
        }
    }

    #[test]
    fn a_question_without_its_mark_is_still_asked_and_an_order_is_not() {
        for asked in [
            "necesito factura a nombre de mi empresa, que datos les paso",
            "me llegó el pedido y falta un croissant que hago",
            "si no llego hasta la noche me guardan el pedido hasta mañana?",
            "oiga, ayer compré ahí y se me olvidó pedir factura, ¿me la pueden sacar hoy?",
            "me llegó el capuchino derramado",
        ] {
            assert!(asks_or_tells(asked), "{asked}");
        }
        for told in [
            "jaja los brownies wey",
            "y dos de esos",
            "del matcha",
            "la 3",
            "la mitad de los brownies nomás, que hay gente a dieta",
            "chuta todavía no, que el matcha sean 2, viene mi amiga",
            // Who writes asks nothing about where they write from.
            "buen día 🌞 les escribo de la oficina de contabilidad",
            "hola, somos del colegio San Calixto",
        ] {
            assert!(!asks_or_tells(told), "{told}");
        }
        // Asked, or a request beside it, it is still heard.
        assert!(asks_or_tells(
            "les escribo de la oficina, ¿hacen pedidos para eventos?"
        ));
        assert!(asks_or_tells(
            "somos del colegio San Calixto y necesitamos factura con NIT"
        ));
        assert!(asks(
            "soy alergica al mani y a las nueces, que no deberia pedir"
        ));
        assert!(!asks(
            "si hay de chocolate mándame 2, que puedo pasar a las 5"
        ));
    }
    /// «¿…? mi hija es alérgica, si tiene sácalo y poneme un cheesecake»: why
    /// one asks is told, the condition follows it, and a removal is a request.
    #[test]
    fn why_one_asks_told_before_a_condition_is_passed_over() {
        let library = Library::default();
        let s = split(
            "el brownie tiene nueces? mi hija es alérgica, si tiene sacalo y poneme un cheesecake",
            &library,
            |c| c.contains("brownie") || c.contains("cheesecake"),
        );
        assert_eq!(s.condition, Some(true));
        assert_eq!(s.rest, "sacalo y poneme un cheesecake");
        assert_eq!(s.explanations, ["mi hija es alérgica,"]);
        // A product named before the condition is no reason told.
        let kept = split(
            "¿tienen leche de almendra? el capuchino grande, si tienen con almendra",
            &library,
            |c| c.contains("capuchino"),
        );
        assert!(kept.explanations.is_empty(), "{kept:?}");
        assert!(told_before_condition(", si tiene sácalo", &|_: &str| false).is_none());
    }

    /// «Si pido 12 chocolates…, ¿cuenta como evento?» hypothesises before the
    /// question: the «si» stays with the order it puts in doubt.
    #[test]
    fn a_hypothesis_before_a_question_keeps_its_si() {
        let library = Library::default();
        let names = |t: &str| t.contains("chocolate") || t.contains("chai");
        let s = split(
            "Si pido 12 chocolates calientes y 12 cheesecakes, ¿cuenta como pedido de evento?",
            &library,
            names,
        );
        assert!(s.rest.starts_with("Si pido"), "{s:?}");
        // After a question, a condition still leads to its request.
        let s = split(
            "¿el chai tiene cafeína? si tiene dame una limonada",
            &library,
            names,
        );
        assert_eq!(s.rest.trim(), "dame una limonada", "{s:?}");
    }

    /// «…? mañana tengo examen y no quiero quedarme despierta»: what one has
    /// and wishes for oneself, told after a question, is why it is asked; a
    /// count of the cart told is not.
    #[test]
    fn what_one_has_told_after_a_question_is_why_it_is_asked() {
        let library = Library::default();
        let names = |t: &str| t.contains("matcha") || t.contains("chai");
        let s = split(
            "cuantos mg de cafeina tiene exactamente el matcha? mañana tengo examen y no quiero quedarme despierta toda la noche",
            &library,
            names,
        );
        assert!(s.rest.trim().is_empty(), "{s:?}");
        assert_eq!(s.explanations.len(), 1, "{s:?}");
        let s = split(
            "¿el chai tiene cafeína? tengo 2 chai en el carrito",
            &library,
            names,
        );
        assert!(s.rest.contains("chai"), "{s:?}");
    }
}
