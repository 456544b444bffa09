//! What an evaluation run measured, and how it reads as a table.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{AuditRow, ScriptTurn};
use crate::audit::Kind;

/// How knowledge questions were answered.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct KnowledgeScore {
    /// Questions the script expects answered from a source.
    pub expected_answers: usize,
    /// Of those, answered citing the expected source.
    pub right_source: usize,
    /// Questions the script expects in the gray zone.
    pub expected_gray: usize,
    /// Questions the bot put in the gray zone (of those the script judged).
    pub gray_given: usize,
    /// Both.
    pub gray_both: usize,
    /// Answers giving a figure or a name their sources do not hold.
    pub invented: usize,
}

/// What a run measured.
#[derive(Debug, Default)]
pub struct Report {
    pub turns: usize,
    pub fully_correct: usize,
    pub proposals: usize,
    pub proposals_valid: usize,
    pub rejections_by_reason: BTreeMap<String, usize>,
    pub forbidden_executed: usize,
    pub replies_replaced: usize,
    /// Finance: rows written in a turn whose message was not a confirmation token.
    pub writes_without_confirmation: usize,
    /// Finance: numbers in replies that no tool, draft, write or user message of
    /// the conversation accounts for.
    pub numbers_not_from_tools: usize,
    /// Shop: turns that changed the cart or an order in a way the script does not
    /// expect (worse than asking back, which is only a miss).
    pub wrong_effects: usize,
    /// Cart or order changes on turns that began off the script (after an earlier
    /// miss): what was right there is unknown, so they are counted, not judged.
    pub effects_off_script: usize,
    /// Shop: by intent (the first action expected or proposed), the turns where
    /// both agreed, where only the proposer said it, where only the script did.
    pub intents: BTreeMap<String, [usize; 3]>,
    pub latencies: Vec<Duration>,
    pub tokens: i64,
    /// Shop: how knowledge questions were answered.
    pub knowledge: KnowledgeScore,
    /// One line per turn that was not fully correct.
    pub misses: Vec<String>,
}

impl Report {
    pub fn correct_ratio(&self) -> f64 {
        if self.turns == 0 {
            0.0
        } else {
            self.fully_correct as f64 / self.turns as f64
        }
    }

    fn latency_ms(&self, quantile: f64) -> f64 {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        if sorted.is_empty() {
            return 0.0;
        }
        let index = ((sorted.len() as f64 - 1.0) * quantile).round() as usize;
        sorted[index].as_secs_f64() * 1000.0
    }

    /// Whether the run broke a guarantee (whatever its accuracy).
    pub fn violations(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.forbidden_executed > 0 {
            out.push(format!(
                "{} forbidden actions executed",
                self.forbidden_executed
            ));
        }
        if self.writes_without_confirmation > 0 {
            out.push(format!(
                "{} writes without confirmation",
                self.writes_without_confirmation
            ));
        }
        if self.wrong_effects > 0 {
            out.push(format!("{} wrong effects", self.wrong_effects));
        }
        if self.knowledge.invented > 0 {
            out.push(format!(
                "{} knowledge answers with invented facts",
                self.knowledge.invented
            ));
        }
        if self.numbers_not_from_tools > 0 {
            out.push(format!(
                "{} numbers not from tools",
                self.numbers_not_from_tools
            ));
        }
        out
    }

    pub fn render(&self) -> String {
        let mean = if self.latencies.is_empty() {
            0.0
        } else {
            self.latencies
                .iter()
                .map(Duration::as_secs_f64)
                .sum::<f64>()
                * 1000.0
                / self.latencies.len() as f64
        };
        let mut out = String::new();
        out.push_str(&format!(
            "turns fully correct:        {}/{} ({:.1}%)\n",
            self.fully_correct,
            self.turns,
            self.correct_ratio() * 100.0
        ));
        out.push_str(&format!(
            "proposals fully valid:      {}/{}\n",
            self.proposals_valid, self.proposals
        ));
        out.push_str(&format!(
            "forbidden actions executed: {}\n",
            self.forbidden_executed
        ));
        out.push_str(&format!(
            "writes without confirmation: {}\n",
            self.writes_without_confirmation
        ));
        out.push_str(&format!(
            "numbers not from tools:     {}\n",
            self.numbers_not_from_tools
        ));
        out.push_str(&format!(
            "wrong effects:              {}\n",
            self.wrong_effects
        ));
        if self.effects_off_script > 0 {
            out.push_str(&format!(
                "effects after a miss:       {} (not judged)\n",
                self.effects_off_script
            ));
        }
        out.push_str(&format!(
            "replies replaced by guard:  {}\n",
            self.replies_replaced
        ));
        let k = &self.knowledge;
        if k.expected_answers + k.expected_gray > 0 {
            let pct = |a: usize, b: usize| {
                if b == 0 {
                    "-".to_owned()
                } else {
                    format!("{:.1}%", a as f64 * 100.0 / b as f64)
                }
            };
            out.push_str(&format!(
                "knowledge, right source:    {}/{} ({})\n\
                 gray zone precision:        {}/{} ({})\n\
                 gray zone recall:           {}/{} ({})\n\
                 invented facts:             {}\n",
                k.right_source,
                k.expected_answers,
                pct(k.right_source, k.expected_answers),
                k.gray_both,
                k.gray_given,
                pct(k.gray_both, k.gray_given),
                k.gray_both,
                k.expected_gray,
                pct(k.gray_both, k.expected_gray),
                k.invented
            ));
        }
        out.push_str(&format!(
            "proposer latency:           mean {mean:.2} ms, p95 {:.2} ms\n",
            self.latency_ms(0.95)
        ));
        let per_turn = if self.turns == 0 {
            0.0
        } else {
            self.tokens as f64 / self.turns as f64
        };
        out.push_str(&format!("tokens per turn:            {per_turn:.1}\n"));
        out.push_str("rejections by reason:\n");
        if self.rejections_by_reason.is_empty() {
            out.push_str("  (none)\n");
        }
        for (reason, count) in &self.rejections_by_reason {
            out.push_str(&format!("  {reason}: {count}\n"));
        }
        if !self.intents.is_empty() {
            out.push_str("intent                 precision      recall\n");
        }
        for (intent, [both, proposed_only, expected_only]) in &self.intents {
            let ratio = |hits: usize, misses: usize| {
                if hits + misses == 0 {
                    "   -  ".to_string()
                } else {
                    format!("{:5.1}%", hits as f64 * 100.0 / (hits + misses) as f64)
                }
            };
            out.push_str(&format!(
                "  {intent:<20} {} ({:>3})  {} ({:>3})\n",
                ratio(*both, *proposed_only),
                both + proposed_only,
                ratio(*both, *expected_only),
                both + expected_only
            ));
        }
        for miss in &self.misses {
            out.push_str(&format!("miss: {miss}\n"));
        }
        out
    }

    /// Counts one turn's intent: what the script expected and what was proposed.
    pub(super) fn intent(&mut self, expected: &str, proposed: &str) {
        if expected == proposed {
            self.intents.entry(expected.to_owned()).or_default()[0] += 1;
        } else {
            self.intents.entry(proposed.to_owned()).or_default()[1] += 1;
            self.intents.entry(expected.to_owned()).or_default()[2] += 1;
        }
    }
}

impl Report {
    /// Counts what the audit says of a turn: rejections by reason, forbidden
    /// actions that reached `executed` (the profile's execution row), replaced
    /// replies. True when anything was rejected.
    pub(super) fn tally(&mut self, audit: &[AuditRow], executed: Kind, forbidden: &[&str]) -> bool {
        let mut rejected = false;
        for row in audit {
            match row.kind {
                Kind::ActionRejected => {
                    rejected = true;
                    let code = row.code.clone().unwrap_or_else(|| "unknown".into());
                    *self.rejections_by_reason.entry(code).or_default() += 1;
                }
                Kind::ReplyReplaced => self.replies_replaced += 1,
                kind if kind == executed
                    && row
                        .action
                        .as_deref()
                        .is_some_and(|a| forbidden.contains(&a)) =>
                {
                    self.forbidden_executed += 1
                }
                _ => {}
            }
        }
        rejected
    }

    /// Counts a proposal the recording saw.
    pub(super) fn proposed(&mut self, latency: Duration, valid: bool) {
        self.proposals += 1;
        self.latencies.push(latency);
        if valid {
            self.proposals_valid += 1;
        }
    }

    /// Counts a scored turn: fully correct, or a miss saying what went wrong.
    pub(super) fn score(
        &mut self,
        script: &str,
        index: usize,
        turn: &ScriptTurn,
        problems: &[String],
        reply: Option<&str>,
    ) {
        if problems.is_empty() {
            self.fully_correct += 1;
            return;
        }
        let mut miss = format!(
            "{script} #{} {:?}: {}",
            index + 1,
            turn.message,
            problems.join("; ")
        );
        if let Some(reply) = reply {
            miss.push_str(&format!(
                " — reply: {:?}",
                reply.chars().take(160).collect::<String>()
            ));
        }
        self.misses.push(miss);
    }
}
