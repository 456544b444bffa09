//! The answer to a confirmation prompt. Only an exact token confirms or rejects
//! (Financial Agent v1): accents and case are folded and surrounding spaces
//! trimmed, nothing else. "sii", "claro", "nop" or "sí, pero..." write nothing and
//! the question is asked again.

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

pub fn answer(text: &str) -> Answer {
    let folded = fold(text);
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
    fn near_misses_are_neither() {
        for text in [
            "sii",
            "claro",
            "nop",
            "sí, pero",
            "si.",
            "ok!",
            "okay",
            "dale",
            "simon",
            "nel",
            "no sé",
            "yes please",
            "",
            "s i",
            "confirmado",
            "cancelo",
        ] {
            assert_eq!(answer(text), Answer::Other, "{text:?}");
        }
    }
}
