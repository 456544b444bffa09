//! The turn loop. A worker claims one conversation (a lease), runs its pending
//! events one at a time in arrival order, and commits each turn's effects, audit,
//! inbox mark and outbox rows in one transaction guarded by the conversation's
//! version. Proposers run outside any transaction; a panic in one turn is caught,
//! counted, retried and finally parked, never taking the worker down.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use futures::FutureExt;
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::agent::contract::{CartLineView, CartView, CatalogEntry, ProposalInput, TurnContext};
use crate::agent::{Proposal, ProposedAction, Proposer};
use crate::audit::{self, Actor, Entry, Scope};
use crate::channels::OutPayload;
use crate::conversation::detect::{self, Inbound};
use crate::conversation::{
    Cart, Effect, Event, Release, State, evaluate, on_customer_message, on_event,
};
use crate::conversations::{self, Conversation, Update};
use crate::inbox::{self, InboxEvent, MessagePayload};
use crate::merchant::{self, Bot};
use crate::notify::{Notifier, Wake};
use crate::outbox::{self, Author};
use crate::shop::cart;
use crate::shop::catalog::{self, CatalogIndex};
use crate::shop::orders::{self, Order};
use crate::shop::reply::{self, OrderRef, ReplyContext};
use crate::text::money;

/// Tunables of the turn engine.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    pub lease: Duration,
    pub max_attempts: i32,
    pub retry_backoff: Duration,
    /// Longest a proposer may take before the turn falls back to a clarification.
    pub proposer_timeout: Duration,
    pub history_len: i64,
}

/// What one `run_once` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionOutcome {
    /// A conversation was claimed and its due events handled.
    Worked,
    /// Nothing was due.
    EmptyQueue,
}

pub struct Engine {
    pool: PgPool,
    proposer: Arc<dyn Proposer>,
    settings: EngineSettings,
    /// This worker's identity in leases.
    owner: Uuid,
}

/// Re-plans allowed when the conversation changes while a proposal is computed.
const MAX_REPLANS: usize = 3;
const PARKED_APOLOGY: &str = "Lo siento, tuve un problema al procesar tu mensaje. Ya avisé al equipo; puedes intentarlo de nuevo en un momento.";

/// What a turn will do, decided before its transaction opens.
enum Plan {
    /// Human override is on: keep the message, say nothing.
    Silent,
    /// Backend-detected escalation.
    Escalate {
        start: State,
    },
    /// An image or payment words while an order waits for payment.
    PaymentProof {
        start: State,
        payload: MessagePayload,
    },
    /// A fixed answer that needs no proposer.
    Say {
        start: State,
        text: String,
    },
    /// A proposal to validate against the matrix.
    Propose(Box<ProposePlan>),
    SessionTimeout,
    PaymentTimeout {
        order_id: Uuid,
    },
}

impl Plan {
    /// The state a customer message starts from, for plans made of one.
    fn start(&self) -> Option<State> {
        match self {
            Plan::Escalate { start }
            | Plan::PaymentProof { start, .. }
            | Plan::Say { start, .. } => Some(*start),
            Plan::Propose(plan) => Some(plan.start),
            Plan::Silent | Plan::SessionTimeout | Plan::PaymentTimeout { .. } => None,
        }
    }
}

/// A proposal and the snapshot it was made from.
struct ProposePlan {
    start: State,
    greeted: bool,
    proposal: Proposal,
    proposer: &'static str,
    catalog: CatalogIndex,
    cart: Cart,
    open_order: Option<Order>,
}

enum TurnResult {
    Committed,
    /// The conversation changed under the proposal; plan again from a new snapshot.
    Conflict,
}

impl Engine {
    pub fn new(pool: PgPool, proposer: Arc<dyn Proposer>, settings: EngineSettings) -> Self {
        Engine {
            pool,
            proposer,
            settings,
            owner: Uuid::new_v4(),
        }
    }

    /// Runs until cancelled, waking on notifications and polling as a fallback.
    pub async fn run(
        self: Arc<Self>,
        notifier: Notifier,
        poll: Duration,
        cancel: CancellationToken,
    ) {
        let mut wakes = notifier.subscribe();
        loop {
            if cancel.is_cancelled() {
                return;
            }
            match self.run_once().await {
                Ok(ExecutionOutcome::Worked) => continue,
                Ok(ExecutionOutcome::EmptyQueue) => {}
                Err(err) => tracing::error!(error = %format!("{err:#}"), "worker pass failed"),
            }
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tokio::time::sleep(poll) => {}
                _ = async {
                    loop {
                        match wakes.recv().await {
                            Ok(Wake::Inbox(_)) | Err(_) => break,
                            Ok(_) => continue,
                        }
                    }
                } => {}
            }
        }
    }

    /// Claims one due conversation and handles its events in order.
    pub async fn run_once(&self) -> anyhow::Result<ExecutionOutcome> {
        let Some(conversation_id) =
            conversations::claim(&self.pool, self.owner, self.settings.lease).await?
        else {
            return Ok(ExecutionOutcome::EmptyQueue);
        };
        let result = self.drain_conversation(conversation_id).await;
        conversations::release_lease(&self.pool, conversation_id, self.owner).await?;
        result.map(|()| ExecutionOutcome::Worked)
    }

    /// Loops `run_once` until nothing is due; for tests and tools.
    pub async fn run_until_idle(&self) -> anyhow::Result<usize> {
        let mut passes = 0;
        while self.run_once().await? == ExecutionOutcome::Worked {
            passes += 1;
        }
        Ok(passes)
    }

    async fn drain_conversation(&self, conversation_id: Uuid) -> anyhow::Result<()> {
        while let Some(event) = inbox::head(&self.pool, conversation_id).await? {
            if event.available_at > chrono::Utc::now() {
                // The head waits for a retry; later events wait behind it to keep order.
                return Ok(());
            }
            let attempt = inbox::begin_attempt(&self.pool, event.id).await?;
            if attempt > self.settings.max_attempts {
                self.park(&event).await?;
                continue;
            }
            let outcome = AssertUnwindSafe(self.turn(&event)).catch_unwind().await;
            let failure = match outcome {
                Ok(Ok(())) => None,
                Ok(Err(err)) => Some(format!("{err:#}")),
                Err(panic) => Some(format!("panic: {}", panic_message(&panic))),
            };
            if let Some(error) = failure {
                tracing::error!(inbox_id = event.id, %conversation_id, attempt, %error, "turn failed; will retry");
                let delay = outbox::backoff(self.settings.retry_backoff, attempt - 1);
                inbox::defer(&self.pool, event.id, delay, &error).await?;
                if !delay.is_zero() {
                    return Ok(());
                }
            }
            if !conversations::renew(&self.pool, conversation_id, self.owner, self.settings.lease)
                .await?
            {
                // Another worker took over an expired lease; it continues from here.
                return Ok(());
            }
        }
        Ok(())
    }

    /// Gives up on an event after its attempts: parked with its error, the customer
    /// told, the conversation free to move on.
    async fn park(&self, event: &InboxEvent) -> anyhow::Result<()> {
        let mut tx = self.pool.begin().await?;
        if inbox::park(&mut tx, event.id, "too many failed attempts").await? {
            let scope = scope_of(event);
            let entry = Entry::new(Actor::Backend, "event_parked")
                .reason("too many failed attempts")
                .detail(json!({"external_id": event.external_id, "attempts": event.attempts}));
            audit::record(&mut tx, scope, &[entry]).await?;
            if event.kind == "message" {
                outbox::enqueue(
                    &mut tx,
                    event.conversation_id,
                    Author::Bot,
                    &say(PARKED_APOLOGY),
                    Some(event.id),
                )
                .await?;
            }
        }
        tx.commit().await?;
        tracing::warn!(inbox_id = event.id, "event parked after repeated failures");
        Ok(())
    }

    #[tracing::instrument(skip_all, fields(conversation_id = %event.conversation_id, inbox_id = event.id))]
    async fn turn(&self, event: &InboxEvent) -> anyhow::Result<()> {
        for _ in 0..MAX_REPLANS {
            let conversation = conversations::get(&self.pool, event.conversation_id)
                .await?
                .context("conversation vanished")?;
            let bot = merchant::bot_by_id(&self.pool, conversation.bot_id).await?;
            let plan = self.plan(&conversation, &bot, event).await?;
            match self.commit(&conversation, &bot, event, plan).await? {
                TurnResult::Committed => return Ok(()),
                TurnResult::Conflict => {
                    tracing::debug!("conversation changed during the turn; planning again")
                }
            }
        }
        anyhow::bail!("the conversation kept changing during the turn")
    }

    async fn plan(
        &self,
        conversation: &Conversation,
        bot: &Bot,
        event: &InboxEvent,
    ) -> anyhow::Result<Plan> {
        if conversation.human_override {
            return Ok(Plan::Silent);
        }
        match event.kind.as_str() {
            "session_timeout" => return Ok(Plan::SessionTimeout),
            "payment_timeout" => {
                let order_id = event.payload["order_id"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .context("payment timeout without order id")?;
                return Ok(Plan::PaymentTimeout { order_id });
            }
            _ => {}
        }
        let payload: MessagePayload =
            serde_json::from_value(event.payload.clone()).context("unreadable inbox payload")?;
        let start = on_customer_message(conversation.state());
        let events = detect::detect(Inbound {
            text: &payload.text,
            has_image: payload.has_attachment(),
        });
        if events.contains(&Event::EscalationRequested) {
            return Ok(Plan::Escalate { start });
        }
        if events.contains(&Event::PaymentProofReceived) && start == State::AwaitingPayment {
            return Ok(Plan::PaymentProof { start, payload });
        }
        if payload.is_unsupported() {
            return Ok(Plan::Say {
                start,
                text: "Por ahora solo puedo leer texto e imágenes. ¿Me lo escribes, por favor?"
                    .into(),
            });
        }
        if payload.media.is_some() && payload.text.trim().is_empty() {
            return Ok(Plan::Say {
                start,
                text: "Recibí tu imagen, pero no tienes un pedido pendiente de pago. Escribe «catálogo» para ver nuestros productos.".into(),
            });
        }

        let catalog = catalog::load(&self.pool, bot.id).await?;
        let cart = cart::load(&self.pool, conversation.id).await?;
        let open_order = orders::open_for(&self.pool, conversation.id).await?;
        let history = conversations::history(
            &self.pool,
            conversation.id,
            event.id,
            self.settings.history_len,
        )
        .await?;
        let input = ProposalInput {
            current_state: start,
            detected_events: events.clone(),
            cart: cart_view(&cart, &catalog),
            customer_message: payload.text.clone(),
            recent_history: history,
            product_catalog: catalog
                .active()
                .map(|p| CatalogEntry {
                    product_id: p.id,
                    name: p.name.clone(),
                    price_minor: p.price_minor,
                    description: p.description.clone(),
                })
                .collect(),
            currency: bot.currency.clone(),
            context: TurnContext {
                bot_id: bot.id,
                conversation_id: conversation.id,
                inbox_id: event.id,
                agent_enabled: bot.agent_enabled,
            },
        };
        let mut proposer = self.proposer.name();
        let proposal = match tokio::time::timeout(
            self.settings.proposer_timeout,
            self.proposer.propose(&input),
        )
        .await
        {
            Ok(Ok(proposal)) => proposal,
            Ok(Err(err)) => {
                tracing::warn!(%err, proposer, "proposer failed; asking the customer to rephrase");
                fallback_proposal()
            }
            Err(_) => {
                tracing::warn!(
                    proposer,
                    "proposer timed out; asking the customer to rephrase"
                );
                fallback_proposal()
            }
        };
        if let Some(origin) = proposal.origin {
            proposer = origin;
        }
        Ok(Plan::Propose(Box::new(ProposePlan {
            start,
            greeted: events.contains(&Event::GreetingReceived) && start == State::Idle,
            proposal,
            proposer,
            catalog,
            cart,
            open_order,
        })))
    }

    /// The one transaction of a turn.
    async fn commit(
        &self,
        seen: &Conversation,
        bot: &Bot,
        event: &InboxEvent,
        plan: Plan,
    ) -> anyhow::Result<TurnResult> {
        let mut tx = self.pool.begin().await?;
        let conversation = conversations::lock(&mut tx, seen.id).await?;
        if conversation.version != seen.version {
            return Ok(TurnResult::Conflict);
        }
        if conversation.human_override && !matches!(plan, Plan::Silent) {
            return Ok(TurnResult::Conflict);
        }
        if !inbox::mark_done(&mut tx, event.id).await? {
            // Already handled by a worker whose lease expired under it.
            return Ok(TurnResult::Committed);
        }
        let scope = scope_of(event);
        let mut audit_rows: Vec<Entry> = Vec::new();
        let before = conversation.state();
        let mut update = Update::keep(&conversation);
        let mut replies: Vec<(Author, OutPayload)> = Vec::new();

        if let Some(start) = plan.start() {
            // COMPLETED becomes IDLE on the customer's next message.
            audit_rows.extend(Entry::state_change(
                Actor::Customer,
                before,
                start,
                "new message after completion",
            ));
        }
        match plan {
            Plan::Silent => {
                audit_rows.push(
                    Entry::new(Actor::Backend, "turn_skipped")
                        .reason("human override is on: no bot reply"),
                );
            }
            Plan::Escalate { start } => {
                audit_rows.push(
                    Entry::new(Actor::Backend, "event_detected")
                        .action(Event::EscalationRequested.as_str()),
                );
                let mut at_start = conversation.clone();
                at_start.fsm_state = start.as_str().to_owned();
                let (takeover, rows) = conversations::takeover(
                    &at_start,
                    "customer",
                    Actor::Customer,
                    "escalation requested",
                );
                update = takeover;
                audit_rows.extend(rows);
                replies.push((Author::System, say(reply::ESCALATED)));
            }
            Plan::PaymentProof { start, payload } => {
                audit_rows.push(
                    Entry::new(Actor::Backend, "event_detected")
                        .action(Event::PaymentProofReceived.as_str()),
                );
                update.state = start;
                match orders::open_for(&mut *tx, conversation.id).await? {
                    Some(order) => {
                        let media = payload.media.as_ref().map(|m| json!(m));
                        orders::record_proof(
                            &mut tx,
                            order.id,
                            event.id,
                            media.as_ref(),
                            &payload.text,
                        )
                        .await?;
                        audit_rows.push(
                            Entry::new(Actor::Customer, "payment_proof_received").detail(
                                json!({"order_id": order.id, "order_number": order.number}),
                            ),
                        );
                        replies.push((
                            Author::Bot,
                            say(&format!(
                                "¡Gracias! Recibimos tu comprobante del pedido #{} por {}. El comercio lo revisará y te avisaremos por aquí.",
                                order.number,
                                money(order.total_minor, &order.currency)
                            )),
                        ));
                    }
                    None => {
                        replies.push((Author::Bot, say("No encontré un pedido pendiente de pago.")))
                    }
                }
                update.activity = true;
            }
            Plan::Say { start, text } => {
                update.state = start;
                update.activity = true;
                replies.push((Author::Bot, say(&text)));
            }
            Plan::Propose(plan) => {
                let ProposePlan {
                    start,
                    greeted,
                    proposal,
                    proposer,
                    catalog,
                    cart: cart_before,
                    open_order,
                } = *plan;
                let text = self
                    .execute_proposal(
                        &mut tx,
                        &conversation,
                        bot,
                        ProposalTurn {
                            start,
                            greeted,
                            proposal: &proposal,
                            proposer,
                            catalog: &catalog,
                            cart_before: &cart_before,
                            open_order: open_order.as_ref(),
                        },
                        &mut update,
                        &mut audit_rows,
                    )
                    .await?;
                replies.push(text);
                update.activity = true;
            }
            Plan::SessionTimeout => {
                let idle_for = chrono::Utc::now() - conversation.last_activity_at;
                let due = idle_for.num_seconds() >= i64::from(bot.session_timeout_secs);
                match on_event(
                    before,
                    Event::SessionTimeout,
                    Release {
                        before: None,
                        to_idle: false,
                    },
                ) {
                    Ok(to) if due => {
                        cart::save(&mut tx, conversation.id, &Cart::default()).await?;
                        audit_rows.push(
                            Entry::new(Actor::Backend, "event_detected")
                                .action(Event::SessionTimeout.as_str()),
                        );
                        audit_rows.extend(Entry::state_change(
                            Actor::Backend,
                            before,
                            to,
                            "session inactivity",
                        ));
                        update.state = to;
                    }
                    _ => audit_rows.push(
                        Entry::new(Actor::Backend, "timeout_skipped").reason("no longer inactive"),
                    ),
                }
            }
            Plan::PaymentTimeout { order_id } => {
                let order = orders::lock(&mut tx, order_id).await?;
                match order {
                    Some(order)
                        if order.status == "awaiting_payment"
                            && order.payment_due_at <= chrono::Utc::now() =>
                    {
                        orders::set_status(&mut tx, order.id, "expired", None).await?;
                        audit_rows.push(
                            Entry::new(Actor::Backend, "event_detected")
                                .action(Event::PaymentTimeout.as_str())
                                .detail(
                                    json!({"order_id": order.id, "order_number": order.number}),
                                ),
                        );
                        if let Ok(to) = on_event(
                            before,
                            Event::PaymentTimeout,
                            Release {
                                before: None,
                                to_idle: false,
                            },
                        ) {
                            audit_rows.extend(Entry::state_change(
                                Actor::Backend,
                                before,
                                to,
                                "payment timeout",
                            ));
                            update.state = to;
                        }
                        replies.push((
                            Author::Bot,
                            say(&format!(
                                "Tu pedido #{} se canceló porque no recibimos el pago a tiempo. Si aún lo quieres, puedes pedirlo de nuevo.",
                                order.number
                            )),
                        ));
                    }
                    _ => audit_rows.push(
                        Entry::new(Actor::Backend, "timeout_skipped")
                            .reason("order no longer awaiting payment"),
                    ),
                }
            }
        }

        for (author, payload) in &replies {
            outbox::enqueue(&mut tx, conversation.id, *author, payload, Some(event.id)).await?;
        }
        conversations::save(&mut tx, &conversation, &update).await?;
        audit::record(&mut tx, scope, &audit_rows).await?;
        tx.commit().await?;
        Ok(TurnResult::Committed)
    }

    /// Validates the proposal against the matrix, executes what passed, and composes
    /// the reply. Runs inside the turn's transaction.
    async fn execute_proposal(
        &self,
        tx: &mut PgConnection,
        conversation: &Conversation,
        bot: &Bot,
        turn: ProposalTurn<'_>,
        update: &mut Update,
        audit_rows: &mut Vec<Entry>,
    ) -> anyhow::Result<(Author, OutPayload)> {
        let actions = turn.proposal.actions();
        for (index, proposed) in turn.proposal.proposed_actions.iter().enumerate() {
            audit_rows.push(
                Entry::new(Actor::Agent, "action_proposed")
                    .action(truncated(&proposed.action_type, 64))
                    .detail(json!({"index": index, "params": proposed.params, "proposer": turn.proposer})),
            );
        }
        if let Some(suggested) = &turn.proposal.suggested_state {
            audit_rows.push(
                Entry::new(Actor::Agent, "suggested_state_ignored")
                    .reason(truncated(suggested, 64)),
            );
        }
        let eval = evaluate(turn.start, turn.cart_before, turn.catalog, &actions);
        let mut confirmed: Option<OrderRef> = None;
        let mut escalated_from: Option<State> = None;
        for decision in &eval.decisions {
            let name = decision.action.kind.name().to_owned();
            match &decision.outcome {
                Err(rejection) => audit_rows.push(
                    Entry::new(Actor::Backend, "action_rejected")
                        .action(name)
                        .reason(rejection.to_string())
                        .detail(json!(rejection)),
                ),
                Ok(accepted) => {
                    audit_rows.push(
                        Entry::new(Actor::Backend, "action_accepted")
                            .action(name.clone())
                            .states(accepted.from, accepted.to),
                    );
                    let mut detail = json!(accepted.effect);
                    match &accepted.effect {
                        Effect::OrderConfirmed { lines, .. } => {
                            let order =
                                orders::create(tx, bot, conversation.id, lines, turn.catalog)
                                    .await?;
                            detail["order_id"] = json!(order.id);
                            detail["order_number"] = json!(order.number);
                            confirmed = Some(OrderRef {
                                number: order.number,
                                total_minor: order.total_minor,
                            });
                        }
                        Effect::OrderCancelled { had_order: true } => {
                            if let Some(order) = turn.open_order {
                                orders::set_status(tx, order.id, "cancelled", None).await?;
                                detail["order_id"] = json!(order.id);
                            }
                        }
                        Effect::Escalated => escalated_from = Some(accepted.from),
                        _ => {}
                    }
                    audit_rows.push(
                        Entry::new(Actor::Backend, "action_executed")
                            .action(name)
                            .states(accepted.from, accepted.to)
                            .detail(detail),
                    );
                    audit_rows.extend(Entry::state_change(
                        Actor::Agent,
                        accepted.from,
                        accepted.to,
                        "accepted action",
                    ));
                }
            }
        }
        if eval.cart != *turn.cart_before {
            cart::save(tx, conversation.id, &eval.cart).await?;
        }
        update.state = eval.state;
        if let Some(from) = escalated_from {
            update.human_override = true;
            update.override_by = Some("customer".into());
            update.state_before_takeover = Some(from);
            audit_rows.push(
                Entry::new(Actor::Agent, "override_changed")
                    .states(from, State::HumanTakeover)
                    .reason("ESCALATE accepted")
                    .detail(json!({"human_override": true, "by": "customer"})),
            );
        }

        let open_ref = turn.open_order.map(|o| OrderRef {
            number: o.number,
            total_minor: o.total_minor,
        });
        let composed = reply::compose(
            &eval,
            &turn.proposal.response_text,
            &ReplyContext {
                bot_name: &bot.name,
                currency: &bot.currency,
                catalog: turn.catalog,
                cart_before: turn.cart_before,
                open_order: open_ref.as_ref(),
                confirmed_order: confirmed.as_ref(),
                payment_instructions: &bot.payment_instructions,
                greeted: turn.greeted,
            },
        );
        if let Some(why) = &composed.replaced {
            audit_rows.push(
                Entry::new(Actor::Backend, "reply_replaced")
                    .reason(why.clone())
                    .detail(json!({"proposed_text": truncated(&turn.proposal.response_text, 600)})),
            );
        }
        let author = if escalated_from.is_some() {
            Author::System
        } else {
            Author::Bot
        };
        Ok((
            author,
            OutPayload {
                text: composed.text,
                choices: composed.choices,
            },
        ))
    }
}

struct ProposalTurn<'a> {
    start: State,
    greeted: bool,
    proposal: &'a Proposal,
    proposer: &'static str,
    catalog: &'a CatalogIndex,
    cart_before: &'a Cart,
    open_order: Option<&'a Order>,
}

fn scope_of(event: &InboxEvent) -> Scope {
    Scope {
        bot_id: event.bot_id,
        conversation_id: Some(event.conversation_id),
        inbox_id: Some(event.id),
    }
}

fn say(text: &str) -> OutPayload {
    OutPayload {
        text: text.to_owned(),
        choices: Vec::new(),
    }
}

fn truncated(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
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

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Queues session and payment timeouts as inbox events, so they run as ordinary
/// turns: in order, under the lease, exactly once. Safe to run on every replica.
pub async fn sweep_timeouts(pool: &PgPool) -> sqlx::Result<u64> {
    let mut tx = pool.begin().await?;
    let sessions = sqlx::query(
        "INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload)
         SELECT c.bot_id, c.id, 'session-timeout:' || c.id || ':' || c.version, 'session_timeout', '{}'::jsonb
         FROM conversations c JOIN bots b ON b.id = c.bot_id
         WHERE c.fsm_state IN ('BROWSING', 'CART_OPEN', 'CHECKOUT') AND NOT c.human_override
           AND c.last_activity_at < now() - make_interval(secs => b.session_timeout_secs)
         ON CONFLICT (bot_id, external_id) DO NOTHING",
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    let payments = sqlx::query(
        "INSERT INTO inbox (bot_id, conversation_id, external_id, kind, payload)
         SELECT o.bot_id, o.conversation_id, 'payment-timeout:' || o.id || ':' || c.version, 'payment_timeout',
                jsonb_build_object('order_id', o.id)
         FROM orders o JOIN conversations c ON c.id = o.conversation_id
         WHERE o.status = 'awaiting_payment' AND o.payment_due_at < now() AND NOT c.human_override
         ON CONFLICT (bot_id, external_id) DO NOTHING",
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if sessions + payments > 0 {
        // Any conversation id wakes the workers; they claim whatever is due.
        inbox::wake(&mut tx, Uuid::nil()).await?;
    }
    tx.commit().await?;
    Ok(sessions + payments)
}
