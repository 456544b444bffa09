//! Masking of personal data before any text reaches an LLM: card numbers (Luhn-valid
//! digit runs), e-mail addresses and phone numbers.

use std::sync::LazyLock;

use regex::Regex;

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}").expect("valid regex")
});
/// 13–19 digits, optionally grouped by spaces or dashes.
static CARD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d(?:[ -]?\d){12,18}\b").expect("valid regex"));
/// An optional +, then 7 or more digits with spaces, dashes, dots or parentheses between.
static PHONE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\+?\(?\d(?:[\s\-.()]{0,2}\d){6,}").expect("valid regex"));

pub const CARD_MASK: &str = "[tarjeta]";
pub const EMAIL_MASK: &str = "[correo]";
pub const PHONE_MASK: &str = "[teléfono]";

/// Returns `text` with personal data replaced by placeholders.
pub fn mask(text: &str) -> String {
    let text = EMAIL.replace_all(text, EMAIL_MASK);
    let text = CARD.replace_all(&text, |caps: &regex::Captures<'_>| {
        let digits: Vec<u32> = caps[0].chars().filter_map(|c| c.to_digit(10)).collect();
        if luhn_valid(&digits) {
            CARD_MASK.to_string()
        } else {
            caps[0].to_string()
        }
    });
    PHONE
        .replace_all(&text, |caps: &regex::Captures<'_>| {
            let digits = caps[0].chars().filter(char::is_ascii_digit).count();
            if digits >= 7 {
                PHONE_MASK.to_string()
            } else {
                caps[0].to_string()
            }
        })
        .into_owned()
}

fn luhn_valid(digits: &[u32]) -> bool {
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// The last `keep` lines of a transcript as a prompt shows them, masked.
pub fn masked_history(
    history: &[crate::proposal::HistoryEntry],
    keep: usize,
) -> Vec<serde_json::Value> {
    let start = history.len().saturating_sub(keep);
    history[start..]
        .iter()
        .map(|h| serde_json::json!({"role": h.role, "text": mask(&h.text)}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_emails_and_phones_are_masked() {
        assert_eq!(
            mask("mi tarjeta 4111 1111 1111 1111 gracias"),
            "mi tarjeta [tarjeta] gracias"
        );
        assert_eq!(
            mask("escríbeme a ana.perez+shop@mail.com"),
            "escríbeme a [correo]"
        );
        assert_eq!(mask("llámame al +591 712-34567"), "llámame al [teléfono]");
        assert_eq!(mask("mi cel 71234567"), "mi cel [teléfono]");
    }

    #[test]
    fn ordinary_numbers_are_kept() {
        assert_eq!(
            mask("quiero 2 maracuyás y 3 matcha"),
            "quiero 2 maracuyás y 3 matcha"
        );
        assert_eq!(mask("pedido #12 por Bs 147"), "pedido #12 por Bs 147");
        // A 16-digit run that fails Luhn is not a card; it is still too long to be
        // anything but personal data, so it is masked as a number.
        assert_eq!(mask("ref 1234567812345678"), "ref [teléfono]");
    }
}
