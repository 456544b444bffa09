//! Payment proofs, decided by the merchant: approve (the order is paid and the
//! customer told) or reject with a reason (the customer is asked for the proof
//! again); and a proof's image, fetched from the platform with the bot's
//! credentials so no token ever reaches a page.

use serde::Serialize;
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::conversations::commit;
use super::{MerchantError, Office, Result, bounded_text};
use crate::audit::{Actor, Entry, Kind};
use crate::channels::media::{Download, DownloadError};
use crate::channels::{ChannelKind, OutPayload};
use crate::conversations::{self, Conversation, StoredState, Update};
use crate::outbox::{self, Author};
use crate::shop::core::{Event, Release, State as ShopState, on_event};
use crate::shop::messages;
use crate::shop::orders::{self, Order, OrderStatus};
use crate::shop::payments::{self as proofs, OwnedProof};

/// What a decision on a payment left.
#[derive(Debug, Clone, Serialize)]
pub struct Decided {
    pub order_id: Uuid,
    pub status: OrderStatus,
    /// Where the conversation is now (approval completes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_state: Option<StoredState>,
}

/// Locks an order of this merchant and its conversation (the conversation first,
/// as turns do); the order must be waiting for its payment.
async fn owned_order(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<(Order, Conversation)> {
    let order = orders::by_id(&mut *conn, id)
        .await?
        .ok_or(MerchantError::NotFound("order"))?;
    if crate::bots::owner_of(&mut *conn, order.bot_id).await? != merchant_id {
        return Err(MerchantError::NotFound("order"));
    }
    let conversation = conversations::lock(conn, order.conversation_id).await?;
    let order = orders::lock(conn, id)
        .await?
        .ok_or(MerchantError::NotFound("order"))?;
    if !order.status.is_open() {
        return Err(MerchantError::NotAwaitingPayment(order.status));
    }
    Ok((order, conversation))
}

/// Applies a payment event to the conversation, including one under takeover (the
/// state it returns to is updated instead).
pub(super) fn payment_update(conversation: &Conversation, event: Event) -> Update {
    // Orders exist only in shop conversations; a state the event does not apply to
    // stays as it is.
    let step = |stored: StoredState| {
        let no_release = Release {
            before: None,
            to_idle: false,
        };
        ShopState::try_from(stored)
            .ok()
            .and_then(|state| on_event(state, event, no_release).ok())
            .map_or(stored, StoredState::from)
    };
    let mut update = Update::keep(conversation);
    if conversation.human_override {
        update.state_before_takeover = conversation.state_before_takeover().map(step);
    } else {
        update.state = step(conversation.state());
    }
    update
}

/// The proof is good (or the merchant was paid another way — cash, a transfer
/// they checked — and says how in `note`): the order is paid and the customer
/// told. Audited with the note.
pub async fn approve(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    note: Option<&str>,
) -> Result<Decided> {
    let note = match note.map(str::trim) {
        Some(note) if !note.is_empty() => Some(bounded_text("note", note, 300)?),
        _ => None,
    };
    let mut tx = pool.begin().await?;
    let (order, conversation) = owned_order(&mut tx, merchant_id, id).await?;
    orders::set_status(&mut tx, order.id, OrderStatus::Paid, None).await?;
    let update = payment_update(&conversation, Event::PaymentApproved);
    let payload = OutPayload {
        template: None,
        text: messages::payment_approved(order.number, order.total_minor, &order.currency),
        choices: Vec::new(),
        file: None,
    };
    outbox::enqueue(&mut tx, conversation.id, Author::Human, &payload, None).await?;
    let mut approved = Entry::new(Actor::Merchant, Kind::EventDetected)
        .action(Event::PaymentApproved.as_str())
        .detail(json!({
            "order_id": order.id,
            "order_number": order.number,
            "without_proof": order.status == OrderStatus::AwaitingPayment,
        }));
    if let Some(note) = note {
        approved = approved.reason(note);
    }
    let mut rows = vec![approved];
    rows.extend(Entry::state_change(
        Actor::Merchant,
        conversation.state(),
        update.state,
        "payment approved",
    ));
    commit(tx, &conversation, &update, &rows).await?;
    Ok(Decided {
        order_id: order.id,
        status: OrderStatus::Paid,
        conversation_state: Some(update.state),
    })
}

/// The proof is not good: the order waits for another, and the customer is told why.
pub async fn reject(pool: &PgPool, merchant_id: Uuid, id: Uuid, reason: &str) -> Result<Decided> {
    let reason = bounded_text("reason", reason, 300)?;
    let mut tx = pool.begin().await?;
    let (order, conversation) = owned_order(&mut tx, merchant_id, id).await?;
    orders::set_status(
        &mut tx,
        order.id,
        OrderStatus::AwaitingPayment,
        Some(reason),
    )
    .await?;
    let update = payment_update(&conversation, Event::PaymentRejected);
    let payload = OutPayload {
        template: None,
        text: messages::payment_rejected(order.number, reason),
        choices: Vec::new(),
        file: None,
    };
    outbox::enqueue(&mut tx, conversation.id, Author::Human, &payload, None).await?;
    let rows = vec![
        Entry::new(Actor::Merchant, Kind::EventDetected)
            .action(Event::PaymentRejected.as_str())
            .reason(reason)
            .detail(json!({"order_id": order.id, "order_number": order.number})),
    ];
    commit(tx, &conversation, &update, &rows).await?;
    Ok(Decided {
        order_id: order.id,
        status: OrderStatus::AwaitingPayment,
        conversation_state: None,
    })
}

/// Why a proof's file could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ProofMediaError {
    #[error(transparent)]
    Merchant(#[from] MerchantError),
    /// The platform did not give the file.
    #[error("the platform did not give the file: {0}")]
    Platform(String),
}

/// A proof's file, fetched from the channel it came through.
pub async fn proof_media(
    office: &Office,
    merchant_id: Uuid,
    proof: i64,
) -> std::result::Result<Download, ProofMediaError> {
    let OwnedProof {
        proof,
        bot_id,
        channel,
    } = proofs::proof_for_merchant(&office.pool, proof, merchant_id)
        .await
        .map_err(MerchantError::from)?
        .ok_or(MerchantError::NotFound("proof"))?;
    let media_id = proof
        .media
        .as_ref()
        .and_then(|m| m["id"].as_str())
        .ok_or(MerchantError::NotFound("proof"))?;
    let fetched = match channel {
        ChannelKind::Telegram => office.telegram.download(bot_id, media_id).await,
        ChannelKind::Whatsapp => office.whatsapp.download(bot_id, media_id).await,
        ChannelKind::Webchat => {
            return crate::channels::uploads::fetch(&office.pool, bot_id, media_id)
                .await
                .map_err(MerchantError::from)?
                .ok_or(MerchantError::NotFound("proof").into());
        }
    };
    match fetched {
        Ok(download) => Ok(download),
        Err(DownloadError::Database(err)) => Err(MerchantError::from(err).into()),
        Err(err) => {
            tracing::warn!(%err, proof = proof.id, "could not fetch a payment proof");
            Err(ProofMediaError::Platform(err.to_string()))
        }
    }
}
