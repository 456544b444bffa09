//! The merchant's orders: listed by bot and status, newest first; a paid one
//! followed to the door (each step told to the customer), or one cancelled.

use serde::Serialize;
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::conversations::commit;
use super::{MerchantError, Result, bounded_text};
use crate::audit::{Actor, Entry, Kind};
use crate::bots::Bot;
use crate::channels::{OutPayload, Template};
use crate::conversations::{self, Conversation, Update};
use crate::outbox::{self, Author};
use crate::shop::core::Event;
use crate::shop::messages;
use crate::shop::orders::{self, Listed, Order, OrderStatus};

pub async fn list(
    pool: &PgPool,
    merchant_id: Uuid,
    bot: Option<&str>,
    status: Option<OrderStatus>,
    limit: i64,
) -> Result<Vec<Listed>> {
    Ok(orders::list_for_merchant(pool, merchant_id, bot, status, limit.clamp(1, 500)).await?)
}

/// The conversation an order of the merchant's came from.
pub async fn conversation_of(pool: &PgPool, merchant_id: Uuid, order_id: Uuid) -> Result<Uuid> {
    let order = orders::by_id(pool, order_id)
        .await?
        .ok_or(super::MerchantError::NotFound("order"))?;
    if crate::bots::owner_of(pool, order.bot_id).await? != merchant_id {
        return Err(super::MerchantError::NotFound("order"));
    }
    Ok(order.conversation_id)
}

/// What a merchant's change to an order left.
#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    pub order_id: Uuid,
    pub number: i64,
    pub status: OrderStatus,
    /// Whether a message to the customer was queued: on WhatsApp, more than 24
    /// hours after the customer last wrote, only an approved template may go,
    /// and a bot without one cannot tell them.
    pub customer_told: bool,
}

/// Locks a merchant's order and its conversation (the conversation first, as
/// turns do).
async fn owned(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<(Order, Conversation, Bot)> {
    let order = orders::by_id(&mut *conn, id)
        .await?
        .ok_or(MerchantError::NotFound("order"))?;
    let bot = crate::bots::by_id(&mut *conn, order.bot_id).await?;
    if bot.merchant_id != merchant_id {
        return Err(MerchantError::NotFound("order"));
    }
    let conversation = conversations::lock(conn, order.conversation_id).await?;
    let order = orders::lock(conn, id)
        .await?
        .ok_or(MerchantError::NotFound("order"))?;
    Ok((order, conversation, bot))
}

/// Queues `text` to the order's customer; where only a template may go, the
/// bot's approved one (order number, status in words) goes instead, and
/// without one nothing is queued (false).
async fn tell_customer(
    conn: &mut PgConnection,
    bot: &Bot,
    conversation: &Conversation,
    order_number: i64,
    status: OrderStatus,
    text: String,
) -> Result<bool> {
    let (channel, outside_window): (String, bool) = sqlx::query_as(
        "SELECT ct.channel,
                ct.channel = 'whatsapp'
                AND (c.last_customer_at IS NULL OR c.last_customer_at < now() - interval '24 hours')
         FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $1",
    )
    .bind(conversation.id)
    .fetch_one(&mut *conn)
    .await?;
    let template = bot.whatsapp_order_template.as_ref().map(|name| Template {
        name: name.clone(),
        language: bot.whatsapp_template_language.clone(),
        parameters: vec![
            format!("#{order_number}"),
            messages::status_words(status).to_owned(),
        ],
    });
    if outside_window && template.is_none() {
        return Ok(false);
    }
    // The template rides along on WhatsApp: the dispatcher sends it only if the
    // window has closed by the time the message goes out.
    let payload = OutPayload {
        text,
        choices: Vec::new(),
        template: if channel == "whatsapp" {
            template
        } else {
            None
        },
        file: None,
    };
    outbox::enqueue(conn, conversation.id, Author::Human, &payload, None).await?;
    Ok(true)
}

/// Moves a paid order on (preparing, ready, on the way, delivered) and tells
/// the customer.
pub async fn follow(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    to: OrderStatus,
) -> Result<Changed> {
    let mut tx = pool.begin().await?;
    let (order, conversation, bot) = owned(&mut tx, merchant_id, id).await?;
    if !order.status.can_follow_with(to) {
        return Err(MerchantError::CannotFollow {
            from: order.status,
            to,
        });
    }
    orders::set_status(&mut tx, order.id, to, None).await?;
    let text = messages::order_followed(order.number, to);
    let customer_told = tell_customer(&mut tx, &bot, &conversation, order.number, to, text).await?;
    let rows = vec![
        Entry::new(Actor::Merchant, Kind::OrderStatusChanged)
            .action(to.as_str())
            .reason(format!("{} → {}", order.status.as_str(), to.as_str()))
            .detail(json!({"order_id": order.id, "order_number": order.number, "customer_told": customer_told})),
    ];
    commit(tx, &conversation, &Update::keep(&conversation), &rows).await?;
    Ok(Changed {
        order_id: order.id,
        number: order.number,
        status: to,
        customer_told,
    })
}

/// Cancels an order not yet delivered, with the reason the customer reads; its
/// units go back on sale. A conversation waiting for the order's payment goes
/// back to the start.
pub async fn cancel(pool: &PgPool, merchant_id: Uuid, id: Uuid, reason: &str) -> Result<Changed> {
    let reason = bounded_text("reason", reason, 300)?;
    let mut tx = pool.begin().await?;
    let (order, conversation, bot) = owned(&mut tx, merchant_id, id).await?;
    if !order.status.is_live() {
        return Err(MerchantError::NotLive(order.status));
    }
    orders::set_status(&mut tx, order.id, OrderStatus::Cancelled, Some(reason)).await?;
    let was_paid = !order.status.is_open();
    let text = messages::order_cancelled_by_shop(order.number, reason, was_paid);
    let customer_told = tell_customer(
        &mut tx,
        &bot,
        &conversation,
        order.number,
        OrderStatus::Cancelled,
        text,
    )
    .await?;
    let update = super::payments::payment_update(&conversation, Event::OrderCancelled);
    let mut rows = vec![
        Entry::new(Actor::Merchant, Kind::OrderStatusChanged)
            .action(OrderStatus::Cancelled.as_str())
            .reason(reason)
            .detail(json!({"order_id": order.id, "order_number": order.number, "customer_told": customer_told, "from": order.status})),
    ];
    rows.extend(Entry::state_change(
        Actor::Merchant,
        conversation.state(),
        update.state,
        "order cancelled by the merchant",
    ));
    commit(tx, &conversation, &update, &rows).await?;
    Ok(Changed {
        order_id: order.id,
        number: order.number,
        status: OrderStatus::Cancelled,
        customer_told,
    })
}
