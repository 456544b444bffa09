//! A catalog as CSV, the way a merchant keeps it in a spreadsheet:
//! `sku,name,description,price,active,tags,allergens,stock`, prices in the bot's
//! currency ("30", "30.50" or "30,50"), tags and allergens as lists in one cell
//! ("frío, sin cafeína"), stock as units on hand (empty: not tracked). Reading checks every row and reports every problem with
//! its line, so an import is all or nothing.

use serde::Serialize;

use super::catalog::{self, Product, ProductInput};

/// Most rows one import may hold.
pub const MAX_ROWS: usize = 5000;

const COLUMNS: [&str; 8] = [
    "sku",
    "name",
    "description",
    "price",
    "active",
    "tags",
    "allergens",
    "stock",
];

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

/// A problem on one line of the file (1 is the header).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineError {
    pub line: u64,
    pub error: String,
}

fn at(line: u64, error: impl Into<String>) -> LineError {
    LineError {
        line,
        error: error.into(),
    }
}

/// Every row as a product, or every problem found.
pub fn read(text: &str) -> Result<Sheet, Vec<LineError>> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let header: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(|c| c.to_ascii_lowercase()).collect(),
        Err(e) => return Err(vec![at(1, format!("unreadable header: {e}"))]),
    };
    if let Some(unknown) = header.iter().find(|c| !COLUMNS.contains(&c.as_str())) {
        return Err(vec![at(
            1,
            format!(
                "unknown column `{unknown}` (expected {})",
                COLUMNS.join(", ")
            ),
        )]);
    }
    let column = |name: &str| header.iter().position(|c| c == name);
    let (Some(sku), Some(name), Some(price)) = (column("sku"), column("name"), column("price"))
    else {
        return Err(vec![at(1, "the header needs sku, name and price columns")]);
    };
    let (description, active) = (column("description"), column("active"));
    let (tags, allergens) = (column("tags"), column("allergens"));
    let stock = column("stock");
    let mut products = Vec::new();
    let mut errors = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for record in reader.records() {
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                errors.push(at(line, format!("unreadable row: {e}")));
                continue;
            }
        };
        let line = record.position().map_or(0, |p| p.line());
        if record.iter().all(str::is_empty) {
            continue;
        }
        if products.len() + errors.len() >= MAX_ROWS {
            errors.push(at(line, format!("more than {MAX_ROWS} rows")));
            break;
        }
        let field = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("");
        let row = (|| {
            let price_minor = parse_price(field(Some(price)))?;
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
            catalog::check(&input).map_err(str::to_owned)?;
            Ok::<_, String>(input)
        })();
        match row {
            Ok(input) => match seen.insert(input.sku.clone(), line) {
                Some(first) => errors.push(at(
                    line,
                    format!("sku `{}` is already on line {first}", input.sku),
                )),
                None => products.push(input),
            },
            Err(error) => errors.push(at(line, error)),
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

/// "30", "30.5", "30.50", "30,50", "1 200", "1,200.50" → minor units.
pub fn parse_price(raw: &str) -> Result<i64, String> {
    let bad = || format!("price `{raw}` is not an amount such as 30 or 30.50");
    let compact: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() {
        return Err("price is missing".into());
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
fn parse_stock(raw: &str) -> Result<Option<i32>, String> {
    if raw.is_empty() {
        return Ok(None);
    }
    raw.parse::<i32>()
        .ok()
        .filter(|n| (0..=catalog::MAX_STOCK).contains(n))
        .map(Some)
        .ok_or_else(|| format!("stock `{raw}` must be a whole number of units, 0 or more"))
}

fn parse_active(raw: &str) -> Result<bool, String> {
    match raw.to_lowercase().as_str() {
        "" | "1" | "true" | "yes" | "si" | "sí" | "activo" => Ok(true),
        "0" | "false" | "no" | "inactivo" => Ok(false),
        _ => Err(format!("active `{raw}` must be sí or no")),
    }
}

/// The catalog as CSV, in the format `read` takes back.
pub fn write(products: &[Product]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(COLUMNS).expect("writing to memory");
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
        assert_eq!(
            read("sku,nombre,price\n").unwrap_err()[0],
            at(
                1,
                "unknown column `nombre` (expected sku, name, description, price, active, tags, allergens, stock)"
            )
        );
        assert!(read("sku,price\n").unwrap_err()[0].error.contains("needs"));
    }
}
