//! The `fin_transactions` table: a user's income and expenses. Rows are only ever
//! added or re-categorized; nothing here deletes history.

use chrono::NaiveDate;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use super::core::category::CategoryType;
use super::core::draft::TxKind;
use super::core::matrix::LastTransaction;

/// Whose data a query touches: one user (contact) of one bot. Every finance query
/// is scoped by both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserScope {
    pub bot_id: Uuid,
    pub contact_id: Uuid,
}

impl UserScope {
    /// The person a conversation is with, in its bot.
    pub fn of(conversation: &crate::conversations::Conversation) -> UserScope {
        UserScope {
            bot_id: conversation.bot_id,
            contact_id: conversation.contact_id,
        }
    }
}

/// A transaction to add.
#[derive(Debug, Clone)]
pub struct NewTransaction<'a> {
    pub kind: TxKind,
    pub amount_cents: i64,
    pub currency: &'a str,
    pub category: &'a str,
    pub category_type: CategoryType,
    pub description: &'a str,
    pub merchant: Option<&'a str>,
    pub date: NaiveDate,
}

/// Adds a confirmed transaction; `inbox_id` is the confirming event (unique, so a
/// replayed confirmation cannot add a second row).
pub async fn insert(
    conn: &mut PgConnection,
    user: UserScope,
    tx: &NewTransaction<'_>,
    inbox_id: i64,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO fin_transactions (bot_id, contact_id, kind, amount_cents, currency, category,
                                       category_type, description, merchant, occurred_on, inbox_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(tx.kind.as_str())
    .bind(tx.amount_cents)
    .bind(tx.currency)
    .bind(tx.category)
    .bind(tx.category_type.as_str())
    .bind(tx.description)
    .bind(tx.merchant)
    .bind(tx.date)
    .bind(inbox_id)
    .fetch_one(conn)
    .await
}

/// Adds many sample rows at once (demo history); one statement.
pub async fn insert_samples(
    conn: &mut PgConnection,
    user: UserScope,
    rows: &[NewTransaction<'_>],
) -> sqlx::Result<u64> {
    if rows.is_empty() {
        return Ok(0);
    }
    let mut builder = sqlx::QueryBuilder::new(
        "INSERT INTO fin_transactions (bot_id, contact_id, kind, amount_cents, currency, category,
                                       category_type, description, merchant, occurred_on, source) ",
    );
    builder.push_values(rows, |mut row, tx| {
        row.push_bind(user.bot_id)
            .push_bind(user.contact_id)
            .push_bind(tx.kind.as_str())
            .push_bind(tx.amount_cents)
            .push_bind(tx.currency)
            .push_bind(tx.category)
            .push_bind(tx.category_type.as_str())
            .push_bind(tx.description)
            .push_bind(tx.merchant)
            .push_bind(tx.date)
            .push_bind("sample");
    });
    Ok(builder.build().execute(conn).await?.rows_affected())
}

/// Moves a transaction to another category; false when it is not this user's.
pub async fn set_category(
    conn: &mut PgConnection,
    user: UserScope,
    id: i64,
    category: &str,
    category_type: CategoryType,
) -> sqlx::Result<bool> {
    let result = sqlx::query(
        "UPDATE fin_transactions SET category = $4, category_type = $5
         WHERE id = $3 AND contact_id = $2 AND bot_id = $1",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .bind(id)
    .bind(category)
    .bind(category_type.as_str())
    .execute(conn)
    .await?;
    Ok(result.rows_affected() == 1)
}

/// The last transaction the user logged in chat, for "eso era transporte".
pub async fn last_logged(
    db: impl PgExecutor<'_>,
    user: UserScope,
) -> sqlx::Result<Option<LastTransaction>> {
    let row: Option<(i64, String, String, Option<String>, i64, NaiveDate)> = sqlx::query_as(
        "SELECT id, category, description, merchant, amount_cents, occurred_on FROM fin_transactions
         WHERE contact_id = $2 AND bot_id = $1 AND source = 'chat' ORDER BY id DESC LIMIT 1",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .fetch_optional(db)
    .await?;
    Ok(row.map(
        |(id, category, description, merchant, amount_cents, date)| LastTransaction {
            id,
            category,
            description,
            merchant,
            amount_cents,
            date,
        },
    ))
}

/// Transactions of a user (all kinds), for tests and the demo.
pub async fn count(db: impl PgExecutor<'_>, user: UserScope) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT count(*) FROM fin_transactions WHERE contact_id = $2 AND bot_id = $1",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .fetch_one(db)
    .await
}

/// Deletes every transaction of the person (an erasure they confirmed); how many.
pub async fn forget(conn: &mut PgConnection, user: UserScope) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM fin_transactions WHERE bot_id = $1 AND contact_id = $2")
            .bind(user.bot_id)
            .bind(user.contact_id)
            .execute(conn)
            .await?
            .rows_affected(),
    )
}

/// Every transaction of the person, oldest first, as a CSV document (a header,
/// then one line per row; amounts in units with two decimals, fields quoted when
/// they need it); with how many rows.
pub async fn export_csv(conn: &mut PgConnection, user: UserScope) -> sqlx::Result<(String, usize)> {
    type Row = (
        NaiveDate,
        String,
        i64,
        String,
        String,
        String,
        String,
        Option<String>,
    );
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT occurred_on, kind, amount_cents, currency, category, category_type,
                description, merchant
         FROM fin_transactions WHERE bot_id = $1 AND contact_id = $2
         ORDER BY occurred_on, id",
    )
    .bind(user.bot_id)
    .bind(user.contact_id)
    .fetch_all(conn)
    .await?;
    let quote = |field: &str| {
        // A leading = + - @ would be a formula in a spreadsheet.
        let field = if field.starts_with(['=', '+', '-', '@']) {
            format!("'{field}")
        } else {
            field.to_owned()
        };
        if field.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", field.replace('"', "\"\""))
        } else {
            field
        }
    };
    let mut csv =
        String::from("fecha,tipo,monto,moneda,categoria,tipo_de_categoria,concepto,comercio\n");
    for (date, kind, cents, currency, category, category_type, description, merchant) in &rows {
        let kind = if kind == "income" { "ingreso" } else { "gasto" };
        csv.push_str(&format!(
            "{},{kind},{}.{:02},{},{},{},{},{}\n",
            date.format("%Y-%m-%d"),
            cents / 100,
            cents % 100,
            quote(currency.trim()),
            quote(category),
            quote(category_type),
            quote(description),
            quote(merchant.as_deref().unwrap_or("")),
        ));
    }
    Ok((csv, rows.len()))
}
