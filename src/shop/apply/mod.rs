//! Turning a shop plan into the turn's decision: what to write, audit and say.
//! One handler per plan, each in its own file with its own `apply`; all of them
//! are pure functions of the turn, so the commit only writes what was decided
//! here (plus the order numbering, which only the database can hand out, and the
//! reply composed from it: `effects`).

mod escalate;
mod guard;
mod knowledge;
mod payment_proof;
mod payment_timeout;
mod propose;
mod say;
mod session_timeout;

use std::sync::Arc;

use super::catalog::CatalogIndex;
use super::core::Cart;
use super::effects::{ComposeJob, ShopEffects, StoreOp};
use super::plan::{OpenOrder, Plan};
use crate::audit::Entry;
use crate::bots::Bot;
use crate::conversations::Update;
use crate::engine::{self, Burst, Turn, TurnSnapshot};
use crate::notices::Notice;
use crate::outbox::Author;

/// What every handler reads.
pub struct TurnInput<'a> {
    pub snapshot: &'a TurnSnapshot,
    pub bot: &'a Bot,
    pub burst: &'a Burst,
    pub catalog: &'a Arc<CatalogIndex>,
    pub open_order: Option<&'a OpenOrder>,
}

impl<'a> TurnInput<'a> {
    pub fn new(
        turn: &'a Turn<'a>,
        catalog: &'a Arc<CatalogIndex>,
        open_order: Option<&'a OpenOrder>,
    ) -> Self {
        TurnInput {
            snapshot: turn.snapshot,
            bot: turn.bot,
            burst: turn.burst,
            catalog,
            open_order,
        }
    }
}

/// A shop turn's decision, as its handlers build it.
pub struct Decision {
    pub update: Update,
    pub audit: Vec<Entry>,
    /// The cart to store, when it changed.
    pub cart: Option<Cart>,
    /// Order changes, in order.
    pub store: Vec<StoreOp>,
    pub reply: Option<ReplyPlan>,
    /// A payment proof for the merchant's chat.
    pub notice: Option<Notice>,
}

/// What the customer will read.
pub enum ReplyPlan {
    Fixed(Author, String),
    /// Composed at commit, once the order number (if any) is known.
    Compose(Box<ComposeJob>),
}

impl Decision {
    fn keep(input: &TurnInput<'_>) -> Decision {
        Decision {
            update: Update::keep(&input.snapshot.conversation),
            audit: Vec::new(),
            cart: None,
            store: Vec::new(),
            reply: None,
            notice: None,
        }
    }

    pub(super) fn say(&mut self, author: Author, text: impl Into<String>) {
        self.reply = Some(ReplyPlan::Fixed(author, text.into()));
    }

    /// The engine's decision: fixed replies go as they are; orders, the cart and a
    /// composed reply are written by the shop's effects in the turn's transaction.
    fn into_engine(self, kind: &'static str, input: &TurnInput<'_>) -> engine::Decision {
        let mut decision = engine::Decision::keep(kind, &input.snapshot.conversation);
        decision.update = self.update;
        decision.audit = self.audit;
        decision.notice = self.notice;
        let compose = match self.reply {
            Some(ReplyPlan::Fixed(author, text)) => {
                decision.say(author, text);
                None
            }
            Some(ReplyPlan::Compose(job)) => Some(job),
            None => None,
        };
        if compose.is_some() || self.cart.is_some() || !self.store.is_empty() {
            decision.effects = Some(Box::new(ShopEffects {
                catalog: input.catalog.clone(),
                open_order: input.open_order.cloned(),
                cart: self.cart,
                store: self.store,
                compose,
            }));
        }
        decision
    }
}

pub fn apply(input: &TurnInput<'_>, plan: Plan) -> engine::Decision {
    let kind = plan.kind();
    let mut decision = Decision::keep(input);
    if let Some(start) = plan.start() {
        // COMPLETED becomes IDLE on the customer's next message.
        let conversation = &input.snapshot.conversation;
        decision.audit.extend(Entry::state_change(
            crate::audit::Actor::Customer,
            conversation.state(),
            start,
            "new message after completion",
        ));
        decision.update.state = start.into();
        decision.update.activity = true;
    }
    match plan {
        Plan::Escalate { notice, .. } => escalate::apply(input, notice, &mut decision),
        Plan::Guard { class, memo, .. } => guard::apply(input, class, memo, &mut decision),
        Plan::Knowledge { answers, memo, .. } => {
            knowledge::apply(&answers, &mut decision);
            if let Some(memo) = memo {
                decision.update.draft = memo.stored();
            }
        }
        Plan::PaymentProof {
            payload, answers, ..
        } => payment_proof::apply(input, &payload, &answers, &mut decision),
        Plan::Say { text, .. } => say::apply(text, &mut decision),
        Plan::Propose(plan) => propose::apply(input, *plan, &mut decision),
        Plan::SessionTimeout { current } => session_timeout::apply(input, current, &mut decision),
        Plan::PaymentTimeout { order_id, current } => {
            payment_timeout::apply(input, order_id, current, &mut decision)
        }
    }
    decision.into_engine(kind, input)
}
