//! Deciding what a turn will do, before its transaction opens: backend-detected
//! events first, then (only if needed) the proposer, bounded in time.

use std::time::Duration;

use uuid::Uuid;

use super::burst::{Burst, Command};
use super::profiles::BotProfile;
use crate::agent::contract::{
    CartLineView, CartView, CatalogEntry, HistoryEntry, ProposalInput, TurnContext,
};
use crate::agent::rules::grounding::Ungrounded;
use crate::agent::{Proposal, ProposedAction, Proposer};
use crate::conversation::classify::{MessageClass, classify};
use crate::conversation::detect::{self, Inbound};
use crate::conversation::{
    Cart, CartLine, Event, ForeignState, State, StoredState, on_customer_message,
};
use crate::conversations::TurnSnapshot;
use crate::inbox::MessagePayload;
use crate::shop::catalog::CatalogIndex;
use crate::shop::memo::ShopMemo;
use crate::shop::messages;

/// What a turn will do.
pub enum Plan {
    /// Human override is on: keep the messages, say nothing.
    Silent,
    /// Backend-detected escalation; `notice` is the profile's handoff message.
    Escalate {
        start: StoredState,
        notice: &'static str,
    },
    /// An image or payment words while an order waits for payment.
    PaymentProof {
        start: State,
        payload: MessagePayload,
    },
    /// A fixed answer that needs no proposer.
    Say {
        start: StoredState,
        text: &'static str,
    },
    /// A proposal to validate against the matrix.
    Propose(Box<ProposePlan>),
    SessionTimeout {
        current: State,
    },
    PaymentTimeout {
        order_id: Uuid,
        current: State,
    },
    /// A finance turn, decided whole before the commit.
    Finance(Box<super::finance::FinancePlan>),
    /// More messages in a minute than the contact may send: kept, not proposed;
    /// `notify` says "un momento" (once, on the burst that crossed the limit).
    Hold {
        notify: bool,
        last_minute: i64,
        per_minute: u32,
    },
    /// Small talk, an off-topic question or abuse: answered without a proposer.
    Guard {
        start: State,
        class: MessageClass,
        memo: ShopMemo,
    },
}

impl Plan {
    /// A short name, for metric labels.
    pub fn kind(&self) -> &'static str {
        match self {
            Plan::Silent => "silent",
            Plan::Escalate { .. } => "escalate",
            Plan::PaymentProof { .. } => "payment_proof",
            Plan::Say { .. } => "say",
            Plan::Propose(_) => "propose",
            Plan::SessionTimeout { .. } => "session_timeout",
            Plan::PaymentTimeout { .. } => "payment_timeout",
            Plan::Finance(_) => "finance",
            Plan::Guard { .. } => "guard",
            Plan::Hold { .. } => "hold",
        }
    }

    /// The state a customer message starts from, for plans made of one.
    pub fn start(&self) -> Option<StoredState> {
        match self {
            Plan::Escalate { start, .. } | Plan::Say { start, .. } => Some(*start),
            Plan::PaymentProof { start, .. } | Plan::Guard { start, .. } => Some((*start).into()),
            Plan::Propose(plan) => Some(plan.start.into()),
            Plan::Silent
            | Plan::Hold { .. }
            | Plan::SessionTimeout { .. }
            | Plan::PaymentTimeout { .. }
            | Plan::Finance(_) => None,
        }
    }
}

/// The per-contact rate limit: a burst of `burst` messages after `last_minute`
/// others in the past minute is held when the total passes `per_minute`.
pub fn rate_limit(last_minute: i64, burst: usize, per_minute: u32) -> Option<Plan> {
    let limit = i64::from(per_minute);
    (last_minute + burst as i64 > limit).then_some(Plan::Hold {
        // Earlier bursts stayed within the limit: this one crossed it.
        notify: last_minute <= limit,
        last_minute,
        per_minute,
    })
}

/// A proposal and the state it was made from.
pub struct ProposePlan {
    pub start: State,
    pub greeted: bool,
    pub proposal: Proposal,
    pub proposer: &'static str,
    pub cart: Cart,
    /// What the conversation remembered (choices offered, clarifications).
    pub memo: ShopMemo,
    /// The follow-up as the standalone request the proposer read, if rewritten.
    pub rewritten: Option<String>,
    /// An LLM's actions that stand on nothing the customer said, by index: refused
    /// before the matrix sees them.
    pub ungrounded: Vec<(usize, Ungrounded)>,
    /// The model's actions when none stood on the customer's words (the rules'
    /// reading was proposed instead): each action's type and why it was refused.
    pub replaced: Vec<(String, Ungrounded)>,
}

/// The cart a snapshot read, with current prices.
pub fn cart_of(snapshot: &TurnSnapshot) -> Cart {
    Cart::new(
        snapshot
            .cart
            .iter()
            .map(|&(product_id, quantity, unit_price_minor)| CartLine {
                product_id,
                quantity,
                unit_price_minor,
            })
            .collect(),
    )
}

/// The shop's plan for a turn. A conversation whose stored state is not a shop
/// state is an error (the turn is retried, then parked), never read as IDLE.
pub async fn shop(
    proposer: &dyn Proposer,
    proposer_timeout: Duration,
    snapshot: &TurnSnapshot,
    profile: &BotProfile,
    burst: &Burst,
    calls: &crate::llm_calls::CallLog,
) -> Result<Plan, ForeignState> {
    let conversation = &snapshot.conversation;
    if conversation.human_override {
        return Ok(Plan::Silent);
    }
    let current = State::try_from(conversation.state())?;
    let payload = match &burst.command {
        Command::SessionTimeout => return Ok(Plan::SessionTimeout { current }),
        Command::PaymentTimeout { order_id } => {
            return Ok(Plan::PaymentTimeout {
                order_id: *order_id,
                current,
            });
        }
        Command::Message(payload) => payload,
    };
    let start = on_customer_message(current);
    let events = detect::detect(Inbound {
        text: &payload.text,
        has_image: payload.has_attachment(),
    });
    if events.contains(&Event::EscalationRequested) {
        return Ok(Plan::Escalate {
            start: start.into(),
            notice: messages::ESCALATED,
        });
    }
    if events.contains(&Event::PaymentProofReceived) && start == State::AwaitingPayment {
        return Ok(Plan::PaymentProof {
            start,
            payload: payload.clone(),
        });
    }
    if payload.is_unsupported() {
        return Ok(Plan::Say {
            start: start.into(),
            text: messages::UNSUPPORTED_MEDIA,
        });
    }
    if payload.media.is_some() && payload.text.trim().is_empty() {
        return Ok(Plan::Say {
            start: start.into(),
            text: messages::IMAGE_WITHOUT_ORDER,
        });
    }

    let cart = cart_of(snapshot);
    let catalog = &profile.catalog;
    let bot = &profile.bot;
    let memo = ShopMemo::read(conversation.draft.as_ref());
    // The bot offered a person after getting nowhere; a yes takes it.
    if memo.person_offered && crate::agent::rules::is_yes(&payload.text) {
        return Ok(Plan::Escalate {
            start: start.into(),
            notice: messages::ESCALATED,
        });
    }
    let catalog_entries: Vec<CatalogEntry> = catalog
        .active()
        .map(|p| CatalogEntry {
            product_id: p.id,
            name: p.name.clone(),
            price_minor: p.price_minor,
            description: p.description.clone(),
        })
        .collect();
    let names_a_product = crate::agent::rules::names_a_product(&payload.text, &catalog_entries);
    let class = classify(&payload.text, names_a_product);
    if class != MessageClass::Shop {
        return Ok(Plan::Guard { start, class, memo });
    }
    let mut input = ProposalInput {
        current_state: start,
        detected_events: events.clone(),
        cart: cart_view(&cart, catalog),
        customer_message: payload.text.clone(),
        recent_history: history_of(snapshot),
        product_catalog: catalog_entries,
        currency: bot.currency.clone(),
        choices: memo.choices.clone(),
        choice_quantity: memo.choice_quantity,
        choices_named: memo.choices_named,
        focus: memo.focus,
        context: turn_context(snapshot, profile, calls),
    };
    let rewritten = crate::agent::rules::rewrite(&input);
    if let Some(standalone) = &rewritten {
        input.customer_message = standalone.clone();
    }
    let mut name = proposer.name();
    let proposal = match tokio::time::timeout(proposer_timeout, proposer.propose(&input)).await {
        Ok(Ok(proposal)) => proposal,
        Ok(Err(err)) => {
            tracing::warn!(%err, proposer = name, "proposer failed; asking the customer to rephrase");
            fallback_proposal()
        }
        Err(_) => {
            tracing::warn!(
                proposer = name,
                "proposer timed out; asking the customer to rephrase"
            );
            fallback_proposal()
        }
    };
    if let Some(origin) = proposal.origin {
        name = origin;
    }
    // The rules read only what is there; a model may propose anything. When
    // nothing it proposed stands on the customer's words, the rules' reading
    // takes the turn (they are its fallback) and the model's actions are kept
    // for the audit.
    let mut ungrounded = Vec::new();
    let mut replaced = Vec::new();
    let mut proposal = proposal;
    if name == "llm" {
        ungrounded = crate::agent::rules::grounding::ungrounded(&input, &proposal);
        if !ungrounded.is_empty() && ungrounded.len() == proposal.proposed_actions.len() {
            replaced = std::mem::take(&mut ungrounded)
                .into_iter()
                .map(|(i, why)| (proposal.proposed_actions[i].action_type.clone(), why))
                .collect();
            proposal = crate::agent::rules::propose(&input);
            name = "rules (llm ungrounded)";
        }
    }
    Ok(Plan::Propose(Box::new(ProposePlan {
        start,
        greeted: events.contains(&Event::GreetingReceived) && start == State::Idle,
        proposal,
        proposer: name,
        cart,
        memo,
        rewritten,
        ungrounded,
        replaced,
    })))
}

/// Who and what a proposal is for: the bot, the conversation, the head event and
/// where progress signals go.
pub fn turn_context(
    snapshot: &TurnSnapshot,
    profile: &BotProfile,
    calls: &crate::llm_calls::CallLog,
) -> TurnContext {
    let bot = &profile.bot;
    TurnContext {
        bot_id: bot.id,
        bot_slug: bot.slug.clone(),
        conversation_id: snapshot.conversation.id,
        inbox_id: snapshot.head_id,
        agent_enabled: bot.agent_enabled,
        channel: snapshot.channel,
        recipient: snapshot.recipient.clone(),
        reply_to: reply_to(snapshot).map(str::to_owned),
        tokens_today: u64::try_from(snapshot.tokens_today).unwrap_or(0),
        calls: calls.clone(),
    }
}

/// The platform id of the message a turn answers, where the platform has one a
/// typing indicator hangs on (WhatsApp events are stored as `wa:<wamid>`).
pub fn reply_to(snapshot: &TurnSnapshot) -> Option<&str> {
    snapshot
        .events
        .first()
        .and_then(|e| e.external_id.strip_prefix("wa:"))
}

/// The transcript before the turn, as a proposer is shown it.
pub fn history_of(snapshot: &TurnSnapshot) -> Vec<HistoryEntry> {
    snapshot
        .history
        .iter()
        .map(|line| HistoryEntry {
            role: line.author.clone(),
            text: line.text.clone(),
        })
        .collect()
}

fn fallback_proposal() -> Proposal {
    Proposal::new(vec![ProposedAction::new("CLARIFY")], "")
}

fn cart_view(cart: &Cart, catalog: &CatalogIndex) -> CartView {
    CartView {
        lines: cart
            .lines()
            .iter()
            .map(|l| CartLineView {
                product_id: l.product_id,
                name: catalog.name(l.product_id).to_owned(),
                quantity: l.quantity,
                unit_price_minor: l.unit_price_minor,
                line_total_minor: l.line_total_minor(),
            })
            .collect(),
        total_minor: cart.total_minor(),
    }
}
