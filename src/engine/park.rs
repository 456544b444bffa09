//! Giving up on an event after its attempts: it is parked with its error (kept,
//! never retried), the customer is told once, the merchant's chat hears about it,
//! and the conversation is free to move on.

use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use super::claim::{self, TurnSnapshot};
use super::messages;
use crate::audit::{self, Actor, Entry, Kind, Scope};
use crate::channels::OutPayload;
use crate::conversations;
use crate::inbox::{self, EventKind};
use crate::notices::{self, Notice};
use crate::outbox::{self, Author};

pub async fn park(
    pool: &PgPool,
    owner: Uuid,
    snapshot: &TurnSnapshot,
    console_url: Option<&str>,
) -> anyhow::Result<()> {
    let conversation = &snapshot.conversation;
    let head = snapshot.events.iter().find(|e| e.id == snapshot.head_id);
    let mut tx = pool.begin().await?;
    // Every writer of a conversation's outbox holds its row lock, so readers see
    // its messages committed in id order.
    conversations::lock(&mut tx, conversation.id).await?;
    if inbox::park(&mut tx, snapshot.head_id, "too many failed attempts").await? {
        let scope = Scope {
            bot_id: conversation.bot_id,
            conversation_id: Some(conversation.id),
            inbox_id: Some(snapshot.head_id),
        };
        let entry = Entry::new(Actor::Backend, Kind::EventParked)
            .reason("too many failed attempts")
            .detail(json!({
                "external_id": head.map(|e| e.external_id.as_str()),
                "attempts": snapshot.head_attempts - 1,
            }));
        audit::record(&mut tx, scope, &[entry]).await?;
        if head.is_none_or(|e| e.kind == EventKind::Message) {
            let apology = OutPayload {
                template: None,
                text: messages::PARKED_APOLOGY.into(),
                choices: Vec::new(),
                file: None,
            };
            outbox::enqueue(
                &mut tx,
                conversation.id,
                Author::Bot,
                &apology,
                Some(snapshot.head_id),
            )
            .await?;
            // The apology says the team was told: tell the merchant's chat.
            let last_message = head
                .and_then(|e| e.payload.get("text"))
                .and_then(|t| t.as_str())
                .unwrap_or_default()
                .to_owned();
            let (text, choices) = notices::render(
                &Notice::Parked { last_message },
                conversation.id,
                console_url,
            );
            let notice = OutPayload {
                text,
                choices,
                template: None,
                file: None,
            };
            outbox::enqueue_for_merchant(&mut tx, conversation.id, None, &notice).await?;
        }
    }
    claim::release_lease(&mut tx, conversation.id, owner).await?;
    tx.commit().await?;
    tracing::warn!(
        inbox_id = snapshot.head_id,
        "event parked after repeated failures"
    );
    Ok(())
}
