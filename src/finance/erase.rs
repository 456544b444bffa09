//! «Borra mis datos»: once the person confirms with the exact token, every row of
//! theirs in this bot goes in the turn's own transaction — their ledger, budgets,
//! debts, balances, corrections and learned rules deleted; the transcript and any
//! file sent to them (their data as CSV) deleted;
//! the words of their messages and of the replies already sent blanked (the rows
//! stay, so a platform's retry is still recognised and never taken twice); the
//! audit trail keeps what happened and when, without amounts or words. The
//! erasure itself is audited with how many rows went, never what they held.

use serde::Serialize;
use sqlx::PgConnection;

use super::ledger::UserScope;
use super::{balances, budgets, debts, learning, ledger};

/// How many rows an erasure removed or blanked, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Erased {
    pub transactions: u64,
    pub budgets: u64,
    pub debts: u64,
    pub balances: u64,
    pub learned: u64,
    pub reminders: u64,
    pub transcript: u64,
    pub messages_blanked: u64,
    pub replies_blanked: u64,
    /// Files sent to them (their data as CSV).
    pub files: u64,
}

/// Erases the person's rows; `inbox_id` is the confirming message, whose
/// conversation's transcript goes too.
pub async fn erase(
    conn: &mut PgConnection,
    user: UserScope,
    inbox_id: i64,
) -> sqlx::Result<Erased> {
    let conversation: Option<uuid::Uuid> =
        sqlx::query_scalar("SELECT conversation_id FROM inbox WHERE bot_id = $1 AND id = $2")
            .bind(user.bot_id)
            .bind(inbox_id)
            .fetch_optional(&mut *conn)
            .await?
            .flatten();
    let mut erased = Erased {
        transactions: ledger::forget(conn, user).await?,
        budgets: budgets::forget(conn, user).await?,
        debts: debts::forget(conn, user).await? + super::receivables::forget(conn, user).await?,
        balances: balances::forget(conn, user).await?,
        learned: learning::forget(conn, user).await?,
        reminders: super::reminders::forget(conn, user).await?,
        ..Erased::default()
    };
    if let Some(conversation) = conversation {
        erased.transcript =
            crate::transcript::forget(&mut *conn, user.bot_id, conversation).await?;
        erased.messages_blanked =
            crate::inbox::forget_texts(conn, user.bot_id, conversation).await?;
        erased.replies_blanked =
            crate::outbox::forget_texts(conn, user.bot_id, conversation).await?;
        erased.files = crate::channels::files::forget(conn, user.bot_id, conversation).await?;
        crate::audit::forget_details(conn, user.bot_id, conversation).await?;
    }
    Ok(erased)
}
