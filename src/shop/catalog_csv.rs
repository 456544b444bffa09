//! A catalog as CSV, the way a merchant keeps it in a spreadsheet:
//! `sku,name,description,price,active,tags,allergens,stock`, prices in the bot's
//! currency ("30", "30.50" or "30,50"), tags and allergens as lists in one cell
//! ("frío, sin cafeína"), stock as units on hand (empty: not tracked). Reading checks every row and reports every problem with
//! its line, so an import is all or nothing.

use serde::Serialize;

use super::catalog::{self, Product, ProductInput};

/// Most rows one import may hold.
pub const MAX_ROWS: usize = 5000;

/// The columns, as exported (Spanish), each with the names an import takes
/// for it (accents and case aside).
const COLUMNS: [(&str, &[&str]); 8] = [
    ("código", &["codigo", "sku"]),
    ("nombre", &["nombre", "name", "producto"]),
    ("descripción", &["descripcion", "description"]),
    ("precio", &["precio", "price"]),
    ("activo", &["activo", "active", "a la venta"]),
    ("etiquetas", &["etiquetas", "tags", "como es"]),
    ("alérgenos", &["alergenos", "allergens"]),
    ("existencias", &["existencias", "stock", "unidades"]),
];

/// A header cell as compared: lowercase, without accents or surrounding space.
fn header_key(cell: &str) -> String {
    cell.trim()
        .to_lowercase()
        .chars()
        .map(|c| match c {
            'á' => 'a',
            'é' => 'e',
            'í' => 'i',
            'ó' => 'o',
            'ú' | 'ü' => 'u',
            other => other,
        })
        .collect()
}

/// Which column (by its index in `COLUMNS`) a header cell names.
fn column_of(cell: &str) -> Option<usize> {
    let key = header_key(cell);
    COLUMNS
        .iter()
        .position(|(_, names)| names.contains(&key.as_str()))
}

/// `;` when the first line has more of them than commas (what a spreadsheet in
/// a Spanish locale writes), else `,`.
fn delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or_default();
    if first.matches(';').count() > first.matches(',').count() {
        b';'
    } else {
        b','
    }
}

/// The rows of a file, and which optional columns it had.
#[derive(Debug, Clone)]
pub struct Sheet {
    pub products: Vec<ProductInput>,
    pub given: catalog::Given,
}

/// A cell holding a list: "frío, sin cafeína; vegano".
pub fn list(cell: &str) -> Vec<String> {
    cell.split([',', ';', '|', '/'])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A problem on one line of the file (1 is the header): `error` for the API,
/// `es` for the merchant's console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineError {
    pub line: u64,
    pub error: String,
    #[serde(skip)]
    pub es: String,
}

fn at(line: u64, error: impl Into<String>, es: impl Into<String>) -> LineError {
    LineError {
        line,
        error: error.into(),
        es: es.into(),
    }
}

/// A cell that is not what its column holds: (English, Spanish).
type CellError = (String, String);

/// Every row as a product, or every problem found.
pub fn read(text: &str) -> Result<Sheet, Vec<LineError>> {
    let text = text.trim_start_matches('\u{feff}');
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .delimiter(delimiter(text))
        .from_reader(text.as_bytes());
    let header: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(str::to_owned).collect(),
        Err(e) => {
            return Err(vec![at(
                1,
                format!("unreadable header: {e}"),
                "No se pudo leer la primera fila (los nombres de las columnas).",
            )]);
        }
    };
    let expected: Vec<&str> = COLUMNS.iter().map(|(name, _)| *name).collect();
    let mut index = [None; COLUMNS.len()];
    for (i, cell) in header.iter().enumerate() {
        match column_of(cell) {
            Some(column) => index[column] = Some(i),
            None => {
                return Err(vec![at(
                    1,
                    format!("unknown column `{cell}` (expected {})", expected.join(", ")),
                    format!(
                        "La columna «{cell}» no es de la planilla; las columnas son: {}.",
                        expected.join(", ")
                    ),
                )]);
            }
        }
    }
    let [
        sku,
        name,
        description,
        price,
        active,
        tags,
        allergens,
        stock,
    ] = index;
    let (Some(sku), Some(name), Some(price)) = (sku, name, price) else {
        return Err(vec![at(
            1,
            "the header needs code (sku), name and price columns",
            "La primera fila necesita al menos las columnas código, nombre y precio.",
        )]);
    };
    let mut products = Vec::new();
    let mut errors = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for record in reader.records() {
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                errors.push(at(
                    line,
                    format!("unreadable row: {e}"),
                    "No se pudo leer la fila (¿una comilla sin cerrar?).",
                ));
                continue;
            }
        };
        let line = record.position().map_or(0, |p| p.line());
        if record.iter().all(str::is_empty) {
            continue;
        }
        if products.len() + errors.len() >= MAX_ROWS {
            errors.push(at(
                line,
                format!("more than {MAX_ROWS} rows"),
                format!("La planilla tiene más de {MAX_ROWS} filas."),
            ));
            break;
        }
        let field = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("");
        let row = (|| {
            let price_minor = parse_price(field(Some(price))).map_err(|e| (e.en(), e.es()))?;
            let active = match active {
                None => true,
                Some(_) => parse_active(field(active))?,
            };
            let input = ProductInput {
                sku: field(Some(sku)).to_owned(),
                name: field(Some(name)).to_owned(),
                description: field(description).to_owned(),
                price_minor,
                active,
                tags: list(field(tags)),
                allergens: list(field(allergens)),
                stock: parse_stock(field(stock))?,
            };
            catalog::check(&input).map_err(|p| (p.en.to_owned(), p.es.to_owned()))?;
            Ok::<_, CellError>(input)
        })();
        match row {
            Ok(input) => match seen.insert(input.sku.clone(), line) {
                Some(first) => errors.push(at(
                    line,
                    format!("sku `{}` is already on line {first}", input.sku),
                    format!("El código «{}» ya está en la línea {first}.", input.sku),
                )),
                None => products.push(input),
            },
            Err((en, es)) => errors.push(at(line, en, es)),
        }
    }
    if errors.is_empty() {
        Ok(Sheet {
            products,
            given: catalog::Given {
                tags: tags.is_some(),
                allergens: allergens.is_some(),
                stock: stock.is_some(),
            },
        })
    } else {
        Err(errors)
    }
}

/// A price cell that is not an amount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceError(pub String);

impl PriceError {
    pub fn en(&self) -> String {
        if self.0.is_empty() {
            "price is missing".into()
        } else {
            format!("price `{}` is not an amount such as 30 or 30.50", self.0)
        }
    }

    pub fn es(&self) -> String {
        if self.0.is_empty() {
            "Falta el precio.".into()
        } else {
            format!(
                "El precio «{}» no es un monto: escríbelo como 30 o 30,50.",
                self.0
            )
        }
    }
}

/// "30", "30.5", "30.50", "30,50", "1 200", "1,200.50" → minor units.
pub fn parse_price(raw: &str) -> Result<i64, PriceError> {
    let bad = || PriceError(raw.trim().to_owned());
    let compact: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() {
        return Err(PriceError(String::new()));
    }
    // The last separator followed by one or two digits is the decimal point.
    let (whole, cents) = match compact.rfind(['.', ',']) {
        Some(i) if (1..=2).contains(&(compact.len() - i - 1)) => (&compact[..i], &compact[i + 1..]),
        _ => (compact.as_str(), ""),
    };
    let whole: String = whole.chars().filter(|c| !matches!(c, '.' | ',')).collect();
    if whole.is_empty() || !whole.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    if !cents.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let whole: i64 = whole.parse().map_err(|_| bad())?;
    let cents: i64 = match cents.len() {
        0 => 0,
        1 => cents.parse::<i64>().map_err(|_| bad())? * 10,
        _ => cents.parse().map_err(|_| bad())?,
    };
    whole
        .checked_mul(100)
        .and_then(|w| w.checked_add(cents))
        .ok_or_else(bad)
}

/// Units on hand; an empty cell means the stock is not tracked.
fn parse_stock(raw: &str) -> Result<Option<i32>, CellError> {
    if raw.is_empty() {
        return Ok(None);
    }
    raw.parse::<i32>()
        .ok()
        .filter(|n| (0..=catalog::MAX_STOCK).contains(n))
        .map(Some)
        .ok_or_else(|| {
            (
                format!("stock `{raw}` must be a whole number of units, 0 or more"),
                format!("Las existencias «{raw}» van en unidades enteras, 0 o más; vacío si no llevas la cuenta."),
            )
        })
}

fn parse_active(raw: &str) -> Result<bool, CellError> {
    match raw.to_lowercase().as_str() {
        "" | "1" | "true" | "yes" | "si" | "sí" | "activo" => Ok(true),
        "0" | "false" | "no" | "inactivo" => Ok(false),
        _ => Err((
            format!("active `{raw}` must be sí or no"),
            format!("«Activo» dice «{raw}»: escribe sí o no."),
        )),
    }
}

/// The catalog as CSV, in the format `read` takes back.
pub fn write(products: &[Product]) -> String {
    // A byte-order mark first: spreadsheets then read the accents as UTF-8.
    let mut writer = csv::Writer::from_writer("\u{feff}".as_bytes().to_vec());
    writer
        .write_record(COLUMNS.iter().map(|(name, _)| *name))
        .expect("writing to memory");
    for p in products {
        let (whole, cents) = (p.price_minor / 100, p.price_minor % 100);
        let price = if cents == 0 {
            whole.to_string()
        } else {
            format!("{whole}.{cents:02}")
        };
        let active = if p.active { "sí" } else { "no" };
        let stock = p.stock.map(|s| s.to_string()).unwrap_or_default();
        writer
            .write_record([
                p.sku.as_str(),
                &p.name,
                &p.description,
                &price,
                active,
                &p.tags.join(", "),
                &p.allergens.join(", "),
                &stock,
            ])
            .expect("writing to memory");
    }
    String::from_utf8(writer.into_inner().expect("writing to memory")).expect("UTF-8 in, UTF-8 out")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_read_the_way_merchants_write_them() {
        for (raw, minor) in [
            ("30", 3000),
            ("30.5", 3050),
            ("30.50", 3050),
            ("30,50", 3050),
            ("1 200", 120_000),
            ("1,200.50", 120_050),
            ("1.200,50", 120_050),
            ("0", 0),
        ] {
            assert_eq!(parse_price(raw), Ok(minor), "{raw}");
        }
        for raw in ["", "abc", "-5", "30.505x", "Bs 30", "1e5"] {
            assert!(parse_price(raw).is_err(), "{raw}");
        }
    }

    #[test]
    fn a_file_reads_back_what_was_written() {
        let products = vec![
            Product {
                id: 1,
                sku: "maracuya".into(),
                name: "Maracuyá".into(),
                description: "Jugo, natural \"de la casa\"".into(),
                price_minor: 3050,
                active: true,
                tags: vec!["frío".into(), "sin cafeína".into()],
                allergens: Vec::new(),
                stock: Some(12),
                reserved: 2,
                available: Some(10),
            },
            Product {
                id: 2,
                sku: "te".into(),
                name: "Té".into(),
                description: String::new(),
                price_minor: 2000,
                active: false,
                tags: Vec::new(),
                allergens: vec!["lácteos".into()],
                stock: None,
                reserved: 0,
                available: None,
            },
        ];
        let read = read(&write(&products)).unwrap().products;
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].tags, ["frío", "sin cafeína"]);
        assert_eq!(read[1].allergens, ["lácteos"]);
        assert_eq!(read[0].description, "Jugo, natural \"de la casa\"");
        assert_eq!(read[0].price_minor, 3050);
        assert!(!read[1].active);
        assert_eq!(read[0].stock, Some(12), "units on hand, not what is left");
        assert_eq!(read[1].stock, None);
        assert!(
            super::read("sku,name,price,stock\nx,X,1,-3\n").unwrap_err()[0]
                .error
                .contains("stock")
        );
    }

    #[test]
    fn every_bad_row_is_reported_with_its_line() {
        let text = "sku,name,price,active\n\
                    ok,Bueno,10,sí\n\
                    ,Sin sku,10,\n\
                    malo,Precio malo,diez,\n\
                    ok,Repetido,12,\n\
                    raro,Activo raro,5,quizás\n";
        let errors = read(text).unwrap_err();
        let lines: Vec<u64> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [3, 4, 5, 6], "{errors:?}");
        assert!(errors[2].error.contains("line 2"));
        assert_eq!(errors[2].es, "El código «ok» ya está en la línea 2.");
        assert_eq!(
            errors[1].es,
            "El precio «diez» no es un monto: escríbelo como 30 o 30,50."
        );
        let unknown = &read("sku,nombre,precio,color\n").unwrap_err()[0];
        assert_eq!(unknown.line, 1);
        assert!(unknown.es.contains("«color»"), "{unknown:?}");
        assert!(read("sku,price\n").unwrap_err()[0].error.contains("needs"));
    }

    #[test]
    fn a_spanish_sheet_with_semicolons_reads_like_any_other() {
        let text = "\u{feff}Código;Nombre;Precio;Existencias;Alérgenos\n\
                    torta;Torta de chocolate;45,50;3;gluten, lácteos\n\
                    te;Té;12;;\n";
        let sheet = read(text).unwrap();
        assert_eq!(sheet.products.len(), 2);
        assert_eq!(sheet.products[0].price_minor, 4550);
        assert_eq!(sheet.products[0].stock, Some(3));
        assert_eq!(sheet.products[0].allergens, ["gluten", "lácteos"]);
        assert_eq!(sheet.products[1].stock, None);
        assert!(sheet.given.allergens && !sheet.given.tags);
    }
}
