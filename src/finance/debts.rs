//! The `fin_debts` table: whom the user owes, how much, the minimum payment and
//! its day. Names are matched normalized ("Juan" and "juan" are one debt).

use sqlx::{PgConnection, PgExecutor};

use super::core::output::DebtLine;
use super::ledger::UserScope;
use crate::text::normalize;

/// Creates the debt or changes the given fields of the existing one.
pub async fn set(
    conn: &mut PgConnection,
    user: UserScope,
    name: &str,
    balance_cents: Option<i64>,
    minimum_cents: Option<i64>,
    due_day: Option<u32>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO fin_debts (bot_id, contact_id, name, name_key, balance_cents, minimum_payment_cents, due_day)
         VALUES ($1, $2, $3, $4, coalesce($5, 0), $6, $7)
         ON CONFLICT (bot_id, contact_id, name_key) DO UPDATE SET
             balance_cents = coalesce($5, fin_debts.balance_cents),
             minimum_payment_cents = coalesce($6, fin_debts.minimum_payment_cents),
             due_day = coalesce($7, fin_debts.due_day),
             updated_at = now()",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(name)
    .bind(normalize(name))
    .bind(balance_cents)
    .bind(minimum_cents)
    .bind(due_day.map(|d| d as i16))
    .execute(conn)
    .await?;
    Ok(())
}

/// Lowers a debt by a payment (never below zero); the balance after, or `None`
/// when the user has no such debt.
pub async fn pay(
    conn: &mut PgConnection,
    user: UserScope,
    name: &str,
    amount_cents: i64,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "UPDATE fin_debts SET balance_cents = greatest(balance_cents - $4, 0), updated_at = now()
         WHERE contact_id = $2 AND bot_id = $1 AND name_key = $3 RETURNING balance_cents",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(normalize(name))
    .bind(amount_cents)
    .fetch_optional(conn)
    .await
}

pub async fn list(db: impl PgExecutor<'_>, user: UserScope) -> sqlx::Result<Vec<DebtLine>> {
    let rows: Vec<(String, i64, Option<i64>, Option<i16>)> = sqlx::query_as(
        "SELECT name, balance_cents, minimum_payment_cents, due_day FROM fin_debts
         WHERE contact_id = $2 AND bot_id = $1 ORDER BY balance_cents DESC, name",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(name, balance_cents, minimum_cents, due_day)| DebtLine {
            name,
            balance_cents,
            minimum_cents,
            due_day: due_day.map(|d| d as u32),
        })
        .collect())
}

/// Deletes every debt of the person (an erasure they confirmed); how many.
pub async fn forget(conn: &mut PgConnection, user: UserScope) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM fin_debts WHERE bot_id = $1 AND contact_id = $2")
            .bind(user.bot_id)
            .bind(user.contact_id)
            .execute(conn)
            .await?
            .rows_affected(),
    )
}
