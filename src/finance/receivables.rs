//! The `fin_receivables` table: who owes the person money (a loan they made, a
//! share of a bill they paid) and how much. Names are matched normalized, as
//! debts are; a receivable has no payment day and is never reminded.

use sqlx::{PgConnection, PgExecutor};

use super::core::output::ReceivableLine;
use super::ledger::UserScope;
use crate::text::normalize;

/// Sets what `name` owes the person (said again, it replaces the amount).
pub async fn set(
    conn: &mut PgConnection,
    user: UserScope,
    name: &str,
    balance_cents: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO fin_receivables (bot_id, contact_id, name, name_key, balance_cents)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (bot_id, contact_id, name_key) DO UPDATE SET
             balance_cents = $5, updated_at = now()",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(name)
    .bind(normalize(name))
    .bind(balance_cents)
    .execute(conn)
    .await?;
    Ok(())
}

/// Lowers what `name` owes the person by a sum they paid back (never below
/// zero); what is left, or `None` when nobody by that name owes them.
pub async fn pay(
    conn: &mut PgConnection,
    user: UserScope,
    name: &str,
    amount_cents: i64,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "UPDATE fin_receivables SET balance_cents = greatest(balance_cents - $4, 0), updated_at = now()
         WHERE bot_id = $1 AND contact_id = $2 AND name_key = $3 RETURNING balance_cents",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(normalize(name))
    .bind(amount_cents)
    .fetch_optional(conn)
    .await
}

/// Everyone who owes the person something, the largest first.
pub async fn list(db: impl PgExecutor<'_>, user: UserScope) -> sqlx::Result<Vec<ReceivableLine>> {
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT name, balance_cents FROM fin_receivables
         WHERE bot_id = $1 AND contact_id = $2 AND balance_cents > 0
         ORDER BY balance_cents DESC, name",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(name, balance_cents)| ReceivableLine {
            name,
            balance_cents,
        })
        .collect())
}

/// Deletes every receivable of the person (an erasure they confirmed); how many.
pub async fn forget(conn: &mut PgConnection, user: UserScope) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM fin_receivables WHERE bot_id = $1 AND contact_id = $2")
            .bind(user.bot_id)
            .bind(user.contact_id)
            .execute(conn)
            .await?
            .rows_affected(),
    )
}
