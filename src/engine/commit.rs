//! The one transaction of a turn: compare-and-set the conversation (which also
//! takes its row lock and hands the lease back), write the profile's own rows
//! (which may compose the reply from what they wrote), mark every event of the
//! burst processed, queue (or, for web chat, deliver) the reply and the merchant's
//! notice, and write the audit rows and the turn's LLM calls.
//! Each step is one statement; nothing here calls out of the database.

use sqlx::PgPool;
use uuid::Uuid;

use super::burst::Burst;
use super::claim::TurnSnapshot;
use super::profile::{Decision, Written};
use crate::audit::{self, Scope};
use crate::bots::Bot;
use crate::channels::OutPayload;
use crate::conversations;
use crate::inbox;
use crate::llm::CallLog;
use crate::notices::{self, Notice};
use crate::outbox;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitOutcome {
    Committed,
    /// The conversation changed since the snapshot (a takeover, a merchant action,
    /// a lease taken over): nothing was written; plan again.
    Conflict,
}

#[allow(clippy::too_many_arguments)]
pub async fn commit(
    pool: &PgPool,
    owner: Uuid,
    snapshot: &TurnSnapshot,
    bot: &Bot,
    burst: &Burst,
    decision: Decision,
    console_url: Option<&str>,
    calls: &CallLog,
) -> anyhow::Result<CommitOutcome> {
    let conversation = &snapshot.conversation;
    let notice = notice_of(snapshot, burst, &decision);
    let Decision {
        update,
        mut audit,
        effects,
        mut reply,
        ..
    } = decision;
    let mut tx = pool.begin().await?;
    if !conversations::save_turn(&mut tx, conversation, &update, owner).await? {
        return Ok(CommitOutcome::Conflict);
    }
    let mut after = None;
    if let Some(effects) = effects {
        let at = Written {
            conversation,
            bot,
            head_id: burst.head_id(),
        };
        let follows = effects.follows_reply();
        if let Some(composed) = effects.write(&mut tx, &at, &mut audit).await? {
            if follows {
                after = Some(composed);
            } else {
                reply = Some(composed);
            }
        }
    }
    inbox::mark_done(&mut tx, &burst.ids).await?;
    for (author, payload) in reply.iter().chain(&after) {
        outbox::enqueue(
            &mut tx,
            conversation.id,
            *author,
            payload,
            Some(burst.head_id()),
        )
        .await?;
    }
    if let (Some(notice), Some(chat)) = (&notice, &bot.merchant_chat_id) {
        let (text, choices) = notices::render(notice, conversation.id, console_url);
        outbox::enqueue_for_merchant(
            &mut tx,
            conversation.id,
            Some(chat),
            &OutPayload {
                text,
                choices,
                template: None,
                file: None,
            },
        )
        .await?;
    }
    let scope = Scope {
        bot_id: conversation.bot_id,
        conversation_id: Some(conversation.id),
        inbox_id: Some(burst.head_id()),
    };
    audit::record(&mut tx, scope, &audit).await?;
    let recorded = calls.write(&mut tx).await?;
    tx.commit().await?;
    calls.committed(recorded);
    Ok(CommitOutcome::Committed)
}

/// What the merchant's chat hears: the profile's notice (a payment proof), or —
/// read off the update rather than left to each profile, so no path that hands a
/// conversation to a person (a request, repeated abuse, the loop protection's
/// "sí", a model's ESCALATE) can forget — that a person is needed.
fn notice_of(snapshot: &TurnSnapshot, burst: &Burst, decision: &Decision) -> Option<Notice> {
    if decision.notice.is_some() {
        return decision.notice.clone();
    }
    let handed_over = decision.update.human_override && !snapshot.conversation.human_override;
    handed_over.then(|| Notice::Escalated {
        last_message: match &burst.command {
            super::burst::Command::Message(message) => message.text.clone(),
            _ => String::new(),
        },
    })
}
