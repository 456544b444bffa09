//! The LLM proposer: any OpenAI-compatible chat-completions server, asked for a
//! structured proposal under the shop's or the finance profile's contract. Its
//! output is untrusted: it is parsed against the contract, repaired once, and
//! otherwise replaced by the rules proposer. Every call is bounded in time and
//! recorded in `llm_calls`; a circuit breaker per bot stops calling a failing
//! server for a while.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_trait::async_trait;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use uuid::Uuid;

mod budget;
mod finance;
mod shop;

pub use budget::Budget;

pub use finance::{finance_schema, parse_finance_proposal};
pub use shop::{parse_proposal, proposal_schema};

use super::contract::{
    MAX_RESPONSE_TEXT, Proposal, ProposalInput, ProposalOf, RawAction, TurnContext,
};
use super::finance_contract::{FinanceInput, FinanceProposal};
use super::{Proposer, ProposerError, finance_rules, rules};
use crate::config::{LlmConfig, ResponseMode};
use crate::conversation::MAX_ACTIONS;
use crate::histograms::{Metric, observe};
use crate::progress::{NoProgress, Progress, typing_while};
use crate::{llm_calls, telemetry};

/// Why a call produced no usable proposal.
enum CallFailure {
    Invalid { errors: String, usage: Usage },
    Http(String),
}

#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    prompt_tokens: i64,
    completion_tokens: i64,
}

impl std::ops::Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens + other.prompt_tokens,
            completion_tokens: self.completion_tokens + other.completion_tokens,
        }
    }
}

#[derive(Debug, Default)]
struct Breaker {
    failures: u32,
    open_until: Option<Instant>,
}

pub struct LlmProposer {
    client: Client<OpenAIConfig>,
    config: LlmConfig,
    breakers: Mutex<HashMap<Uuid, Breaker>>,
    /// Calls in flight to the endpoint from this process.
    endpoint_slots: Arc<Semaphore>,
    /// Calls in flight per bot, so one busy shop cannot take every slot.
    bot_slots: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
    budget: Budget,
    /// "Typing" while the model is asked.
    progress: Arc<dyn Progress>,
}

/// What went into one prompt.
pub struct Prompt {
    pub messages: Vec<Value>,
    pub chars: usize,
    pub catalog_items: usize,
}

impl LlmProposer {
    pub fn new(config: LlmConfig) -> anyhow::Result<Self> {
        let mut openai = OpenAIConfig::new().with_api_base(config.base_url.trim_end_matches('/'));
        if let Some(key) = &config.api_key {
            openai = openai.with_api_key(key.expose());
        }
        // A safety net only: the proposal's own bound (`config.timeout`) fires first.
        let http = reqwest::Client::builder()
            .timeout(config.timeout + Duration::from_secs(1))
            .build()?;
        Ok(LlmProposer {
            // No retry layer: a failed call falls back to the rules at once, and the
            // breaker, not a retry loop, decides when to try the server again.
            client: Client::with_config(openai)
                .with_http_service(async_openai::middleware::ReqwestService::new(http)),
            endpoint_slots: Arc::new(Semaphore::new(config.max_in_flight.max(1))),
            bot_slots: Mutex::new(HashMap::new()),
            budget: Budget::new(config.daily_tokens_per_bot),
            progress: Arc::new(NoProgress),
            config,
            breakers: Mutex::new(HashMap::new()),
        })
    }

    /// Keeps the daily budgets' running counts in Redis, shared by every replica.
    pub fn with_redis(mut self, redis: Option<crate::cache::Redis>) -> Self {
        self.budget = self.budget.with_redis(redis);
        self
    }

    /// Shows the customer the bot typing while the model is asked.
    pub fn with_progress(mut self, progress: Arc<dyn Progress>) -> Self {
        self.progress = progress;
        self
    }

    /// Waits for a slot of the bot and then of the endpoint. Held for the call.
    async fn slots(&self, bot_id: Uuid) -> (OwnedSemaphorePermit, OwnedSemaphorePermit) {
        let per_bot = self
            .bot_slots
            .lock()
            .expect("slot lock")
            .entry(bot_id)
            .or_insert_with(|| Arc::new(Semaphore::new(self.config.max_in_flight_per_bot.max(1))))
            .clone();
        let bot = per_bot.acquire_owned().await.expect("never closed");
        let endpoint = self
            .endpoint_slots
            .clone()
            .acquire_owned()
            .await
            .expect("never closed");
        (bot, endpoint)
    }

    fn breaker_allows(&self, bot_id: Uuid) -> bool {
        let breakers = self.breakers.lock().expect("breaker lock");
        breakers
            .get(&bot_id)
            .and_then(|b| b.open_until)
            .is_none_or(|until| Instant::now() >= until)
    }

    fn record_outcome(&self, bot_id: Uuid, success: bool) {
        let mut breakers = self.breakers.lock().expect("breaker lock");
        let breaker = breakers.entry(bot_id).or_default();
        if success {
            *breaker = Breaker::default();
            return;
        }
        breaker.failures += 1;
        if breaker.failures >= self.config.breaker_failures {
            if breaker
                .open_until
                .is_none_or(|until| Instant::now() >= until)
            {
                tracing::warn!(%bot_id, cooldown = ?self.config.breaker_cooldown, "LLM circuit open: using the rules proposer");
            }
            breaker.open_until = Some(Instant::now() + self.config.breaker_cooldown);
        }
    }

    /// The request body: the messages, bounded output, and the contract's schema
    /// in the way the configured server understands it.
    fn request(&self, messages: &[Value], schema: &Value) -> Value {
        let mut request = json!({
            "model": self.config.model,
            "messages": messages,
            "temperature": 0.2,
            "max_tokens": self.config.max_tokens,
            "stream": false,
        });
        match self.config.mode {
            ResponseMode::JsonSchema => {
                request["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {"name": "proposal", "strict": true, "schema": schema},
                });
            }
            ResponseMode::JsonObject => {
                request["response_format"] = json!({"type": "json_object", "schema": schema});
            }
            ResponseMode::Text => {}
        }
        request
    }

    async fn complete(
        &self,
        messages: &[Value],
        schema: &Value,
    ) -> Result<(String, Usage), CompletionError> {
        let response: Value = self
            .client
            .chat()
            .create_byot(self.request(messages, schema))
            .await?;
        let content = response["choices"][0]["message"]["content"]
            .as_str()
            .ok_or(CompletionError::NoContent)?
            .to_owned();
        let usage = Usage {
            prompt_tokens: response["usage"]["prompt_tokens"].as_i64().unwrap_or(0),
            completion_tokens: response["usage"]["completion_tokens"].as_i64().unwrap_or(0),
        };
        Ok((content, usage))
    }

    /// One call, and one repair call if the first answer breaks the contract.
    async fn call_with_repair<T>(
        &self,
        prompt: &Prompt,
        contract: &Contract<T>,
    ) -> Result<(T, Usage, bool), CallFailure> {
        let (content, usage) = self
            .complete(&prompt.messages, &contract.schema)
            .await
            .map_err(|e| CallFailure::Http(e.to_string()))?;
        let errors = match (contract.parse)(&content) {
            Ok(proposal) => return Ok((proposal, usage, false)),
            Err(errors) => errors,
        };
        tracing::info!(%errors, "LLM output broke the contract; asking for a repair");
        let mut messages = prompt.messages.clone();
        messages.push(
            json!({"role": "assistant", "content": content.chars().take(4000).collect::<String>()}),
        );
        messages.push(json!({"role": "user", "content": format!(
            "Tu respuesta no es válida: {errors}. Responde solo con el objeto JSON corregido, sin texto adicional."
        )}));
        let (content, second) = self
            .complete(&messages, &contract.schema)
            .await
            .map_err(|e| CallFailure::Http(e.to_string()))?;
        let usage = usage + second;
        match (contract.parse)(&content) {
            Ok(proposal) => Ok((proposal, usage, true)),
            Err(errors) => Err(CallFailure::Invalid {
                errors: errors.to_string(),
                usage,
            }),
        }
    }

    async fn record(
        &self,
        context: &TurnContext,
        outcome: &'static str,
        usage: Usage,
        prompt: &Prompt,
        latency: Duration,
        error: Option<&str>,
    ) {
        observe(Metric::LlmLatency, [&context.bot_slug, outcome], latency);
        let (price_in, price_out) = self
            .config
            .prices
            .get(&self.config.model)
            .copied()
            .unwrap_or((0.0, 0.0));
        // Dollars per million tokens are micro-dollars per token.
        let cost = (usage.prompt_tokens as f64 * price_in
            + usage.completion_tokens as f64 * price_out)
            .round() as i64;
        // Written by the turn's own transaction.
        context.calls.push(llm_calls::NewCall {
            bot_id: context.bot_id,
            conversation_id: context.conversation_id,
            inbox_id: context.inbox_id,
            model: self.config.model.clone(),
            response_format: self.config.mode.as_str(),
            outcome,
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            prompt_chars: prompt.chars,
            catalog_items: prompt.catalog_items,
            latency_ms: latency.as_millis(),
            cost_micros: cost,
            error: error.map(str::to_owned),
        });
        let tokens = usage.prompt_tokens + usage.completion_tokens;
        self.budget
            .charge(context.bot_id, u64::try_from(tokens).unwrap_or(0))
            .await;
    }

    /// Records a turn this proposer answered without a call, and why (`rules`: the
    /// rules read it whole; `over_budget`: the day's tokens are spent).
    async fn record_skip(&self, context: &TurnContext, outcome: &'static str) {
        let none = Prompt {
            messages: Vec::new(),
            chars: 0,
            catalog_items: 0,
        };
        self.record(
            context,
            outcome,
            Usage::default(),
            &none,
            Duration::ZERO,
            None,
        )
        .await;
    }

    /// Whether the LLM may be asked for this turn at all; `Err` names why not (the
    /// caller answers with the rules).
    async fn may_ask(&self, context: &TurnContext) -> Result<(), &'static str> {
        if !context.agent_enabled {
            return Err("rules (LLM off for this bot)");
        }
        if !self.breaker_allows(context.bot_id) {
            // Counted (with no latency) so an alert can see a bot running on the rules.
            observe(
                Metric::LlmLatency,
                [&context.bot_slug, "circuit_open"],
                Duration::ZERO,
            );
            return Err("rules (LLM circuit open)");
        }
        if !self
            .budget
            .allows(context.bot_id, context.tokens_today)
            .await
        {
            self.record_skip(context, "over_budget").await;
            return Err("rules (LLM budget spent)");
        }
        Ok(())
    }

    /// Asks the model under the bot's and the endpoint's limits, bounded in time,
    /// repaired once, recorded, and counted by the breaker. `Err` names why the
    /// caller must fall back to the rules.
    async fn ask<T>(
        &self,
        context: &TurnContext,
        prompt: &Prompt,
        contract: &Contract<T>,
        started: Instant,
    ) -> Result<T, &'static str> {
        let bot_id = context.bot_id;
        // Waiting for a slot is bounded by the engine's proposer timeout, not by the
        // LLM's own: a queue here is load, not a failing server.
        let call = async {
            let slots = self.slots(bot_id).await;
            let _in_flight = telemetry::LLM_IN_FLIGHT.enter();
            let outcome =
                tokio::time::timeout(self.config.timeout, self.call_with_repair(prompt, contract))
                    .await;
            drop(slots);
            outcome
        };
        // The customer sees the bot typing for the whole wait, queue included.
        let outcome = typing_while(self.progress.as_ref(), context.audience(), call).await;
        let latency = started.elapsed();
        match outcome {
            Ok(Ok((proposal, usage, repaired))) => {
                let outcome = if repaired { "repaired" } else { "ok" };
                self.record(context, outcome, usage, prompt, latency, None)
                    .await;
                self.record_outcome(bot_id, true);
                Ok(proposal)
            }
            Ok(Err(CallFailure::Invalid { errors, usage })) => {
                self.record(context, "fallback", usage, prompt, latency, Some(&errors))
                    .await;
                self.record_outcome(bot_id, false);
                Err("rules (LLM output invalid)")
            }
            Ok(Err(CallFailure::Http(error))) => {
                tracing::warn!(%error, "LLM call failed; using the rules proposer");
                self.record(
                    context,
                    "error",
                    Usage::default(),
                    prompt,
                    latency,
                    Some(&error),
                )
                .await;
                self.record_outcome(bot_id, false);
                Err("rules (LLM error)")
            }
            Err(_) => {
                tracing::warn!(timeout = ?self.config.timeout, "LLM call timed out; using the rules proposer");
                self.record(
                    context,
                    "timeout",
                    Usage::default(),
                    prompt,
                    latency,
                    Some("timeout"),
                )
                .await;
                self.record_outcome(bot_id, false);
                Err("rules (LLM timeout)")
            }
        }
    }
}

/// One proposer contract: the schema the model is held to and how its answer is
/// read (the shop's or the finance profile's).
pub struct Contract<T> {
    pub schema: Value,
    pub parse: fn(&str) -> Result<T, ProposalError>,
}

#[async_trait]
impl Proposer for LlmProposer {
    fn name(&self) -> &'static str {
        "llm"
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        let fallback = |why: &'static str| {
            let mut proposal = rules::propose(input);
            proposal.origin = Some(why);
            proposal
        };
        if self.config.rules_first && input.context.agent_enabled {
            let reading = rules::read(input);
            if reading.confident {
                self.record_skip(&input.context, "rules").await;
                let mut proposal = reading.proposal;
                proposal.origin = Some("rules (understood)");
                return Ok(proposal);
            }
        }
        if let Err(why) = self.may_ask(&input.context).await {
            return Ok(fallback(why));
        }
        let started = Instant::now();
        let catalog = shop::catalog_slice(&self.config, input);
        let prompt = shop::prompt(&self.config, input, catalog);
        match self
            .ask(&input.context, &prompt, &shop::contract(), started)
            .await
        {
            Ok(mut proposal) => {
                proposal.origin = Some("llm");
                Ok(proposal)
            }
            Err(why) => Ok(fallback(why)),
        }
    }

    async fn propose_finance(
        &self,
        input: &FinanceInput,
    ) -> Result<FinanceProposal, ProposerError> {
        let fallback = |why: &'static str| {
            let mut proposal = finance_rules::propose(input);
            proposal.origin = Some(why);
            proposal
        };
        if let Err(why) = self.may_ask(&input.context).await {
            return Ok(fallback(why));
        }
        let started = Instant::now();
        let prompt = finance::prompt(&self.config, input);
        match self
            .ask(&input.context, &prompt, &finance::contract(), started)
            .await
        {
            Ok(mut proposal) => {
                proposal.origin = Some("llm");
                Ok(proposal)
            }
            Err(why) => Ok(fallback(why)),
        }
    }
}

/// Why a completion request produced no text.
#[derive(Debug, thiserror::Error)]
enum CompletionError {
    #[error(transparent)]
    Server(#[from] async_openai::error::OpenAIError),
    #[error("the response has no message content")]
    NoContent,
}

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

    #[test]
    fn json_is_found_inside_prose_and_code_fences() {
        let text = "Claro, aquí va:\n```json\n{\"proposed_actions\":[{\"type\":\"REPLY\"}],\"response_text\":\"hola {amigo}\"}\n```";
        let proposal = parse_proposal(text).unwrap();
        assert_eq!(proposal.response_text, "hola {amigo}");
        assert!(matches!(
            parse_proposal("sin json"),
            Err(ProposalError::NoJson)
        ));
        let empty = parse_proposal("{\"proposed_actions\":[],\"response_text\":\"\"}");
        assert!(matches!(&empty, Err(ProposalError::Contract(_))));
        assert!(empty.unwrap_err().to_string().contains("1 to 5"));
        let wrong = parse_proposal("{\"proposed_actions\":\"x\"}");
        assert!(matches!(&wrong, Err(ProposalError::Schema(_))));
        assert!(wrong.unwrap_err().to_string().contains("schema"));
    }

    #[test]
    fn response_modes_parse_from_configuration() {
        assert_eq!("json_object".parse(), Ok(ResponseMode::JsonObject));
        assert_eq!("TEXT".parse(), Ok(ResponseMode::Text));
        assert!("xml".parse::<ResponseMode>().is_err());
    }
}
