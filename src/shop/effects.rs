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
use super::core::{Cart, CartLine, Evaluation, ProductId};
use super::orders::{self, Order, OrderStatus};
use super::plan::OpenOrder;
use super::reply::{self, OrderRef, ReplyContext};
use super::{cart, payments};
use crate::audit::{Actor, Entry, Kind};
use crate::channels::OutPayload;
use crate::engine::{Effects, Written};
use crate::outbox::Author;

/// An order change a turn makes.
pub enum StoreOp {
    /// A confirmed cart becomes an order (numbered at commit); the audit row at
    /// `audit_index` learns its id and number.
    CreateOrder {
        lines: Vec<CartLine>,
        audit_index: usize,
    },
    /// Cancels the order created by this turn, or else the one waiting for payment.
    CancelOrder {
        audit_index: usize,
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
        for op in self.store {
            match op {
                StoreOp::CreateOrder { lines, audit_index } => {
                    let order =
                        orders::create(&mut *tx, at.bot, conversation.id, &lines, &self.catalog)
                            .await?;
                    let detail = &mut audit[audit_index].detail;
                    detail["order_id"] = json!(order.id);
                    detail["order_number"] = json!(order.number);
                    created = Some(order);
                }
                StoreOp::CancelOrder { audit_index } => {
                    let target = created
                        .as_ref()
                        .map(|o| o.id)
                        .or(self.open_order.as_ref().map(|o| o.id));
                    if let Some(order_id) = target {
                        orders::set_status(&mut *tx, order_id, OrderStatus::Cancelled, None)
                            .await?;
                        audit[audit_index].detail["order_id"] = json!(order_id);
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
                    payments::record_proof(&mut *tx, order_id, inbox_id, media.as_ref(), &text)
                        .await?;
                }
            }
        }
        if let Some(cart) = &self.cart {
            cart::save(&mut *tx, conversation.id, cart).await?;
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
                text: composed.text,
                choices: composed.choices,
            },
        )))
    }
}
