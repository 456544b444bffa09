//! Channels: where outbound messages go. Each channel parses its own inbound payloads
//! at the edge (see `http`) and implements `Channel` for sending.

pub mod credentials;
pub mod files;
mod inbound;
pub mod media;
pub mod telegram;
pub mod uploads;
pub mod webchat;
pub mod whatsapp;

pub use inbound::{Inbound, Media, MessagePayload};

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Channel names as stored on contacts and outbox rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum ChannelKind {
    #[default]
    Webchat,
    Telegram,
    Whatsapp,
}

impl ChannelKind {
    pub const ALL: [ChannelKind; 3] = [
        ChannelKind::Webchat,
        ChannelKind::Telegram,
        ChannelKind::Whatsapp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ChannelKind::Webchat => "webchat",
            ChannelKind::Telegram => "telegram",
            ChannelKind::Whatsapp => "whatsapp",
        }
    }
}

/// A stored channel name that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown channel `{0}`")]
pub struct UnknownChannel(pub String);

impl TryFrom<String> for ChannelKind {
    type Error = UnknownChannel;

    fn try_from(s: String) -> Result<Self, UnknownChannel> {
        ChannelKind::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or(UnknownChannel(s))
    }
}

/// An outbound message as stored in the outbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutPayload {
    pub text: String,
    /// Quick-reply choices; channels that can show buttons do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    /// An approved WhatsApp template sent instead of `text` (which stays the
    /// transcript's words): the only message WhatsApp takes when the customer
    /// last wrote more than 24 hours ago. Other channels send `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<Template>,
    /// A file sent after the text (a person's data as CSV).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<files::FileRef>,
}

/// A WhatsApp message template and its body parameters, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    pub name: String,
    pub language: String,
    pub parameters: Vec<String>,
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

/// What a successful send reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivered {
    /// The platform's id of the (last) message sent, to match later status updates.
    pub provider_message_id: Option<String>,
}

#[async_trait]
pub trait Channel: Send + Sync + 'static {
    fn kind(&self) -> ChannelKind;

    /// Rate-limit keys this message counts against, with their limit per second.
    fn rate_limits(&self, _message: &Outgoing) -> Vec<(String, u32)> {
        Vec::new()
    }

    async fn send(&self, message: &Outgoing) -> Result<Delivered, SendError>;
}

/// Splits `text` into parts of at most `max` characters, preferring paragraph,
/// line and word boundaries.
pub fn split_text(text: &str, max: usize) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = text.trim();
    while rest.chars().count() > max {
        let cut = rest.char_indices().nth(max).map_or(rest.len(), |(i, _)| i);
        let window = &rest[..cut];
        let split = ["\n\n", "\n", " "]
            .iter()
            .find_map(|sep| window.rfind(sep).filter(|&i| i > 0))
            .unwrap_or(cut);
        parts.push(rest[..split].trim_end().to_owned());
        rest = rest[split..].trim_start();
    }
    if !rest.is_empty() || parts.is_empty() {
        parts.push(rest.to_owned());
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::split_text;

    #[test]
    fn long_texts_split_on_boundaries_within_the_limit() {
        let text = format!("{}\n\n{}", "a".repeat(3000), "b ".repeat(1500));
        let parts = split_text(&text, 4096);
        assert_eq!(parts.len(), 2);
        assert!(parts.iter().all(|p| p.chars().count() <= 4096));
        assert_eq!(parts[0], "a".repeat(3000));
        let word = "ñ".repeat(5000);
        let parts = split_text(&word, 4096);
        assert_eq!(parts[0].chars().count(), 4096);
        assert_eq!(parts.concat(), word);
        assert_eq!(split_text("hola", 4096), vec!["hola"]);
    }
}
