//! The web-chat channel. Sending is marking the outbox row sent: clients read sent
//! rows through `GET /webchat/{bot}/events` (server-sent events), resuming from the
//! last id they saw, so a reply is never lost to a dropped connection.

use async_trait::async_trait;

use super::{Channel, ChannelKind, Delivered, Outgoing, SendError};

#[derive(Debug, Default, Clone, Copy)]
pub struct WebChat;

#[async_trait]
impl Channel for WebChat {
    fn kind(&self) -> ChannelKind {
        ChannelKind::Webchat
    }

    async fn send(&self, _message: &Outgoing) -> Result<Delivered, SendError> {
        Ok(Delivered::default())
    }
}
