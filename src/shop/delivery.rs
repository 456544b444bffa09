//! The `delivery_zones` table and the bot's pickup and delivery switches: where
//! a shop delivers and for how much, set by its merchant.

use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use super::core::{Options, Zone};
use crate::bots::Bot;

/// Most zones one shop may have.
pub const MAX_ZONES: usize = 50;

/// A `delivery_zones` row: id, name, fee, minimum order, free from.
type ZoneRow = (i64, String, i64, Option<i64>, Option<i64>);

/// The bot's zones, in the merchant's order.
pub async fn zones(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<Vec<Zone>> {
    let rows: Vec<ZoneRow> = sqlx::query_as(
        "SELECT id, name, fee_minor, min_order_minor, free_from_minor FROM delivery_zones
         WHERE bot_id = $1 ORDER BY position, id",
    )
    .bind(bot_id)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(id, name, fee_minor, min_order_minor, free_from_minor)| Zone {
                id,
                name,
                fee_minor,
                min_order_minor,
                free_from_minor,
            },
        )
        .collect())
}

/// A zone as a merchant writes it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ZoneInput {
    pub name: String,
    pub fee_minor: i64,
    #[serde(default)]
    pub min_order_minor: Option<i64>,
    /// Orders (before the fee) of at least this much are delivered free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_from_minor: Option<i64>,
}

/// Replaces the bot's switches and zones (in the caller's transaction). Zones
/// keep their ids where the name stays, so a customer's chosen zone survives
/// an edit of its fee.
pub async fn replace(
    conn: &mut PgConnection,
    bot_id: Uuid,
    pickup: bool,
    delivery: bool,
    zones: &[ZoneInput],
) -> sqlx::Result<()> {
    sqlx::query("UPDATE bots SET pickup_enabled = $2, delivery_enabled = $3 WHERE id = $1")
        .bind(bot_id)
        .bind(pickup)
        .bind(delivery)
        .execute(&mut *conn)
        .await?;
    let names: Vec<String> = zones.iter().map(|z| z.name.trim().to_owned()).collect();
    sqlx::query("DELETE FROM delivery_zones WHERE bot_id = $1 AND NOT (lower(name) = ANY($2))")
        .bind(bot_id)
        .bind(names.iter().map(|n| n.to_lowercase()).collect::<Vec<_>>())
        .execute(&mut *conn)
        .await?;
    for (position, (zone, name)) in zones.iter().zip(&names).enumerate() {
        sqlx::query(
            "INSERT INTO delivery_zones (bot_id, name, fee_minor, min_order_minor, position,
                                         free_from_minor)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (bot_id, lower(name)) DO UPDATE SET name = excluded.name,
                 fee_minor = excluded.fee_minor, min_order_minor = excluded.min_order_minor,
                 position = excluded.position, free_from_minor = excluded.free_from_minor",
        )
        .bind(bot_id)
        .bind(name)
        .bind(zone.fee_minor)
        .bind(zone.min_order_minor)
        .bind(position as i32)
        .bind(zone.free_from_minor)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// What the bot offers, with the zones loaded beside its catalog.
pub fn options(bot: &Bot, zones: &[Zone]) -> Options {
    Options {
        pickup: bot.pickup_enabled,
        delivery: bot.delivery_enabled,
        zones: zones.to_vec(),
    }
}
