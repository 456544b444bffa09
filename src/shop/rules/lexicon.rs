//! The words the shop rules listen for, normalized (lowercase, no accents), grouped
//! by what they ask for. Regional verbs of Bolivia and Mexico are here as well as
//! the textbook ones; a phrase is matched on word boundaries.

/// Order verbs: the customer wants something added.
pub const ADD: &[&str] = &[
    "quiero",
    "quisiera",
    "queria",
    "dame",
    "deme",
    "damelo",
    "agrega",
    "agregame",
    "agregale",
    "agregar",
    "agregas",
    "agregueme",
    "anade",
    "anademe",
    "anadele",
    "pon",
    "ponme",
    "ponle",
    "pone",
    "poneme",
    "echale",
    "echame",
    "mandame",
    "manda",
    "mandeme",
    "traeme",
    "trae",
    "traigame",
    "regalame",
    "llevo",
    "me llevo",
    "me das",
    "me da",
    "me pasas",
    "me pasa",
    "me vendes",
    "me vende",
    "me gustaria",
    "pideme",
    "sumale",
    "suma",
    "incluye",
    "incluyeme",
    "apunta",
    "apuntame",
    "anota",
    "anotame",
    "alistame",
    "preparame",
    "sirveme",
    "encargo",
    "encargame",
    "pedir",
    "pido",
    "pedirte",
    "pedirle",
    "ordenar",
    "ordeno",
    "necesito",
    // «para la reunión necesitaríamos: …»: the polite conditional.
    "necesitaria",
    "necesitariamos",
    "quisieramos",
    "queremos",
    "querriamos",
    "ocupariamos",
    "voy a querer",
    "voy a llevar",
    "me antoja",
    "se me antoja",
    "tambien",
    "ademas",
    "mas",
    // «el mayor quiere el de maracuyá»: someone's order, said for them — only
    // with the thing wanted right after («quiere saber si…» asks).
    "quiere el",
    "quiere la",
    "quiere los",
    "quiere las",
    "quiere un",
    "quiere una",
    "quieren el",
    "quieren la",
    "quieren los",
    "quieren las",
    "quieren un",
    "quieren una",
];

/// A request said as a question to the shop («¿me das un chocolate?», «¿me
/// puedes preparar dos capuchinos?», «can I get a brownie?» read as «quiero»):
/// an order, however it ends.
pub const ASKS_FOR: &[&str] = &[
    "me das",
    "me da",
    "me dan",
    "me pasas",
    "me pasa",
    "me vendes",
    "me vende",
    "me venden",
    "me traes",
    "me trae",
    "me traen",
    "me preparas",
    "me prepara",
    "me preparan",
    "me regalas",
    "me regala",
    "me pones",
    "me pone",
    "me mandas",
    "me manda",
    "me mandan",
    "me alistas",
    "me apartas",
    "me separas",
    "me guardas",
    "me puedes dar",
    "me puede dar",
    "me pueden dar",
    "me podrias dar",
    "me podria dar",
    "puedo pedir",
    "podria pedir",
    "quiero",
    "quisiera",
    "me gustaria",
];

/// Remove verbs: the customer wants a line out.
pub const REMOVE: &[&str] = &[
    "quita",
    "quitame",
    "quitale",
    "quitalo",
    "quitala",
    "quitalos",
    "quitalas",
    "quitar",
    "saca",
    "sacame",
    "sacale",
    "sacalo",
    "sacala",
    "sacalos",
    "sacar",
    "elimina",
    "eliminame",
    "eliminalo",
    "eliminala",
    "eliminar",
    "borra",
    "borrame",
    "borralo",
    "borrala",
    "borrar",
    "retira",
    "retirame",
    "retiralo",
    "sin",
    "ya no quiero",
    "no quiero",
    "ya no queremos",
    "no queremos",
    // «y ya no el chai tampoco»: the line no longer wanted. (Never «ya no
    // la tienen»: «la», «los», «las» are pronouns there.)
    "ya no el",
    "olvida",
    "olvidate",
    "descarta",
    "fuera",
];

/// Verbs that set a line to a quantity.
/// «te pedí 2 brownies, no 3», «le dije dos»: what was asked, restated.
pub const RESTATED: &[&str] = &["te pedi", "te dije", "le pedi", "le dije"];

/// «quedamos en 2 capuchinos y 2 brownies», «eran 3 americanos y 1 chai»: the
/// words that say a whole list again as it should be; they set every line named
/// after them, not only the first.
pub const RESTATING: &[&str] = &[
    "quedamos en",
    "eran",
    "serian",
    "seran",
    "dije",
    "corrijo",
    "corrijan",
    "correccion",
];

/// «me da lo mismo», «igual da»: indifference, never the order again.
pub const INDIFFERENT: &[&str] = &[
    "da lo mismo",
    "es lo mismo",
    "igual da",
    // «bueno, igual nomás»: as it is, never the order again.
    "igual nomas",
    "igual no mas",
    "igual nada mas",
    "igual asi",
    "asi igual",
    // «ok igual, ya listo»: anyway.
    "ok igual",
    "bueno igual",
    "dale igual",
    "igual ya",
    "igual esta bien",
];

/// Whether a catalog entry carries the kind `tag` («postre», «frío»), read
/// folded.
pub fn is_of_kind(entry: &crate::shop::contract::CatalogEntry, tag: &str) -> bool {
    // (A tag «sin gluten» on a product declared to contain gluten is not
    // trusted: the allergen wins.)
    entry
        .tags
        .iter()
        .any(|t| crate::text::normalize(t) == crate::text::normalize(tag))
        && tag
            .strip_prefix("sin ")
            .is_none_or(|what| !declares(entry, what))
}

/// Whether the merchant declared `allergen` («gluten», «frutos secos») in
/// the product.
pub fn declares(entry: &crate::shop::contract::CatalogEntry, allergen: &str) -> bool {
    let allergen = crate::text::normalize(allergen);
    entry
        .allergens
        .iter()
        .any(|a| crate::text::normalize(a) == allergen)
}

/// Whether `word` is a verb with its object as a pronoun attached («cámbialo»,
/// «quítamelo») whose bare verb `verb` accepts.
pub fn with_pronoun(word: &str, verb: impl Fn(&str) -> bool) -> bool {
    ["melo", "mela", "selo", "sela", "lo", "la", "los", "las"]
        .iter()
        .filter_map(|clitic| word.strip_suffix(clitic))
        .any(|bare| bare.len() > 3 && verb(bare))
}

pub const SET: &[&str] = &[
    "en total",
    "te pedi",
    "te dije",
    "le pedi",
    "le dije",
    "cambia",
    "cambiame",
    "cambiale",
    "cambialo",
    "cambiala",
    "cambiar",
    "que sean",
    "que sea",
    "mejor",
    "solo",
    "solamente",
    "nomas",
    "nada mas",
    "deja",
    "dejame",
    "dejalo",
    "dejala",
    "dejalos",
    "dejalas",
    "cambialos",
    "cambialas",
    "modifica",
    "actualiza",
    "ajusta",
    "en vez de",
    "en lugar de",
    "corrige",
    // «no, dije 1 croissant», «corrijo: 2 capuchinos», «quedamos en 2»,
    // «eran 2»: the count said again, as it should be.
    "dije",
    "corrijo",
    "corrijan",
    "quedamos en",
    "que queden",
    "que quede",
    "eran",
    "serian",
    "seran",
    // «reduce a 2», «bájale a 1», «súbelo a 4»: to that many, not that many more.
    "reduce a",
    "reducelo a",
    "reducela a",
    "reducelos a",
    "reducir a",
    "rebaja a",
    "rebajale a",
    "rebajalo a",
    "rebajala a",
    "baja a",
    "bajale a",
    "bajalo a",
    "bajala a",
    "sube a",
    "subele a",
    "subelo a",
    "subela a",
    "aumenta a",
    "aumentale a",
    "aumentalo a",
    "aumentala a",
    "dejalo en",
    "dejala en",
    "dejalos en",
    "dejalas en",
];

/// What makes a message a question rather than a request, when no order verb is
/// said («¿qué hago?», «¿pueden…?», «¿cómo…?»).
pub const ASKS: &[&str] = &[
    "que hago",
    "como",
    "donde",
    "puedo",
    "pueden",
    "podrian",
    "podria",
    "se puede",
    "cuanto",
    "hasta que",
    "a que hora",
    "por que",
];

/// Questions about a product: price, availability, description.
pub const QUESTION: &[&str] = &[
    "cuanto",
    "a cuanto",
    "a como",
    "a como esta",
    "a como estan",
    "en cuanto",
    "precio",
    "precios",
    "cuesta",
    "cuestan",
    "vale",
    "valen",
    "que es",
    "que son",
    "que lleva",
    "que trae",
    "de que es",
    "de que son",
    "tienen",
    "tienes",
    "tiene",
    "hay",
    "como es",
    "como son",
    "cual es",
    "es rico",
    "esta rico",
    "saber",
    "preguntar",
    "disponible",
    "queda",
    "quedan",
    "info",
    "informacion",
    "de que tamano",
    "tamano",
    "es grande",
    "ingredientes",
    // («un té chai sin azúcar» orders one; «¿viene sin azúcar?» asks.)
    "viene sin azucar",
    // «los americanos ya vienen con azúcar o la mandan aparte»: how it comes,
    // asked without its mark.
    "viene con",
    "vienen con",
    "vienen sin",
    "mandan aparte",
    "viene aparte",
    "es sin azucar",
    "es dulce",
    "recomiendas",
    "que tal",
    // «mostrame el brownie», «muéstreme el cheesecake»: to see it, not to have it.
    "muestrame",
    "mostrame",
    "muestreme",
    "muestranos",
    "ensename",
    "ensenanos",
    "quiero ver",
    "puedo ver",
];

/// Questions that ask what the shop sells.
pub const CATALOG: &[&str] = &[
    "que tienen",
    "que tienes",
    "que tenes",
    "que tenis",
    "que venden",
    "que vendes",
    "que hay",
    "que ofrecen",
    "catalogo",
    "menu",
    "carta",
    "productos",
    "opciones",
    "lista de precios",
    "precios",
    "la lista",
    "que me recomiendas",
    "que recomiendas",
    "muestrame",
    "que mas tienen",
    "que mas hay",
    // Asking to be served, with nothing named yet.
    "ayudar con un pedido",
    "ayudarme con un pedido",
    "hacer un pedido",
    "hacerles un pedido",
    "hacerte un pedido",
    "tomar un pedido",
    "tomar mi pedido",
    "tomen mi pedido",
    "tomas mi pedido",
    "toma mi pedido",
];

/// The customer is done adding: show the summary.
/// What closes an order said after its last item («ponme uno de matcha y es
/// todo»): the items, then the summary.
pub const CLOSES: &[&str] = &[
    // «ponme uno y con eso estamos», «…con eso cerramos».
    "con eso estamos",
    "con eso cerramos",
    "y cerramos",
    "es todo",
    "eso es todo",
    "seria todo",
    "eso seria todo",
    "con eso es todo",
    "nada mas",
    "y listo",
    "cerrame el pedido",
    "cierrame el pedido",
    "cierra el pedido",
    "cerra el pedido",
    "nomas eso",
    "eso nomas",
    "solo eso",
    // «agrégueme un cheesecake y dejamos así», «…y ya está, ¿cuánto es?».
    "y dejamos asi",
    "dejemoslo asi",
    "y ya esta",
    // «agrégale un brownie y confirmo»: the last item, then the close.
    "y confirmo",
    "y confirmamos",
    "y cierro",
    // «…y de una le confirmo y le pago», «…y te confirmo».
    "le confirmo",
    "te confirmo",
    "y de una confirmo",
    "de una le confirmo",
    // «…y con eso confirmamos»: the last item, then the close.
    "con eso confirmamos",
    "con eso seria todo",
];

pub const DONE: &[&str] = &[
    // «mostrame cómo queda», «¿me muestras cómo quedó el pedido?».
    "como queda",
    "como quedo",
    "como quedaria",
    "como va mi pedido",
    "como va el pedido",
    // «eso, cierra», «ciérralo»: close the order («¿hoy cierra temprano?» asks the hours).
    "eso cierra",
    "cierra nomas",
    "cierra ahi",
    "cierralo ahi",
    "cierra porfa",
    "cierra por favor",
    "cierralo",
    "cerralo",
    "cierrame",
    "cerrame",
    // «ok dale, cierro el pedido», «nomás el chocolate, cierro»: I close it.
    // (Never a bare «cierro»: «salgo a las 6 que cierro la oficina».)
    "cierro el pedido",
    "cierro la orden",
    "cierro nomas",
    "cierro entonces",
    "ya cierro",
    "y cierro",
    "cerramos el pedido",
    "cerrame el pedido",
    "cierrame el pedido",
    "cerra el pedido",
    "cierre el pedido",
    "cierren el pedido",
    "cierra el pedido",
    "cuanto es",
    "cuanto seria",
    "cuanto sale todo",
    "cuanto te debo",
    "cuanto le debo",
    "cuanto me sale",
    "cuanto me cobras",
    "cuanto te pago",
    "cuanto es todo",
    "cuanto seria todo",
    "ya estaria",
    "estaria",
    "ya seria",
    "seria todo",
    "eso es",
    "con eso",
    "con eso es todo",
    "con eso estamos",
    "con eso cerramos",
    "cerramos",
    "cuanto va",
    "cuanto da",
    "cuanto daria",
    "cuanto queda",
    "cuanto quedaria",
    "cuanto llevo",
    "total",
    "la cuenta",
    "mi pedido",
    "mi carrito",
    "ver carrito",
    "ver pedido",
    "ver mi pedido",
    "eso es todo",
    "es todo",
    "seria todo",
    "eso seria todo",
    "eso seria",
    "nada mas",
    "no quiero mas",
    "ya no quiero mas",
    "mas nada",
    "nomas eso",
    // «eso no más», «eso nomás»: that is all.
    "eso no mas",
    "eso nomas",
    "solo eso",
    // «ya eso, despacho a Calacoto»: that is it.
    "ya eso",
    "termine",
    "ya termine",
    "listo",
    "ya esta",
    "ya",
    "finalizar",
    "terminar",
    "cerrar pedido",
    "cerramos",
    "cerremos",
    "cerramos el pedido",
    "cierra el pedido",
    "cierra mi pedido",
    "pagar",
    "quiero pagar",
    "como pago",
    "como te pago",
    "checkout",
    "resumen",
    "confirma",
    "confirmar",
    "confirmo",
    "confirmame",
    "confirme",
    "confirme el pedido",
    "hazme el pedido",
    "manda el pedido",
    "procede",
];

/// Words a "that's all" is made of ("eso nomás", "ya sería todo", "listo ya"):
/// a message of only these, with a cart, asks for the summary.
pub const DONE_WORDS: &[&str] = &[
    "jaja",
    "jajaja",
    "ok",
    "okay",
    "eso",
    "es",
    "todo",
    "nomas",
    "nada",
    "mas",
    "solo",
    "ya",
    "listo",
    "seria",
    "estaria",
    "termine",
    "terminamos",
    "ok",
    "bueno",
    "asi",
    "esta",
    "por",
    "ahora",
    "gracias",
    "seria todo",
    "quedo",
    "estuvo",
    "listos",
    "completo",
    "pues",
    "ahi",
    "tal",
    "cual",
    "perfecto",
    "bien",
];

/// Approval said beside a yes («sí, chévere», «dale, genial»): a yes only with
/// one («excelente, gracias» after an answer confirms nothing).
pub const APPROVAL: &[&str] = &[
    "chevere",
    "genial",
    "excelente",
    "joya",
    "bacan",
    "barbaro",
    "buenisimo",
    "great",
];

/// A yes to the order summary (CHECKOUT only).
pub const CONFIRM: &[&str] = &[
    "si",
    "s",
    "sip",
    // «sipi», «sipo». (Approval alone — «chévere», «joya» — is a yes only
    // beside one: see APPROVAL.)
    "sipi",
    "sipo",
    "sii",
    "siii",
    "claro",
    "claro que si",
    "dale",
    "ok",
    "okay",
    "okey",
    "va",
    "listo",
    "confirmo",
    "confirmamos",
    "confirmame",
    "confirmalo",
    "confirmelo",
    "confirmen",
    "esta perfecto",
    "asi esta perfecto",
    "todo perfecto",
    "confirmar",
    "confirmado",
    "confirma",
    "de acuerdo",
    "correcto",
    "perfecto",
    "esta bien",
    "asi es",
    "de una",
    "simon",
    "sale",
    "adelante",
    "hazlo",
    "si confirmo",
    "si por favor",
    "si porfa",
    "si gracias",
    "eso",
    "exacto",
    "asi",
    "todo bien",
    "si esta bien",
    "vale",
    "bueno",
    "si dale",
    "pues",
    "ta bien",
    "orale",
    "sale y vale",
    "andale",
    "ya",
    "ya pues",
    "ya esta",
    "esta bien",
    "correcto",
    "asi esta bien",
    "conforme",
    "proceda",
    "procede",
    "procedan",
    "hagale",
    "hagale pues",
    "bacano",
    "de una vez",
    "el pedido",
    "mi pedido",
    // «Sí, está todo correcto», «todo está bien».
    "esta correcto",
    "todo correcto",
    "esta todo correcto",
    "esta todo bien",
    "todo esta bien",
    "todo esta correcto",
    "todo ok",
];

/// Not yet, to the order summary.
pub const DENY: &[&str] = &[
    "no",
    "nop",
    "nel",
    "todavia no",
    "aun no",
    "espera",
    "un momento",
    "mejor no",
    "no todavia",
    "no aun",
];

/// Empty the cart.
pub const CLEAR: &[&str] = &[
    "vacia el carrito",
    "vacia mi carrito",
    "vaciar el carrito",
    "vaciar carrito",
    "vacia carrito",
    "vacialo",
    "vacia todo",
    "limpia el carrito",
    "limpiar el carrito",
    "borra todo",
    "quita todo",
    "elimina todo",
    "saca todo",
    "sacame todo",
    "quitame todo",
    "borrar todo",
    "empezar de nuevo",
    "empieza de nuevo",
    "desde cero",
    "reinicia",
    "borra el carrito",
];

/// Call the whole order off.
pub const CANCEL: &[&str] = &[
    "cancelar",
    "cancela",
    "cancelo",
    "cancelalo",
    "cancele",
    "cancelen",
    "cancelelo",
    "cancelame",
    "canceleme",
    "cancelamelo",
    "cancelemelo",
    "cancelenme",
    "cancelemos",
    "anuleme",
    "anulame",
    "anule",
    "anulen",
    "cancelar pedido",
    "cancela el pedido",
    "cancela mi pedido",
    "ya no quiero",
    "ya no quiero nada",
    "no quiero nada",
    "anula",
    "anular",
    "anulalo",
    "anula el pedido",
    "anula mi pedido",
    "anulen el pedido",
    "anulen mi pedido",
    "olvidalo",
    "olvida todo",
];

/// «no quiero nada más», «ya no quiero más cosas», «no necesito nada más»:
/// nothing more to add — the order is done, never cancelled.
pub fn wants_nothing_more(text: &str) -> bool {
    [
        "no quiero nada mas",
        "no quiero mas",
        "no quiero mas nada",
        "no necesito nada mas",
        "no necesito mas",
        "no deseo nada mas",
        "no queremos nada mas",
        "no queremos mas",
    ]
    .iter()
    .any(|p| crate::text::contains_phrase(text, p))
}

/// «ya cancelé», «te cancelo por transferencia», «cancelo en efectivo al
/// recoger»: in Bolivia and Peru «cancelar» a bill is paying it. A past
/// «ya cancelé» or a way of paying right after the verb says so.
pub fn pays_by_cancelling(words: &[&str]) -> bool {
    const MEANS: &[&str] = &[
        "efectivo",
        "transferencia",
        "qr",
        "tarjeta",
        "yape",
        "deposito",
        "recoger",
        "recojo",
        "recibir",
        "entrega",
        "llegue",
        "cash",
    ];
    words.iter().enumerate().any(|(at, w)| {
        if !w.starts_with("cancel") {
            return false;
        }
        // «ya cancelé» (paid), never «ya, cancélalo» (call it off).
        let imperative = ["lo", "la", "los", "las", "me"]
            .iter()
            .any(|end| w.len() > 8 && w.ends_with(end));
        let past = match at {
            _ if imperative => false,
            0 => false,
            1 => words[0] == "ya",
            _ => {
                words[at - 1] == "ya"
                    || (words[at - 2] == "ya" && matches!(words[at - 1], "te" | "le" | "les"))
            }
        };
        let how = words[at + 1..]
            .iter()
            .take(4)
            .take_while(|n| !matches!(**n, "no" | "y" | "pero"))
            .any(|n| MEANS.contains(n));
        past || how
    })
}

/// Thanks and goodbyes.
pub const THANKS: &[&str] = &[
    "gracias",
    "muy amables",
    "son muy amables",
    "que amables",
    "muchas gracias",
    "mil gracias",
    "chau",
    "chao",
    "adios",
    "hasta luego",
    "nos vemos",
    "buenisimo",
    "genial",
    "bye",
    "gracias amigo",
    "muy amable",
    "que amable",
    "excelente",
    // «Sí, está correcto. Que Dios le pague.»: a blessing for thanks.
    "que dios le pague",
    "que dios te pague",
    "dios le pague",
    "dios te pague",
    "que dios le bendiga",
    "que dios te bendiga",
    "dios le bendiga",
    "dios te bendiga",
];

/// Whom a message is said to, and how it is softened: «joven», «mijo»,
/// «caserita», «wey», «de verdad», «me equivoqué». They change nothing asked.
pub const VOCATIVES: &[&str] = &[
    "joven",
    "senorita",
    "senor",
    "senora",
    "seno",
    "mijo",
    "mija",
    "mijito",
    "mijita",
    "casero",
    "casera",
    "caserito",
    "caserita",
    "wey",
    "guey",
    "compa",
    "amigo",
    "amiga",
    "jefe",
    "jefa",
    "reina",
    "corazon",
    "mami",
    "papi",
    "che",
    "parce",
    "parcero",
    "pana",
    "chamo",
    "chama",
    "cuate",
    "cuata",
    "carnal",
    "bro",
    "brother",
    "broder",
    "causa",
    "causita",
    "pata",
    "tio",
    "tia",
    "mano",
    "muy amable",
    "muy amables",
    // «perdón, siempre sí, pero solo el americano»: after all, yes.
    "siempre si",
    "de verdad",
    "en serio",
    "me equivoque",
    "me confundi",
    "ups",
    "uy",
    "ay",
    "uff",
];

/// Words that carry no request of their own: politeness, articles, fillers.
#[rustfmt::skip]
pub const FILLER: &[&str] = &[
    "por", "favor", "disculpa", "disculpe", "disculpen", "porfa", "porfis", "porfavor", "pls",
    "plis", "please", "gracias", "muchas", "mil", "hola", "buenas", "buenos", "dias", "tardes",
    "noches", "buen", "dia", "oye", "oiga", "mira", "este", "esta", "pues", "bueno", "ok", "okay",
    "entonces", "y", "e", "tambien", "de", "del", "la", "el", "lo", "los", "las", "un", "una",
    "unos", "unas", "con", "a", "al", "para", "en", "mi", "mis", "me", "te", "que", "se", "le",
    "les", "porfavor", "amigo", "amiga", "senor", "senorita", "joven", "jefe", "jefa", "mas",
    "ahora", "tu", "su", "carrito", "pedido", "ya", "si", "nos", "eh", "ah", "mmm", "ehh", "ese",
    "esa", "eso", "esos", "esas", "sabes", "sabe", "fijate", "jaja", "jajaja", "pena", "lastima",
    "ay", "uy", "perdona", "perdone", "perdonen", "uh", "oh", "uhh", "ohh", "ahh", "hmm", "mm",
    // Chile's «ya po», «sí po».
    "po",
];

/// How an order is taken away or served: no thing asked for.
pub const TAKEAWAY: &[&str] = &[
    "para llevar",
    "pa llevar",
    "para aca",
    "para comer aca",
    "para comer aqui",
    "para tomar aca",
    "para tomar aqui",
    "para servir",
    "para compartir",
    "pa compartir",
];

/// Ordinals a customer uses to pick from a numbered list.
pub const ORDINALS: &[(&str, usize)] = &[
    ("primero", 1),
    ("primera", 1),
    ("primer", 1),
    ("segundo", 2),
    ("segunda", 2),
    ("tercero", 3),
    ("tercera", 3),
    ("tercer", 3),
    ("cuarto", 4),
    ("cuarta", 4),
    ("quinto", 5),
    ("quinta", 5),
    ("ultimo", usize::MAX),
    ("ultima", usize::MAX),
];

/// Kinds of product a customer asks for vaguely, as the tags a merchant gives
/// them: «algo frío», «alguna bebida sin cafeína», «¿qué postres tienen?».
pub const KINDS: &[(&str, &str)] = &[
    ("frio", "frío"),
    ("fria", "frío"),
    ("frios", "frío"),
    ("frias", "frío"),
    ("helado", "frío"),
    ("helada", "frío"),
    ("fresco", "frío"),
    ("fresca", "frío"),
    ("fresquito", "frío"),
    ("caliente", "caliente"),
    ("calientes", "caliente"),
    ("calientito", "caliente"),
    ("calientita", "caliente"),
    ("calentito", "caliente"),
    ("calentita", "caliente"),
    ("calentitos", "caliente"),
    ("calentitas", "caliente"),
    ("sin cafeina", "sin cafeína"),
    ("no tenga cafeina", "sin cafeína"),
    ("no tengan cafeina", "sin cafeína"),
    ("no tienen cafeina", "sin cafeína"),
    ("no tiene cafeina", "sin cafeína"),
    ("no lleve cafeina", "sin cafeína"),
    ("no lleva cafeina", "sin cafeína"),
    ("descafeinado", "sin cafeína"),
    // «algo frío pero con cafeína»: every kind said narrows the choices.
    ("con cafeina", "con cafeína"),
    ("dulce", "dulce"),
    ("dulces", "dulce"),
    ("dulcecito", "dulce"),
    ("salado", "salado"),
    ("salada", "salado"),
    ("postre", "postre"),
    ("postres", "postre"),
    ("postrecito", "postre"),
    ("bebida", "bebida"),
    ("bebidas", "bebida"),
    ("tomar", "bebida"),
    // «algo sin lactosa»: what has no milk at all, as far as the tags say.
    ("sin lactosa", "vegano"),
    ("sin lacteos", "vegano"),
    // «un postre sin gluten», «algo sin nueces»: what the merchant tags
    // without it, and never a product declared to contain it.
    ("sin gluten", "sin gluten"),
    ("sin tacc", "sin gluten"),
    ("libre de gluten", "sin gluten"),
    ("sin nueces", "sin frutos secos"),
    ("sin frutos secos", "sin frutos secos"),
    ("sin huevo", "sin huevo"),
    ("vegano", "vegano"),
    ("vegana", "vegano"),
    ("veganos", "vegano"),
    ("veganas", "vegano"),
];

/// Whether the words empty the whole cart: a phrase of [`CLEAR`], or a verb of
/// taking out or emptying with «todo» or «el carrito» right after it («borre
/// todo por favor», «sáquenme todo»), not «quita todos los brownies».
pub fn clears(text: &str) -> bool {
    if any(text, CLEAR) {
        return true;
    }
    let words: Vec<&str> = text.split(' ').collect();
    // «sácale todo el hielo a la limonada» takes something out of a line;
    // «borra todo el pedido» empties the cart.
    let whole = |k: usize| {
        words.get(k).is_none_or(|after| {
            !matches!(*after, "de" | "del" | "el" | "la" | "los" | "las" | "lo")
        }) || (matches!(words.get(k), Some(&("el" | "la")))
            && matches!(
                words.get(k + 1),
                Some(&("pedido" | "carrito" | "carro" | "orden"))
            ))
    };
    words.iter().enumerate().any(|(at, w)| {
        (removes(w) || w.starts_with("vaci") || w.starts_with("limpi")) && {
            // «borre todo», «vacíame el carrito», not «quítelo del todo».
            let next = match words.get(at + 1) {
                Some(&("me" | "el" | "mi" | "lo")) => at + 2,
                _ => at + 1,
            };
            words
                .get(next)
                .is_some_and(|w| matches!(*w, "todo" | "carrito" | "carro"))
                && whole(next + 1)
        }
    })
}

/// Whether a word is a verb of taking something out, by its stem, in any person
/// ("quítelo", "sácamelo", "bórrenlo", "elimínalo").
pub fn removes(word: &str) -> bool {
    ["quit", "sac", "saq", "borr", "elimin", "retir", "descart"]
        .iter()
        .any(|stem| word.starts_with(stem) && word.len() > stem.len())
        && !matches!(word, "saco" | "sacos")
}

/// Whether a word is a verb of adding, by its stem ("agrégueme", "póngame",
/// "échele", "mándeme", "anóteme").
pub fn adds(word: &str) -> bool {
    // «en la oficina nos piden eso»: they ask, nobody orders.
    if matches!(word, "piden" | "pidieron" | "pidio") {
        return false;
    }
    [
        "agreg", "anad", "pong", "ponm", "ponl", "ech", "mand", "anot", "apunt", "sum", "encarg",
        "pid", "trai", "apart", "regal", "reserv", "separ", "guard",
        "pasam",
    ]
    .iter()
    .any(|stem| word.starts_with(stem))
        // Voseo: «poneme», «ponele».
        || matches!(word, "poneme" | "ponele" | "ponelo" | "ponela")
        // «quita el chai y pon otro americano»: the bare imperative.
        || word == "pon"
}

/// Words the lexicon knows: they are what they say, never a typo of a product
/// ("chao" is goodbye, not "chai").
pub fn is_known(word: &str) -> bool {
    [
        ADD,
        REMOVE,
        SET,
        QUESTION,
        CATALOG,
        DONE,
        CONFIRM,
        DENY,
        CLEAR,
        CANCEL,
        THANKS,
        FILLER,
        VOCATIVES,
        crate::detect::GREETINGS,
    ]
    .iter()
    .any(|list| list.contains(&word))
        || COMMON.contains(&word)
}

/// Everyday words a letter away from a product's name («me equivoqué de
/// chat» is no chai).
const COMMON: &[&str] = &["chat", "chats", "chau", "chal", "match", "taza", "tazas"];

pub fn any(text: &str, phrases: &[&str]) -> bool {
    phrases
        .iter()
        .any(|p| crate::text::contains_phrase(text, p))
}

/// Words of `phrases` found in `words`, by index (for coverage).
pub fn cover(words: &[&str], phrases: &[&str], covered: &mut [bool]) {
    for phrase in phrases {
        let parts: Vec<&str> = phrase.split(' ').collect();
        if parts.len() > words.len() {
            continue;
        }
        for start in 0..=words.len() - parts.len() {
            if words[start..start + parts.len()] == parts[..] {
                covered[start..start + parts.len()]
                    .iter_mut()
                    .for_each(|c| *c = true);
            }
        }
    }
}

/// Counts past twenty said in words, read as digits: «treinta y dos» is 32,
/// «dieciséis» 16, «veinticinco» 25, «una docena y media» 18, «dos docenas»
/// 24, «un par más» 2. (Up to twenty, the number words are read where they
/// stand.) Applied to normalized text.
pub fn spelled_counts(normalized: &str) -> String {
    fn tens(word: &str) -> Option<i64> {
        Some(match word {
            "treinta" => 30,
            "cuarenta" => 40,
            "cincuenta" => 50,
            "sesenta" => 60,
            "setenta" => 70,
            "ochenta" => 80,
            "noventa" => 90,
            _ => return None,
        })
    }
    // «treinta y uno», «veintidós»: one to nine («treinta y un brownie» may be
    // thirty and a brownie: the article is no unit).
    fn unit(word: &str) -> Option<i64> {
        crate::text::number_word(word)
            .filter(|n| (1..=9).contains(n))
            .filter(|_| !matches!(word, "un" | "una"))
    }
    fn joined(word: &str) -> Option<i64> {
        if let Some(rest) = word.strip_prefix("dieci") {
            return unit(rest).filter(|n| *n >= 6).map(|n| 10 + n);
        }
        let rest = word.strip_prefix("veinti")?;
        unit(rest).map(|n| 20 + n)
    }
    let words: Vec<&str> = normalized.split(' ').collect();
    let dozens = words.iter().any(|w| w.starts_with("docena")) || words.contains(&"par");
    if !dozens
        && !words
            .iter()
            .any(|w| tens(w).is_some() || joined(w).is_some())
    {
        return normalized.to_owned();
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut k = 0;
    while k < words.len() {
        // «una docena y media» is 18, «dos docenas» 24, «un par más» 2.
        let said = |n: usize| words.get(k + n).copied();
        match (words[k], said(1), said(2), said(3)) {
            ("una" | "1", Some("docena"), Some("y"), Some("media")) => {
                out.push("18".into());
                k += 4;
                continue;
            }
            ("docena", Some("y"), Some("media"), _) => {
                out.push("18".into());
                k += 3;
                continue;
            }
            (n, Some("docenas"), ..) if crate::text::token_number(n).is_some_and(|n| n > 1) => {
                let n = crate::text::token_number(n).unwrap_or(1);
                out.push((n * 12).to_string());
                k += 2;
                continue;
            }
            ("un", Some("par"), Some(next), _) if next != "de" => {
                out.push("2".into());
                k += 2;
                continue;
            }
            _ => {}
        }
        if let Some(t) = tens(words[k]) {
            match (words.get(k + 1), words.get(k + 2).and_then(|w| unit(w))) {
                (Some(&"y"), Some(u)) => {
                    out.push((t + u).to_string());
                    k += 3;
                }
                _ => {
                    out.push(t.to_string());
                    k += 1;
                }
            }
            continue;
        }
        out.push(joined(words[k]).map_or_else(|| words[k].to_owned(), |n| n.to_string()));
        k += 1;
    }
    out.join(" ")
}

/// Chat spellings, read as the words they stand for: "q" is "que", "kiero" is
/// "quiero", "wenas" is "buenas", "tmb" is "también". Applied to normalized text.
pub fn read_chat(normalized: &str) -> String {
    // «cambia el brownie x el de queso»: «x» before an article is «por»
    // («capuchino x 3» counts).
    let mut normalized = format!(" {normalized} ");
    for article in ["el", "la", "los", "las", "un", "una"] {
        normalized = normalized.replace(&format!(" x {article} "), &format!(" por {article} "));
    }
    normalized
        .trim()
        .split(' ')
        .map(|word| match word {
            "q" | "k" | "ke" | "qe" => "que".to_owned(),
            "wenas" | "wena" | "guenas" => "buenas".to_owned(),
            "tb" | "tmb" | "tbn" | "tambn" => "tambien".to_owned(),
            "xfa" | "xfavor" | "pfa" | "porfi" => "porfa".to_owned(),
            "d" => "de".to_owned(),
            "xq" | "pq" | "porq" => "porque".to_owned(),
            "toy" => "estoy".to_owned(),
            "ola" | "olaa" => "hola".to_owned(),
            "asta" => "hasta".to_owned(),
            "mnn" | "mna" | "mnana" => "manana".to_owned(),
            // «abren el dom? hasta q hra»: days and hours cut short.
            "hra" | "hr" | "hras" | "hrs" | "hs" => "hora".to_owned(),
            "dom" => "domingo".to_owned(),
            "sab" => "sabado".to_owned(),
            "finde" => "fin de semana".to_owned(),
            "kisiera" => "quisiera".to_owned(),
            "sta" => "esta".to_owned(),
            // Spain's «zumo» is the «jugo» a description says.
            "zumo" => "jugo".to_owned(),
            "zumos" => "jugos".to_owned(),
            // Spain's «vosotros»: «¿tenéis leche de avena?», «aceptáis
            // tarjeta», «quitad el croissant» — the «ustedes» the words know.
            "teneis" => "tienen".to_owned(),
            "aceptais" => "aceptan".to_owned(),
            "podeis" => "pueden".to_owned(),
            "haceis" => "hacen".to_owned(),
            "vendeis" => "venden".to_owned(),
            "cobrais" => "cobran".to_owned(),
            "abris" => "abren".to_owned(),
            "cerrais" => "cierran".to_owned(),
            "llevais" => "llevan".to_owned(),
            "mandais" => "mandan".to_owned(),
            "quitad" => "quiten".to_owned(),
            "poned" => "pongan".to_owned(),
            "poneis" => "ponen".to_owned(),
            "dais" => "dan".to_owned(),
            "dadme" => "denme".to_owned(),
            "traedme" => "traiganme".to_owned(),
            // Peruvian «ya pe», «ya pes»: «pues».
            "pe" | "pes" => "pues".to_owned(),
            // Chilean «sipo», «yapo», «nopo»: the «pues» said onto the word.
            "sipo" => "si pues".to_owned(),
            "yapo" => "ya pues".to_owned(),
            "nopo" => "no pues".to_owned(),
            // «kiero», «sakalos», «kitame»: a «k» written for the «c» or «qu»
            // a known word has.
            w if w.contains('k') && w.len() > 3 => {
                let candidate = w
                    .replace("ki", "qui")
                    .replace("ke", "que")
                    .replace('k', "c");
                if is_known(&candidate) {
                    candidate
                } else {
                    w.to_owned()
                }
            }
            // «holiii», «graciaaas», «siiii»: a letter drawn out is said once.
            w if has_a_drawn_out_letter(w) => {
                let squeezed = squeeze(w);
                match squeezed.as_str() {
                    "si" => "si".to_owned(),
                    _ => squeezed,
                }
            }
            w => w.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A letter said three times or more in a row («holiii»).
fn has_a_drawn_out_letter(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    chars
        .windows(3)
        .any(|w| w[0] == w[1] && w[1] == w[2] && w[0].is_alphabetic())
}

/// The word with every run of one letter said once («holiii» → «holi»),
/// keeping the doubles Spanish writes («llevar», «carro»).
fn squeeze(word: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = word.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let mut j = i;
        while j < chars.len() && chars[j] == chars[i] {
            j += 1;
        }
        let run = j - i;
        let keep = if run >= 3 { 1 } else { run };
        out.extend(std::iter::repeat_n(chars[i], keep));
        i = j;
    }
    out
}

/// Basic English, as tourists and border customers write to a Spanish shop,
/// read as the Spanish the rules know: «can I get two lemonades» is «quiero dos
/// limonadas», «that's all» is «eso es todo», «one more» is «uno más». Applied
/// to normalized text, and only when a word in it is English and not Spanish,
/// so «a» and «no» keep their Spanish meaning in Spanish messages.
pub fn read_english(normalized: &str) -> String {
    const ENGLISH: &[&str] = &[
        "the",
        "iced",
        "please",
        "pls",
        "yes",
        "yeah",
        "yep",
        "add",
        "remove",
        "delete",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "and",
        "more",
        "want",
        "get",
        "checkout",
        "done",
        "thats",
        "that",
        "it",
        "i",
        "im",
        "can",
        "could",
        "have",
        "hi",
        "hello",
        "what",
        "menu",
        "thanks",
        "thank",
        "you",
        "lemonade",
        "lemonades",
        "coffee",
        "coffees",
        "cappuccino",
        "cappuccinos",
        "tea",
        "make",
        "actually",
        "wait",
        "instead",
        "cancel",
        "is",
        "vegan",
        "swap",
        "replace",
        "juice",
        "also",
        "with",
        "without",
        "how",
        "much",
        "bill",
        "what",
        "do",
        "sure",
        "perfect",
        "great",
        "fine",
        "my",
        "order",
        "all",
        "take",
        "right",
        "something",
        "sweet",
        "eat",
        "ordering",
        "team",
    ];
    let words: Vec<&str> = normalized.split(' ').collect();
    if !words.iter().any(|w| ENGLISH.contains(w)) {
        return normalized.to_owned();
    }
    // «the maracuya one, is it…?», «that one»: «one» pointing at a thing is
    // no count of it.
    let pointed: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|&(k, w)| {
            *w != "one"
                || !words[k.saturating_sub(2)..k]
                    .iter()
                    .any(|b| matches!(*b, "the" | "that" | "this" | "which"))
        })
        .map(|(_, w)| *w)
        .collect();
    let pointed = pointed.join(" ");
    let normalized = pointed.as_str();
    const PHRASES: &[(&str, &str)] = &[
        ("but", "pero"),
        // «sorry not 3 croissant, 2»: the count taken back.
        ("sorry not", "perdon no"),
        ("no nuts", "sin nueces"),
        ("without nuts", "sin nueces"),
        ("nut free", "sin nueces"),
        ("no milk", "sin leche"),
        ("without milk", "sin leche"),
        ("gluten free", "sin gluten"),
        ("lactose free", "sin lactosa"),
        ("that s all", "eso es todo"),
        ("thats all", "eso es todo"),
        ("that s it", "eso es todo"),
        ("thats it", "eso es todo"),
        ("that is all", "eso es todo"),
        ("that will be all", "eso es todo"),
        ("i m done", "eso es todo"),
        ("im done", "eso es todo"),
        ("ok done", "eso es todo"),
        ("all done", "eso es todo"),
        // (Before «how much»: the phrases are replaced in this order.)
        ("how much total", "cuanto es todo"),
        ("how much in total", "cuanto es todo"),
        ("how much altogether", "cuanto es todo"),
        ("how much do i owe", "cuanto te debo"),
        // «what's the damage?»: the bill.
        ("what s the damage", "cuanto es todo"),
        ("whats the damage", "cuanto es todo"),
        ("check out", "cuanto es"),
        ("how much", "cuanto es"),
        ("the bill", "cuanto es"),
        ("one more", "uno mas"),
        ("make it", "que sean"),
        ("can i get", "quiero"),
        ("can i have", "quiero"),
        ("could i get", "quiero"),
        ("could i have", "quiero"),
        ("i ll have", "quiero"),
        ("ill have", "quiero"),
        ("i would like", "quiero"),
        ("i d like", "quiero"),
        ("id like", "quiero"),
        ("i want", "quiero"),
        ("give me", "dame"),
        ("get me", "dame"),
        ("do you have", "tienen"),
        ("take out", "quita"),
        ("instead of", "en vez de"),
        ("hot chocolate", "chocolate caliente"),
        // «black coffee», «americano coffee»: the americano.
        ("black coffee", "americano"),
        ("americano coffee", "americano"),
        ("how much is it", "cuanto es"),
        ("passion fruit", "maracuya"),
        ("swap out", "cambia"),
        ("yes please", "si por favor"),
        ("no more", "ya no"),
        ("thank you", "gracias"),
        ("the order", "el pedido"),
        ("my order", "mi pedido"),
        // «two of those please», «take it off»: the product just talked about.
        ("of those", "de esos"),
        ("of these", "de esos"),
        ("of that", "de ese"),
        ("take it off", "quitalo"),
        ("take it out", "quitalo"),
        ("remove it", "quitalo"),
        ("sounds good", "ok"),
        // («ok no problem, I'll pick it up»: no «no» of refusal.)
        ("no problem", "ok"),
        ("no worries", "ok"),
        ("that s right", "correcto"),
        ("thats right", "correcto"),
        ("that s correct", "correcto"),
        ("take off", "quita"),
        // («two cappuccinos to take away»: to go.)
        ("to take away", "para llevar"),
        // «something to eat, not sweet»: a description of what is wanted.
        ("to eat", "para comer"),
        ("for eat", "para comer"),
        ("not sweet", "que no sea dulce"),
        // «hello, ordering for my team: 3 cappuccinos…»: an order, and whom
        // it is for.
        ("ordering for", "pido para"),
        ("order for", "pido para"),
        ("i m ordering", "pido"),
        ("im ordering", "pido"),
        ("for my team", "para mi equipo"),
        ("my team", "mi equipo"),
        ("for the team", "para el equipo"),
        ("for the office", "para la oficina"),
    ];
    translated(normalized, PHRASES, |word| match word {
        "add" => "agrega",
        "what" => "que",
        "remove" | "delete" => "quita",
        "checkout" | "bill" => "cuanto es",
        // («total please?»: the whole asked.)
        "total" => "cuanto es todo",
        "done" => "listo",
        "perfect" | "great" | "fine" => "perfecto",
        "yes" | "yeah" | "yep" | "sure" => "si",
        "please" | "pls" => "por favor",
        "and" => "y",
        "also" => "tambien",
        // «no brownie then, just the limonadas»: only those.
        "just" | "only" => "solo",
        "more" => "mas",
        "a" | "an" => "un",
        // «for one cheesecake»: a numeral, not the article «un».
        "one" => "1",
        "confirm" => "confirmo",
        // «2 iced matchas»: the matcha is served cold anyway.
        "iced" => "frio",
        "two" => "dos",
        "three" => "tres",
        "four" => "cuatro",
        "five" => "cinco",
        "six" => "seis",
        "the" => "el",
        "lemonade" => "limonada",
        "lemonades" => "limonadas",
        "coffee" => "cafe",
        "coffees" => "cafes",
        "cappuccino" => "capuchino",
        "cappuccinos" => "capuchinos",
        "tea" => "te",
        "hi" | "hello" => "hola",
        "thanks" => "gracias",
        "cancel" => "cancelar",
        "with" => "con",
        "without" => "sin",
        "actually" | "instead" => "mejor",
        "swap" | "replace" | "change" => "cambia",
        "for" => "por",
        "juice" => "jugo",
        "wait" => "espera",
        "sorry" => "perdon",
        "then" => "entonces",
        "vegan" => "vegano",
        "is" => "es",
        "something" => "algo",
        "sweet" => "dulce",
        "cold" => "frio",
        "dessert" => "postre",
        "ordering" => "pido",
        "team" => "equipo",
        "my" => "mi",
        w => w,
    })
}

/// Basic Portuguese of a Brazilian tourist or a border customer, read as the
/// Spanish the rules know («quero dois suco de maracujá», «é só isso, quanto
/// fica?», «sim, pode ser»). Only a message with a word no Spanish speaker
/// writes is read this way.
pub fn read_portuguese(normalized: &str) -> String {
    const MARKERS: &[&str] = &[
        "quero",
        "dois",
        "duas",
        "voces",
        "sim",
        "obrigado",
        "obrigada",
        "suco",
        "sucos",
        "isso",
        "cartao",
        "aceitam",
        "nao",
        "tambem",
        "gostaria",
        "tem",
        "fica",
        "entao",
        "fechar",
        "mesmo",
        "pro",
        "meu",
        "minha",
        "pode",
        "melhor",
        "queijo",
        "tudo",
        "loja",
        "vou",
        "paguei",
        "comprovante",
        "leite",
        "cardapio",
        "mim",
        "maracuja",
        "voce",
    ];
    let words: Vec<&str> = normalized.split(' ').collect();
    if !words.iter().any(|w| MARKERS.contains(w)) {
        return normalized.to_owned();
    }
    const PHRASES: &[(&str, &str)] = &[
        ("e so isso", "eso es todo"),
        ("so isso", "eso es todo"),
        ("quanto fica", "cuanto es"),
        ("quanto e", "cuanto es"),
        ("pode ser", "esta bien"),
        ("pode fechar o pedido", "cierra el pedido"),
        ("fechar a conta", "cierra el pedido"),
        ("fecha a conta", "cierra el pedido"),
        ("fechar o pedido", "cierra el pedido"),
        ("fecha o pedido", "cierra el pedido"),
        ("tudo certo", "todo bien"),
        ("pode fechar", "esta bien"),
        ("por favor", "por favor"),
        ("muito obrigado", "gracias"),
        ("muito obrigada", "gracias"),
        ("o mesmo", "lo mismo"),
        ("a mesma", "lo mismo"),
        // «vou buscar na loja»: the customer picks it up.
        ("vou buscar na loja", "paso a buscar"),
        ("vou buscar", "paso a buscar"),
        ("busco na loja", "paso a buscar"),
        ("na loja", "en la tienda"),
        ("nao tem", "no tienen"),
        // «tira um dos capuchinos»: «dos» after «um» is «of the», never two.
        ("um dos", "uno de los"),
        ("uma das", "una de las"),
        ("ta bom", "esta bien"),
        ("tudo bem", "todo bien"),
        ("pra mim", "para mi"),
        ("pra ela", "para ella"),
        ("pra ele", "para el"),
        // «entrega em Sopocachi»: delivered there.
        ("entrega em", "envio a"),
        ("ai vai", "ahi va"),
        ("aqui vai", "ahi va"),
        ("perto da", "cerca de la"),
        ("perto do", "cerca del"),
    ];
    translated(normalized, PHRASES, |word| match word {
        "quero" => "quiero",
        "gostaria" => "quisiera",
        "dois" | "duas" => "dos",
        "tres" => "tres",
        "um" => "un",
        "uma" => "una",
        "e" => "y",
        "suco" => "jugo",
        "sucos" => "jugos",
        "sim" => "si",
        "nao" => "no",
        "obrigado" | "obrigada" => "gracias",
        "isso" => "eso",
        "mais" => "mas",
        "tambem" => "tambien",
        "entao" | "enton" => "entonces",
        "com" => "con",
        "sem" => "sin",
        "cartao" => "tarjeta",
        "aceitam" => "aceptan",
        "voces" => "ustedes",
        "tem" => "tienen",
        "cafe" => "cafe",
        "pro" | "pra" => "para",
        "meu" | "minha" => "mi",
        "melhor" => "mejor",
        // («coloca» is Spanish too: read so only beside a Portuguese word;
        // Chile's «bota» throws out.)
        "coloca" | "coloque" | "poe" => "pon",
        "tudo" => "todo",
        "legal" => "ok",
        "tira" | "tire" => "quita",
        "tirar" => "quitar",
        "so" => "solo",
        "paguei" => "pague",
        "ja" => "ya",
        "comprovante" => "comprobante",
        "leite" => "leche",
        "amendoas" => "almendras",
        "cardapio" => "carta",
        "maracuja" => "maracuya",
        "mim" => "mi",
        "ela" => "ella",
        "voce" => "usted",
        w => w,
    })
}

/// A folded text with `phrases` put in their Spanish words, then each word by
/// `word`.
fn translated(normalized: &str, phrases: &[(&str, &str)], word: impl Fn(&str) -> &str) -> String {
    let mut text = format!(" {normalized} ");
    for (foreign, spanish) in phrases {
        text = text.replace(&format!(" {foreign} "), &format!(" {spanish} "));
    }
    text.trim()
        .split(' ')
        .map(word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Emoji people use in orders, read as words before normalization strips them.
pub fn read_emoji(text: &str) -> String {
    const EMOJI: &[(&str, &str)] = &[
        ("👍", " ok "),
        ("👌", " ok "),
        ("✅", " si "),
        ("🙏", " por favor "),
        ("❌", " no "),
        ("☕", " cafe "),
        ("🍫", " chocolate "),
        ("🥐", " croissant "),
        ("🍰", " cheesecake "),
        ("🍋", " limonada "),
        ("🍵", " te "),
        ("🛒", " carrito "),
    ];
    // A product's emoji stands for it where a name would stand: first, or
    // after a count, an article, a joiner or a verb of ordering («2 ☕ y 1
    // 🥐», «quiero 🍰»). After a word («una limonada 🍋», «un brownie 🍰») or
    // another emoji («1 cheesecake 🍰🍰🍰») it decorates, and says nothing.
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // The emoji said last, while only spaces followed it: «☕ 🥐» are two
    // products, «🥐🥐🥐» one.
    let mut last_emoji: Option<&str> = None;
    while let Some(c) = rest.chars().next() {
        let hit = EMOJI.iter().find(|(emoji, _)| rest.starts_with(emoji));
        let Some((emoji, word)) = hit else {
            if !c.is_whitespace() {
                last_emoji = None;
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        rest = &rest[emoji.len()..];
        let product = !matches!(*emoji, "👍" | "👌" | "✅" | "🙏" | "❌" | "🛒");
        let before = out.trim_end();
        let previous = before
            .rsplit(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':'))
            .next()
            .unwrap_or("");
        let new_line = out.trim_end_matches([' ', '\t']).ends_with('\n');
        let stands_for_it = before.is_empty()
            || new_line
            || last_emoji.is_some_and(|last| last != *emoji)
            || before.ends_with([',', ';', ':'])
            || previous.chars().all(|c| c.is_ascii_digit())
            || crate::text::token_number(&crate::text::normalize(previous)).is_some()
            || matches!(
                crate::text::normalize(previous).as_str(),
                "y" | "o"
                    | "mas"
                    | "otro"
                    | "otra"
                    | "quiero"
                    | "dame"
                    | "ponme"
                    | "agrega"
                    | "agregame"
                    | "el"
                    | "la"
                    | "de"
                    | "con"
                    | "un"
                    | "una"
                    | "x"
                    | "and"
                    | "porfa"
            );
        if !product || (stands_for_it && last_emoji != Some(*emoji)) {
            out.push_str(word);
        } else {
            out.push(' ');
        }
        last_emoji = product.then_some(*emoji);
    }
    out
}

/// Foods and drinks a café's customers ask for that a catalog may not hold
/// («¿tienen salteñas?», «una cerveza»): asked about, the answer is that the
/// shop does not sell them, not a gray zone. Folded, singular.
const FOODS: &[&str] = &[
    "saltena",
    "empanada",
    "tucumana",
    "cunape",
    "sandwich",
    "sanduche",
    "sandwiche",
    "galleta",
    "helado",
    "gaseosa",
    "refresco",
    "soda",
    "cerveza",
    "tamal",
    "pizza",
    "hamburguesa",
    "hotdog",
    "api",
    "sopa",
    "almuerzo",
    "ensalada",
    "yogur",
    "yogurt",
    "batido",
    "licuado",
    "smoothie",
    "frappe",
    "frapuccino",
    "mocaccino",
    "latte",
    "espresso",
    "tostada",
    "waffle",
    "panqueque",
    "muffin",
    "alfajor",
    "quesadilla",
    "tequeno",
    "chicha",
    "michelada",
    "chilaquile",
    "agua",
    "torta",
    "queque",
    "pie",
    "dona",
    "donut",
    "mocha",
    "macchiato",
    "pan",
    // Portuguese «pão», with its tilde (folded, «Pao» is a name).
    "pão",
    "pães",
    "marraqueta",
    "humita",
    "bunuelo",
    "cocada",
    "gelatina",
    "flan",
    "cortado",
    "chela",
];

/// Whether `word` (folded) is a food or drink of [`FOODS`], in the singular or
/// the plural.
pub fn is_food(word: &str) -> bool {
    let singular = word
        .strip_suffix("es")
        .filter(|s| FOODS.contains(s))
        .or_else(|| word.strip_suffix('s'))
        .unwrap_or(word);
    FOODS.contains(&word) || FOODS.contains(&singular)
}
