//! Orders: created at confirmation with a copy of names and prices (and their
//! units reserved), then paid, cancelled or expired; a paid order is followed to
//! the door (preparing, ready or on its way, delivered) or cancelled by the
//! merchant.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use super::catalog::CatalogIndex;
use super::stock::{self, Level, Shortage, StockState};
use crate::bots::Bot;
use crate::shop::core::{CartLine, Settled};

/// Where an order stands; stored as its snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum OrderStatus {
    AwaitingPayment,
    ProofReceived,
    Paid,
    Preparing,
    /// Ready for the customer to pick up.
    Ready,
    OnTheWay,
    Delivered,
    Cancelled,
    Expired,
}

impl OrderStatus {
    pub const ALL: [OrderStatus; 9] = [
        OrderStatus::AwaitingPayment,
        OrderStatus::ProofReceived,
        OrderStatus::Paid,
        OrderStatus::Preparing,
        OrderStatus::Ready,
        OrderStatus::OnTheWay,
        OrderStatus::Delivered,
        OrderStatus::Cancelled,
        OrderStatus::Expired,
    ];

    /// Statuses in which an order still waits for the customer's payment.
    pub const OPEN: [OrderStatus; 2] = [OrderStatus::AwaitingPayment, OrderStatus::ProofReceived];

    /// Paid and on its way to the customer, not there yet.
    pub const FULFILLING: [OrderStatus; 4] = [
        OrderStatus::Paid,
        OrderStatus::Preparing,
        OrderStatus::Ready,
        OrderStatus::OnTheWay,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::AwaitingPayment => "awaiting_payment",
            OrderStatus::ProofReceived => "proof_received",
            OrderStatus::Paid => "paid",
            OrderStatus::Preparing => "preparing",
            OrderStatus::Ready => "ready",
            OrderStatus::OnTheWay => "on_the_way",
            OrderStatus::Delivered => "delivered",
            OrderStatus::Cancelled => "cancelled",
            OrderStatus::Expired => "expired",
        }
    }

    pub fn is_open(self) -> bool {
        Self::OPEN.contains(&self)
    }

    /// Not finished: waiting for payment or on its way to the customer. A
    /// merchant may cancel it.
    pub fn is_live(self) -> bool {
        self.is_open() || Self::FULFILLING.contains(&self)
    }

    /// Whether a merchant may move an order from `self` to `to` after its
    /// payment: forward only (paid → preparing → ready or on the way →
    /// delivered; a step may be skipped, a ready order may still be sent).
    pub fn can_follow_with(self, to: OrderStatus) -> bool {
        fn rank(status: OrderStatus) -> Option<u8> {
            Some(match status {
                OrderStatus::Paid => 0,
                OrderStatus::Preparing => 1,
                OrderStatus::Ready | OrderStatus::OnTheWay => 2,
                OrderStatus::Delivered => 3,
                _ => return None,
            })
        }
        match (rank(self), rank(to)) {
            (Some(from), Some(next)) => {
                next > from || (self == OrderStatus::Ready && to == OrderStatus::OnTheWay)
            }
            _ => false,
        }
    }
}

/// A status name that is not one of the nine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown order status `{0}` (awaiting_payment, proof_received, paid, preparing, ready, on_the_way, delivered, cancelled or expired)"
)]
pub struct UnknownStatus(pub String);

impl std::str::FromStr for OrderStatus {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<Self, UnknownStatus> {
        OrderStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| UnknownStatus(s.to_owned()))
    }
}

/// An order in the merchant's list.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Listed {
    pub id: Uuid,
    pub bot: String,
    pub number: i64,
    pub conversation_id: Uuid,
    pub status: OrderStatus,
    pub total_minor: i64,
    pub currency: String,
    pub payment_due_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub paid_at: Option<DateTime<Utc>>,
}

/// The merchant's orders, newest first, by bot and status if given.
pub async fn list_for_merchant(
    db: impl PgExecutor<'_>,
    merchant_id: Uuid,
    bot: Option<&str>,
    status: Option<OrderStatus>,
    limit: i64,
) -> sqlx::Result<Vec<Listed>> {
    sqlx::query_as(
        "SELECT o.id, b.slug AS bot, o.number, o.conversation_id, o.status, o.total_minor,
                o.currency::text AS currency, o.payment_due_at, o.created_at, o.paid_at
         FROM orders o JOIN bots b ON b.id = o.bot_id
         WHERE b.merchant_id = $1 AND ($2::text IS NULL OR b.slug = $2)
           AND ($3::text IS NULL OR o.status = $3)
         ORDER BY o.created_at DESC LIMIT $4",
    )
    .bind(merchant_id)
    .bind(bot)
    .bind(status.map(OrderStatus::as_str))
    .bind(limit)
    .fetch_all(db)
    .await
}

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Order {
    pub id: Uuid,
    pub bot_id: Uuid,
    pub number: i64,
    pub conversation_id: Uuid,
    pub status: OrderStatus,
    pub total_minor: i64,
    pub currency: String,
    pub payment_due_at: DateTime<Utc>,
    pub rejection_reason: Option<String>,
    pub cancel_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub paid_at: Option<DateTime<Utc>>,
    pub stock_state: StockState,
    /// `pickup` or `delivery` (none when the shop asked nothing).
    pub fulfilment: Option<String>,
    pub delivery_zone: Option<String>,
    pub delivery_address: Option<String>,
    /// Part of `total_minor`.
    pub delivery_fee_minor: i64,
}

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct OrderItem {
    pub product_id: i64,
    pub name: String,
    pub unit_price_minor: i64,
    pub quantity: i32,
    pub line_total_minor: i64,
}

const ORDER_COLUMNS: &str = "id, bot_id, number, conversation_id, status, total_minor, currency::text AS currency, \
     payment_due_at, rejection_reason, cancel_reason, created_at, paid_at, stock_state, \
     fulfilment, delivery_zone, delivery_address, delivery_fee_minor";

/// An order created with its units held, and the tracked products' levels.
pub struct Created {
    pub order: Order,
    pub levels: Vec<Level>,
}

/// Creates the order and reserves its units in the caller's transaction, or
/// creates nothing when a line no longer fits in what is left.
pub async fn create(
    conn: &mut PgConnection,
    bot: &Bot,
    conversation_id: Uuid,
    lines: &[CartLine],
    fulfilment: Option<&Settled>,
    catalog: &CatalogIndex,
) -> sqlx::Result<Result<Created, Shortage>> {
    let levels = match stock::reserve(&mut *conn, lines).await? {
        Ok(levels) => levels,
        Err(shortage) => return Ok(Err(shortage)),
    };
    let held = if levels.is_empty() {
        StockState::None
    } else {
        StockState::Held
    };
    // The bot row lock serializes numbering per bot only for this short update.
    let number: i64 = sqlx::query_scalar(
        "UPDATE bots SET last_order_number = last_order_number + 1 WHERE id = $1 RETURNING last_order_number",
    )
    .bind(bot.id)
    .fetch_one(&mut *conn)
    .await?;
    let fee = fulfilment.map_or(0, |f| f.fee_minor);
    let total: i64 = lines.iter().map(CartLine::line_total_minor).sum::<i64>() + fee;
    let order: Order = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO orders (bot_id, number, conversation_id, status, total_minor, currency, payment_due_at,
                             stock_state, fulfilment, delivery_zone, delivery_address, delivery_fee_minor)
         VALUES ($1, $2, $3, 'awaiting_payment', $4, $5, now() + make_interval(secs => $6), $7, $8, $9, $10, $11)
         RETURNING {ORDER_COLUMNS}"
    )))
    .bind(bot.id)
    .bind(number)
    .bind(conversation_id)
    .bind(total)
    .bind(&bot.currency)
    .bind(f64::from(bot.payment_timeout_secs))
    .bind(held)
    .bind(fulfilment.map(|f| f.mode.as_str()))
    .bind(fulfilment.and_then(|f| f.zone.as_ref().map(|z| z.name.clone())))
    .bind(fulfilment.and_then(|f| f.address.clone()))
    .bind(fee)
    .fetch_one(&mut *conn)
    .await?;
    let mut builder = sqlx::QueryBuilder::new(
        "INSERT INTO order_items (bot_id, order_id, product_id, name, unit_price_minor, quantity, line_total_minor, position) ",
    );
    builder.push_values(lines.iter().enumerate(), |mut row, (i, line)| {
        row.push_bind(order.bot_id)
            .push_bind(order.id)
            .push_bind(line.product_id)
            .push_bind(catalog.name(line.product_id).to_owned())
            .push_bind(line.unit_price_minor)
            .push_bind(line.quantity as i32)
            .push_bind(line.line_total_minor())
            .push_bind(i as i32);
    });
    builder.build().execute(conn).await?;
    Ok(Ok(Created { order, levels }))
}

/// The order of a conversation that still waits for payment, if any.
pub async fn open_for(
    db: impl PgExecutor<'_>,
    conversation_id: Uuid,
) -> sqlx::Result<Option<Order>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE conversation_id = $1 AND status = ANY($2)
         ORDER BY created_at DESC LIMIT 1"
    )))
    .bind(conversation_id)
    .bind(OrderStatus::OPEN.map(OrderStatus::as_str).to_vec())
    .fetch_optional(db)
    .await
}

pub async fn latest_for(
    db: impl PgExecutor<'_>,
    conversation_id: Uuid,
) -> sqlx::Result<Option<Order>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE conversation_id = $1 ORDER BY created_at DESC LIMIT 1"
    )))
    .bind(conversation_id)
    .fetch_optional(db)
    .await
}

/// A conversation's orders, newest first (its whole history with the shop).
pub async fn of_conversation(
    db: impl PgExecutor<'_>,
    conversation_id: Uuid,
    limit: i64,
) -> sqlx::Result<Vec<Order>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE conversation_id = $1
         ORDER BY created_at DESC LIMIT $2"
    )))
    .bind(conversation_id)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// The id of the bot's order with this number (what customers and merchants see).
pub async fn by_number(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    number: i64,
) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar("SELECT id FROM orders WHERE bot_id = $1 AND number = $2")
        .bind(bot_id)
        .bind(number)
        .fetch_optional(db)
        .await
}

pub async fn by_id(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<Option<Order>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(db)
    .await
}

pub async fn lock(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<Order>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE id = $1 FOR UPDATE"
    )))
    .bind(id)
    .fetch_optional(conn)
    .await
}

pub async fn items(db: impl PgExecutor<'_>, order_id: Uuid) -> sqlx::Result<Vec<OrderItem>> {
    sqlx::query_as(
        "SELECT product_id, name, unit_price_minor, quantity, line_total_minor
         FROM order_items WHERE order_id = $1 ORDER BY position",
    )
    .bind(order_id)
    .fetch_all(db)
    .await
}

/// Keeps the address of an order placed for delivery without one, while it
/// waits for payment (never another order's, never a pickup's).
pub async fn set_address(conn: &mut PgConnection, id: Uuid, address: &str) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE orders SET delivery_address = $2
         WHERE id = $1 AND status IN ('awaiting_payment', 'proof_received')
           AND fulfilment = 'delivery'
           AND delivery_address IS NULL",
    )
    .bind(id)
    .bind(address)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Moves an order to `status` and its units with it: a payment consumes the
/// units it held, an end (cancelled, expired) returns them, held or sold.
/// `reason` is why a proof was rejected (back to `awaiting_payment`) or why the
/// order was cancelled. `closed_at` or `paid_at` follow from the status.
pub async fn set_status(
    conn: &mut PgConnection,
    id: Uuid,
    status: OrderStatus,
    reason: Option<&str>,
) -> sqlx::Result<()> {
    let units: Option<StockState> =
        sqlx::query_scalar("SELECT stock_state FROM orders WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    sqlx::query(
        "UPDATE orders SET status = $2,
            rejection_reason = CASE WHEN $2 = 'awaiting_payment' THEN coalesce($3, rejection_reason)
                                    ELSE rejection_reason END,
            cancel_reason = CASE WHEN $2 = 'cancelled' THEN $3 ELSE cancel_reason END,
            paid_at = CASE WHEN $2 = 'paid' THEN now() ELSE paid_at END,
            closed_at = CASE WHEN $2 IN ('paid', 'cancelled', 'expired') THEN now() ELSE closed_at END,
            status_changed_at = now()
         WHERE id = $1",
    )
    .bind(id)
    .bind(status)
    .bind(reason)
    .execute(&mut *conn)
    .await?;
    let Some(units) = units else {
        return Ok(());
    };
    let to = match status {
        OrderStatus::Paid => StockState::Consumed,
        OrderStatus::Cancelled | OrderStatus::Expired => StockState::Returned,
        _ => return Ok(()),
    };
    stock::settle(conn, id, units, to).await
}

/// Queues a payment timeout for every order past its payment deadline, as an
/// inbox event of its conversation, so it runs as an ordinary turn: in order,
/// under the lease, exactly once. Safe to run on every replica.
pub async fn queue_payment_timeouts(pool: &sqlx::PgPool) -> sqlx::Result<u64> {
    let mut tx = pool.begin().await?;
    let queued = sqlx::query(
        "INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload)
         SELECT o.bot_id, o.conversation_id, 'payment-timeout:' || o.id || ':' || c.version, $1,
                jsonb_build_object('order_id', o.id)
         FROM orders o JOIN conversations c ON c.id = o.conversation_id
         WHERE o.status = $2 AND o.payment_due_at < now() AND NOT c.human_override
         ON CONFLICT (bot_id, external_id) DO NOTHING",
    )
    .bind(crate::inbox::EventKind::PaymentTimeout)
    .bind(OrderStatus::AwaitingPayment)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if queued > 0 {
        crate::inbox::wake(&mut tx, Uuid::nil()).await?;
    }
    tx.commit().await?;
    Ok(queued)
}
