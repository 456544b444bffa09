//! The finance profile (a personal-finance assistant, DESIGN §4) on the same
//! engine, channels, audit and guarantees as the shop. `core` is pure; `rules`,
//! `contract`, `prompt` and `proposer` read the user's words; `plan` and `apply`
//! decide a turn; the other modules hold each finance table's SQL, the analysis
//! tools that read them and the Spanish the user reads.

pub mod apply;
pub mod balances;
pub mod budgets;
pub mod charts;
pub mod context;
pub mod contract;
pub mod core;
pub mod debts;
pub mod demo;
pub mod erase;
pub mod learning;
pub mod ledger;
pub mod messages;
pub mod plan;
pub mod prompt;
pub mod proposer;
pub mod receivables;
pub mod reminders;
pub mod reply;
pub mod rules;
pub mod tools;
pub mod writes;

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::PgPool;

pub use proposer::FinanceProposer;

use crate::bots::ProfileKind;
use crate::engine::{Decision, Profile, Turn};

/// The finance assistant, as the engine runs it.
pub struct Finance {
    pool: PgPool,
    proposer: Arc<FinanceProposer>,
}

impl Finance {
    pub fn new(pool: PgPool, proposer: Arc<FinanceProposer>) -> Self {
        Finance { pool, proposer }
    }
}

#[async_trait]
impl Profile for Finance {
    fn kind(&self) -> ProfileKind {
        ProfileKind::Finance
    }

    async fn decide(&self, turn: &Turn<'_>) -> anyhow::Result<Decision> {
        let deps = plan::Deps {
            pool: &self.pool,
            proposer: self.proposer.as_ref(),
            turn,
        };
        Ok(match plan::plan(&deps).await? {
            plan::Planned::Decided(decision) => *decision,
            plan::Planned::Plan(plan) => apply::apply(turn, *plan),
        })
    }

    /// Debts' next payments scheduled, then every reminder that is due sent
    /// (claimed and queued in one transaction: once, whichever replica runs it).
    async fn sweep(&self) -> anyhow::Result<u64> {
        reminders::schedule_debts(&self.pool).await?;
        Ok(reminders::send_due(&self.pool).await?)
    }
}
