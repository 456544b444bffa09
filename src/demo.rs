//! Loading a bot from a JSON fixture: the demo shop and the demo finance bot on
//! first start, and any bot a merchant describes in the same shape.

use anyhow::Context;
use serde::Deserialize;
use sqlx::PgPool;
use uuid::Uuid;

/// The demo shop, compiled in so the binary runs anywhere.
pub const DEMO_SHOP: &str = include_str!("../fixtures/demo-shop.json");
/// The demo finance bot (MXN, America/Mexico_City; new users get sample history).
pub const DEMO_FINANCE: &str = include_str!("../fixtures/demo-finanzas.json");

#[derive(Debug, Deserialize)]
pub struct ShopFixture {
    pub merchant: MerchantFixture,
    pub bot: BotFixture,
    #[serde(default)]
    pub products: Vec<ProductFixture>,
    /// What the shop knows beyond its catalog (hours, delivery, payments…).
    #[serde(default)]
    pub knowledge: Vec<KnowledgeFixture>,
    /// Pickup, delivery and the zones (none: pickup only).
    #[serde(default)]
    pub delivery: Option<DeliveryFixture>,
}

/// How a fixture shop's orders reach its customers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeliveryFixture {
    pub pickup: bool,
    pub delivery: bool,
    #[serde(default)]
    pub zones: Vec<crate::shop::delivery::ZoneInput>,
}

#[derive(Debug, Deserialize)]
pub struct KnowledgeFixture {
    pub title: String,
    pub body: String,
}

#[derive(Debug, Deserialize)]
pub struct MerchantFixture {
    pub slug: String,
    pub name: String,
}

#[derive(Debug, Deserialize)]
pub struct BotFixture {
    pub slug: String,
    pub name: String,
    #[serde(default = "default_profile")]
    pub profile: crate::bots::ProfileKind,
    pub currency: String,
    #[serde(default = "default_timezone")]
    pub timezone: String,
    /// New users start with sample history (demo bots).
    #[serde(default)]
    pub sample_history: bool,
    #[serde(default = "default_session_timeout")]
    pub session_timeout_secs: i32,
    #[serde(default = "default_payment_timeout")]
    pub payment_timeout_secs: i32,
    #[serde(default)]
    pub payment_instructions: String,
}

fn default_profile() -> crate::bots::ProfileKind {
    crate::bots::ProfileKind::Shop
}

#[derive(Debug, Deserialize)]
pub struct ProductFixture {
    pub sku: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub price_minor: i64,
    #[serde(default = "yes")]
    pub active: bool,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub allergens: Vec<String>,
    /// Units on hand; absent: not tracked.
    #[serde(default)]
    pub stock: Option<i32>,
}

fn default_timezone() -> String {
    "America/La_Paz".into()
}
fn default_session_timeout() -> i32 {
    1800
}
fn default_payment_timeout() -> i32 {
    86400
}
fn yes() -> bool {
    true
}

/// Ids of what a fixture created.
#[derive(Debug, Clone, Copy)]
pub struct LoadedShop {
    pub merchant_id: Uuid,
    pub bot_id: Uuid,
}

/// Creates the merchant, bot and products of `json` in one transaction.
pub async fn load_shop(pool: &PgPool, json: &str) -> anyhow::Result<LoadedShop> {
    let shop: ShopFixture = serde_json::from_str(json).context("invalid shop fixture")?;
    let mut tx = pool.begin().await?;
    let merchant_id =
        crate::merchants::create(&mut *tx, &shop.merchant.slug, &shop.merchant.name).await?;
    let spec = crate::bots::NewBot {
        slug: &shop.bot.slug,
        name: &shop.bot.name,
        currency: &shop.bot.currency,
        profile: shop.bot.profile,
        timezone: &shop.bot.timezone,
        sample_history: shop.bot.sample_history,
    };
    let bot = crate::bots::create(&mut *tx, merchant_id, &spec)
        .await
        .with_context(|| format!("could not create bot `{}`", shop.bot.slug))?;
    let settings = crate::bots::BotSettings {
        agent_enabled: None,
        session_timeout_secs: Some(shop.bot.session_timeout_secs),
        payment_timeout_secs: Some(shop.bot.payment_timeout_secs),
        payment_instructions: Some(shop.bot.payment_instructions.clone()),
        takeover_idle_secs: None,
        webchat_origins: None,
        low_stock_threshold: None,
        whatsapp_order_template: None,
        whatsapp_reminder_template: None,
        whatsapp_template_language: None,
    };
    crate::bots::update_settings(&mut *tx, bot.id, &settings).await?;
    let products: Vec<crate::shop::catalog::ProductInput> = shop
        .products
        .iter()
        .map(|p| crate::shop::catalog::ProductInput {
            sku: p.sku.clone(),
            name: p.name.clone(),
            description: p.description.clone(),
            price_minor: p.price_minor,
            active: p.active,
            tags: p.tags.clone(),
            allergens: p.allergens.clone(),
            stock: p.stock,
        })
        .collect();
    if !products.is_empty() {
        let given = crate::shop::catalog::Given {
            tags: true,
            allergens: true,
            stock: true,
        };
        crate::shop::catalog::upsert_all(&mut *tx, bot.id, &shop.bot.currency, &products, given)
            .await?;
    }
    if let Some(way) = &shop.delivery {
        crate::shop::delivery::replace(&mut tx, bot.id, way.pickup, way.delivery, &way.zones)
            .await?;
    }
    for entry in &shop.knowledge {
        crate::shop::knowledge::check(Some(&entry.title), Some(&entry.body))
            .map_err(|why| anyhow::anyhow!("knowledge entry «{}»: {why}", entry.title))?;
        crate::shop::knowledge::create(&mut tx, bot.id, &entry.title, &entry.body).await?;
    }
    let bot_id = bot.id;
    tx.commit().await?;
    Ok(LoadedShop {
        merchant_id,
        bot_id,
    })
}

/// Loads the demo shop and the demo finance bot if the database has no bot at
/// all. Returns the shop if loaded.
pub async fn load_demo_if_empty(pool: &PgPool) -> anyhow::Result<Option<LoadedShop>> {
    // Serialize concurrent first starts of several replicas.
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock(7326157)")
        .execute(&mut *tx)
        .await?;
    let any: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM bots)")
        .fetch_one(&mut *tx)
        .await?;
    if any {
        return Ok(None);
    }
    let loaded = load_shop(pool, DEMO_SHOP).await?;
    load_shop(pool, DEMO_FINANCE).await?;
    tx.commit().await?;
    Ok(Some(loaded))
}
