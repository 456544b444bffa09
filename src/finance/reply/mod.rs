//! Composing what a finance user reads. Facts are written here from backend data
//! (drafts, tool results, simulations); a proposer's text is kept only when
//! nothing was rejected and every number in it is one those facts contain.

mod drafts;
mod query;
mod source;
mod tools;

use std::collections::BTreeSet;

pub use drafts::{executed, prompt, questions, rejection};
pub use query::subject as query_subject;
pub use source::source_line;
pub use tools::{render as render_tool, simulation};

use crate::proposal::MAX_RESPONSE_TEXT;
use crate::text::numbers_in_hundredths;

/// The reply, and why a proposer's text was dropped (for the audit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub replaced: Option<String>,
}

/// Joins the backend's blocks, led by the proposer's text when it is usable.
/// `allowed` are further numbers (in hundredths) the backend vouches for, such as
/// the amounts the user wrote.
pub fn compose(
    proposal_text: &str,
    blocks: &[String],
    allowed: &[i64],
    anything_rejected: bool,
) -> Reply {
    let text = proposal_text.trim();
    let mut replaced = None;
    let usable = if text.is_empty() {
        None
    } else if text.chars().count() > MAX_RESPONSE_TEXT {
        replaced = Some(format!(
            "response_text longer than {MAX_RESPONSE_TEXT} characters"
        ));
        None
    } else if anything_rejected {
        replaced = Some("some proposed actions were rejected".into());
        None
    } else {
        match unaccounted_number(text, blocks, allowed) {
            Some(number) => {
                replaced = Some(format!("number {number} not produced by the backend"));
                None
            }
            None => Some(text.to_owned()),
        }
    };
    let mut parts: Vec<String> = usable.into_iter().collect();
    parts.extend(blocks.iter().filter(|b| !b.is_empty()).cloned());
    Reply {
        text: parts.join("\n\n"),
        replaced,
    }
}

/// The first number in `text` that no block and no allowed value accounts for.
pub fn unaccounted_number(text: &str, blocks: &[String], allowed: &[i64]) -> Option<String> {
    let mut known: BTreeSet<i64> = allowed.iter().copied().collect();
    for block in blocks {
        known.extend(numbers_in_hundredths(block));
    }
    crate::text::unaccounted_number(text, &known)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposer_number_the_backend_cannot_account_for_replaces_its_text() {
        let blocks = vec![
            "Gastos en comida: $1,250.00 (basado en 12 transacciones, 2026-11-01 a 2026-11-22)"
                .to_string(),
        ];
        let ok = compose("Llevas $1,250.00 en comida este mes.", &blocks, &[], false);
        assert!(ok.text.starts_with("Llevas $1,250.00"));
        assert_eq!(ok.replaced, None);
        let invented = compose("Llevas $1,400 en comida, un 12% más.", &blocks, &[], false);
        assert!(!invented.text.contains("1,400"));
        assert!(invented.replaced.unwrap().contains("1400"));
        let stated = compose("Anoto 300 pesos.", &[], &[30_000], false);
        assert_eq!(stated.replaced, None);
        let words = compose("Llevas mil doscientos.", &blocks, &[], false);
        assert!(words.replaced.is_some());
        let rejected = compose("Hecho.", &blocks, &[], true);
        assert_eq!(rejected.text, blocks[0]);
    }
}
