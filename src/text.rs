//! Text helpers shared by detection, the rules proposer and the numeric guard:
//! Spanish normalization, number words, money formatting and number extraction.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Lowercases, strips accents (ñ becomes n), turns punctuation into spaces and
/// collapses whitespace. Digits are kept; a decimal point or comma between digits is
/// kept too, so "2,5" stays one token.
pub fn normalize(input: &str) -> String {
    let folded: Vec<char> = input
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect();
    let mut out = String::with_capacity(folded.len());
    for (i, &c) in folded.iter().enumerate() {
        let between_digits = || {
            i > 0
                && folded[i - 1].is_ascii_digit()
                && folded.get(i + 1).is_some_and(|n| n.is_ascii_digit())
        };
        if c.is_alphanumeric() || ((c == '.' || c == ',') && between_digits()) {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_owned()
}

/// `text` with its first letter in capitals («el mes pasado» → «El mes pasado»).
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The months, folded, January first.
pub const MONTHS: [&str; 12] = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
];

/// One of a text's trigrams.
pub type Trigram = [char; 3];

/// A normalized text's trigrams as PostgreSQL's pg_trgm forms them: each word
/// padded with two spaces in front and one behind; sorted, without repeats.
pub fn trigrams(normalized: &str) -> Vec<Trigram> {
    let mut out = Vec::new();
    for word in normalized
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let padded: Vec<char> = "  ".chars().chain(word.chars()).chain([' ']).collect();
        out.extend(padded.windows(3).map(|w| [w[0], w[1], w[2]]));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// pg_trgm's `similarity` of two normalized texts: trigrams shared over trigrams
/// in either.
pub fn similarity(a: &str, b: &str) -> f32 {
    trigram_similarity(&trigrams(a), &trigrams(b))
}

/// The same, of two texts' trigrams already taken (sorted, without repeats).
pub fn trigram_similarity(a: &[Trigram], b: &[Trigram]) -> f32 {
    let shared = a.iter().filter(|t| b.binary_search(t).is_ok()).count();
    let either = a.len() + b.len() - shared;
    if either == 0 {
        0.0
    } else {
        shared as f32 / either as f32
    }
}

/// Whole-word tokens of an already normalized text.
pub fn tokens(normalized: &str) -> Vec<&str> {
    normalized.split_whitespace().collect()
}

/// True if `phrase` (normalized, one or more words) occurs in `normalized` on word
/// boundaries.
pub fn contains_phrase(normalized: &str, phrase: &str) -> bool {
    // The same as looking for " phrase " in " normalized ", without building either:
    // the rules ask this of hundreds of phrases per message.
    // Every occurrence, overlapping ones included ("a a" in "aa a a" is whole at 3,
    // after a partial one at 1).
    let bytes = normalized.as_bytes();
    let mut from = 0;
    while let Some(found) = normalized[from..].find(phrase) {
        let at = from + found;
        let end = at + phrase.len();
        if (at == 0 || bytes[at - 1] == b' ') && (end == bytes.len() || bytes[end] == b' ') {
            return true;
        }
        from = at + normalized[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Spanish number words up to twenty, plus "media docena" and "docena" handled by
/// the caller. "un"/"una" count as one.
pub fn number_word(word: &str) -> Option<i64> {
    Some(match word {
        "un" | "una" | "uno" => 1,
        "dos" => 2,
        "tres" => 3,
        "cuatro" => 4,
        "cinco" => 5,
        "seis" => 6,
        "siete" => 7,
        "ocho" => 8,
        "nueve" => 9,
        "diez" => 10,
        "once" => 11,
        "doce" | "docena" => 12,
        "trece" => 13,
        "catorce" => 14,
        "quince" => 15,
        "veinte" => 20,
        _ => return None,
    })
}

/// A token read as a whole number: digits or a number word.
pub fn token_number(token: &str) -> Option<i64> {
    if !token.is_empty() && token.len() <= 9 && token.bytes().all(|b| b.is_ascii_digit()) {
        return token.parse().ok();
    }
    number_word(token)
}

/// Formats minor units for a customer: "Bs 30" for whole amounts, "Bs 30.50" otherwise.
/// How a currency is written before an amount: «Bs», «$», «€», «S/».
pub fn currency_symbol(currency: &str) -> &str {
    match currency {
        "BOB" => "Bs",
        "MXN" | "USD" | "ARS" | "COP" | "CLP" => "$",
        "EUR" => "€",
        "PEN" => "S/",
        other => other,
    }
}

pub fn money(minor: i64, currency: &str) -> String {
    let symbol = currency_symbol(currency);
    let sign = if minor < 0 { "-" } else { "" };
    let abs = minor.unsigned_abs();
    let (whole, cents) = (abs / 100, abs % 100);
    if cents == 0 {
        format!("{sign}{symbol} {whole}")
    } else {
        format!("{sign}{symbol} {whole}.{cents:02}")
    }
}

/// A number written in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpelledNumber {
    /// A word with one value ("dos", "doce"), in hundredths.
    Value(i64),
    /// Part of a larger number ("noventa", "cien", "mil"): its value depends on its
    /// neighbours, so a guard cannot vouch for it.
    Part(String),
}

/// Number words in `text`. The articles "un", "una", "uno" are not counted, and
/// "mil gracias" is thanks, not a thousand.
pub fn spelled_numbers(text: &str) -> Vec<SpelledNumber> {
    const PARTS: &[&str] = &[
        "dieciseis",
        "diecisiete",
        "dieciocho",
        "diecinueve",
        "treinta",
        "cuarenta",
        "cincuenta",
        "sesenta",
        "setenta",
        "ochenta",
        "noventa",
        "cien",
        "ciento",
        "doscientos",
        "trescientos",
        "cuatrocientos",
        "quinientos",
        "seiscientos",
        "setecientos",
        "ochocientos",
        "novecientos",
        "mil",
        "millon",
        "millones",
        "docenas",
    ];
    let normalized = normalize(text);
    let words = tokens(&normalized);
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if matches!(*word, "un" | "una" | "uno")
            || (*word == "mil" && words.get(i + 1) == Some(&"gracias"))
        {
            continue;
        }
        if PARTS.contains(word) || word.starts_with("veinti") {
            found.push(SpelledNumber::Part((*word).to_owned()));
        } else if let Some(n) = number_word(word) {
            found.push(SpelledNumber::Value(n * 100));
        }
    }
    found
}

/// Every number written in digits in `text`, in hundredths (so "30", "30.00" and
/// "30,00" are all 3000). Thousands separators are read as such when followed by
/// exactly three digits ("1.500" is 150000), the usual reading in Latin America.
pub fn numbers_in_hundredths(text: &str) -> Vec<i64> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || ((chars[i] == '.' || chars[i] == ',')
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
        {
            i += 1;
        }
        let raw: String = chars[start..i].iter().collect();
        if let Some(value) = parse_hundredths(&raw) {
            out.push(value);
        }
    }
    out
}

/// The first number in `text`, in digits or words, that is not in `known`
/// (hundredths): what a reply guard refuses. Words that are parts of a larger
/// number ("noventa", "mil") are refused, since nobody can vouch for them.
pub fn unaccounted_number(text: &str, known: &std::collections::BTreeSet<i64>) -> Option<String> {
    let in_words = spelled_numbers(text)
        .into_iter()
        .find_map(|spelled| match spelled {
            SpelledNumber::Value(n) if known.contains(&n) => None,
            SpelledNumber::Value(n) => Some(format!("{} (in words)", n / 100)),
            SpelledNumber::Part(word) => Some(word),
        });
    numbers_in_hundredths(text)
        .into_iter()
        .find(|n| !known.contains(n))
        .map(|n| {
            if n % 100 == 0 {
                (n / 100).to_string()
            } else {
                format!("{}.{:02}", n / 100, n % 100)
            }
        })
        .or(in_words)
}

fn parse_hundredths(raw: &str) -> Option<i64> {
    let groups: Vec<&str> = raw.split(['.', ',']).collect();
    let (int_part, frac) = match groups.as_slice() {
        [int] => (int.to_string(), ""),
        [.., last] if last.len() <= 2 => (groups[..groups.len() - 1].concat(), *last),
        _ => (groups.concat(), ""),
    };
    let whole: i64 = int_part.get(..int_part.len().min(15))?.parse().ok()?;
    let cents: i64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<i64>().ok()? * 10,
        _ => frac.parse().ok()?,
    };
    whole.checked_mul(100)?.checked_add(cents)
}

/// `body` with every JSON `\u0000` escape made U+FFFD: PostgreSQL stores no NUL
/// in `text` or `jsonb`, and a platform's update must be stored, not refused
/// (a refused webhook is retried for days).
pub fn without_nul_escapes(body: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    const NUL: &[u8] = b"\\u0000";
    if !body.windows(NUL.len()).any(|w| w == NUL) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.windows(NUL.len()).position(|w| w == NUL) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(b"\\ufffd");
        rest = &rest[at + NUL.len()..];
    }
    out.extend_from_slice(rest);
    std::borrow::Cow::Owned(out)
}

/// Whether a JSON body carries a NUL character (`\u0000`).
pub fn has_nul_escape(body: &[u8]) -> bool {
    body.windows(6).any(|w| w == b"\\u0000")
}

/// A normalized text as it sounds in Latin American Spanish: c before e/i and z
/// are s, v is b, ll is y, a silent h is dropped.
pub fn by_ear(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let after = |i: usize| i == 0 || chars[i - 1] == ' ';
        match c {
            'c' if matches!(next, Some('e' | 'i')) => out.push('s'),
            'z' => out.push('s'),
            'v' => out.push('b'),
            'l' if next == Some('l') => {}
            'l' if i > 0 && chars[i - 1] == 'l' => out.push('y'),
            'h' if after(i) || (i > 0 && chars[i - 1] != 'c') => {}
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn a_phrase_is_found_on_word_boundaries_only(
            text in "[ab ]{0,12}",
            phrase in "[ab]{1,3}( [ab]{1,2})?",
        ) {
            let padded = format!(" {text} ").contains(&format!(" {phrase} "));
            proptest::prop_assert_eq!(contains_phrase(&text, &phrase), padded);
        }
    }

    #[test]
    fn an_overlapping_occurrence_still_counts() {
        assert!(contains_phrase("aa a a", "a a"));
        assert!(contains_phrase("dos dos dos", "dos dos"));
        assert!(!contains_phrase("aa a", "a a"));
    }

    #[test]
    fn phrases_match_whole_words() {
        assert!(contains_phrase("quiero un te chai", "te chai"));
        assert!(contains_phrase("te", "te"));
        assert!(!contains_phrase("quiero un tes", "te"));
        assert!(!contains_phrase("este", "te"));
    }

    #[test]
    fn normalize_strips_accents_case_and_punctuation() {
        assert_eq!(
            normalize("¡Quiero 2 MARACUYÁS, por favor!"),
            "quiero 2 maracuyas por favor"
        );
        assert_eq!(normalize("Año: 2,5 kg."), "ano 2,5 kg");
        assert_eq!(normalize("  "), "");
    }

    #[test]
    fn money_shows_whole_amounts_without_cents() {
        assert_eq!(money(3000, "BOB"), "Bs 30");
        assert_eq!(money(2950, "BOB"), "Bs 29.50");
        assert_eq!(money(5, "MXN"), "$ 0.05");
    }

    #[test]
    fn numbers_are_read_in_hundredths() {
        assert_eq!(
            numbers_in_hundredths("Total: Bs 59.00 (2 items)"),
            vec![5900, 200]
        );
        assert_eq!(numbers_in_hundredths("1.500 y 7,5"), vec![150000, 750]);
        assert_eq!(numbers_in_hundredths("pedido #12."), vec![1200]);
        assert!(numbers_in_hundredths("sin números").is_empty());
    }

    #[test]
    fn spelled_numbers_are_found_and_articles_are_not() {
        assert_eq!(
            spelled_numbers("Son noventa y nueve, o dos docenas, y un brownie"),
            vec![
                SpelledNumber::Part("noventa".into()),
                SpelledNumber::Value(900),
                SpelledNumber::Value(200),
                SpelledNumber::Part("docenas".into()),
            ]
        );
        assert!(spelled_numbers("¡Mil gracias! Una maracuyá para ti").is_empty());
        assert_eq!(
            spelled_numbers("veintiún"),
            vec![SpelledNumber::Part("veintiun".into())]
        );
    }

    #[test]
    fn number_words_and_digits_are_quantities() {
        assert_eq!(token_number("tres"), Some(3));
        assert_eq!(token_number("12"), Some(12));
        assert_eq!(token_number("1234567890"), None);
        assert_eq!(token_number("tresx"), None);
    }
}
