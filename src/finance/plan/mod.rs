//! A finance turn, planned before its transaction opens (Financial Agent v1:
//! router → parse → validate → clarify → confirm → execute → respond → error
//! handler). The router sends a pending write to the confirmation check (exact
//! tokens, no proposer), anything else to the proposer and the finance matrix.
//! Reads (the user's context, tools, simulations) happen here; the confirmed
//! write is left for the commit, in the transaction that marks the event done.

mod confirm;
mod propose;
mod simulate;

use serde_json::json;

use super::context::UserContext;
use super::core::{Draft, FinanceState, Write};
use super::ledger::UserScope;
use super::proposer::FinanceProposer;
use super::tools::ToolContext;
use super::{context, demo, messages};
use crate::audit::{Actor, Entry, Kind};
use crate::detect::{self, Inbound};
use crate::engine::{Command, Decision, Turn};
use crate::progress::Step;

/// The event an expired draft is audited as.
const SESSION_TIMEOUT: &str = "SESSION_TIMEOUT";

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
    /// «Mándame mis datos»: the reply carries their transactions as CSV, built in
    /// the turn's commit.
    pub export: bool,
    /// A result drawn: sent after the reply, stored in the turn's commit.
    pub chart: Option<crate::finance::charts::Drawn>,
    /// A reminder to schedule or cancel, in the turn's commit.
    pub reminder: Option<ReminderChange>,
}

/// What a turn does to the person's reminders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReminderChange {
    Add {
        what: String,
        due_on: chrono::NaiveDate,
    },
    Cancel {
        about: Option<String>,
    },
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
            export: false,
            chart: None,
            reminder: None,
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

/// What planning needs besides the turn.
pub struct Deps<'a> {
    pub pool: &'a sqlx::PgPool,
    pub proposer: &'a FinanceProposer,
    pub turn: &'a Turn<'a>,
}

impl<'a> Deps<'a> {
    fn tools(&self, ctx: &UserContext) -> ToolContext<'a> {
        ToolContext {
            pool: self.pool,
            user: ctx.user,
            today: ctx.today,
            timezone: &self.turn.bot.timezone,
            history: ctx.history,
        }
    }

    async fn signal(&self, step: Step) {
        self.turn.progress.show(self.turn.audience(), &step).await;
    }
}

/// What planning came to: a decision made without the finance flow (a person
/// asked for, an attachment), or the finance plan for `apply`.
pub enum Planned {
    Decided(Box<Decision>),
    Plan(Box<FinancePlan>),
}

pub async fn plan(deps: &Deps<'_>) -> anyhow::Result<Planned> {
    let turn = deps.turn;
    let snapshot = turn.snapshot;
    let conversation = &snapshot.conversation;
    let current = FinanceState::try_from(conversation.state())?;
    let mut plan = FinancePlan::new(current, None);
    let draft = read_draft(snapshot, &mut plan);
    plan.draft = draft.clone();
    let payload = match &turn.burst.command {
        Command::SessionTimeout => {
            expire(&mut plan, turn);
            return Ok(Planned::Plan(Box::new(plan)));
        }
        Command::PaymentTimeout { .. } => {
            plan.audit.push(
                Entry::new(Actor::Backend, Kind::TimeoutSkipped).reason("no orders in finance"),
            );
            return Ok(Planned::Plan(Box::new(plan)));
        }
        Command::Message(payload) => payload,
    };
    let detected = detect::detect(Inbound {
        text: &payload.text,
        has_image: false,
    });
    if detected.escalation {
        let mut decision = Decision::keep("escalate", conversation);
        decision.update.state = plan.state.into();
        decision.hand_to_person(conversation, messages::ESCALATED);
        return Ok(Planned::Decided(Box::new(decision)));
    }
    if payload.media.is_some() || payload.text.trim().is_empty() {
        let mut decision = Decision::keep("say", conversation);
        decision.update.activity = true;
        decision.say(crate::outbox::Author::Bot, messages::UNSUPPORTED_MEDIA);
        return Ok(Planned::Decided(Box::new(decision)));
    }
    plan.activity = true;
    let bot = turn.bot;
    let user = UserScope::of(conversation);
    let Some(mut ctx) = context::load(deps.pool, bot.id, user.contact_id, &bot.timezone).await?
    else {
        plan.reply = Some(
            messages::tool_error(crate::finance::core::output::ToolErrorKind::Permission).into(),
        );
        return Ok(Planned::Plan(Box::new(plan)));
    };
    if bot.sample_history
        && ctx.history.transactions == 0
        && demo::seed_if_new(deps.pool, user, &bot.currency, ctx.today).await?
    {
        plan.audit
            .push(Entry::new(Actor::Backend, Kind::SampleHistorySeeded).reason("demo bot"));
        ctx = context::load(deps.pool, bot.id, user.contact_id, &bot.timezone)
            .await?
            .ok_or_else(|| anyhow::anyhow!("the contact vanished"))?;
    }
    // «Recuérdame…», «mis recordatorios», «ya no me recuerdes»: decided from
    // their words; nothing of their money changes.
    // In any state: a pending draft stays as it was, and is asked again.
    let last_bot = turn
        .history()
        .into_iter()
        .rev()
        .find(|h| h.role == "bot")
        .map(|h| h.text)
        .unwrap_or_default();
    let remind = crate::finance::rules::remind::read(&payload.text, ctx.today).or_else(|| {
        crate::finance::rules::remind::answers_when(&payload.text, ctx.today, &last_bot)
    });
    if let Some(ask) = remind {
        reminder(deps, &mut plan, user, ctx.today, ask).await?;
        if plan.state == FinanceState::AwaitingConfirmation {
            let answered = plan.reply.take().unwrap_or_default();
            plan.reply = Some(format!("{answered}\n\n{}", messages::STILL_PENDING));
        }
        return Ok(Planned::Plan(Box::new(plan)));
    }
    // «Mándame mis datos»: a read of their own rows, decided from their words.
    if plan.state == FinanceState::Idle && crate::finance::rules::asks_for_my_data(&payload.text) {
        plan.export = true;
        plan.audit
            .push(Entry::new(Actor::Customer, Kind::ActionExecuted).reason("EXPORT_MY_DATA"));
        return Ok(Planned::Plan(Box::new(plan)));
    }
    match (plan.state, draft) {
        (FinanceState::AwaitingConfirmation, Some(pending))
            if confirm::settles(&pending, &payload.text) =>
        {
            confirm::answer(deps, &mut plan, &ctx, &pending, &payload.text).await?
        }
        // Neither a yes, a no nor a new amount: a correction of the draft
        // («era en el súper») or a new request, read by the proposer; anything
        // else asks the question again. Nothing is written either way.
        (_, draft) => propose::turn(deps, &mut plan, &ctx, draft, &payload.text, detected).await?,
    }
    Ok(Planned::Plan(Box::new(plan)))
}

/// The stored draft, checked against the state. An unreadable draft, or a state
/// that needs one and has none, is dropped (audited) and the turn starts at IDLE:
/// a broken draft must never be confirmable, nor block the user for good.
fn read_draft(snapshot: &crate::engine::TurnSnapshot, plan: &mut FinancePlan) -> Option<Draft> {
    let stored = snapshot.conversation.draft.clone();
    let draft = match stored.map(serde_json::from_value::<Draft>) {
        None => None,
        Some(Ok(draft)) => Some(draft),
        Some(Err(err)) => {
            plan.audit.push(
                Entry::new(Actor::Backend, Kind::DraftDiscarded)
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
                Entry::new(Actor::Backend, Kind::DraftDiscarded).reason("no draft in this state"),
            );
            None
        }
        (_, draft) => draft,
    }
}

/// A reminder asked for: scheduled or cancelled by the commit, or listed now.
async fn reminder(
    deps: &Deps<'_>,
    plan: &mut FinancePlan,
    user: UserScope,
    today: chrono::NaiveDate,
    ask: crate::finance::rules::remind::Ask,
) -> anyhow::Result<()> {
    use crate::finance::rules::remind::Ask;
    match ask {
        Ask::Add { what, due_on: None } => {
            plan.reply = Some(messages::reminder_when(&what));
        }
        Ask::Add {
            what,
            due_on: Some(due_on),
        } if due_on <= today => {
            plan.audit.push(
                Entry::new(Actor::Customer, Kind::ActionRejected)
                    .reason("REMINDER_IN_THE_PAST")
                    .detail(json!({"due_on": due_on, "today": today})),
            );
            plan.reply = Some(messages::reminder_past(&what, due_on));
        }
        Ask::Add {
            what,
            due_on: Some(due_on),
        } => {
            let remind_on = due_on.pred_opt().unwrap_or(due_on);
            plan.audit.push(
                Entry::new(Actor::Customer, Kind::ActionExecuted)
                    .reason("REMINDER_SET")
                    .detail(json!({"due_on": due_on, "remind_on": remind_on,
                                   "hour": crate::finance::reminders::HOUR, "today": today})),
            );
            plan.reply = Some(messages::reminder_set(&what, due_on, today));
            plan.reminder = Some(ReminderChange::Add { what, due_on });
        }
        Ask::List => {
            let pending = crate::finance::reminders::pending(deps.pool, user).await?;
            plan.audit.push(
                Entry::new(Actor::Customer, Kind::ActionExecuted)
                    .reason("REMINDERS_LISTED")
                    .detail(json!({"pending": pending})),
            );
            plan.reply = Some(messages::reminders_list(&pending));
        }
        Ask::Cancel { about } => {
            // Audited by the commit, with how many it cancelled.
            plan.reminder = Some(ReminderChange::Cancel { about });
        }
    }
    Ok(())
}

/// The user went quiet with a draft open: it is dropped, and they are told.
fn expire(plan: &mut FinancePlan, turn: &Turn<'_>) {
    let conversation = turn.conversation();
    let idle_for = chrono::Utc::now() - conversation.last_activity_at;
    let due = idle_for.num_seconds() >= i64::from(turn.bot.session_timeout_secs);
    if !due || plan.draft.is_none() {
        plan.audit
            .push(Entry::new(Actor::Backend, Kind::TimeoutSkipped).reason("no longer inactive"));
        return;
    }
    plan.audit
        .push(Entry::new(Actor::Backend, Kind::EventDetected).action(SESSION_TIMEOUT));
    plan.audit
        .push(Entry::new(Actor::Backend, Kind::DraftDiscarded).reason("session inactivity"));
    plan.move_to(
        FinanceState::Idle,
        None,
        Actor::Backend,
        "session inactivity",
    );
    plan.reply = Some(messages::DRAFT_EXPIRED.into());
}
