//! How a shop's orders reach its customers: pickup, delivery to zones with a
//! fee each (and an optional minimum order). The fee is only ever the zone's.

use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use uuid::Uuid;

use super::catalog::shop_bot;
use super::{MerchantError, Office, Result};
use crate::shop::catalog::MAX_PRICE_MINOR;
use crate::shop::core::Zone;
use crate::shop::delivery::{self, MAX_ZONES, ZoneInput};

/// A shop's pickup and delivery, as the merchant sets it.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeliverySettings {
    /// Customers may pick orders up at the shop.
    pub pickup: bool,
    /// The shop delivers to `zones` (at least one when true).
    pub delivery: bool,
    /// Each zone's name (what customers write), fee and optional minimum order,
    /// in minor units; the list replaces the current one.
    #[serde(default)]
    pub zones: Vec<ZoneInput>,
}

/// What is set, with the zones' ids.
#[derive(Debug, Clone, Serialize)]
pub struct Delivery {
    pub pickup: bool,
    pub delivery: bool,
    pub zones: Vec<Zone>,
}

pub async fn get(pool: &PgPool, merchant_id: Uuid, slug: &str) -> Result<Delivery> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    Ok(Delivery {
        pickup: bot.pickup_enabled,
        delivery: bot.delivery_enabled,
        zones: delivery::zones(pool, bot.id).await?,
    })
}

fn invalid(message: &str, es: &str) -> MerchantError {
    MerchantError::invalid("delivery", message, es)
}

/// What is wrong with the settings, if anything.
fn check(settings: &DeliverySettings) -> Result<()> {
    if !settings.pickup && !settings.delivery {
        return Err(invalid(
            "offer pickup, delivery or both",
            "Ofrece recojo en la tienda, envío o ambos.",
        ));
    }
    if settings.delivery && settings.zones.is_empty() {
        return Err(invalid(
            "delivery needs at least one zone",
            "Para hacer envíos, agrega al menos una zona con su costo.",
        ));
    }
    if settings.zones.len() > MAX_ZONES {
        return Err(invalid(
            "at most 50 zones",
            "Puedes tener hasta 50 zonas de envío.",
        ));
    }
    let mut seen: Vec<String> = Vec::new();
    for zone in &settings.zones {
        let name = zone.name.trim();
        if name.is_empty() || name.chars().count() > 80 {
            return Err(invalid(
                "each zone needs a name of 1-80 characters",
                "Cada zona necesita un nombre de 1 a 80 letras.",
            ));
        }
        if seen.contains(&name.to_lowercase()) {
            return Err(invalid(
                &format!("zone `{name}` is listed twice"),
                &format!("La zona «{name}» está dos veces."),
            ));
        }
        seen.push(name.to_lowercase());
        let amount_ok = |minor: i64| (0..=MAX_PRICE_MINOR).contains(&minor);
        // Free from nothing, or from less than the smallest order delivered,
        // says nothing true.
        if zone
            .free_from_minor
            .is_some_and(|free| free == 0 || zone.min_order_minor.is_some_and(|min| free < min))
        {
            return Err(invalid(
                &format!(
                    "zone `{name}`: free_from_minor must be above 0 and at least the minimum order"
                ),
                &format!(
                    "Zona «{name}»: el envío gratis desde debe ser mayor que 0 y no menor que el pedido mínimo."
                ),
            ));
        }
        if !amount_ok(zone.fee_minor)
            || !zone.min_order_minor.is_none_or(amount_ok)
            || !zone.free_from_minor.is_none_or(amount_ok)
        {
            return Err(invalid(
                &format!(
                    "zone `{name}`: fee, minimum order and free-from are amounts between 0 and 100,000,000"
                ),
                &format!(
                    "Zona «{name}»: el costo, el pedido mínimo y el envío gratis desde van de 0 a 100.000.000."
                ),
            ));
        }
    }
    Ok(())
}

/// Replaces the shop's pickup, delivery and zones; the next turn uses them.
pub async fn set(
    office: &Office,
    merchant_id: Uuid,
    slug: &str,
    settings: &DeliverySettings,
) -> Result<Delivery> {
    let bot = shop_bot(&office.pool, merchant_id, slug).await?;
    check(settings)?;
    let mut tx = office.pool.begin().await?;
    delivery::replace(
        &mut tx,
        bot.id,
        settings.pickup,
        settings.delivery,
        &settings.zones,
    )
    .await?;
    tx.commit().await?;
    office.directory.forget(&bot.slug);
    get(&office.pool, merchant_id, slug).await
}
