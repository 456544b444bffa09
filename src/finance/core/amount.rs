//! Money as people write it in Mexican Spanish, read into integer cents: "250",
//! "$1,800.50", "8 mil", "8k", "mil quinientos", "tres mil 500". Every amount a
//! write uses must be one the user wrote; this is how the backend knows which.

use crate::text::{normalize, tokens};

/// The largest amount any finance write accepts: ten million pesos, in cents.
pub const MAX_AMOUNT_CENTS: i64 = 1_000_000_000;

/// An amount found in a text, with the tokens it spans (of `normalize(text)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub cents: i64,
    /// Index of its first token.
    pub start: usize,
    /// Index one past its last token.
    pub end: usize,
}

/// Every amount in `text`, in order.
pub fn amounts_in(text: &str) -> Vec<Found> {
    let normalized = normalize(text);
    let words = tokens(&normalized);
    let mut found = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match read_at(&words, i) {
            Some((cents, end)) => {
                found.push(Found {
                    cents,
                    start: i,
                    end,
                });
                i = end;
            }
            None => i += 1,
        }
    }
    found
}

/// The amounts alone, for "did the user say this number?" checks.
pub fn stated(text: &str) -> Vec<i64> {
    let mut stated: Vec<i64> = amounts_in(text).into_iter().map(|f| f.cents).collect();
    if half_of_a_shared_total(text) {
        let halves: Vec<i64> = stated
            .iter()
            .filter(|c| *c % 2 == 0)
            .map(|c| c / 2)
            .collect();
        stated.extend(halves);
    }
    stated.extend(by_the_unit(text));
    stated
}

/// «pagamos el alquiler 2800 con mi pareja, anota solo mi mitad»: a total
/// paid together, and the person's half of it to note — half of the figure
/// said is theirs. Never a figure that is already the half («transferí mi
/// mitad del alquiler: 1400»: nobody paid with them in the words).
pub fn half_of_a_shared_total(text: &str) -> bool {
    let folded = normalize(text);
    let has = |phrases: &[&str]| {
        phrases
            .iter()
            .any(|p| crate::text::contains_phrase(&folded, p))
    };
    has(&["mi mitad", "solo la mitad", "la mitad", "a medias"])
        && has(&[
            "pagamos",
            "compartimos",
            "entre los dos",
            "entre dos",
            "a medias",
            "con mi pareja",
            "con mi esposa",
            "con mi esposo",
            "con mi novia",
            "con mi novio",
            "con mi roomie",
            "con mi companero",
            "con mi companera",
        ])
}

/// «vendí 12 kilos de papa a 8 el kilo»: a count of units sold or bought at a
/// price each, and the total it makes (96), as said in the words.
pub fn by_the_unit(text: &str) -> Vec<i64> {
    const UNITS: &[&str] = &[
        "kilo",
        "kilos",
        "kg",
        "kgs",
        "arroba",
        "arrobas",
        "libra",
        "libras",
        "docena",
        "docenas",
        "litro",
        "litros",
        "caja",
        "cajas",
        "bolsa",
        "bolsas",
        "paquete",
        "paquetes",
        "unidad",
        "unidades",
        "metro",
        "metros",
        "quintal",
        "quintales",
    ];
    // Units that hold several things: «a 1 cada uno» after them prices a
    // thing inside, not the unit.
    const OF_MANY: &[&str] = &[
        "docena", "docenas", "caja", "cajas", "bolsa", "bolsas", "paquete", "paquetes",
    ];
    let normalized = normalize(text);
    let words = tokens(&normalized);
    let found = amounts_in(text);
    found
        .windows(2)
        .filter_map(|pair| {
            let (count, price) = (pair[0], pair[1]);
            let unit = words.get(count.end).filter(|w| UNITS.contains(w))?;
            let after: Vec<&str> = words[price.end..].iter().take(2).copied().collect();
            // «… a 8 el kilo», «a 8 por kilo», «a 8 cada uno», «a 8 c/u».
            let per_unit = after.iter().any(|w| UNITS.contains(w));
            let apiece = matches!(after.first(), Some(&("cada" | "cu" | "c")));
            let each = price.start > 0
                && words[price.start - 1] == "a"
                && (per_unit || (apiece && !OF_MANY.contains(unit)));
            let counted = true;
            let units = count.cents / 100;
            (counted && each && count.cents % 100 == 0 && units > 1)
                .then(|| units.checked_mul(price.cents))
                .flatten()
                .filter(|total| *total <= MAX_AMOUNT_CENTS)
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Digits,
    Word,
    Tens,
    Multiplier,
}

/// Reads one amount starting at token `start`; its value in cents and the index
/// past it.
pub fn read_at(words: &[&str], start: usize) -> Option<(i64, usize)> {
    let mut total: i128 = 0;
    let mut group: i128 = 0;
    let mut last: Option<Last> = None;
    let mut factor_said: i128 = 0;
    let mut i = start;
    while i < words.len() {
        let word = words[i];
        if let Some(value) = digits(word) {
            if last.is_some_and(|l| l != Last::Multiplier) {
                break;
            }
            // («22 mil, 22000 justos»: the figure said again, no part of the
            // thousands.)
            if last == Some(Last::Multiplier) && value >= factor_said * 100 {
                break;
            }
            group += value;
            last = Some(Last::Digits);
        } else if let Some((value, tens)) = word_value(word) {
            if matches!(last, Some(Last::Digits)) {
                break;
            }
            let article = matches!(word, "un" | "una" | "uno");
            let next_multiplies = words.get(i + 1).is_some_and(|n| multiplier(n).is_some());
            if article && !next_multiplies {
                break;
            }
            group += value;
            last = Some(if tens { Last::Tens } else { Last::Word });
        } else if word == "y" && last == Some(Last::Tens) {
            // "treinta y cinco": only when a unit follows.
            match words.get(i + 1).and_then(|n| word_value(n)) {
                Some((unit, false)) if unit < 1000 => {}
                _ => break,
            }
        } else if let Some(factor) = multiplier(word) {
            if last.is_none() && word != "mil" {
                break;
            }
            let base = if group == 0 { 100 } else { group };
            total += base * factor;
            group = 0;
            factor_said = factor;
            last = Some(Last::Multiplier);
        } else if word == "y"
            && last == Some(Last::Multiplier)
            && matches!(words.get(i + 1), Some(&("media" | "medio")))
            // («3 mil y medio kilo de queso»: the half is the kilo's.)
            && !words.get(i + 2).is_some_and(|unit| {
                matches!(
                    *unit,
                    "kilo" | "kilos" | "litro" | "litros" | "docena" | "hora" | "horas" | "metro"
                )
            })
        {
            // «3 lucas y media», «dos mil y medio»: half of the thousand more.
            total += factor_said * 100 / 2;
            i += 2;
            break;
        } else {
            break;
        }
        i += 1;
    }
    last?;
    let mut cents = total + group;
    // «trescientos ochenta y dos con cincuenta», «45 con 50 centavos»: whole
    // pesos, «con» and a figure under a hundred are pesos and centavos.
    if cents % 100 == 0
        && words.get(i) == Some(&"con")
        && let Some((centavos, end)) = centavos_at(words, i + 1)
    {
        cents += centavos;
        i = end;
    } else if cents % 100 == 0
        && matches!(words.get(i), Some(&("pesos" | "peso")))
        && words.get(i + 1) == Some(&"con")
        && let Some((centavos, end)) = centavos_at(words, i + 2)
        && matches!(
            words.get(end - 1),
            Some(&("centavos" | "centavo" | "ctvs" | "cts"))
        )
    {
        // «mil trescientos diecisiete pesos con cincuenta centavos»: said in
        // so many words.
        cents += centavos;
        i = end;
    }
    if cents <= 0 || cents > i128::from(i64::MAX / 2) {
        return None;
    }
    Some((cents as i64, i))
}

/// The centavos said after «con» at `start` («cincuenta», «50», «treinta y
/// cinco centavos»), and the index past them. Not a figure of something else
/// («con 50 de propina», «con 2 refrescos», «con 200 pesos de descuento»).
fn centavos_at(words: &[&str], start: usize) -> Option<(i128, usize)> {
    let first = *words.get(start)?;
    let (value, mut end) = if first.len() <= 2 && first.bytes().all(|b| b.is_ascii_digit()) {
        (first.parse::<i128>().ok()?, start + 1)
    } else {
        let (value, tens) = word_value(first)?;
        let value = value / 100;
        match (
            words.get(start + 1),
            words.get(start + 2).and_then(|u| word_value(u)),
        ) {
            (Some(&"y"), Some((unit, false))) if tens && unit < 1000 => {
                (value + unit / 100, start + 3)
            }
            _ => (value, start + 1),
        }
    };
    if !(1..100).contains(&value) || matches!(first, "un" | "una" | "uno") {
        return None;
    }
    match words.get(end).copied() {
        Some("centavos" | "centavo" | "ctvs" | "cts") => end += 1,
        None => {}
        Some(next) => {
            let figure_of_something = matches!(
                next,
                "de" | "del"
                    | "para"
                    | "pa"
                    | "por"
                    | "pesos"
                    | "peso"
                    | "varos"
                    | "mil"
                    | "lucas"
                    | "k"
                    | "mas"
                    | "menos"
            ) || (next.len() > 2
                && next.ends_with('s')
                && next.chars().all(char::is_alphabetic));
            // («pagué 150 con 1 refresco»: a thing after the figure; only
            // the end, «centavos» or a word that goes on to the date or the
            // place is cents.)
            let goes_on = matches!(
                next,
                "en" | "y" | "e" | "hoy" | "ayer" | "antier" | "el" | "al" | "que"
            );
            if figure_of_something || !goes_on {
                return None;
            }
        }
    }
    Some((value, end))
}

/// Whether « y » between `before` and `after` joins one number said in words
/// («ochenta y dos»), so a message is not cut there.
pub fn joins_number(before: &str, after: &str) -> bool {
    matches!(word_value(before), Some((_, true)))
        && matches!(word_value(after), Some((unit, false)) if unit < 1000)
}

/// A token written in digits, in cents: "250", "1,800", "250.50", "8k", "1.5k".
fn digits(word: &str) -> Option<i128> {
    let (number, thousands) = match word.strip_suffix('k') {
        Some(rest) => (rest, true),
        None => (word, false),
    };
    if number.is_empty()
        || !number.starts_with(|c: char| c.is_ascii_digit())
        || !number
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    {
        return None;
    }
    let cents = i128::from(*crate::text::numbers_in_hundredths(number).first()?);
    Some(if thousands { cents * 1000 } else { cents })
}

fn multiplier(word: &str) -> Option<i128> {
    match word {
        // «2 lucas»: Mexican slang for thousands of pesos.
        "mil" | "luca" | "lucas" => Some(1_000),
        "millon" | "millones" => Some(1_000_000),
        _ => None,
    }
}

/// A number word in cents, and whether it is a ten that "y" may follow.
fn word_value(word: &str) -> Option<(i128, bool)> {
    // One to fifteen as the shop counts them ("docena" is a quantity, not money).
    if word != "docena"
        && let Some(n) = crate::text::number_word(word).filter(|n| *n <= 15)
    {
        return Some((i128::from(n) * 100, false));
    }
    let units: i128 = match word {
        "dieciseis" => 16,
        "diecisiete" => 17,
        "dieciocho" => 18,
        "diecinueve" => 19,
        "veinte" => return Some((2000, true)),
        "veintiun" | "veintiuno" | "veintiuna" => 21,
        "veintidos" => 22,
        "veintitres" => 23,
        "veinticuatro" => 24,
        "veinticinco" => 25,
        "veintiseis" => 26,
        "veintisiete" => 27,
        "veintiocho" => 28,
        "veintinueve" => 29,
        "treinta" => return Some((3000, true)),
        "cuarenta" => return Some((4000, true)),
        "cincuenta" => return Some((5000, true)),
        "sesenta" => return Some((6000, true)),
        "setenta" => return Some((7000, true)),
        "ochenta" => return Some((8000, true)),
        "noventa" => return Some((9000, true)),
        "cien" | "ciento" => 100,
        "doscientos" | "doscientas" => 200,
        "trescientos" | "trescientas" => 300,
        "cuatrocientos" | "cuatrocientas" => 400,
        "quinientos" | "quinientas" => 500,
        "seiscientos" | "seiscientas" => 600,
        "setecientos" | "setecientas" => 700,
        "ochocientos" | "ochocientas" => 800,
        "novecientos" | "novecientas" => 900,
        _ => return None,
    };
    Some((units * 100, false))
}

/// Formats cents for a finance reply: "$1,800.00". Always two decimals and
/// thousands separators, so every figure reads the same way.
pub fn pesos(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    let whole = (abs / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{sign}${grouped}.{:02}", abs % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cents(text: &str) -> Vec<i64> {
        stated(text)
    }

    #[test]
    fn digits_separators_and_suffixes_are_read_as_cents() {
        assert_eq!(cents("gasté 250 en el súper"), [25_000]);
        assert_eq!(cents("$1,800.50 de luz"), [180_050]);
        assert_eq!(cents("1.800 pesos"), [180_000]);
        assert_eq!(cents("pon mi presupuesto en 8k"), [800_000]);
        assert_eq!(cents("1.5k"), [150_000]);
        assert_eq!(cents("99.9"), [9_990]);
    }

    #[test]
    fn spanish_number_words_and_thousands_are_read() {
        assert_eq!(cents("8 mil"), [800_000]);
        assert_eq!(cents("mil quinientos"), [150_000]);
        assert_eq!(cents("tres mil 500"), [350_000]);
        // The figure said again after its thousands is no part of them.
        assert_eq!(cents("22 mil, 22000 justos"), [2_200_000, 2_200_000]);
        assert_eq!(cents("doscientos cincuenta pesos"), [25_000]);
        assert_eq!(cents("treinta y cinco"), [3_500]);
        assert_eq!(cents("un millón"), [100_000_000]);
        assert_eq!(cents("dos millones trescientos mil"), [230_000_000]);
        assert_eq!(cents("veinticinco mil"), [2_500_000]);
    }

    #[test]
    fn articles_and_separate_numbers_are_not_joined() {
        assert_eq!(cents("un café y dos tacos"), [200]);
        assert_eq!(
            cents("le debo 3000 a Juan, pago mínimo 500 el día 15"),
            [300_000, 50_000, 1_500]
        );
        assert_eq!(cents("treinta y"), [3_000]);
        assert!(cents("sin números").is_empty());
        let found = amounts_in("gasté 250 el 15");
        assert_eq!((found[0].start, found[0].end), (1, 2));
        assert_eq!((found[1].start, found[1].end), (3, 4));
    }

    /// «trescientos ochenta y dos con cincuenta»: pesos and centavos; not «500
    /// con 50 de propina» nor «300 con 2 refrescos».
    #[test]
    fn centavos_after_con_join_the_pesos() {
        assert_eq!(
            cents("fueron trescientos ochenta y dos con cincuenta"),
            [38_250]
        );
        assert_eq!(cents("45 con 50 centavos"), [4_550]);
        assert_eq!(cents("mil doscientos con treinta y cinco"), [120_035]);
        assert_eq!(cents("pagué 500 con 50 de propina"), [50_000, 5_000]);
        assert_eq!(cents("300 con 2 refrescos"), [30_000, 200]);
        assert_eq!(
            cents("mil trescientos diecisiete pesos con cincuenta centavos"),
            [131_750]
        );
        assert_eq!(cents("300 pesos con 2 refrescos"), [30_000, 200]);
        assert_eq!(cents("3 lucas y media en unos tenis"), [350_000]);
        assert_eq!(cents("dos mil y medio"), [250_000]);
        assert_eq!(cents("gasté 3 mil y medio kilo de queso")[0], 300_000);
        assert_eq!(cents("$1,800.50 con 20"), [180_050, 2_000]);
        assert!(joins_number("ochenta", "dos"));
        assert!(!joins_number("500", "dos"));
        assert!(!joins_number("ochenta", "cien"));
    }

    #[test]
    fn pesos_always_show_cents_and_thousands() {
        assert_eq!(pesos(25_000), "$250.00");
        assert_eq!(pesos(180_050), "$1,800.50");
        assert_eq!(pesos(100_000_000), "$1,000,000.00");
        assert_eq!(pesos(5), "$0.05");
        assert_eq!(pesos(-123_456), "-$1,234.56");
    }
}
