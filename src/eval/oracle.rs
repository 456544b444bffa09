//! The oracle: a stand-in model that proposes, for each script line, exactly the
//! actions the line expects. It is served over the OpenAI-compatible API on a
//! loopback port, so its answers travel the real path of a model's — the LLM
//! client, rules first or not, the contract, the grounding check, the matrix —
//! and any turn it gets wrong is the backend refusing or misapplying a correct
//! proposal. A perfect score means the backend never stands in the way of a
//! right answer.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};

use crate::config::{LlmConfig, ResponseMode};

/// The answer the next model call gets.
#[derive(Clone, Default)]
pub struct Oracle {
    next: Arc<Mutex<Option<Value>>>,
    calls: Arc<Mutex<usize>>,
}

impl Oracle {
    /// Serves the oracle on a loopback port; returns it and the LLM settings that
    /// point at it.
    pub async fn start(rules_first: bool) -> anyhow::Result<(Oracle, LlmConfig)> {
        let oracle = Oracle::default();
        let app = axum::Router::new()
            .route("/v1/chat/completions", post(complete))
            .with_state(oracle.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base_url = format!("http://{}/v1", listener.local_addr()?);
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        let config = LlmConfig {
            base_url,
            api_key: None,
            model: "oracle".into(),
            mode: ResponseMode::JsonObject,
            timeout: std::time::Duration::from_secs(30),
            catalog_top_k: 100,
            prompt_budget_tokens: 100_000,
            prices: Default::default(),
            breaker_failures: u32::MAX,
            breaker_cooldown: std::time::Duration::ZERO,
            history_len: 10,
            max_in_flight: 4,
            max_in_flight_per_bot: 4,
            max_tokens: 1000,
            daily_tokens_per_bot: u64::MAX,
            rules_first,
            embeddings_model: None,
        };
        Ok((oracle, config))
    }

    /// What the next call answers: these actions (`{type, params}`), no text.
    pub fn answer(&self, actions: Vec<Value>) {
        let actions = if actions.is_empty() {
            vec![json!({"type": "REPLY", "params": {}})]
        } else {
            actions
        };
        *self.next.lock().expect("oracle lock") = Some(json!({
            "reasoning": "oracle",
            "proposed_actions": actions,
            "response_text": "",
        }));
    }

    /// Calls answered so far.
    pub fn calls(&self) -> usize {
        *self.calls.lock().expect("oracle lock")
    }
}

async fn complete(State(oracle): State<Oracle>, Json(_body): Json<Value>) -> Json<Value> {
    *oracle.calls.lock().expect("oracle lock") += 1;
    let proposal = oracle.next.lock().expect("oracle lock").clone().unwrap_or_else(|| {
        json!({"proposed_actions": [{"type": "CLARIFY", "params": {}}], "response_text": ""})
    });
    Json(json!({
        "id": "oracle", "object": "chat.completion", "created": 0, "model": "oracle",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": proposal.to_string()}}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }))
}
