//! Payment proofs, decided by the merchant: approve (the order is paid) or reject
//! with a reason (the customer is asked for the proof again).

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::AppState;
use super::conversations::commit;
use super::error::{ApiError, parse_json};
use super::merchant::{MerchantAuth, bounded_text, parse_id};
use super::openapi::{Answer, Errors};
use crate::audit::{Actor, Entry};
use crate::channels::OutPayload;
use crate::conversation::{Event, Release, State as FsmState, StoredState, on_event};
use crate::conversations::{self, Conversation, Update};
use crate::outbox::{self, Author};
use crate::shop::messages;
use crate::shop::orders::{self, OrderStatus};

/// Locks an order of this merchant and its conversation, in that order of checks.
async fn owned_order(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<(orders::Order, Conversation), ApiError> {
    let order = orders::by_id(&mut *conn, id)
        .await?
        .ok_or(ApiError::NotFound("order"))?;
    if crate::merchant::owner_of(&mut *conn, order.bot_id).await? != merchant_id {
        return Err(ApiError::NotFound("order"));
    }
    // Lock the conversation first, as turns do, then the order.
    let conversation = conversations::lock(conn, order.conversation_id).await?;
    let order = orders::lock(conn, id)
        .await?
        .ok_or(ApiError::NotFound("order"))?;
    if !order.status.is_open() {
        return Err(ApiError::Conflict(format!(
            "order is {}, not awaiting payment",
            order.status.as_str()
        )));
    }
    Ok((order, conversation))
}

/// Applies a payment event to the conversation, including one under takeover (the
/// state it returns to is updated instead).
fn payment_update(conversation: &Conversation, event: Event) -> Update {
    // Orders exist only in shop conversations; a state the event does not apply to
    // stays as it is.
    let step = |stored: StoredState| {
        let no_release = Release {
            before: None,
            to_idle: false,
        };
        FsmState::try_from(stored)
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

#[utoipa::path(post, path = "/orders/{id}/approve-payment", tag = "orders", params(("id" = String, Path, description = "the id")),
    responses((status = 200, body = Answer, description = "`{order_id, status, conversation_state}`"), Errors))]
pub async fn approve_payment(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "order")?;
    approve(&state.pool, merchant_id, id).await.map(Json)
}

/// The proof is good: the order is paid and the customer told.
pub async fn approve(pool: &PgPool, merchant_id: Uuid, id: Uuid) -> Result<Value, ApiError> {
    let mut tx = pool.begin().await?;
    let (order, conversation) = owned_order(&mut tx, merchant_id, id).await?;
    orders::set_status(&mut tx, order.id, OrderStatus::Paid, None).await?;
    let update = payment_update(&conversation, Event::PaymentApproved);
    let text = messages::payment_approved(order.number, order.total_minor, &order.currency);
    let payload = OutPayload {
        text,
        choices: Vec::new(),
    };
    outbox::enqueue(&mut tx, conversation.id, Author::Human, &payload, None).await?;
    let mut rows = vec![
        Entry::new(Actor::Merchant, "event_detected")
            .action(Event::PaymentApproved.as_str())
            .detail(json!({"order_id": order.id, "order_number": order.number})),
    ];
    rows.extend(Entry::state_change(
        Actor::Merchant,
        conversation.state(),
        update.state,
        "payment approved",
    ));
    commit(tx, &conversation, &update, &rows).await?;
    Ok(
        json!({"order_id": order.id, "status": OrderStatus::Paid, "conversation_state": update.state.as_str()}),
    )
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct RejectBody {
    reason: String,
}

#[utoipa::path(post, path = "/orders/{id}/reject-payment", tag = "orders", params(("id" = String, Path, description = "the id")), request_body = RejectBody,
    responses((status = 200, body = Answer, description = "`{order_id, status}`: the customer is asked for the proof again"), Errors))]
pub async fn reject_payment(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "order")?;
    let body: RejectBody = parse_json(&body?)?;
    reject(&state.pool, merchant_id, id, &body.reason)
        .await
        .map(Json)
}

/// The proof is not good: the order waits for another, and the customer is told why.
pub async fn reject(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    reason: &str,
) -> Result<Value, ApiError> {
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
        text: messages::payment_rejected(order.number, reason),
        choices: Vec::new(),
    };
    outbox::enqueue(&mut tx, conversation.id, Author::Human, &payload, None).await?;
    let rows = vec![
        Entry::new(Actor::Merchant, "event_detected")
            .action(Event::PaymentRejected.as_str())
            .reason(reason)
            .detail(json!({"order_id": order.id, "order_number": order.number})),
    ];
    commit(tx, &conversation, &update, &rows).await?;
    Ok(json!({"order_id": order.id, "status": OrderStatus::AwaitingPayment}))
}
