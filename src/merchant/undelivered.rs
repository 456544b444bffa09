//! Messages that never reached the customer: list them, queue one again, or drop
//! it. Both decisions are audited.

use serde::Serialize;
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use super::{MerchantError, Result};
use crate::audit::{self, Actor, Entry, Kind, Scope};
use crate::outbox::Status;
use crate::outbox::undelivered::{self, Undelivered};

pub async fn list(
    pool: &PgPool,
    merchant_id: Uuid,
    bot: Option<&str>,
    limit: i64,
) -> Result<Vec<Undelivered>> {
    Ok(undelivered::list(pool, merchant_id, bot, limit.clamp(1, 500)).await?)
}

/// What to do with an undelivered message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Queued again with fresh attempts.
    Retry,
    /// Dropped; it leaves the list.
    Discard,
}

#[derive(Debug, Clone, Serialize)]
pub struct Decided {
    pub id: i64,
    pub status: Status,
}

pub async fn decide(pool: &PgPool, merchant_id: Uuid, id: i64, choice: Choice) -> Result<Decided> {
    let mut tx = pool.begin().await?;
    let message = undelivered::lock(&mut tx, merchant_id, id)
        .await?
        .ok_or(MerchantError::NotFound("dead letter"))?;
    let (kind, status) = match choice {
        Choice::Retry => {
            undelivered::retry(&mut tx, id).await?;
            (Kind::OutboundRetried, Status::Pending)
        }
        Choice::Discard => {
            undelivered::discard(&mut tx, id).await?;
            (Kind::OutboundDiscarded, Status::Discarded)
        }
    };
    let scope = Scope {
        bot_id: message.bot_id,
        conversation_id: Some(message.conversation_id),
        inbox_id: None,
    };
    let entry =
        Entry::new(Actor::Merchant, kind).detail(json!({"outbox_id": id, "was": message.status}));
    audit::record(&mut tx, scope, &[entry]).await?;
    tx.commit().await?;
    Ok(Decided { id, status })
}
