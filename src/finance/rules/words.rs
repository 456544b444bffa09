//! The words the finance rules listen for, and a message split into tokens that
//! keep their original spelling (for descriptions and names) beside their
//! normalized form (for matching).

use crate::text::{contains_phrase, normalize};

pub const CANCEL: &[&str] = &[
    "cancelar",
    "cancela",
    "cancelalo",
    "olvidalo",
    "olvida",
    "ya no",
    "dejalo",
    "mejor no",
    "no importa",
    "no lo registres",
    "no lo anotes",
];
pub const HELP: &[&str] = &[
    "ayuda",
    "que puedes hacer",
    "que haces",
    "como funciona",
    "como te uso",
    "menu",
    "opciones",
    "instrucciones",
];
pub use crate::detect::GREETINGS;
pub const THANKS: &[&str] = &[
    "gracias",
    "muchas gracias",
    "mil gracias",
    "perfecto",
    "genial",
    "excelente",
];
pub const SPEND: &[&str] = &[
    "gaste",
    "gastamos",
    "gasto",
    "gastado",
    "pague",
    "pagamos",
    "compre",
    "compramos",
    "me costo",
    "costo",
    "salio",
    "me salio",
    "fueron",
    "se me fueron",
    "se fueron",
    "me cobraron",
    "di",
    "deje",
    "meti",
    "cargue",
    "me gaste",
    // «me tocó sacar las fotocopias», «tuve que pagar el taxi»: paid, however
    // unwillingly.
    "me toco pagar",
    "me toco comprar",
    "me toco sacar",
    "tuve que pagar",
    "tuve que comprar",
    "tuve que sacar",
    "spent",
    "paid",
    "bought",
];
pub const INCOME: &[&str] = &[
    "me pagaron",
    "cobre",
    "recibi",
    "me depositaron",
    "me deposito",
    "ingrese",
    "gane",
    "vendi",
    // «hoy en el puesto he vendido 1,250», «vendimos 800».
    "he vendido",
    // «anota la venta de 320 mil», «las ventas del día: 1,200» (not «la
    // venta de garaje», where one buys).
    "anota la venta",
    "anotame la venta",
    "apunta la venta",
    "registra la venta",
    "las ventas del dia",
    "la venta del dia",
    "las ventas de hoy",
    "hemos vendido",
    "vendimos",
    "me llego",
    "me cayo",
    "me cayeron",
    "entraron",
    "me entraron",
    "me transfirieron",
    // «el inquilino me pagó la renta».
    "me pago",
    // «me hizo el reembolso».
    "me hizo el reembolso",
    "me reembolsaron",
    "got paid",
    "earned",
    "received",
];
/// Money coming in: a word of [`INCOME`], or «me» before a verb of receiving
/// («me acaban de pagar», «mi jefe me pagó», «mi mamá me dio 500», «me
/// depositó»). «me cobraron» and «me pagué» are spending.
pub fn receives(norm: &str) -> bool {
    // «me dieron 50 de cambio», «me cayeron 800 de multa»: not money earned
    // (when that is the only figure: «vendí el celular en 2500, le hice 200
    // de descuento» earned the 2500).
    let figures = norm
        .split(' ')
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .count();
    let not_earned = any(
        norm,
        &[
            "de cambio",
            "de vuelto",
            "de descuento",
            "de multa",
            "de recargo",
        ],
    ) && figures <= 1;
    // «se me cayeron 200 pesos en la calle», «me cayeron 3 cargos»: lost or
    // charged, not received.
    // (A commission or interest that fell in is money in.)
    let lost = any(norm, &["se me cayo", "se me cayeron"])
        || (norm.split(' ').any(|w| matches!(w, "multa" | "multas"))
            && any(norm, &["me cayo", "me cayeron"]));
    if lost {
        return false;
    }
    if any(norm, INCOME) && !not_earned {
        return true;
    }
    // «me dejaron 300 de propinas» (not «me dejaron una multa», «la cuenta»).
    if any(norm, &["me dejaron", "nos dejaron"])
        && norm.split(' ').any(|w| matches!(w, "propina" | "propinas"))
    {
        return true;
    }
    // «registra mi sueldo de este mes: $28,000»: pay named, no one paid by me.
    if any(
        norm,
        &[
            "sueldo",
            "quincena",
            "nomina",
            "salario",
            "aguinaldo",
            "paycheck",
            "salary",
        ],
    ) && !any(norm, SPEND)
        // Not «me descontaron 500 del sueldo», «500 de la quincena en comida».
        && !norm.split(' ').any(|w| w.starts_with("descont"))
        && !any(
            norm,
            &["del sueldo", "de la quincena", "de mi sueldo", "de la nomina", "del aguinaldo"],
        )
    {
        return true;
    }
    if not_earned {
        return false;
    }
    let words: Vec<&str> = norm.split(' ').collect();
    words.iter().enumerate().any(|(i, w)| {
        *w == "me"
            && (sends_me_money(&words[i + 1..])
                || words[i + 1..]
                    .iter()
                    .filter(|w| {
                        !matches!(
                            **w,
                            "acaban"
                                | "acaba"
                                | "acabaron"
                                | "de"
                                | "ya"
                                | "lo"
                                | "la"
                                | "ha"
                                | "han"
                                | "hoy"
                        )
                    })
                    .take(1)
                    .any(|verb| {
                        matches!(
                            *verb,
                            "pagan"
                                | "pagaron"
                                | "pagar"
                                | "dio"
                                | "dieron"
                                | "regalo"
                                | "regalaron"
                                | "devolvieron"
                                | "devolvio"
                                | "pagado"
                                | "devuelto"
                                | "dado"
                                | "reembolsaron"
                                | "reembolso"
                                | "entro"
                                | "transfirio"
                        ) || verb.starts_with("deposit")
                            || verb.starts_with("transfir")
                    }))
    })
}

/// «(mi mamá me) mandó 1500», «(me) enviaron dinero», «(me) mandó una
/// transferencia de 800»: a verb of sending with money as its object — not «me
/// mandaron el recibo de 500», a bill sent.
fn sends_me_money(after_me: &[&str]) -> bool {
    let Some((verb, object)) = after_me.split_first() else {
        return false;
    };
    let sends = matches!(
        *verb,
        "mando" | "mandaron" | "mandan" | "envio" | "enviaron" | "envian" | "giro" | "giraron"
    );
    let money = |w: &str| {
        w.starts_with(|c: char| c.is_ascii_digit())
            || !crate::finance::core::amount::amounts_in(w).is_empty() && !matches!(w, "un" | "una")
            || matches!(
                w,
                "dinero" | "lana" | "varo" | "feria" | "plata" | "transferencia" | "deposito"
            )
    };
    // («me mandaron 2 recibos de luz»: a count of things sent, not money.)
    let counted_thing = |k: usize| {
        object.get(k + 1).is_some_and(|next| {
            next.len() > 2
                && next.ends_with('s')
                && next.chars().all(char::is_alphabetic)
                && !matches!(*next, "pesos" | "varos" | "lucas" | "dolares" | "mil")
        })
    };
    sends
        && object
            .iter()
            .position(|w| !matches!(*w, "un" | "una" | "unos" | "unas" | "como" | "mas" | "de"))
            .is_some_and(|k| money(object[k]) && !counted_thing(k))
}

pub const SIMULATE: &[&str] = &[
    "can i afford",
    "afford",
    "me alcanza",
    "alcanza para",
    "me da para",
    "puedo comprar",
    "puedo gastar",
    "podria comprar",
    "podria gastar",
    "si compro",
    "si gasto",
    "me conviene comprar",
    "puedo permitirme",
    "me lo puedo permitir",
    "debo comprar",
    "deberia comprar",
    "quiero comprar",
    "puedo pagar",
    "podria pagar",
    // «…una laptop el 10 de diciembre, ¿me sigue alcanzando?», «quiero
    // comprarme unos tenis de 2,300» («sí me compro los tenis» tells a
    // purchase: no «si me compro»).
    "sigue alcanzando",
    "me alcanzaria",
    "quiero comprarme",
    "puedo comprarme",
    "me puedo comprar",
    "podria comprarme",
];
pub const BUDGET: &[&str] = &[
    "presupuesto",
    "budget",
    "presupuestos",
    "limite",
    "limites",
    "tope",
    "topes",
    // «un techo de 1,500 al mes» (not «el techo de la casa»).
    "un techo de",
    "techo mensual",
    "gastar maximo",
    "maximo al mes",
    "un maximo",
    "mi maximo",
    "maximo de",
    "no quiero gastar mas de",
    "no gastar mas de",
    "no pasarme de",
    "no gastar arriba de",
    // «no quiero pasar de 2 mil al mes en restaurantes»: a cap, not a spending.
    "no pasar de",
    "no quiero pasar de",
    "no quiero pasarme de",
    "tampoco quiero pasar de",
    "tampoco quiero pasarme de",
    "no queremos pasar de",
    "no queremos pasarnos de",
    "no queremos gastar mas de",
    "no quiero gastar arriba de",
    // «no me dejes pasar de 3k en comida»: asked to be held to a cap.
    "no me dejes pasar de",
    "no me dejes gastar mas de",
    "que no me pase de",
    "no me deje pasar de",
];
/// What books are for when they are for school («de inglés», «de texto»).
pub const SCHOOL_SUBJECTS: &[&str] = &[
    "de texto",
    "escolar",
    "escolares",
    "de ingles",
    "de matematicas",
    "de mate",
    "de ciencias",
    "de biologia",
    "de quimica",
    "de fisica",
    "de geografia",
    "semestre",
    "maestra",
    "maestro",
    "tarea",
];
pub const BALANCE: &[&str] = &[
    "saldo",
    "en el banco",
    "en mi cuenta",
    "en la cuenta",
    "en banco",
    "tengo en el banco",
    // «tengo 7 mil 300 en banorte»: a bank named holds the balance.
    "en banorte",
    "en bbva",
    "en el bbva",
    "en santander",
    "en banamex",
    "en hsbc",
    "en scotiabank",
    "en inbursa",
    "en banco azteca",
    "en banregio",
    "en bancoppel",
    "en nu",
    "en mi tarjeta de debito",
    "en la de debito",
];
pub const DEBT: &[&str] = &[
    // «deber» as owing, in the tenses people tell a debt in (not «debería», «debido a»).
    "debo",
    "le debo",
    "debes",
    "debemos",
    "le debemos",
    "debia",
    "le debia",
    "debiamos",
    "debiendo",
    "adeudo",
    "adeudos",
    "deuda",
    "deudas",
    "prestamo",
    "me presto",
    "me prestaron",
    // «le pedí prestados 5 mil a mi compadre»: borrowed.
    "pedi prestado",
    "pedi prestados",
    "pedi prestada",
    "pedi prestadas",
    "pedimos prestado",
    "pedimos prestados",
    "tarjeta",
    "pago minimo",
    "abone",
    "abono",
    "mensualidad",
];
pub const CORRECTION: &[&str] = &[
    "eso era",
    "era de",
    "era en",
    "no era",
    "eso va en",
    "va en",
    "ponlo en",
    "pasalo a",
    "cambialo a",
    "cambiala a",
    "cambia la categoria",
    "cambiar la categoria",
    "corrige",
    "corregir",
    "me equivoque",
    "estaba mal",
    "era para",
    "no es",
];
pub const ANOMALIES: &[&str] = &[
    "inusual",
    "inusuales",
    "raro",
    "raros",
    "rara",
    "raras",
    "anomalia",
    "anomalias",
    "fuera de lo normal",
    "sospechoso",
    "sospechosos",
    "extrano",
    "extranos",
    "atipico",
    "atipicos",
];
pub const PREDICT: &[&str] = &[
    "a este ritmo",
    "proyeccion",
    "proyecta",
    "proyectar",
    "voy a gastar",
    "cerrare el mes",
    "cierre de mes",
    "cerrar el mes",
    "al final del mes",
    "fin de mes",
    "pronostico",
    "gastare",
    "cuanto terminare",
    "como cerrare",
];
pub const TRENDS: &[&str] = &[
    "tendencia",
    "tendencias",
    "ultimos meses",
    "mes con mes",
    "han cambiado",
    "evolucion",
    "comparado con otros meses",
    "mes a mes",
    "cada mes",
];
pub const SEARCH: &[&str] = &[
    "busca",
    "buscar",
    "buscame",
    "muestrame",
    "ensename",
    "lista",
    "listame",
    "en que gaste",
    "cuando compre",
    "cuando pague",
    "mis gastos de",
    "mis gastos en",
    "gastos de",
    "gastos en",
    "cuales fueron",
    "que gastos",
    "detalle de",
];
pub const TOTALS: &[&str] = &[
    "cuanto llevo",
    "cuanto he gastado",
    "cuanto gaste",
    "cuanto gastamos",
    "cuanto gasto",
    "cuanto se me ha ido",
    "en que gasto mas",
    "en que se me va",
    "resumen",
    "como voy",
    "total de gastos",
    "cuanto va",
    "cuanto van",
    "gastos del mes",
];
pub const QUESTION_OPENERS: &[&str] = &[
    "cuanto",
    "cuanta",
    "cuantos",
    "cuantas",
    "como",
    "que",
    "cual",
    "cuales",
    "donde",
    "cuando",
    "muestrame",
    "dime",
    "busca",
    "ensename",
    "quiero ver",
    "ver",
    // «en qué se me está yendo más el varo»: the question after its preposition.
    "en que",
    "en cual",
    "en cuales",
    "en donde",
    // «a quién le debo todavía», «con quién tengo deudas».
    "a quien",
    "a quienes",
    "quien",
    "quienes",
    "con quien",
    "con quienes",
];
pub const ARTICLES: &[&str] = &[
    "el", "la", "los", "las", "un", "una", "unos", "unas", "mi", "mis",
];
/// Words after which a description starts.
pub const PREPOSITIONS: &[&str] = &["en", "de", "para", "por", "con", "a"];
/// Words that end a description.
pub const STOPS: &[&str] = &[
    "hoy",
    "ayer",
    "antier",
    "anteayer",
    "hace",
    "el",
    "este",
    "esta",
    "y",
    "pero",
    "porque",
    "manana",
    "pasado",
    "categoria",
];

pub fn any(text: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| contains_phrase(text, p))
}

pub fn is_question(raw: &str, normalized: &str) -> bool {
    raw.contains('?')
        || raw.trim_start().starts_with('¿')
        // «y nada más de la tarjeta cuánto le debo»: «cuánto» asks wherever it
        // is — not in «no sé todavía cuánto ponerle», which tells a doubt.
        || {
            let words: Vec<&str> = normalized.split(' ').collect();
            words.iter().enumerate().any(|(k, w)| {
                matches!(*w, "cuanto" | "cuanta" | "cuantos" | "cuantas" | "cual" | "cuales")
                    && !words[k.saturating_sub(3)..k]
                        .windows(2)
                        .any(|pair| pair == ["no", "se"] || pair == ["ni", "idea"])
            })
        }
        || QUESTION_OPENERS
            .iter()
            .any(|q| normalized == *q || normalized.starts_with(&format!("{q} ")))
}

/// One word of a message: as written (punctuation trimmed) and normalized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub raw: String,
    pub norm: String,
    /// A comma, full stop or other mark ends the clause right after it
    /// («a Chayo, anótelo»).
    pub ends_clause: bool,
}

pub fn tokenize(text: &str) -> Vec<Token> {
    text.split_whitespace()
        .filter_map(|chunk| {
            let raw = chunk.trim_matches(|c: char| !c.is_alphanumeric() && c != '$');
            let norm = normalize(raw);
            let tail = chunk.trim_end_matches(|c: char| !c.is_alphanumeric());
            let ends_clause = chunk[tail.len()..]
                .chars()
                .any(|c| matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | ')'));
            (!norm.is_empty()).then(|| Token {
                raw: raw.trim_start_matches('$').to_owned(),
                norm,
                ends_clause,
            })
        })
        .collect()
}
/// Verbs of erasing, with what is erased: «borra mis datos», «quiero que eliminen
/// toda mi información», «olvida todo lo mío».
pub const ERASE: &[&str] = &[
    "borra", "borrar", "borren", "borres", "borralos", "elimina", "eliminar", "eliminen",
    "elimines", "olvida", "olvidate", "olviden", "suprime", "suprimir", "quita", "quitar",
];

/// Verbs of asking for a copy: «mándame mis datos», «quiero descargar mi historial».
pub const SEND_ME: &[&str] = &[
    "mandame",
    "mandamelos",
    "enviame",
    "enviamelos",
    "pasame",
    "pasamelos",
    "descargar",
    "descarga",
    "exportar",
    "exporta",
    "exportame",
    "dame una copia",
    "quiero una copia",
    "copia de",
];

/// What an erasure (or a copy) of one's data names.
pub const MY_DATA: &[&str] = &[
    "mis datos",
    "todos mis datos",
    "mi informacion",
    "toda mi informacion",
    "mi historial",
    "todo mi historial",
    "todo lo mio",
    "mis registros",
    "todos mis registros",
    "mi cuenta",
    "mis movimientos",
    "todos mis movimientos",
];

/// Chat spellings read as the words they stand for: «q» and «k» are «que»
/// («5 k» after a figure is thousands, left alone), «d» is «de», «xq» is
/// «porque», «tmb» is «también». Applied to normalized text.
pub fn chat_spelled(norm: &str) -> String {
    let words: Vec<&str> = norm.split(' ').collect();
    words
        .iter()
        .enumerate()
        .map(|(k, w)| match *w {
            "k" if k > 0 && words[k - 1].chars().all(|c| c.is_ascii_digit()) => "k",
            "q" | "k" | "ke" | "qe" => "que",
            "xq" | "pq" => "porque",
            "tmb" | "tb" => "tambien",
            "d" => "de",
            other => other,
        })
        .collect::<Vec<_>>()
        .join(" ")
}
