//! A finance turn's plan becomes the engine's decision: the state and draft it
//! leaves, its audit rows, its confirmed write (executed by the commit, in the
//! transaction that marks the confirming message processed) and its reply. An
//! accepted ESCALATE turns the override on, as in the shop.

use async_trait::async_trait;
use sqlx::PgConnection;

use super::core::Write;
use super::ledger::UserScope;
use super::plan::FinancePlan;
use super::writes;
use crate::audit::{Actor, Entry, Kind};
use crate::channels::OutPayload;
use crate::engine::{Decision, Effects, Turn, Written};
use crate::outbox::Author;

pub fn apply(turn: &Turn<'_>, plan: FinancePlan) -> Decision {
    let conversation = turn.conversation();
    let mut decision = Decision::keep("finance", conversation);
    decision.audit.extend(plan.audit);
    decision.update.state = plan.state.into();
    decision.update.draft = plan
        .draft
        .as_ref()
        .map(|d| serde_json::to_value(d).expect("drafts serialize"));
    decision.update.activity = plan.activity;
    if !plan.writes.is_empty() {
        decision.effects = Some(Box::new(FinanceWrites(plan.writes)));
    } else if plan.export {
        decision.effects = Some(Box::new(FinanceExport));
    } else if let Some(chart) = plan.chart {
        decision.effects = Some(Box::new(FinanceChart(chart)));
    } else if let Some(change) = plan.reminder {
        decision.effects = Some(Box::new(FinanceReminder(change)));
    }
    let mut author = Author::Bot;
    if plan.escalate {
        let (takeover, rows) = crate::handoff::to_person(
            conversation,
            plan.start.into(),
            Actor::Customer,
            "ESCALATE accepted",
        );
        decision.update = takeover;
        decision.audit.extend(rows);
        decision
            .audit
            .push(Entry::new(Actor::Agent, Kind::OverrideChanged).reason("ESCALATE accepted"));
        author = Author::System;
    }
    if let Some(text) = plan.reply {
        decision.say(author, text);
    }
    decision
}

/// Confirmed writes (at most one per turn).
struct FinanceWrites(Vec<Write>);

#[async_trait]
impl Effects for FinanceWrites {
    async fn write(
        self: Box<Self>,
        tx: &mut PgConnection,
        at: &Written<'_>,
        audit: &mut Vec<Entry>,
    ) -> anyhow::Result<Option<(Author, OutPayload)>> {
        let user = UserScope::of(at.conversation);
        for write in &self.0 {
            let expense = matches!(
                write,
                Write::LogTransaction {
                    kind: super::core::draft::TxKind::Expense,
                    ..
                }
            );
            if let Some(erased) =
                writes::execute(&mut *tx, user, &at.bot.currency, write, at.head_id).await?
            {
                // How many rows went, never what they held.
                audit.push(
                    Entry::new(Actor::Customer, Kind::DataErased)
                        .detail(serde_json::to_value(erased).expect("counts serialize")),
                );
            }
            // An expense may cross a budget's 80 % or 100 %: told once a month.
            if expense {
                crate::finance::reminders::budget_notices(
                    &mut *tx,
                    user,
                    at.conversation.id,
                    &at.bot.timezone,
                )
                .await?;
            }
        }
        Ok(None)
    }
}

/// «Mándame mis datos»: the person's transactions as a CSV file, read and stored
/// in the turn's own transaction; the reply carries it.
struct FinanceExport;

#[async_trait]
impl Effects for FinanceExport {
    async fn write(
        self: Box<Self>,
        tx: &mut PgConnection,
        at: &Written<'_>,
        _audit: &mut Vec<Entry>,
    ) -> anyhow::Result<Option<(Author, OutPayload)>> {
        let user = UserScope::of(at.conversation);
        let (csv, rows) = crate::finance::ledger::export_csv(&mut *tx, user).await?;
        if rows == 0 {
            return Ok(Some((
                Author::Bot,
                OutPayload {
                    text: crate::finance::messages::EXPORT_EMPTY.into(),
                    ..Default::default()
                },
            )));
        }
        let file = crate::channels::files::store(
            &mut *tx,
            at.conversation.bot_id,
            at.conversation.id,
            "mis-movimientos.csv",
            "text/csv; charset=utf-8",
            csv.as_bytes(),
        )
        .await?;
        Ok(Some((
            Author::Bot,
            OutPayload {
                text: crate::finance::messages::export_ready(rows),
                file: Some(file),
                ..Default::default()
            },
        )))
    }
}

/// A result drawn: the picture stored in the turn's own transaction and sent
/// after the reply, its figures in words as the caption.
struct FinanceChart(crate::finance::charts::Drawn);

#[async_trait]
impl Effects for FinanceChart {
    fn follows_reply(&self) -> bool {
        true
    }

    async fn write(
        self: Box<Self>,
        tx: &mut PgConnection,
        at: &Written<'_>,
        _audit: &mut Vec<Entry>,
    ) -> anyhow::Result<Option<(Author, OutPayload)>> {
        let chart = self.0;
        let file = crate::channels::files::store(
            &mut *tx,
            at.conversation.bot_id,
            at.conversation.id,
            &chart.filename,
            "image/png",
            &chart.png,
        )
        .await?;
        Ok(Some((
            Author::Bot,
            OutPayload {
                text: chart.caption,
                file: Some(file),
                ..Default::default()
            },
        )))
    }
}

/// A reminder scheduled or cancelled, in the turn's own transaction; the reply
/// says what happened with the rows themselves.
struct FinanceReminder(super::plan::ReminderChange);

#[async_trait]
impl Effects for FinanceReminder {
    async fn write(
        self: Box<Self>,
        tx: &mut PgConnection,
        at: &Written<'_>,
        audit: &mut Vec<Entry>,
    ) -> anyhow::Result<Option<(Author, OutPayload)>> {
        let user = UserScope::of(at.conversation);
        let text = match self.0 {
            super::plan::ReminderChange::Add { what, due_on } => {
                let new = crate::finance::reminders::add(
                    &mut *tx,
                    user,
                    at.conversation.id,
                    &what,
                    due_on,
                    &at.bot.timezone,
                )
                .await?;
                if new {
                    return Ok(None);
                }
                crate::finance::messages::reminder_already(&what, due_on)
            }
            super::plan::ReminderChange::Cancel { about } => {
                let cancelled =
                    crate::finance::reminders::cancel(&mut *tx, user, about.as_deref()).await?;
                audit.push(
                    Entry::new(Actor::Customer, Kind::ActionExecuted)
                        .reason("REMINDERS_CANCELLED")
                        .detail(serde_json::json!({ "cancelled": cancelled })),
                );
                crate::finance::messages::reminders_cancelled(cancelled)
            }
        };
        Ok(Some((
            Author::Bot,
            OutPayload {
                text,
                ..Default::default()
            },
        )))
    }
}
