//! The closed list of categories a transaction may have, each with its Kakebo type
//! (supervivencia, opcional, cultura, extra; ingreso for income), the words and
//! merchants that point to it, and its neighbours for search ("comida" finds the
//! supermarket and the restaurant).

use serde::{Deserialize, Serialize};

use crate::text::{contains_phrase, normalize};

/// The Kakebo type of a category: what kind of need a transaction served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CategoryType {
    Supervivencia,
    Opcional,
    Cultura,
    Extra,
    Ingreso,
}

impl CategoryType {
    pub const ALL: [CategoryType; 5] = [
        CategoryType::Supervivencia,
        CategoryType::Opcional,
        CategoryType::Cultura,
        CategoryType::Extra,
        CategoryType::Ingreso,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CategoryType::Supervivencia => "supervivencia",
            CategoryType::Opcional => "opcional",
            CategoryType::Cultura => "cultura",
            CategoryType::Extra => "extra",
            CategoryType::Ingreso => "ingreso",
        }
    }

    pub fn parse(raw: &str) -> Option<CategoryType> {
        let name = normalize(raw);
        CategoryType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct Category {
    /// Stored in `fin_transactions.category`.
    pub key: &'static str,
    /// What the user reads.
    pub label: &'static str,
    pub kind: CategoryType,
    /// Fixed monthly bills (rent, utilities) are outside the variable-spending cap.
    pub fixed: bool,
    /// Normalized words, phrases and merchants that point to this category.
    pub words: &'static [&'static str],
    /// Categories a search for this one also covers.
    pub related: &'static [&'static str],
    /// An umbrella: its totals include the related categories too ("¿cuánto llevo
    /// en comida?" counts the supermarket and restaurants).
    pub umbrella: bool,
}

impl Category {
    pub fn is_income(&self) -> bool {
        self.kind == CategoryType::Ingreso
    }
}

pub static CATEGORIES: &[Category] = &[
    Category {
        key: "comida",
        label: "comida",
        kind: CategoryType::Supervivencia,
        fixed: false,
        words: &[
            "comida",
            "comidas",
            "alimentos",
            "alimentacion",
            "desayuno",
            "almuerzo",
            "comer",
            "lonche",
            "tortillas",
            "tortilleria",
            "panaderia",
            "pan",
            "fruta",
            "verduras",
            "papitas",
            "botana",
            "botanas",
            "tiendita",
            "verduleria",
            "carniceria",
            "fruteria",
            "polleria",
            // Street food and snacks («3.50 un api con pastel», «25 en
            // salteñas»).
            // («un api con pastel»; never «la api de openai».)
            "un api",
            "api con",
            "api morado",
            "pastel",
            "pasteles",
            "saltena",
            "saltenas",
            "empanada",
            "empanadas",
            "tucumana",
            "tucumanas",
            "anticucho",
            "anticuchos",
            "merienda",
            "snack",
            "snacks",
            "sandwich",
            "sanduche",
            "helado",
            "helados",
            "golosinas",
        ],
        related: &["supermercado", "restaurantes"],
        umbrella: true,
    },
    Category {
        key: "supermercado",
        label: "supermercado",
        kind: CategoryType::Supervivencia,
        fixed: false,
        words: &[
            "groceries",
            "super",
            "supermercado",
            "groceries",
            "grocery",
            "mandado",
            "despensa",
            "mercado",
            // «pa mercar», «hacer el mercado» (Colombia).
            "mercar",
            "walmart",
            "soriana",
            "chedraui",
            "bodega aurrera",
            "aurrera",
            "costco",
            "sams",
            "la comer",
            "heb",
            "oxxo",
            "seven",
            "7 eleven",
            "abarrotes",
            "galletas",
            "galletitas",
            "yerba",
            "gaseosas",
            "almacen",
            "minimarket",
            "el chino",
            "exito",
            "carrefour",
            "jumbo",
            "tottus",
            "plaza vea",
            "mercadona",
            "lidl",
            "hipermaxi",
            "ketal",
            "fidalga",
            "d1",
        ],
        related: &["comida"],
        umbrella: false,
    },
    Category {
        key: "restaurantes",
        label: "restaurantes",
        kind: CategoryType::Opcional,
        fixed: false,
        words: &[
            "restaurante",
            "restaurantes",
            "restaurant",
            "cena",
            "cenar",
            "tacos",
            "taqueria",
            "pizza",
            "sushi",
            "hamburguesa",
            "hamburguesas",
            "alitas",
            "boneless",
            "cafe",
            "cafeteria",
            "starbucks",
            "uber eats",
            "salir a comer",
            "comi fuera",
            "comimos fuera",
            "comer afuera",
            "comi afuera",
            "restaurants",
            "eating out",
            // «no más de 40 lucas en delivery»: meals brought home (not «el
            // delivery de la farmacia», «el súper por delivery»).
            "en delivery",
            "salida a comer",
            "salidas a comer",
            "comer fuera",
            "comida fuera",
            "rappi",
            "didi food",
            "antojitos",
            "comida rapida",
            "menu del dia",
            "corrientazo",
            "chifa",
            "pollo a la brasa",
            "parrillada",
        ],
        related: &["comida"],
        umbrella: false,
    },
    Category {
        key: "transporte",
        label: "transporte",
        kind: CategoryType::Supervivencia,
        fixed: false,
        words: &[
            "transporte",
            "uber",
            "didi",
            "taxi",
            "camion",
            "metro",
            "metrobus",
            "pasaje",
            "gasolina",
            "pemex",
            "estacionamiento",
            "caseta",
            "casetas",
            "autobus",
            "cabify",
            // The car's own costs: «le cargué 450 de gas al tsuru», «el
            // servicio del carro», «le eché 400».
            "gas al carro",
            "gas al auto",
            "gas al coche",
            "gas a la moto",
            "gas al taxi",
            "gas pal carro",
            "gas al tsuru",
            "servicio del carro",
            "servicio al carro",
            "servicio del auto",
            "llanta",
            "llantas",
            "afinacion",
            "pasajes",
            "ubers",
            "didis",
            "taxis",
            "minibus",
            "micro",
            "micros",
            "colectivo",
            "colectivos",
            "bondi",
            "trufi",
            "subte",
            "cargue la sube",
            "recargue la sube",
            "tarjeta sube",
            "bus",
            "buses",
            "transmilenio",
            "mototaxi",
            "vulcanizadora",
            "llantera",
            "peaje",
            "peajes",
            "combustible",
            "nafta",
            "bencina",
            "parqueo",
            "parqueadero",
            "gasolinera",
            "mecanico",
            "multa de transito",
            "fotomulta",
        ],
        related: &[],
        umbrella: false,
    },
    Category {
        key: "vivienda",
        label: "vivienda",
        kind: CategoryType::Supervivencia,
        fixed: true,
        words: &[
            "vivienda",
            "renta",
            // Rent as it is said in Colombia, Chile and Argentina.
            "arriendo",
            "arrendamiento",
            "rent",
            "alquiler",
            "hipoteca",
            "mantenimiento",
            "predial",
            "expensas",
            // Building fees as they are said in Venezuela, Mexico and Peru.
            "condominio",
            "cuota del edificio",
            "gastos de comunidad",
            "comunidad de vecinos",
            "cuota de la comunidad",
        ],
        related: &["servicios"],
        umbrella: false,
    },
    Category {
        key: "servicios",
        label: "servicios",
        kind: CategoryType::Supervivencia,
        fixed: true,
        words: &[
            "servicios",
            "luz",
            "cfe",
            "agua",
            "internet",
            "telmex",
            "izzi",
            "totalplay",
            "telefono",
            "celular",
            "recarga",
            "gas",
            "telcel",
            "wifi",
            "movistar",
            "entel",
            "tigo",
            "plan del celular",
            "boleta del gas",
            "boleta de la luz",
            "recibo de la luz",
            "recibo del agua",
        ],
        related: &["vivienda"],
        umbrella: false,
    },
    Category {
        key: "salud",
        label: "salud",
        kind: CategoryType::Supervivencia,
        fixed: false,
        words: &[
            "salud",
            "farmacia",
            "medicina",
            "medicinas",
            "medicamento",
            "medicamentos",
            "consultas",
            "medica",
            "medicas",
            "medicos",
            "doctor",
            "medico",
            "dentista",
            "consulta",
            "hospital",
            "similares",
            "farmacias guadalajara",
            "laboratorio",
            "optica",
            "lentes",
            "psicologo",
            "psicologa",
            "terapia",
            "vacuna",
            "vacunas",
            "consultorio",
            // «compré remedios para la tos», «jarabe», «pastillas».
            "remedio",
            "remedios",
            "jarabe",
            "clinica",
            // «pagué 180 en la droguería» (Colombia), «la botica» (Perú).
            "drogueria",
            "botica",
        ],
        related: &[],
        umbrella: false,
    },
    Category {
        key: "educacion",
        label: "educación",
        kind: CategoryType::Cultura,
        fixed: false,
        words: &[
            "educacion",
            "colegiatura",
            "escuela",
            "curso",
            "cursos",
            "utiles",
            "clases",
            "universidad",
            // «copias y un libro pa la uni».
            "uni",
            "kinder",
            "primaria",
            "secundaria",
            "preparatoria",
            "prepa",
            "colegio",
            // «copias e impresiones pa la tesis» (not «copias de las
            // llaves»; the gym's «inscripción» is the gym's, below).
            "fotocopias",
            "impresiones",
            "tesis",
            // «impresiones pa la tarea».
            "tarea",
            "tareas",
            "inscripcion",
            "comedor del cole",
            "comedor escolar",
            "cole",
            "pension del colegio",
            "material escolar",
        ],
        related: &["cultura"],
        umbrella: false,
    },
    Category {
        key: "cultura",
        label: "cultura",
        kind: CategoryType::Cultura,
        fixed: false,
        words: &[
            "cultura",
            "libro",
            "libros",
            "libreria",
            "museo",
            "teatro",
            "concierto",
            "gandhi",
        ],
        related: &["educacion", "entretenimiento"],
        umbrella: false,
    },
    Category {
        key: "entretenimiento",
        label: "entretenimiento",
        kind: CategoryType::Opcional,
        fixed: false,
        words: &[
            "entretenimiento",
            "cine",
            "cinepolis",
            "cinemex",
            "fiesta",
            "fiestas",
            "bar",
            "bares",
            "antro",
            "antros",
            "cervezas",
            "chelas",
            "cheves",
            "six flags",
            "parque de diversiones",
            "videojuegos",
            "salida",
            "boliche",
            "salidas",
            // «no quiero gastar más de 500 en salir».
            "en salir",
            "rumba",
            "discoteca",
            "karaoke",
            "juerga",
            "bolos",
        ],
        related: &["cultura"],
        umbrella: false,
    },
    Category {
        key: "ropa",
        label: "ropa",
        kind: CategoryType::Opcional,
        fixed: false,
        words: &[
            "ropa",
            "zapatos",
            "tenis",
            "liverpool",
            "zara",
            "playera",
            "pantalon",
            "shein",
            "chamarra",
            "vestido",
            "coppel",
            "chaqueta",
            "campera",
            "buzo",
            "zapatillas",
            "polera",
            "jeans",
            "camisa",
            "falda",
            "blusa",
        ],
        related: &[],
        umbrella: false,
    },
    Category {
        key: "suscripciones",
        label: "suscripciones",
        kind: CategoryType::Opcional,
        fixed: false,
        words: &[
            "suscripcion",
            "suscripciones",
            "netflix",
            "spotify",
            "disney",
            "hbo",
            "prime video",
            "amazon prime",
            "youtube premium",
            "icloud",
            "gimnasio",
            // (Longer than «inscripción», which is the school's.)
            "inscripcion al gimnasio",
            "inscripcion del gimnasio",
            "inscripcion al gym",
            "gym",
            "youtube",
            "chatgpt",
            "crunchyroll",
            "paramount",
            "apple music",
            "game pass",
            "playstation plus",
        ],
        related: &["entretenimiento"],
        umbrella: false,
    },
    Category {
        key: "hogar",
        label: "hogar",
        kind: CategoryType::Opcional,
        fixed: false,
        words: &[
            "hogar",
            "muebles",
            "limpieza",
            "home depot",
            "ferreteria",
            "electrodomestico",
            "electrodomesticos",
            "refri",
            "refrigerador",
            "lavadora",
            "secadora",
            "estufa",
            "microondas",
            "licuadora",
            "colchon",
            "lampara",
            "lamparas",
            "cojin",
            "cojines",
            "cortinas",
            "sarten",
            "sartenes",
            "trastes",
            "ollas",
            "vajilla",
            "tapete",
            "sillon",
            "sofa",
            "decoracion",
        ],
        related: &[],
        umbrella: false,
    },
    Category {
        key: "regalos",
        label: "regalos",
        kind: CategoryType::Extra,
        fixed: false,
        words: &[
            "regalo",
            "regalos",
            "regalito",
            "regalitos",
            "cumpleanos",
            "cumple",
            "obsequio",
            "detalle",
        ],
        related: &[],
        umbrella: false,
    },
    Category {
        key: "viajes",
        label: "viajes",
        kind: CategoryType::Extra,
        fixed: false,
        words: &[
            "viaje",
            "viajes",
            "vuelo",
            "hotel",
            "avion",
            "airbnb",
            "vacaciones",
            "vuelos",
            "flight",
            "flights",
            "boleto de avion",
        ],
        related: &["transporte"],
        umbrella: false,
    },
    Category {
        key: "otros",
        label: "otros",
        kind: CategoryType::Extra,
        fixed: false,
        // («3 arrobas de cebolla pa revender»: stock bought for the stall.)
        words: &["otros", "otro gasto", "varios", "revender", "mercaderia"],
        related: &[],
        umbrella: false,
    },
    Category {
        key: "salario",
        label: "salario",
        kind: CategoryType::Ingreso,
        fixed: false,
        words: &[
            "salario", "sueldo", "quincena", "nomina", "salary", "paycheck", "payroll",
        ],
        related: &["otros_ingresos"],
        umbrella: false,
    },
    Category {
        key: "otros_ingresos",
        label: "otros ingresos",
        kind: CategoryType::Ingreso,
        fixed: false,
        words: &[
            "otros ingresos",
            "ingreso",
            "ingresos",
            "venta",
            "vendi",
            "vendimos",
            "vendido",
            "freelance",
            "bono",
            "aguinaldo",
            "reembolso",
            "propina",
            "propinas",
        ],
        related: &["salario"],
        umbrella: false,
    },
];

/// The category stored under `key`.
pub fn by_key(key: &str) -> Option<&'static Category> {
    CATEGORIES.iter().find(|c| c.key == key)
}

/// The category a user named, by its key, its label or one of its words
/// (accents and case folded). "comida", "súper" and "Netflix" all name one.
pub fn named(name: &str) -> Option<&'static Category> {
    let name = normalize(name);
    if name.is_empty() {
        return None;
    }
    CATEGORIES
        .iter()
        .find(|c| c.key == name || normalize(c.label) == name)
        .or_else(|| CATEGORIES.iter().find(|c| c.words.contains(&name.as_str())))
}

/// The category whose key or label is exactly `name` (not one of its words).
pub fn titled(name: &str) -> Option<&'static Category> {
    let name = normalize(name);
    CATEGORIES
        .iter()
        .find(|c| c.key == name || normalize(c.label) == name)
}

/// The category any word of `text` points to, with the word. What was paid for
/// comes before what it was for: a word after «para», «pa» or «porque» («un
/// uber pa regresar de la fiesta») counts only when nothing before it does.
/// Longer phrases win over single words ("uber eats" over "uber").
pub fn mentioned(text: &str) -> Option<(&'static Category, &'static str)> {
    // «fue en el súper, no en la farmacia»: what is said not to be is no
    // category of it (read only when something else is named).
    if let Some(kept) = without_denied(text)
        && let Some(found) = mentioned(&kept)
    {
        return Some(found);
    }
    let text = normalize(text);
    let purpose = text
        .split(' ')
        .position(|w| matches!(w, "para" | "pa" | "porque"))
        .filter(|&at| at > 0)
        .map(|at| text.split(' ').take(at).collect::<Vec<_>>().join(" "));
    purpose
        .and_then(|before| longest(&before, false))
        .or_else(|| longest(&text, false))
        // «la farmasia», «medisinas»: spelled by ear, the same sounds.
        .or_else(|| longest(&crate::text::by_ear(&text), true))
        // «en el resturante», «restaurntes»: a long word one slip away.
        .or_else(|| mistyped(&text))
}

/// `text` without the words a «no» (or «ni») denies right after a comma
/// closed what was said («…súper, no en la farmacia»); `None` when nothing is
/// denied that way («el súper no, fue la farmacia» denies what came before).
fn without_denied(text: &str) -> Option<String> {
    let raw: Vec<&str> = text.split_whitespace().collect();
    let at = (2..raw.len()).find(|&k| {
        matches!(normalize(raw[k]).as_str(), "no" | "ni")
            && !raw[k].ends_with([',', '.', ';', '!'])
            && raw[k - 1].ends_with(',')
    })?;
    let words: Vec<String> = raw.iter().map(|w| normalize(w)).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut end = at + 1;
    while words.get(end).is_some_and(|w| {
        matches!(
            *w,
            "en" | "de" | "del" | "el" | "la" | "los" | "las" | "fue" | "era" | "es"
        )
    }) {
        end += 1;
    }
    // The word denied (and a second one of its name).
    end = (end + 2).min(words.len());
    let kept: Vec<&str> = words[..at].iter().chain(&words[end..]).copied().collect();
    (kept.len() < words.len()).then(|| kept.join(" "))
}

/// The one category a word of at least eight letters names with one letter
/// missing, added, changed or swapped (a shorter word is too often another
/// word: «recargo» is a fee, not «recarga»); `None` when none or several do.
fn mistyped(text: &str) -> Option<(&'static Category, &'static str)> {
    let mut found: Option<(&'static Category, &'static str)> = None;
    for said in text.split(' ').filter(|w| w.chars().count() >= 8) {
        for category in CATEGORIES {
            for word in category.words.iter().chain(std::iter::once(&category.key)) {
                if word.chars().count() >= 8
                    && !word.contains(' ')
                    && strsim::damerau_levenshtein(said, word) == 1
                {
                    match found {
                        Some((other, _)) if other.key != category.key => return None,
                        _ => found = Some((category, word)),
                    }
                }
            }
        }
    }
    found
}

fn longest(text: &str, by_sound: bool) -> Option<(&'static Category, &'static str)> {
    let mut best: Option<(&'static Category, &'static str)> = None;
    for category in CATEGORIES {
        for word in category.words.iter().chain(std::iter::once(&category.key)) {
            let found = if by_sound {
                word.len() >= 5 && contains_phrase(text, &crate::text::by_ear(word))
            } else {
                contains_phrase(text, word)
            };
            if found && best.is_none_or(|(_, w)| word.len() > w.len()) {
                best = Some((category, word));
            }
        }
    }
    best
}

/// Keys a search for `category` covers: itself and its neighbours.
pub fn with_related(category: &'static Category) -> Vec<&'static Category> {
    let mut out = vec![category];
    out.extend(category.related.iter().filter_map(|k| by_key(k)));
    out
}

/// Keys an analysis of `category` sums: itself, and its neighbours for an umbrella.
pub fn analysis_keys(category: &'static Category) -> Vec<&'static str> {
    if category.umbrella {
        with_related(category).iter().map(|c| c.key).collect()
    } else {
        vec![category.key]
    }
}

/// Keys of fixed bills, which the variable-spending cap leaves out.
pub fn fixed_keys() -> Vec<&'static str> {
    CATEGORIES
        .iter()
        .filter(|c| c.fixed)
        .map(|c| c.key)
        .collect()
}

/// Every known category label, for questions and prompts.
pub fn labels(income: bool) -> Vec<&'static str> {
    CATEGORIES
        .iter()
        .filter(|c| c.is_income() == income)
        .map(|c| c.label)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_word_one_slip_away_names_its_category_and_a_short_one_does_not() {
        assert_eq!(
            mentioned("gsate 250 en el resturante").map(|(c, _)| c.key),
            Some("restaurantes")
        );
        assert_eq!(
            mentioned("un limte de 2 mil a restaurntes").map(|(c, _)| c.key),
            Some("restaurantes")
        );
        // The car's fuel and upkeep are transport; the home's gas a bill.
        let key = |text: &str| mentioned(text).map(|(c, _)| c.key);
        assert_eq!(
            key("ayer le cargué 450 de gas al tsuru"),
            Some("transporte")
        );
        assert_eq!(key("el servicio del carro, 3 mil"), Some("transporte"));
        assert_eq!(key("pagué 300 de gas"), Some("servicios"));
        // What is denied is not the category.
        assert_eq!(
            key("espera, fue en el súper, no en la farmacia"),
            Some("supermercado")
        );
        // «X no, Y» denies X.
        assert_eq!(
            key("gasté 200 en el súper no, en la farmacia"),
            Some("salud")
        );
        assert_eq!(key("le cargué 100 al celular"), Some("servicios"));
        // («cine» → «cina» is too short to guess.)
        assert_eq!(mentioned("fui a la cina").map(|(c, _)| c.key), None);
    }

    #[test]
    fn a_word_spelled_by_ear_names_its_category_and_the_bought_thing_beats_its_purpose() {
        let key = |text: &str| mentioned(text).map(|(c, _)| c.key);
        assert_eq!(key("gaste 450 en la farmasia en medisinas"), Some("salud"));
        assert_eq!(
            key("180 en un uber pa regresar de la fiesta"),
            Some("transporte")
        );
        assert_eq!(key("pague la renta"), Some("vivienda"));
        assert_eq!(
            crate::text::by_ear("cerveza llave hola"),
            "serbesa yabe ola"
        );
        // A purpose alone still names the category.
        assert_eq!(key("para la fiesta"), Some("entretenimiento"));
    }

    #[test]
    fn categories_are_found_by_key_label_word_and_merchant() {
        assert_eq!(named("Comida").unwrap().key, "comida");
        assert_eq!(named("súper").unwrap().key, "supermercado");
        assert_eq!(named("educación").unwrap().key, "educacion");
        assert_eq!(named("Netflix").unwrap().key, "suscripciones");
        assert!(named("criptomonedas").is_none());
        assert!(named("").is_none());
        let (category, word) = mentioned("gasté 250 en Bodega Aurrera").unwrap();
        assert_eq!((category.key, word), ("supermercado", "bodega aurrera"));
        assert_eq!(mentioned("pedí uber eats").unwrap().0.key, "restaurantes");
        assert_eq!(mentioned("un uber al centro").unwrap().0.key, "transporte");
        assert!(mentioned("gasté 300").is_none());
    }

    #[test]
    fn keys_are_unique_and_every_related_key_exists() {
        for (i, c) in CATEGORIES.iter().enumerate() {
            assert!(
                CATEGORIES[i + 1..].iter().all(|o| o.key != c.key),
                "{}",
                c.key
            );
            for related in c.related {
                assert!(by_key(related).is_some(), "{} -> {related}", c.key);
            }
            for word in c.words {
                assert_eq!(&normalize(word), word, "words are stored normalized");
            }
        }
        let food: Vec<&str> = with_related(by_key("comida").unwrap())
            .iter()
            .map(|c| c.key)
            .collect();
        assert_eq!(food, ["comida", "supermercado", "restaurantes"]);
        assert_eq!(
            CategoryType::parse("Opcional"),
            Some(CategoryType::Opcional)
        );
        assert_eq!(CategoryType::parse("lujo"), None);
    }
}
