//! A shop turn's own rows, written by the turn's transaction after the
//! conversation's compare-and-set: orders created (numbered by the database),
//! cancelled or expired, payment proofs kept, the cart stored — and the reply
//! composed from what was written (a confirmed order's number and total).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

use super::catalog::CatalogIndex;
use super::core::State;
use super::core::{Cart, CartLine, Evaluation, ProductId, Settled};
use super::orders::{self, Order, OrderStatus};
use super::plan::OpenOrder;
use super::reply::{self, OrderRef, ReplyContext};
use super::{cart, messages, payments, stock};
use crate::audit::{Actor, Entry, Kind};
use crate::channels::OutPayload;
use crate::engine::{Effects, Written};
use crate::notices::{self, Notice};
use crate::outbox::{self, Author};

/// The units of a confirmed order ran out while the customer decided (another
/// customer's order took them): no order, the cart as it was, the conversation
/// back to its cart, and the customer told which item and how many are left.
async fn ran_short(
    tx: &mut PgConnection,
    at: &Written<'_>,
    audit: &mut Vec<Entry>,
    short: &stock::Shortage,
) -> anyhow::Result<Option<(Author, OutPayload)>> {
    crate::conversations::restate(&mut *tx, at.conversation.id, State::CartOpen.into()).await?;
    audit.push(
        Entry::new(Actor::Backend, Kind::ActionRejected)
            .action("CONFIRM_ORDER")
            .reason(format!(
                "out of stock when the order was written: {} asked {}, {} left",
                short.name, short.requested, short.available
            ))
            .detail(json!({
                "code": "out_of_stock",
                "value": {"product_id": short.product_id, "requested": short.requested, "available": short.available},
            })),
    );
    audit.extend(Entry::state_change(
        Actor::Backend,
        State::AwaitingPayment,
        State::CartOpen,
        "an item ran out before the order was written",
    ));
    Ok(Some((
        Author::Bot,
        OutPayload {
            template: None,
            text: messages::ran_short(&short.name, short.requested, short.available),
            choices: Vec::new(),
            file: None,
        },
    )))
}

/// Tells the merchant's chat which products this order took to the bot's
/// low-stock threshold, or sold out.
async fn tell_stock(
    tx: &mut PgConnection,
    at: &Written<'_>,
    levels: &[stock::Level],
) -> anyhow::Result<()> {
    for level in levels {
        let notice = if level.fell_to(0) {
            Notice::SoldOut {
                product: level.name.clone(),
            }
        } else if at
            .bot
            .low_stock_threshold
            .is_some_and(|threshold| level.fell_to(i64::from(threshold)))
        {
            Notice::StockLow {
                product: level.name.clone(),
                left: level.after,
            }
        } else {
            continue;
        };
        let (text, choices) = notices::render(&notice, at.conversation.id, None);
        outbox::enqueue_for_merchant(
            &mut *tx,
            at.conversation.id,
            None,
            &OutPayload {
                text,
                choices,
                template: None,
                file: None,
            },
        )
        .await?;
    }
    Ok(())
}

/// The order a turn's change is about: the one it created, or else the one
/// waiting for payment.
fn this_turns_order(created: Option<&Order>, open: Option<Uuid>) -> Option<Uuid> {
    created.map(|o| o.id).or(open)
}

/// An order change a turn makes.
pub enum StoreOp {
    /// A confirmed cart becomes an order (numbered at commit); the audit row at
    /// `audit_index` learns its id and number.
    CreateOrder {
        lines: Vec<CartLine>,
        /// Pickup or delivery, with the zone's fee (none when nothing was asked).
        fulfilment: Option<Settled>,
        audit_index: usize,
    },
    /// Cancels the order created by this turn, or else the one waiting for payment.
    CancelOrder {
        audit_index: usize,
    },
    /// The address of the order waiting for payment, placed for delivery
    /// without one.
    SetAddress {
        address: String,
    },
    SetStatus {
        order_id: Uuid,
        status: OrderStatus,
    },
    RecordProof {
        order_id: Uuid,
        inbox_id: i64,
        media: Option<Value>,
        text: String,
    },
}

/// A reply composed at commit from the evaluation and what was written.
pub struct ComposeJob {
    pub author: Author,
    pub eval: Evaluation,
    pub proposal_text: String,
    pub cart_before: Cart,
    pub open_order: Option<OrderRef>,
    pub greeted: bool,
    /// Products offered as numbered choices.
    pub offer: Vec<ProductId>,
    /// Offer a person after clarifications that got nowhere.
    pub offer_person: bool,
    /// Answers of the shop's knowledge to questions of the same message, first.
    pub preface: Vec<String>,
}

pub struct ShopEffects {
    pub catalog: Arc<CatalogIndex>,
    pub open_order: Option<OpenOrder>,
    pub cart: Option<Cart>,
    pub store: Vec<StoreOp>,
    pub compose: Option<Box<ComposeJob>>,
}

#[async_trait]
impl Effects for ShopEffects {
    async fn write(
        self: Box<Self>,
        tx: &mut PgConnection,
        at: &Written<'_>,
        audit: &mut Vec<Entry>,
    ) -> anyhow::Result<Option<(Author, OutPayload)>> {
        let conversation = at.conversation;
        let mut created: Option<Order> = None;
        let open = self.open_order.as_ref().map(|o| o.id);
        for op in self.store {
            match op {
                StoreOp::CreateOrder {
                    lines,
                    fulfilment,
                    audit_index,
                } => {
                    let made = orders::create(
                        &mut *tx,
                        at.bot,
                        conversation.id,
                        &lines,
                        fulfilment.as_ref(),
                        &self.catalog,
                    )
                    .await?;
                    match made {
                        Ok(orders::Created { order, levels }) => {
                            let detail = &mut audit[audit_index].detail;
                            detail["order_id"] = json!(order.id);
                            detail["order_number"] = json!(order.number);
                            tell_stock(&mut *tx, at, &levels).await?;
                            created = Some(order);
                        }
                        Err(short) => return ran_short(&mut *tx, at, audit, &short).await,
                    }
                }
                StoreOp::CancelOrder { audit_index } => {
                    if let Some(order_id) = this_turns_order(created.as_ref(), open) {
                        orders::set_status(&mut *tx, order_id, OrderStatus::Cancelled, None)
                            .await?;
                        audit[audit_index].detail["order_id"] = json!(order_id);
                    }
                }
                StoreOp::SetAddress { address } => {
                    if let Some(order_id) = this_turns_order(created.as_ref(), open) {
                        orders::set_address(&mut *tx, order_id, &address).await?;
                    }
                }
                StoreOp::SetStatus { order_id, status } => {
                    orders::set_status(&mut *tx, order_id, status, None).await?;
                }
                StoreOp::RecordProof {
                    order_id,
                    inbox_id,
                    media,
                    text,
                } => {
                    payments::record_proof(
                        &mut *tx,
                        conversation.bot_id,
                        order_id,
                        inbox_id,
                        media.as_ref(),
                        &text,
                    )
                    .await?;
                }
            }
        }
        if let Some(cart) = &self.cart {
            cart::save(&mut *tx, conversation.bot_id, conversation.id, cart).await?;
        }
        let Some(job) = self.compose else {
            return Ok(None);
        };
        let confirmed = created.as_ref().map(|o| OrderRef {
            number: o.number,
            total_minor: o.total_minor,
        });
        let bot = at.bot;
        let composed = reply::compose(
            &job.eval,
            &job.proposal_text,
            &ReplyContext {
                bot_name: &bot.name,
                currency: &bot.currency,
                catalog: &self.catalog,
                cart_before: &job.cart_before,
                open_order: job.open_order.as_ref(),
                confirmed_order: confirmed.as_ref(),
                payment_instructions: &bot.payment_instructions,
                greeted: job.greeted,
                offer: &job.offer,
                offer_person: job.offer_person,
                preface: &job.preface,
                delivery: &super::delivery::options(bot, &self.catalog.zones),
            },
        );
        if let Some(why) = &composed.replaced {
            let proposed: String = job.proposal_text.chars().take(600).collect();
            audit.push(
                Entry::new(Actor::Backend, Kind::ReplyReplaced)
                    .reason(why.clone())
                    .detail(json!({ "proposed_text": proposed })),
            );
        }
        Ok(Some((
            job.author,
            OutPayload {
                template: None,
                text: composed.text,
                choices: composed.choices,
                file: None,
            },
        )))
    }
}
