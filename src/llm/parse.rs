//! Reading a model's answer: the first JSON object in its text (tolerating code
//! fences and prose around it), held to what every contract requires — 1 to 5
//! typed actions and a bounded text. What is wrong is listed in words the repair
//! request quotes back to the model.

use serde_json::Value;

use crate::proposal::{MAX_ACTIONS, MAX_RESPONSE_TEXT, ProposalOf, RawAction};

/// Why model output is not a proposal; its text is what the repair request quotes.
#[derive(Debug, thiserror::Error)]
pub enum ProposalError {
    #[error("no JSON object found")]
    NoJson,
    #[error("does not match the schema: {0}")]
    Schema(serde_json::Error),
    #[error("{}", .0.join("; "))]
    Contract(Vec<String>),
}

/// Parses model output into a proposal of either contract, checking what both
/// contracts require: 1 to 5 typed actions and a bounded text. Tolerates code
/// fences and prose around the object; the error lists what is wrong.
pub fn parse_answer<A: serde::de::DeserializeOwned + RawAction>(
    content: &str,
) -> Result<ProposalOf<A>, ProposalError> {
    let candidate = extract_json_object(content).ok_or(ProposalError::NoJson)?;
    let proposal: ProposalOf<A> = serde_json::from_str(candidate).map_err(ProposalError::Schema)?;
    let mut problems = Vec::new();
    if proposal.proposed_actions.is_empty() || proposal.proposed_actions.len() > MAX_ACTIONS {
        problems.push(format!(
            "proposed_actions must hold 1 to {MAX_ACTIONS} actions"
        ));
    }
    if proposal.response_text.chars().count() > MAX_RESPONSE_TEXT {
        problems.push(format!(
            "response_text longer than {MAX_RESPONSE_TEXT} characters"
        ));
    }
    if proposal
        .proposed_actions
        .iter()
        .any(|a| a.type_name().trim().is_empty())
    {
        problems.push("every action needs a type".into());
    }
    if problems.is_empty() {
        Ok(proposal)
    } else {
        Err(ProposalError::Contract(problems))
    }
}

/// The first balanced `{...}` in `text`, respecting strings.
pub fn extract_json_object(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut search_from = 0;
    while let Some(offset) = text[search_from..].find('{') {
        let start = search_from + offset;
        let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
        for (i, &b) in bytes.iter().enumerate().skip(start) {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        let candidate = &text[start..=i];
                        if serde_json::from_str::<Value>(candidate).is_ok() {
                            return Some(candidate);
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
        search_from = start + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Action {
        #[serde(rename = "type")]
        kind: String,
    }

    impl RawAction for Action {
        fn type_name(&self) -> &str {
            &self.kind
        }
    }

    fn parse(text: &str) -> Result<ProposalOf<Action>, ProposalError> {
        parse_answer(text)
    }

    #[test]
    fn json_is_found_inside_prose_and_code_fences() {
        let text = "Claro, aquí va:\n```json\n{\"proposed_actions\":[{\"type\":\"REPLY\"}],\"response_text\":\"hola {amigo}\"}\n```";
        let proposal = parse(text).unwrap();
        assert_eq!(proposal.response_text, "hola {amigo}");
        assert_eq!(proposal.proposed_actions[0].kind, "REPLY");
        assert!(matches!(parse("sin json"), Err(ProposalError::NoJson)));
        let empty = parse("{\"proposed_actions\":[],\"response_text\":\"\"}");
        assert!(matches!(&empty, Err(ProposalError::Contract(_))));
        assert!(empty.unwrap_err().to_string().contains("1 to 5"));
        let wrong = parse("{\"proposed_actions\":\"x\"}");
        assert!(matches!(&wrong, Err(ProposalError::Schema(_))));
        assert!(wrong.unwrap_err().to_string().contains("schema"));
    }
}
