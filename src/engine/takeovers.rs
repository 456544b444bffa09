//! Takeovers that end on their own (seed 002 §5): a conversation a merchant took
//! and then left without a message for the bot's `takeover_idle_secs` goes back to
//! the bot, where it was before. Audited, and the merchant's chat is told. What the
//! customer wrote meanwhile was kept for the merchant and is not answered now.

use sqlx::PgPool;

use crate::audit::{self, Actor, Scope};
use crate::channels::OutPayload;
use crate::conversations;
use crate::notices::{self, Notice};
use crate::outbox;

/// Most takeovers one sweep releases.
const BATCH: i64 = 100;

/// Releases idle takeovers; returns how many.
pub async fn release_idle(pool: &PgPool, console_url: Option<&str>) -> anyhow::Result<u64> {
    let idle = conversations::idle_takeovers(pool, None, BATCH).await?;
    let mut released = 0;
    for (id, _) in idle {
        let mut tx = pool.begin().await?;
        let conversation = conversations::lock(&mut tx, id).await?;
        // Under the lock: the merchant may have written or released meanwhile.
        let Some((_, idle_secs)) = conversations::idle_takeovers(&mut *tx, Some(id), 1)
            .await?
            .into_iter()
            .next()
        else {
            continue;
        };
        let Ok((update, rows)) = crate::handoff::release(&conversation, false, Actor::Backend)
        else {
            continue;
        };
        let rows: Vec<_> = rows
            .into_iter()
            .map(|row| {
                row.reason(format!(
                    "no message from the merchant for {} minutes",
                    idle_secs / 60
                ))
            })
            .collect();
        conversations::save(&mut tx, &conversation, &update).await?;
        let scope = Scope {
            bot_id: conversation.bot_id,
            conversation_id: Some(id),
            inbox_id: None,
        };
        audit::record(&mut tx, scope, &rows).await?;
        let (text, choices) = notices::render(
            &Notice::TakeoverReleased {
                idle_minutes: idle_secs / 60,
            },
            id,
            console_url,
        );
        outbox::enqueue_for_merchant(
            &mut tx,
            id,
            None,
            &OutPayload {
                text,
                choices,
                template: None,
                file: None,
            },
        )
        .await?;
        tx.commit().await?;
        released += 1;
    }
    if released > 0 {
        tracing::info!(released, "idle takeovers went back to the bot");
    }
    Ok(released)
}
