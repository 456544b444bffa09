//! Questions the shop's knowledge answered: each answer (or the honest gray
//! zone) is audited with its sources and steps, and the customer reads them. The
//! cart, the state and a pending confirmation are left as they were.

use serde_json::json;

use super::{Decision, ReplyPlan};
use crate::audit::{Actor, Entry, Kind};
use crate::outbox::Author;
use crate::shop::plan::Answered;

pub fn apply(answers: &[Answered], decision: &mut Decision) {
    audit(answers, decision);
    let text: Vec<&str> = answers.iter().map(|a| a.answer.text.as_str()).collect();
    decision.reply = Some(ReplyPlan::Fixed(Author::Bot, text.join("\n\n")));
}

/// One audit row per question answered.
pub fn audit(answers: &[Answered], decision: &mut Decision) {
    for answered in answers {
        let answer = &answered.answer;
        let question: String = answered.question.chars().take(300).collect();
        decision.audit.push(
            Entry::new(Actor::Backend, Kind::KnowledgeAnswered)
                .reason(if answer.gray { "gray zone" } else { "answered" })
                .detail(json!({
                    "question": question,
                    "text": answer.text.chars().take(1000).collect::<String>(),
                    "sources": answer.sources,
                    "gray": answer.gray,
                    "steps": answer.steps,
                })),
        );
    }
}
