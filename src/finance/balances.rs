//! The `fin_balances` table: the bank balance as the user stated it, newest first.
//! Cash available is this balance only.

use chrono::NaiveDate;
use sqlx::{PgConnection, PgExecutor};

use super::ledger::UserScope;

pub async fn set(
    conn: &mut PgConnection,
    user: UserScope,
    balance_cents: i64,
    inbox_id: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO fin_balances (bot_id, contact_id, balance_cents, inbox_id) VALUES ($1, $2, $3, $4)",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(balance_cents)
    .bind(inbox_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// The current balance and the day it was stated (in `timezone`).
pub async fn current(
    db: impl PgExecutor<'_>,
    user: UserScope,
    timezone: &str,
) -> sqlx::Result<Option<(i64, NaiveDate)>> {
    sqlx::query_as(
        "SELECT balance_cents, (created_at AT TIME ZONE $3)::date FROM fin_balances
         WHERE contact_id = $2 AND bot_id = $1 ORDER BY id DESC LIMIT 1",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(timezone)
    .fetch_optional(db)
    .await
}

/// Deletes every recorded bank balance of the person (an erasure they confirmed); how many.
pub async fn forget(conn: &mut PgConnection, user: UserScope) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM fin_balances WHERE bot_id = $1 AND contact_id = $2")
            .bind(user.bot_id)
            .bind(user.contact_id)
            .execute(conn)
            .await?
            .rows_affected(),
    )
}
