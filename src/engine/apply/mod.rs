//! Turning a plan into a decision: what to write, audit and say. One handler per
//! plan, each in its own file with its own `apply`; all of them are pure functions
//! of the snapshot, so the commit only writes what was decided here (plus the
//! order numbering, which only the database can hand out).

mod escalate;
mod finance;
mod guard;
mod hold;
mod payment_proof;
mod payment_timeout;
mod propose;
mod say;
mod session_timeout;
mod silent;

use serde_json::Value;
use uuid::Uuid;

use super::burst::Burst;
use super::plan::Plan;
use super::profiles::BotProfile;
use crate::audit::{Actor, Entry};
use crate::channels::OutPayload;
use crate::conversation::{Cart, CartLine, Evaluation};
use crate::conversations::{TurnSnapshot, Update};
use crate::merchant_chat::Notice;
use crate::outbox::Author;
use crate::shop::orders::OrderStatus;
use crate::shop::reply::OrderRef;

/// Everything a turn's commit writes.
pub struct Decision {
    pub update: Update,
    pub audit: Vec<Entry>,
    /// The cart to store, when it changed.
    pub cart: Option<Cart>,
    /// Order changes, in order.
    pub store: Vec<StoreOp>,
    /// Confirmed finance writes (at most one per turn).
    pub finance: Vec<crate::finance::core::Write>,
    pub reply: Option<ReplyPlan>,
    /// What the merchant's own chat hears about this turn, if anything.
    pub merchant_notice: Option<Notice>,
}

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

/// What the customer will read.
pub enum ReplyPlan {
    Fixed(Author, OutPayload),
    /// Composed at commit, once the order number (if any) is known.
    Compose(Box<ComposeJob>),
}

pub struct ComposeJob {
    pub author: Author,
    pub eval: Evaluation,
    pub proposal_text: String,
    pub cart_before: Cart,
    pub open_order: Option<OrderRef>,
    pub greeted: bool,
    /// Products offered as numbered choices.
    pub offer: Vec<crate::conversation::ProductId>,
    /// Offer a person after clarifications that got nowhere.
    pub offer_person: bool,
}

/// What every handler reads.
pub struct TurnInput<'a> {
    pub snapshot: &'a TurnSnapshot,
    pub profile: &'a BotProfile,
    pub burst: &'a Burst,
}

impl Decision {
    fn keep(snapshot: &TurnSnapshot) -> Decision {
        Decision {
            update: Update::keep(&snapshot.conversation),
            audit: Vec::new(),
            cart: None,
            store: Vec::new(),
            finance: Vec::new(),
            reply: None,
            merchant_notice: None,
        }
    }

    fn say(&mut self, author: Author, text: impl Into<String>) {
        self.reply = Some(ReplyPlan::Fixed(
            author,
            OutPayload {
                text: text.into(),
                choices: Vec::new(),
            },
        ));
    }
}

pub fn apply(input: &TurnInput<'_>, plan: Plan) -> Decision {
    let mut decision = Decision::keep(input.snapshot);
    if let Some(start) = plan.start() {
        // COMPLETED becomes IDLE on the customer's next message.
        decision.audit.extend(Entry::state_change(
            Actor::Customer,
            input.snapshot.conversation.state(),
            start,
            "new message after completion",
        ));
        decision.update.state = start;
        decision.update.activity = true;
    }
    match plan {
        Plan::Silent => silent::apply(&mut decision),
        Plan::Escalate { start, notice } => escalate::apply(input, start, notice, &mut decision),
        Plan::Finance(plan) => finance::apply(input, *plan, &mut decision),
        Plan::Guard { class, memo, .. } => guard::apply(input, class, memo, &mut decision),
        Plan::Hold {
            notify,
            last_minute,
            per_minute,
        } => hold::apply(input, notify, last_minute, per_minute, &mut decision),
        Plan::PaymentProof { payload, .. } => payment_proof::apply(input, &payload, &mut decision),
        Plan::Say { text, .. } => say::apply(text, &mut decision),
        Plan::Propose(plan) => propose::apply(input, *plan, &mut decision),
        Plan::SessionTimeout { current } => session_timeout::apply(input, current, &mut decision),
        Plan::PaymentTimeout { order_id, current } => {
            payment_timeout::apply(input, order_id, current, &mut decision)
        }
    }
    decision.merchant_notice = merchant_notice(input, &decision);
    decision
}

/// Read off the decision rather than set by each handler, so no path that hands
/// a conversation to a person (a request, repeated abuse, a finance escalation,
/// the loop protection's "sí") or keeps a proof can forget to tell the merchant.
fn merchant_notice(input: &TurnInput<'_>, decision: &Decision) -> Option<Notice> {
    let proof = decision.store.iter().find_map(|op| match op {
        StoreOp::RecordProof { order_id, .. } => Some(*order_id),
        _ => None,
    });
    if let Some(order_id) = proof
        && let Some(order) = input
            .snapshot
            .open_order
            .as_deref()
            .filter(|o| o.id == order_id)
    {
        return Some(Notice::PaymentProof {
            order_number: order.number,
            total_minor: order.total_minor,
            currency: order.currency.clone(),
        });
    }
    let handed_over = decision.update.human_override && !input.snapshot.conversation.human_override;
    handed_over.then(|| Notice::Escalated {
        last_message: match &input.burst.command {
            super::burst::Command::Message(message) => message.text.clone(),
            _ => String::new(),
        },
    })
}
