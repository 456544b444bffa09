//! The `fin_budgets` table: monthly caps, each valid from its month until a later
//! one replaces it. Category '' is the cap on all variable spending.

use chrono::NaiveDate;
use sqlx::{PgConnection, PgExecutor};

use super::ledger::UserScope;

/// Sets the cap from `starts_on` (a first of month) on; replaces one set for that
/// same month.
pub async fn set(
    conn: &mut PgConnection,
    user: UserScope,
    category: Option<&str>,
    starts_on: NaiveDate,
    cap_cents: i64,
    inbox_id: Option<i64>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO fin_budgets (bot_id, contact_id, category, starts_on, cap_cents, inbox_id)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (bot_id, contact_id, category, starts_on)
         DO UPDATE SET cap_cents = excluded.cap_cents, inbox_id = excluded.inbox_id, updated_at = now()",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(category.unwrap_or(""))
    .bind(starts_on)
    .bind(cap_cents)
    .bind(inbox_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// The cap in force for `month` (a first of month), if any.
pub async fn cap_for(
    db: impl PgExecutor<'_>,
    user: UserScope,
    category: Option<&str>,
    month: NaiveDate,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "SELECT cap_cents FROM fin_budgets
         WHERE contact_id = $2 AND bot_id = $1 AND category = $3 AND starts_on <= $4
         ORDER BY starts_on DESC LIMIT 1",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(category.unwrap_or(""))
    .bind(month)
    .fetch_optional(db)
    .await
}

/// Deletes every budget of the person (an erasure they confirmed); how many.
pub async fn forget(conn: &mut PgConnection, user: UserScope) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM fin_budgets WHERE bot_id = $1 AND contact_id = $2")
            .bind(user.bot_id)
            .bind(user.contact_id)
            .execute(conn)
            .await?
            .rows_affected(),
    )
}
