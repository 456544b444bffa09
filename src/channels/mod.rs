//! Channels: where outbound messages go. Each channel parses its own inbound payloads
//! at the edge (see `http`) and implements `Channel` for sending.

pub mod webchat;

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// An outbound message as stored in the outbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutPayload {
    pub text: String,
    /// Quick-reply choices; channels that can show buttons do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Outgoing {
    pub outbox_id: i64,
    pub bot_id: Uuid,
    pub conversation_id: Uuid,
    pub recipient: String,
    pub payload: OutPayload,
}

#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// Worth another try, possibly after the time the platform asked for.
    #[error("temporary failure: {reason}")]
    Retry {
        reason: String,
        after: Option<Duration>,
    },
    /// Will never succeed (bad request, outside the messaging window...).
    #[error("permanent failure: {0}")]
    Permanent(String),
    /// The user blocked the bot: stop sending to this contact.
    #[error("the recipient blocked the bot")]
    Blocked,
}

#[async_trait]
pub trait Channel: Send + Sync + 'static {
    fn name(&self) -> &'static str;

    async fn send(&self, message: &Outgoing) -> Result<(), SendError>;
}
