//! The LLM proposer: any OpenAI-compatible chat-completions server, asked for a
//! structured proposal. Its output is untrusted: it is parsed against the contract,
//! repaired once, and otherwise replaced by the rules proposer. Every call is
//! bounded in time and recorded in `llm_calls`; a circuit breaker per bot stops
//! calling a failing server for a while.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_trait::async_trait;
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use uuid::Uuid;

use super::contract::{CatalogEntry, MAX_RESPONSE_TEXT, Proposal, ProposalInput};
use super::privacy::mask;
use super::{Proposer, ProposerError, rules};
use crate::config::{LlmConfig, ResponseMode};
use crate::conversation::{ActionKind, MAX_ACTIONS};
use crate::histograms::{Metric, observe};
use crate::text::{money, normalize};
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
    pool: PgPool,
    breakers: Mutex<HashMap<Uuid, Breaker>>,
    /// Calls in flight to the endpoint from this process.
    endpoint_slots: Arc<Semaphore>,
    /// Calls in flight per bot, so one busy shop cannot take every slot.
    bot_slots: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
}

/// What went into one prompt.
pub struct Prompt {
    pub messages: Vec<Value>,
    pub chars: usize,
    pub catalog_items: usize,
}

const SYSTEM_PROMPT: &str = "Eres el asistente de ventas de una tienda que vende por chat. \
Lees el mensaje del cliente y PROPONES acciones; el sistema de la tienda decide cuáles se ejecutan.\n\
Reglas:\n\
1. Propón de 1 a 5 acciones, solo de estos tipos: SHOW_CATALOG, SHOW_PRODUCT, ADD_TO_CART, UPDATE_QUANTITY, \
REMOVE_ITEM, CLEAR_CART, REVIEW_ORDER, CONFIRM_ORDER, CANCEL_ORDER, REPLY, CLARIFY, ESCALATE.\n\
2. Nunca inventes ni cambies precios, descuentos, totales ni pagos. No escribas montos ni totales en \
response_text: el sistema agrega precios, carrito y totales por su cuenta.\n\
3. Usa solo product_id del catálogo que recibes. Cantidades enteras de 1 a 100.\n\
4. CONFIRM_ORDER solo si current_state es CHECKOUT y el cliente aceptó el resumen; para llegar ahí usa REVIEW_ORDER.\n\
5. Si no estás seguro de qué quiere el cliente, usa CLARIFY y pregunta en response_text.\n\
6. Si pide hablar con una persona, usa ESCALATE.\n\
7. response_text: español, breve, amable, máximo 500 caracteres.\n\
Responde SOLO con un objeto JSON: {\"reasoning\": string, \"proposed_actions\": [{\"type\": string, \
\"params\": {\"product_id\": number|null, \"product_name\": string|null, \"quantity\": number|null, \
\"reason\": string|null}}], \"response_text\": string, \"suggested_state\": string|null}";

impl LlmProposer {
    pub fn new(config: LlmConfig, pool: PgPool) -> anyhow::Result<Self> {
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
            config,
            pool,
            breakers: Mutex::new(HashMap::new()),
        })
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

    /// The products most relevant to the message and the cart, by trigram similarity.
    async fn catalog_slice(&self, input: &ProposalInput) -> sqlx::Result<Vec<CatalogEntry>> {
        let cart_ids: Vec<i64> = input.cart.lines.iter().map(|l| l.product_id).collect();
        let rows: Vec<(i64, String, String, i64)> = sqlx::query_as(
            "SELECT id, name, description, price_minor FROM products
             WHERE bot_id = $1 AND active
             ORDER BY (id = ANY($3)) DESC,
                      word_similarity(translate(lower(name), 'áéíóúüñ', 'aeiouun'), $2) DESC, id
             LIMIT $4",
        )
        .bind(input.context.bot_id)
        .bind(normalize(&input.customer_message))
        .bind(&cart_ids)
        .bind(self.config.catalog_top_k.max(cart_ids.len() as i64))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(product_id, name, description, price_minor)| CatalogEntry {
                    product_id,
                    name,
                    price_minor,
                    description,
                },
            )
            .collect())
    }

    /// Builds the messages, shrinking history, descriptions and catalog to the budget.
    pub fn prompt(&self, input: &ProposalInput, mut catalog: Vec<CatalogEntry>) -> Prompt {
        let budget_chars = self.config.prompt_budget_tokens * 4;
        let mut history: Vec<Value> = input
            .recent_history
            .iter()
            .rev()
            .take(self.config.history_len)
            .rev()
            .map(|h| json!({"role": h.role, "text": mask(&h.text)}))
            .collect();
        let mut describe = true;
        loop {
            let user = json!({
                "current_state": input.current_state,
                "detected_events": input.detected_events,
                "cart": {
                    "lines": input.cart.lines.iter().map(|l| json!({
                        "product_id": l.product_id, "name": l.name, "quantity": l.quantity,
                        "line_total": money(l.line_total_minor, &input.currency),
                    })).collect::<Vec<_>>(),
                    "total": money(input.cart.total_minor, &input.currency),
                },
                "customer_message": mask(&input.customer_message),
                "recent_history": history,
                "product_catalog": catalog.iter().map(|p| {
                    let mut entry = json!({"product_id": p.product_id, "name": p.name, "price": money(p.price_minor, &input.currency)});
                    if describe && !p.description.is_empty() {
                        entry["description"] = json!(p.description.chars().take(120).collect::<String>());
                    }
                    entry
                }).collect::<Vec<_>>(),
            })
            .to_string();
            let chars = SYSTEM_PROMPT.chars().count() + user.chars().count();
            let shrinkable = !history.is_empty() || describe || catalog.len() > 1;
            if chars <= budget_chars || !shrinkable {
                return Prompt {
                    messages: vec![
                        json!({"role": "system", "content": SYSTEM_PROMPT}),
                        json!({"role": "user", "content": user}),
                    ],
                    chars,
                    catalog_items: catalog.len(),
                };
            }
            if !history.is_empty() {
                history.remove(0);
            } else if describe {
                describe = false;
            } else {
                let keep = (catalog.len() * 3 / 4).max(1);
                catalog.truncate(keep);
            }
        }
    }

    fn request(&self, messages: &[Value]) -> Value {
        let mut request = json!({
            "model": self.config.model,
            "messages": messages,
            "temperature": 0.2,
            "max_tokens": 800,
            "stream": false,
        });
        match self.config.mode {
            ResponseMode::JsonSchema => {
                request["response_format"] = json!({
                    "type": "json_schema",
                    "json_schema": {"name": "proposal", "strict": true, "schema": proposal_schema()},
                });
            }
            ResponseMode::JsonObject => {
                request["response_format"] =
                    json!({"type": "json_object", "schema": proposal_schema()});
            }
            ResponseMode::Text => {}
        }
        request
    }

    async fn complete(&self, messages: &[Value]) -> Result<(String, Usage), CompletionError> {
        let response: Value = self
            .client
            .chat()
            .create_byot(self.request(messages))
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
    async fn call_with_repair(
        &self,
        prompt: &Prompt,
    ) -> Result<(Proposal, Usage, bool), CallFailure> {
        let (content, usage) = self
            .complete(&prompt.messages)
            .await
            .map_err(|e| CallFailure::Http(e.to_string()))?;
        let errors = match parse_proposal(&content) {
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
            .complete(&messages)
            .await
            .map_err(|e| CallFailure::Http(e.to_string()))?;
        let usage = usage + second;
        match parse_proposal(&content) {
            Ok(proposal) => Ok((proposal, usage, true)),
            Err(errors) => Err(CallFailure::Invalid {
                errors: errors.to_string(),
                usage,
            }),
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn record(
        &self,
        input: &ProposalInput,
        outcome: &str,
        usage: Usage,
        prompt: &Prompt,
        latency: Duration,
        error: Option<&str>,
    ) {
        observe(
            Metric::LlmLatency,
            [&input.context.bot_slug, outcome],
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
        let call = llm_calls::NewCall {
            bot_id: input.context.bot_id,
            conversation_id: input.context.conversation_id,
            inbox_id: input.context.inbox_id,
            model: &self.config.model,
            response_format: self.config.mode.as_str(),
            outcome,
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            prompt_chars: prompt.chars,
            catalog_items: prompt.catalog_items,
            latency_ms: latency.as_millis(),
            cost_micros: cost,
            error,
        };
        let result = llm_calls::record(&self.pool, &call).await;
        if let Err(err) = result {
            tracing::warn!(%err, "could not record the LLM call");
        }
    }

    fn fallback(input: &ProposalInput, why: &'static str) -> Proposal {
        let mut proposal = rules::propose(input);
        proposal.origin = Some(why);
        proposal
    }
}

#[async_trait]
impl Proposer for LlmProposer {
    fn name(&self) -> &'static str {
        "llm"
    }

    async fn propose_finance(
        &self,
        input: &super::FinanceInput,
    ) -> Result<super::FinanceProposal, ProposerError> {
        Ok(super::finance_rules::propose(input))
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        let bot_id = input.context.bot_id;
        if !input.context.agent_enabled {
            return Ok(Self::fallback(input, "rules (LLM off for this bot)"));
        }
        if !self.breaker_allows(bot_id) {
            // Counted (with no latency) so an alert can see a bot running on the rules.
            observe(
                Metric::LlmLatency,
                [&input.context.bot_slug, "circuit_open"],
                Duration::ZERO,
            );
            return Ok(Self::fallback(input, "rules (LLM circuit open)"));
        }
        let started = Instant::now();
        let catalog = match self.catalog_slice(input).await {
            Ok(catalog) => catalog,
            Err(err) => {
                return Err(ProposerError::Failed(format!(
                    "catalog search failed: {err}"
                )));
            }
        };
        let prompt = self.prompt(input, catalog);
        // Waiting for a slot is bounded by the engine's proposer timeout, not by the
        // LLM's own: a queue here is load, not a failing server.
        let slots = self.slots(bot_id).await;
        let in_flight = telemetry::LLM_IN_FLIGHT.enter();
        let outcome =
            tokio::time::timeout(self.config.timeout, self.call_with_repair(&prompt)).await;
        drop(in_flight);
        drop(slots);
        let latency = started.elapsed();
        match outcome {
            Ok(Ok((mut proposal, usage, repaired))) => {
                self.record(
                    input,
                    if repaired { "repaired" } else { "ok" },
                    usage,
                    &prompt,
                    latency,
                    None,
                )
                .await;
                self.record_outcome(bot_id, true);
                proposal.origin = Some("llm");
                Ok(proposal)
            }
            Ok(Err(CallFailure::Invalid { errors, usage })) => {
                self.record(input, "fallback", usage, &prompt, latency, Some(&errors))
                    .await;
                self.record_outcome(bot_id, false);
                Ok(Self::fallback(input, "rules (LLM output invalid)"))
            }
            Ok(Err(CallFailure::Http(error))) => {
                tracing::warn!(%error, "LLM call failed; using the rules proposer");
                self.record(
                    input,
                    "error",
                    Usage::default(),
                    &prompt,
                    latency,
                    Some(&error),
                )
                .await;
                self.record_outcome(bot_id, false);
                Ok(Self::fallback(input, "rules (LLM error)"))
            }
            Err(_) => {
                tracing::warn!(timeout = ?self.config.timeout, "LLM call timed out; using the rules proposer");
                self.record(
                    input,
                    "timeout",
                    Usage::default(),
                    &prompt,
                    latency,
                    Some("timeout"),
                )
                .await;
                self.record_outcome(bot_id, false);
                Ok(Self::fallback(input, "rules (LLM timeout)"))
            }
        }
    }
}

/// The JSON schema of a proposal (strict-mode compatible).
pub fn proposal_schema() -> Value {
    let types: Vec<&str> = ActionKind::ALL.iter().map(|k| k.as_str()).collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["reasoning", "proposed_actions", "response_text", "suggested_state"],
        "properties": {
            "reasoning": {"type": "string"},
            "proposed_actions": {
                "type": "array", "minItems": 1, "maxItems": MAX_ACTIONS,
                "items": {
                    "type": "object", "additionalProperties": false, "required": ["type", "params"],
                    "properties": {
                        "type": {"type": "string", "enum": types},
                        "params": {
                            "type": "object", "additionalProperties": false,
                            "required": ["product_id", "product_name", "quantity", "reason"],
                            "properties": {
                                "product_id": {"type": ["integer", "null"]},
                                "product_name": {"type": ["string", "null"]},
                                "quantity": {"type": ["integer", "null"]},
                                "reason": {"type": ["string", "null"]},
                            },
                        },
                    },
                },
            },
            "response_text": {"type": "string", "maxLength": MAX_RESPONSE_TEXT},
            "suggested_state": {"type": ["string", "null"]},
        },
    })
}

/// Parses model output into a proposal, checking the contract. Tolerates code
/// fences and prose around the object; the error lists what is wrong.
pub fn parse_proposal(content: &str) -> Result<Proposal, ProposalError> {
    let candidate = extract_json_object(content).ok_or(ProposalError::NoJson)?;
    let proposal: Proposal = serde_json::from_str(candidate).map_err(ProposalError::Schema)?;
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
        .any(|a| a.action_type.trim().is_empty())
    {
        problems.push("every action needs a type".into());
    }
    if problems.is_empty() {
        Ok(proposal)
    } else {
        Err(ProposalError::Contract(problems))
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
