//! The one transaction of a turn: compare-and-set the conversation (which also
//! takes its row lock and hands the lease back), write the order changes, compose
//! the reply from what was written, mark every event of the burst processed, store
//! the cart, queue (or, for web chat, deliver) the reply and write the audit rows
//! and the turn's LLM calls.
//! Each step is one statement; nothing here calls out of the database.

use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use super::apply::{Decision, ReplyPlan, StoreOp, TurnInput};
use crate::audit::{self, Actor, Entry, Scope};
use crate::channels::OutPayload;
use crate::conversations;
use crate::finance::ledger::UserScope;
use crate::finance::writes;
use crate::inbox;
use crate::llm_calls::CallLog;
use crate::merchant_chat;
use crate::outbox;
use crate::shop::orders::{self, Order, OrderStatus};
use crate::shop::reply::{self, OrderRef, ReplyContext};
use crate::shop::{cart, payments};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitOutcome {
    Committed,
    /// The conversation changed since the snapshot (a takeover, a merchant action,
    /// a lease taken over): nothing was written; plan again.
    Conflict,
}

pub async fn commit(
    pool: &PgPool,
    owner: Uuid,
    input: &TurnInput<'_>,
    decision: Decision,
    console_url: Option<&str>,
    calls: &CallLog,
) -> anyhow::Result<CommitOutcome> {
    let TurnInput {
        snapshot,
        profile,
        burst,
    } = input;
    let conversation = &snapshot.conversation;
    let mut tx = pool.begin().await?;
    if !conversations::save_turn(&mut tx, conversation, &decision.update, owner).await? {
        return Ok(CommitOutcome::Conflict);
    }
    let mut audit_rows = decision.audit;
    let mut created: Option<Order> = None;
    for op in decision.store {
        match op {
            StoreOp::CreateOrder { lines, audit_index } => {
                let order = orders::create(
                    &mut tx,
                    &profile.bot,
                    conversation.id,
                    &lines,
                    &profile.catalog,
                )
                .await?;
                let detail = &mut audit_rows[audit_index].detail;
                detail["order_id"] = json!(order.id);
                detail["order_number"] = json!(order.number);
                created = Some(order);
            }
            StoreOp::CancelOrder { audit_index } => {
                let target = created
                    .as_ref()
                    .map(|o| o.id)
                    .or(snapshot.open_order.as_deref().map(|o| o.id));
                if let Some(order_id) = target {
                    orders::set_status(&mut tx, order_id, OrderStatus::Cancelled, None).await?;
                    audit_rows[audit_index].detail["order_id"] = json!(order_id);
                }
            }
            StoreOp::SetStatus { order_id, status } => {
                orders::set_status(&mut tx, order_id, status, None).await?;
            }
            StoreOp::RecordProof {
                order_id,
                inbox_id,
                media,
                text,
            } => {
                payments::record_proof(&mut tx, order_id, inbox_id, media.as_ref(), &text).await?;
            }
        }
    }
    let reply = decision.reply.map(|plan| match plan {
        ReplyPlan::Fixed(author, payload) => (author, payload),
        ReplyPlan::Compose(job) => {
            let confirmed = created.as_ref().map(|o| OrderRef {
                number: o.number,
                total_minor: o.total_minor,
            });
            let bot = &profile.bot;
            let composed = reply::compose(
                &job.eval,
                &job.proposal_text,
                &ReplyContext {
                    bot_name: &bot.name,
                    currency: &bot.currency,
                    catalog: &profile.catalog,
                    cart_before: &job.cart_before,
                    open_order: job.open_order.as_ref(),
                    confirmed_order: confirmed.as_ref(),
                    payment_instructions: &bot.payment_instructions,
                    greeted: job.greeted,
                    offer: &job.offer,
                    offer_person: job.offer_person,
                },
            );
            if let Some(why) = &composed.replaced {
                let proposed: String = job.proposal_text.chars().take(600).collect();
                audit_rows.push(
                    Entry::new(Actor::Backend, "reply_replaced")
                        .reason(why.clone())
                        .detail(json!({ "proposed_text": proposed })),
                );
            }
            (
                job.author,
                OutPayload {
                    text: composed.text,
                    choices: composed.choices,
                },
            )
        }
    });
    if !decision.finance.is_empty() {
        let user = UserScope {
            bot_id: conversation.bot_id,
            contact_id: conversation.contact_id,
        };
        for write in &decision.finance {
            writes::execute(&mut tx, user, &profile.bot.currency, write, burst.head_id()).await?;
        }
    }
    inbox::mark_done(&mut tx, &burst.ids).await?;
    if let Some(cart) = &decision.cart {
        cart::save(&mut tx, conversation.id, cart).await?;
    }
    if let Some((author, payload)) = &reply {
        outbox::enqueue(
            &mut tx,
            conversation.id,
            *author,
            payload,
            Some(burst.head_id()),
        )
        .await?;
    }
    if let (Some(notice), Some(chat)) = (&decision.merchant_notice, &profile.bot.merchant_chat_id) {
        let (text, choices) = merchant_chat::notice(notice, conversation.id, console_url);
        outbox::enqueue_for_merchant(
            &mut tx,
            conversation.id,
            Some(chat),
            &OutPayload { text, choices },
        )
        .await?;
    }
    let scope = Scope {
        bot_id: conversation.bot_id,
        conversation_id: Some(conversation.id),
        inbox_id: Some(burst.head_id()),
    };
    audit::record(&mut tx, scope, &audit_rows).await?;
    let recorded = calls.write(&mut tx).await?;
    tx.commit().await?;
    calls.committed(recorded);
    Ok(CommitOutcome::Committed)
}
