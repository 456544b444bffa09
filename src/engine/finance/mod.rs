//! A finance turn, planned before its transaction opens (Financial Agent v1:
//! router → parse → validate → clarify → confirm → execute → respond → error
//! handler). The router sends a pending write to the confirmation check (exact
//! tokens, no proposer), anything else to the proposer and the finance matrix.
//! Reads (the user's context, tools, simulations) happen here; the confirmed
//! write is left for the commit, in the transaction that marks the event done.

mod confirm;
mod propose;
mod simulate;

use std::time::Duration;

use serde_json::json;

use super::burst::{Burst, Command};
use super::plan::Plan;
use super::profiles::BotProfile;
use crate::agent::Proposer;
use crate::audit::{Actor, Entry};
use crate::conversation::Event;
use crate::conversation::detect::{self, Inbound};
use crate::conversations::TurnSnapshot;
use crate::finance::context::UserContext;
use crate::finance::core::{Draft, FinanceState, Write};
use crate::finance::ledger::UserScope;
use crate::finance::tools::ToolContext;
use crate::finance::{context, demo, messages};
use crate::progress::{Progress, Recipient, Step};

/// Everything a finance turn decided: the state and draft it leaves, what it
/// audits, the write it makes (at most one, confirmed) and what the user reads.
#[derive(Debug)]
pub struct FinancePlan {
    pub start: FinanceState,
    pub state: FinanceState,
    pub draft: Option<Draft>,
    pub audit: Vec<Entry>,
    pub writes: Vec<Write>,
    pub reply: Option<String>,
    /// The proposer's ESCALATE was accepted: the override goes on.
    pub escalate: bool,
    /// The user wrote (resets the inactivity clock).
    pub activity: bool,
}

impl FinancePlan {
    fn new(start: FinanceState, draft: Option<Draft>) -> Self {
        FinancePlan {
            start,
            state: start,
            draft,
            audit: Vec::new(),
            writes: Vec::new(),
            reply: None,
            escalate: false,
            activity: false,
        }
    }

    /// Leaves the state and draft as they are after this turn, auditing a change.
    fn move_to(&mut self, state: FinanceState, draft: Option<Draft>, actor: Actor, reason: &str) {
        self.audit
            .extend(Entry::state_change(actor, self.state, state, reason));
        self.state = state;
        self.draft = draft;
    }
}

/// What planning needs besides the snapshot.
pub struct Deps<'a> {
    pub pool: &'a sqlx::PgPool,
    pub proposer: &'a dyn Proposer,
    pub proposer_timeout: Duration,
    pub progress: &'a dyn Progress,
    /// The bot's time zone (dates shown to the user are in it).
    pub timezone: &'a str,
    /// Where the proposer records its LLM calls for the turn's transaction.
    pub calls: &'a crate::llm_calls::CallLog,
}

impl<'a> Deps<'a> {
    fn tools(&self, ctx: &UserContext) -> ToolContext<'a> {
        ToolContext {
            pool: self.pool,
            user: ctx.user,
            today: ctx.today,
            timezone: self.timezone,
            history: ctx.history,
        }
    }

    async fn signal(&self, snapshot: &TurnSnapshot, step: Step) {
        let conversation = &snapshot.conversation;
        let to = Recipient {
            bot_id: conversation.bot_id,
            conversation_id: conversation.id,
            channel: snapshot.channel,
            id: &snapshot.recipient,
            message_id: crate::engine::plan::reply_to(snapshot),
        };
        self.progress.show(to, &step).await;
    }
}

pub async fn plan(
    deps: &Deps<'_>,
    snapshot: &TurnSnapshot,
    profile: &BotProfile,
    burst: &Burst,
) -> anyhow::Result<Plan> {
    let conversation = &snapshot.conversation;
    let stored = conversation.state();
    let current = FinanceState::try_from(stored)?;
    let mut plan = FinancePlan::new(current, None);
    let draft = read_draft(snapshot, &mut plan);
    plan.draft = draft.clone();
    let payload = match &burst.command {
        Command::SessionTimeout => {
            expire(&mut plan, snapshot, profile);
            return Ok(Plan::Finance(Box::new(plan)));
        }
        Command::PaymentTimeout { .. } => {
            plan.audit
                .push(Entry::new(Actor::Backend, "timeout_skipped").reason("no orders in finance"));
            return Ok(Plan::Finance(Box::new(plan)));
        }
        Command::Message(payload) => payload,
    };
    let events = detect::detect(Inbound {
        text: &payload.text,
        has_image: false,
    });
    if events.contains(&Event::EscalationRequested) {
        return Ok(Plan::Escalate {
            start: plan.state.into(),
            notice: messages::ESCALATED,
        });
    }
    if payload.media.is_some() || payload.text.trim().is_empty() {
        return Ok(Plan::Say {
            start: stored,
            text: messages::UNSUPPORTED_MEDIA,
        });
    }
    plan.activity = true;
    let bot = &profile.bot;
    let user = UserScope {
        bot_id: bot.id,
        contact_id: conversation.contact_id,
    };
    let Some(mut ctx) = context::load(deps.pool, bot.id, user.contact_id, &bot.timezone).await?
    else {
        plan.reply = Some(
            messages::tool_error(crate::finance::core::output::ToolErrorKind::Permission).into(),
        );
        return Ok(Plan::Finance(Box::new(plan)));
    };
    if bot.sample_history
        && ctx.history.transactions == 0
        && demo::seed_if_new(deps.pool, user, &bot.currency, ctx.today).await?
    {
        plan.audit
            .push(Entry::new(Actor::Backend, "sample_history_seeded").reason("demo bot"));
        ctx = context::load(deps.pool, bot.id, user.contact_id, &bot.timezone)
            .await?
            .ok_or_else(|| anyhow::anyhow!("the contact vanished"))?;
    }
    match (plan.state, draft) {
        (FinanceState::AwaitingConfirmation, Some(pending)) => {
            confirm::answer(deps, &mut plan, &ctx, &pending, &payload.text).await?
        }
        (_, draft) => {
            propose::turn(
                deps,
                &mut plan,
                snapshot,
                profile,
                &ctx,
                draft,
                &payload.text,
                &events,
            )
            .await?
        }
    }
    Ok(Plan::Finance(Box::new(plan)))
}

/// The stored draft, checked against the state. An unreadable draft, or a state
/// that needs one and has none, is dropped (audited) and the turn starts at IDLE:
/// a broken draft must never be confirmable, nor block the user for good.
fn read_draft(snapshot: &TurnSnapshot, plan: &mut FinancePlan) -> Option<Draft> {
    let stored = snapshot.conversation.draft.clone();
    let draft = match stored.map(serde_json::from_value::<Draft>) {
        None => None,
        Some(Ok(draft)) => Some(draft),
        Some(Err(err)) => {
            plan.audit.push(
                Entry::new(Actor::Backend, "draft_discarded")
                    .reason("unreadable draft")
                    .detail(json!({"error": err.to_string()})),
            );
            None
        }
    };
    let needs = matches!(
        plan.state,
        FinanceState::Clarifying | FinanceState::AwaitingConfirmation
    );
    match (needs, draft) {
        (true, None) => {
            plan.move_to(FinanceState::Idle, None, Actor::Backend, "no usable draft");
            None
        }
        (false, Some(_)) => {
            plan.audit.push(
                Entry::new(Actor::Backend, "draft_discarded").reason("no draft in this state"),
            );
            None
        }
        (_, draft) => draft,
    }
}

/// The user went quiet with a draft open: it is dropped, and they are told.
fn expire(plan: &mut FinancePlan, snapshot: &TurnSnapshot, profile: &BotProfile) {
    let conversation = &snapshot.conversation;
    let idle_for = chrono::Utc::now() - conversation.last_activity_at;
    let due = idle_for.num_seconds() >= i64::from(profile.bot.session_timeout_secs);
    if !due || plan.draft.is_none() {
        plan.audit
            .push(Entry::new(Actor::Backend, "timeout_skipped").reason("no longer inactive"));
        return;
    }
    plan.audit
        .push(Entry::new(Actor::Backend, "event_detected").action(Event::SessionTimeout.as_str()));
    plan.audit
        .push(Entry::new(Actor::Backend, "draft_discarded").reason("session inactivity"));
    plan.move_to(
        FinanceState::Idle,
        None,
        Actor::Backend,
        "session inactivity",
    );
    plan.reply = Some(messages::DRAFT_EXPIRED.into());
}
