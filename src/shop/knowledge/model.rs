//! The configured model's part in knowledge answers: it writes an answer from
//! the passages found (held by the check in `answer`), and, when the server
//! offers them, gives the embeddings that are search's third ranking.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use uuid::Uuid;

use super::Hit;
use super::answer::{Embedder, Writer, Written};
use crate::llm::privacy::mask;
use crate::llm::{self, CallContext, Contract, Prompt, ProposalError, extract_json_object};

/// Longest answer the model may write.
pub const MAX_ANSWER_CHARS: usize = 600;

const SYSTEM_PROMPT: &str = "Respondes preguntas de clientes de una tienda usando SOLO los pasajes \
que escribió la tienda.\n\
Reglas:\n\
1. Usa únicamente lo que dicen los pasajes. Nunca inventes horarios, precios, montos, zonas, lugares, \
productos, bancos ni plazos.\n\
2. Si los pasajes no responden la pregunta, responde {\"answer\": \"\", \"sources\": [], \"unknown\": true}.\n\
3. En sources pon los números (index) de los pasajes que usaste; al menos uno.\n\
4. answer: español, breve (1 a 3 frases), amable, sin saludos y sin repetir la pregunta.\n\
Responde SOLO con un objeto JSON: {\"answer\": string, \"sources\": [number], \"unknown\": boolean}";

/// The configured LLM, as the knowledge asks it.
pub struct Model {
    client: Arc<llm::Client>,
}

impl Model {
    pub fn new(client: Arc<llm::Client>) -> Self {
        Model { client }
    }

    /// Embeddings of `texts` (unit length), or `None` when the server gives none.
    pub async fn embed(&self, bot_id: Uuid, texts: &[String]) -> Option<Vec<Vec<f32>>> {
        self.client.embed(bot_id, texts).await
    }
}

#[async_trait::async_trait]
impl Embedder for Model {
    async fn embed_question(&self, bot_id: Uuid, question: &str) -> Option<Vec<f32>> {
        self.embed(bot_id, &[mask(question)]).await?.pop()
    }
}

#[async_trait::async_trait]
impl Writer for Model {
    async fn write(
        &self,
        context: &CallContext,
        question: &str,
        passages: &[Hit],
        problem: Option<&str>,
    ) -> Option<Written> {
        self.client.may_ask(context).await.ok()?;
        let prompt = prompt(question, passages, problem);
        self.client
            .ask(context, &prompt, &contract(), Instant::now())
            .await
            .ok()
    }
}

fn prompt(question: &str, passages: &[Hit], problem: Option<&str>) -> Prompt {
    let passages: Vec<Value> = passages
        .iter()
        .enumerate()
        .map(|(index, hit)| json!({"index": index, "title": hit.title, "text": hit.text}))
        .collect();
    let mut user = json!({"question": mask(question), "passages": passages});
    if let Some(problem) = problem {
        user["problem_with_your_last_answer"] = json!(problem);
    }
    let user = user.to_string();
    let chars = SYSTEM_PROMPT.len() + user.len();
    Prompt {
        messages: vec![
            json!({"role": "system", "content": SYSTEM_PROMPT}),
            json!({"role": "user", "content": user}),
        ],
        chars,
        catalog_items: 0,
    }
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "answer": {"type": "string", "maxLength": MAX_ANSWER_CHARS},
            "sources": {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": 10},
            "unknown": {"type": "boolean"}
        },
        "required": ["answer", "sources", "unknown"],
        "additionalProperties": false
    })
}

/// The contract of a written answer. Indexes past the passages are dropped when
/// the answer is checked.
fn contract() -> Contract<Written> {
    Contract {
        schema: schema(),
        parse: parse_written,
    }
}

/// Reads the model's answer, refusing what breaks the contract.
pub fn parse_written(content: &str) -> Result<Written, ProposalError> {
    let candidate = extract_json_object(content).ok_or(ProposalError::NoJson)?;
    let written: Written = serde_json::from_str(candidate).map_err(ProposalError::Schema)?;
    let mut problems = Vec::new();
    if written.answer.chars().count() > MAX_ANSWER_CHARS {
        problems.push(format!("answer longer than {MAX_ANSWER_CHARS} characters"));
    }
    if written.sources.len() > 10 {
        problems.push("more than 10 sources".to_owned());
    }
    if !written.unknown && written.answer.trim().is_empty() {
        problems.push("an empty answer that is not unknown".to_owned());
    }
    if !written.unknown && written.sources.is_empty() {
        problems.push("an answer that cites no passage".to_owned());
    }
    if problems.is_empty() {
        Ok(written)
    } else {
        Err(ProposalError::Contract(problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_answer_must_cite_and_stay_short() {
        let ok =
            parse_written(r#"{"answer": "Abrimos a las 8.", "sources": [0], "unknown": false}"#)
                .unwrap();
        assert_eq!(ok.sources, [0]);
        assert!(
            parse_written(r#"{"answer": "Abrimos.", "sources": [], "unknown": false}"#).is_err()
        );
        assert!(parse_written(r#"{"answer": "", "sources": [], "unknown": true}"#).is_ok());
        let long = format!(
            r#"{{"answer": "{}", "sources": [0], "unknown": false}}"#,
            "a".repeat(MAX_ANSWER_CHARS + 1)
        );
        assert!(parse_written(&long).is_err());
        assert!(parse_written("no json").is_err());
        assert!(parse_written(r#"{"answer": 3}"#).is_err());
    }
}
