//! The answer to a confirmation prompt. Only an exact token confirms or rejects
//! (Financial Agent v1): accents and case are folded, punctuation around words
//! dropped, and courtesy beside the token ("Sí, por favor.", "ok, gracias", "si
//! mijo", "yes please") is no other content; nothing else. "sii", "claro",
//! "dale", "nop", "sí, pero..." or "sí también" write nothing and the question is
//! asked again.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Tokens that confirm a pending write.
pub const CONFIRM_TOKENS: [&str; 7] = ["sí", "si", "s", "ok", "va", "confirmo", "yes"];
/// Tokens that cancel it.
pub const REJECT_TOKENS: [&str; 3] = ["no", "cancelar", "cancela"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Confirm,
    Reject,
    /// Anything else: ask again, write nothing.
    Other,
}

fn fold(text: &str) -> String {
    text.trim()
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Words that only carry courtesy or address beside a token; «por favor»,
/// «muchas gracias» and «thank you» are read as their parts.
const COURTESY: [&str; 17] = [
    "por", "favor", "porfa", "porfavor", "porfis", "gracias", "muchas", "adelante", "please",
    "thanks", "thank", "you", "mijo", "mija", "joven", "amigo", "amiga",
];

/// The one word a message says beside courtesy, when it says one.
fn token_of(folded: &str) -> Option<String> {
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let (first, rest) = words.split_first()?;
    // «por» and «muchas» stand only in their phrases.
    let courteous = rest.iter().enumerate().all(|(i, w)| {
        COURTESY.contains(w)
            && match *w {
                "por" => rest.get(i + 1) == Some(&"favor"),
                "favor" => i > 0 && rest[i - 1] == "por",
                "muchas" => rest.get(i + 1) == Some(&"gracias"),
                "thank" => rest.get(i + 1) == Some(&"you"),
                "you" => i > 0 && rest[i - 1] == "thank",
                _ => true,
            }
    });
    courteous.then(|| (*first).to_owned())
}

pub fn answer(text: &str) -> Answer {
    let folded = fold(text);
    // «¿sí?» asks back; it confirms nothing.
    if folded.contains('?') {
        return Answer::Other;
    }
    let Some(folded) = token_of(&folded) else {
        return Answer::Other;
    };
    if CONFIRM_TOKENS.iter().any(|t| fold(t) == folded) {
        Answer::Confirm
    } else if REJECT_TOKENS.iter().any(|t| fold(t) == folded) {
        Answer::Reject
    } else {
        Answer::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_token_confirms_or_rejects_with_accents_and_case_folded() {
        for token in CONFIRM_TOKENS {
            assert_eq!(answer(token), Answer::Confirm, "{token}");
            assert_eq!(answer(&token.to_uppercase()), Answer::Confirm, "{token}");
            assert_eq!(answer(&format!("  {token} ")), Answer::Confirm, "{token}");
        }
        assert_eq!(answer("SÍ"), Answer::Confirm);
        assert_eq!(answer("Ok"), Answer::Confirm);
        for token in REJECT_TOKENS {
            assert_eq!(answer(token), Answer::Reject, "{token}");
        }
        assert_eq!(answer("NO"), Answer::Reject);
    }

    #[test]
    fn courtesy_and_punctuation_beside_a_token_are_no_other_content() {
        for text in [
            "si.",
            "ok!",
            "Ok.",
            "Sí, por favor.",
            "si mijo",
            "yes please",
            "va, gracias",
            "¡Sí!",
        ] {
            assert_eq!(answer(text), Answer::Confirm, "{text}");
        }
        for text in ["no, gracias", "No.", "cancela por favor"] {
            assert_eq!(answer(text), Answer::Reject, "{text}");
        }
    }

    #[test]
    fn near_misses_are_neither() {
        for text in [
            "sii",
            "claro",
            "nop",
            "sí, pero",
            "sí también",
            "¿sí?",
            "ok?",
            "si va",
            "okay",
            "dale",
            "simon",
            "nel",
            "no sé",
            "yes por",
            "no favor",
            "",
            "s i",
            "confirmado",
            "cancelo",
        ] {
            assert_eq!(answer(text), Answer::Other, "{text:?}");
        }
    }
}
