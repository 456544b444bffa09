//! Executing a confirmed write inside the turn's transaction, the same one that
//! marks the confirming event processed: a replayed "sí" finds the event done and
//! writes nothing again.

use sqlx::PgConnection;

use super::core::draft::Write;
use super::learning::NewCorrection;
use super::ledger::{NewTransaction, UserScope};
use super::{balances, budgets, debts, learning, ledger};

/// Executes `write`; an erasure says how many rows it took.
pub async fn execute(
    conn: &mut PgConnection,
    user: UserScope,
    currency: &str,
    write: &Write,
    inbox_id: i64,
) -> sqlx::Result<Option<super::erase::Erased>> {
    match write {
        Write::LogTransaction {
            kind,
            amount_cents,
            category,
            category_type,
            date,
            description,
            merchant,
            learned,
        } => {
            let tx = NewTransaction {
                kind: *kind,
                amount_cents: *amount_cents,
                currency,
                category,
                category_type: *category_type,
                description,
                merchant: merchant.as_deref(),
                date: *date,
            };
            ledger::insert(conn, user, &tx, inbox_id).await?;
            if *learned && let Some(merchant) = merchant {
                learning::rule_applied(conn, user, merchant).await?;
            }
        }
        Write::SetBudget {
            category,
            starts_on,
            cap_cents,
        } => {
            budgets::set(
                conn,
                user,
                *category,
                *starts_on,
                *cap_cents,
                Some(inbox_id),
            )
            .await?
        }
        Write::SetDebt {
            name,
            balance_cents,
            minimum_cents,
            due_day,
        } => debts::set(conn, user, name, *balance_cents, *minimum_cents, *due_day).await?,
        Write::DebtPayment { name, amount_cents } => {
            debts::pay(conn, user, name, *amount_cents).await?;
        }
        Write::SetReceivable {
            name,
            balance_cents,
        } => {
            super::receivables::set(conn, user, name, *balance_cents).await?;
        }
        Write::ReceivablePayment { name, amount_cents } => {
            super::receivables::pay(conn, user, name, *amount_cents).await?;
        }
        Write::SetBankBalance { balance_cents } => {
            balances::set(conn, user, *balance_cents, inbox_id).await?
        }
        Write::CorrectCategory {
            transaction_id,
            from,
            to,
            to_type,
            merchant,
            description,
        } => {
            if ledger::set_category(conn, user, *transaction_id, to, *to_type).await? {
                let correction = NewCorrection {
                    transaction_id: *transaction_id,
                    merchant: merchant.as_deref(),
                    description,
                    from,
                    to,
                };
                learning::record_correction(conn, user, &correction, inbox_id).await?;
            }
        }
        Write::EraseMyData => {
            return Ok(Some(super::erase::erase(conn, user, inbox_id).await?));
        }
    }
    Ok(None)
}
