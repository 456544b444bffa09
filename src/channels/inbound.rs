//! A customer message as every channel normalizes it at the edge: who sent it,
//! the platform's event id (the dedupe key) and the text or attachment. The inbox
//! stores it; the engine reads it back as a turn's message.

use serde::{Deserialize, Serialize};

use super::ChannelKind;

/// An attachment reference: the platform's media id, never the bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Media {
    /// "image" or "document".
    pub kind: String,
    pub id: String,
}

/// What the inbox stores for a customer message, whatever the channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessagePayload {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<Media>,
}

/// Media kind of a message the bot cannot read (audio, sticker, location...).
const UNSUPPORTED: &str = "unsupported";

impl MessagePayload {
    /// A message Tendero cannot read; its turn answers politely instead of guessing.
    pub fn unsupported() -> Self {
        MessagePayload {
            text: String::new(),
            media: Some(Media {
                kind: UNSUPPORTED.into(),
                id: String::new(),
            }),
        }
    }

    pub fn is_unsupported(&self) -> bool {
        self.media.as_ref().is_some_and(|m| m.kind == UNSUPPORTED)
    }

    /// An image or document came with it (a possible payment proof).
    pub fn has_attachment(&self) -> bool {
        self.media.is_some() && !self.is_unsupported()
    }
}

/// A customer message normalized at the edge, ready to be stored.
#[derive(Debug, Clone)]
pub struct Inbound {
    pub channel: ChannelKind,
    /// The sender's id on the channel (chat id, phone, web session).
    pub sender: String,
    pub display_name: Option<String>,
    /// The platform's event id: the dedupe key together with the bot.
    pub external_id: String,
    pub message: MessagePayload,
}
