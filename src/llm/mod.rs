//! A plain LLM client: any OpenAI-compatible chat-completions server, asked for a
//! structured answer under a contract the caller brings (each profile has its
//! own). Its output is untrusted: it is parsed against the contract and repaired
//! once; otherwise the caller is told why and answers with its rules. Every call
//! waits for a slot of the bot and of the endpoint, is bounded in time, counted
//! against the bot's daily budget, recorded for `llm_calls` and counted by a
//! circuit breaker per bot.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_openai::Client as OpenAi;
use async_openai::config::OpenAIConfig;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use uuid::Uuid;

mod breaker;
mod budget;
pub mod calls;
mod parse;
pub mod privacy;

pub use budget::Budget;
pub use calls::{CallLog, NewCall, Outcome};
pub use parse::{ProposalError, extract_json_object, parse_answer};

use self::breaker::Breaker;
use crate::channels::ChannelKind;
use crate::config::{LlmConfig, ResponseMode};
use crate::histograms::{Metric, observe};
use crate::progress::{NoProgress, Progress, Recipient, typing_while};
use crate::proposal::Fallback;
use crate::telemetry;

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

/// Identifiers and switches of the turn a call is for.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    pub bot_id: Uuid,
    /// For metric labels.
    pub bot_slug: String,
    pub conversation_id: Uuid,
    pub inbox_id: i64,
    /// The bot's LLM switch (the Agent V2 rollback flag).
    pub agent_enabled: bool,
    /// Where "typing" goes while the model is asked.
    pub channel: ChannelKind,
    /// The customer's id on the channel.
    pub recipient: String,
    /// The platform's id of the last message answered (WhatsApp's typing
    /// indicator hangs on it).
    pub reply_to: Option<String>,
    /// LLM tokens the bot had used today (UTC) when the turn was claimed.
    pub tokens_today: u64,
    /// Where calls are recorded; the turn's transaction writes them.
    pub calls: CallLog,
}

impl CallContext {
    /// Whom progress signals of this call are for.
    pub fn audience(&self) -> Recipient<'_> {
        Recipient {
            bot_id: self.bot_id,
            conversation_id: self.conversation_id,
            channel: self.channel,
            id: &self.recipient,
            message_id: self.reply_to.as_deref(),
        }
    }
}

pub struct Client {
    openai: OpenAi<OpenAIConfig>,
    config: LlmConfig,
    breaker: Breaker,
    /// Calls in flight to the endpoint from this process.
    endpoint_slots: Arc<Semaphore>,
    /// Calls in flight per bot, so one busy shop cannot take every slot.
    bot_slots: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
    budget: Budget,
    /// "Typing" while the model is asked.
    progress: Arc<dyn Progress>,
    /// Embeddings are not asked for before this (the server failed or does not
    /// offer them).
    embeddings_paused_until: Mutex<Option<Instant>>,
}

/// How long embeddings are left alone after the server failed them.
const EMBEDDINGS_PAUSE: Duration = Duration::from_secs(600);
/// Widest embedding accepted.
const MAX_EMBEDDING_DIMS: usize = 8192;

/// What went into one prompt.
pub struct Prompt {
    pub messages: Vec<Value>,
    pub chars: usize,
    pub catalog_items: usize,
}

impl Client {
    pub fn new(config: LlmConfig) -> anyhow::Result<Self> {
        let mut openai = OpenAIConfig::new().with_api_base(config.base_url.trim_end_matches('/'));
        if let Some(key) = &config.api_key {
            openai = openai.with_api_key(key.expose());
        }
        // A safety net only: the proposal's own bound (`config.timeout`) fires first.
        let http = reqwest::Client::builder()
            .timeout(config.timeout + Duration::from_secs(1))
            .build()?;
        Ok(Client {
            // No retry layer: a failed call falls back to the rules at once, and the
            // breaker, not a retry loop, decides when to try the server again.
            openai: OpenAi::with_config(openai)
                .with_http_service(async_openai::middleware::ReqwestService::new(http)),
            endpoint_slots: Arc::new(Semaphore::new(config.max_in_flight.max(1))),
            bot_slots: Mutex::new(HashMap::new()),
            budget: Budget::new(config.daily_tokens_per_bot),
            progress: Arc::new(NoProgress),
            breaker: Breaker::new(config.breaker_failures, config.breaker_cooldown),
            embeddings_paused_until: Mutex::new(None),
            config,
        })
    }

    /// Embeddings of `texts`, each scaled to unit length, from the configured
    /// server's `/embeddings`. `None` when they are off, the server does not offer
    /// them, fails, or answers something malformed: knowledge search then runs on
    /// words alone (and embeddings are not asked for again for a while). Tokens
    /// are charged to `bot_id`'s daily budget.
    pub async fn embed(&self, bot_id: Uuid, texts: &[String]) -> Option<Vec<Vec<f32>>> {
        let model = self.config.embeddings_model.as_ref()?;
        if texts.is_empty() {
            return Some(Vec::new());
        }
        let paused = *self.embeddings_paused_until.lock().expect("pause lock");
        if paused.is_some_and(|until| Instant::now() < until) {
            return None;
        }
        let request = json!({"model": model, "input": texts, "encoding_format": "float"});
        let asked = tokio::time::timeout(
            self.config.timeout,
            self.openai.embeddings().create_byot::<_, Value>(request),
        )
        .await;
        let read = match asked {
            Ok(Ok(response)) => read_embeddings(&response, texts.len()),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err("timeout".to_owned()),
        };
        match read {
            Ok((vectors, tokens)) => {
                self.budget.charge(bot_id, tokens).await;
                Some(vectors)
            }
            Err(error) => {
                tracing::warn!(%error, pause = ?EMBEDDINGS_PAUSE, "no embeddings from the LLM server; knowledge search runs on words alone");
                *self.embeddings_paused_until.lock().expect("pause lock") =
                    Some(Instant::now() + EMBEDDINGS_PAUSE);
                None
            }
        }
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
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
            .openai
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
        context: &CallContext,
        outcome: Outcome,
        usage: Usage,
        prompt: &Prompt,
        latency: Duration,
        error: Option<&str>,
    ) {
        observe(
            Metric::LlmLatency,
            [&context.bot_slug, outcome.as_str()],
            latency,
        );
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
        context.calls.push(NewCall {
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
    pub async fn record_skip(&self, context: &CallContext, outcome: Outcome) {
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
    pub async fn may_ask(&self, context: &CallContext) -> Result<(), Fallback> {
        if !context.agent_enabled {
            return Err(Fallback::Off);
        }
        if !self.breaker.allows(context.bot_id) {
            // Counted (with no latency) so an alert can see a bot running on the rules.
            observe(
                Metric::LlmLatency,
                [&context.bot_slug, "circuit_open"],
                Duration::ZERO,
            );
            return Err(Fallback::CircuitOpen);
        }
        if !self
            .budget
            .allows(context.bot_id, context.tokens_today)
            .await
        {
            self.record_skip(context, Outcome::OverBudget).await;
            return Err(Fallback::BudgetSpent);
        }
        Ok(())
    }

    /// Asks the model under the bot's and the endpoint's limits, bounded in time,
    /// repaired once, recorded, and counted by the breaker. `Err` names why the
    /// caller must fall back to the rules.
    pub async fn ask<T>(
        &self,
        context: &CallContext,
        prompt: &Prompt,
        contract: &Contract<T>,
        started: Instant,
    ) -> Result<T, Fallback> {
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
                let outcome = if repaired {
                    Outcome::Repaired
                } else {
                    Outcome::Ok
                };
                self.record(context, outcome, usage, prompt, latency, None)
                    .await;
                self.breaker.record(bot_id, true);
                Ok(proposal)
            }
            Ok(Err(CallFailure::Invalid { errors, usage })) => {
                self.record(
                    context,
                    Outcome::Fallback,
                    usage,
                    prompt,
                    latency,
                    Some(&errors),
                )
                .await;
                self.breaker.record(bot_id, false);
                Err(Fallback::InvalidOutput)
            }
            Ok(Err(CallFailure::Http(error))) => {
                tracing::warn!(%error, "LLM call failed; using the rules proposer");
                self.record(
                    context,
                    Outcome::Error,
                    Usage::default(),
                    prompt,
                    latency,
                    Some(&error),
                )
                .await;
                self.breaker.record(bot_id, false);
                Err(Fallback::Error)
            }
            Err(_) => {
                tracing::warn!(timeout = ?self.config.timeout, "LLM call timed out; using the rules proposer");
                self.record(
                    context,
                    Outcome::Timeout,
                    Usage::default(),
                    prompt,
                    latency,
                    Some("timeout"),
                )
                .await;
                self.breaker.record(bot_id, false);
                Err(Fallback::Timeout)
            }
        }
    }
}

/// The vectors of an `/embeddings` answer in input order, scaled to unit length,
/// and the tokens it used; `Err` says what is wrong with it.
fn read_embeddings(response: &Value, expected: usize) -> Result<(Vec<Vec<f32>>, u64), String> {
    let data = response["data"].as_array().ok_or("no data array")?;
    if data.len() != expected {
        return Err(format!("{} embeddings for {expected} inputs", data.len()));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (position, item) in data.iter().enumerate() {
        let index = item["index"].as_u64().map_or(position, |i| i as usize);
        let numbers = item["embedding"]
            .as_array()
            .ok_or("an embedding is not an array")?;
        if numbers.is_empty() || numbers.len() > MAX_EMBEDDING_DIMS {
            return Err(format!("an embedding has {} dimensions", numbers.len()));
        }
        let mut vector = Vec::with_capacity(numbers.len());
        for number in numbers {
            let x = number.as_f64().ok_or("an embedding holds a non-number")? as f32;
            if !x.is_finite() {
                return Err("an embedding holds a non-finite number".into());
            }
            vector.push(x);
        }
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm <= f32::EPSILON {
            return Err("an embedding is all zeros".into());
        }
        vector.iter_mut().for_each(|x| *x /= norm);
        let slot = vectors
            .get_mut(index)
            .ok_or("an embedding's index is out of range")?;
        if slot.replace(vector).is_some() {
            return Err("two embeddings share an index".into());
        }
    }
    let vectors: Vec<Vec<f32>> = vectors
        .into_iter()
        .map(|v| v.expect("every index filled"))
        .collect();
    if vectors.iter().any(|v| v.len() != vectors[0].len()) {
        return Err("embeddings of different widths".into());
    }
    let tokens = response["usage"]["total_tokens"].as_u64().unwrap_or(0);
    Ok((vectors, tokens))
}

/// One proposer contract: the schema the model is held to and how its answer is
/// read (the shop's or the finance profile's).
pub struct Contract<T> {
    pub schema: Value,
    pub parse: fn(&str) -> Result<T, ProposalError>,
}

/// Why a completion request produced no text.
#[derive(Debug, thiserror::Error)]
enum CompletionError {
    #[error(transparent)]
    Server(#[from] async_openai::error::OpenAIError),
    #[error("the response has no message content")]
    NoContent,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_modes_parse_from_configuration() {
        assert_eq!("json_object".parse(), Ok(ResponseMode::JsonObject));
        assert_eq!("TEXT".parse(), Ok(ResponseMode::Text));
        assert!("xml".parse::<ResponseMode>().is_err());
    }
}
