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
    let bot_id: Uuid = sqlx::query_scalar(
        "INSERT INTO bots (merchant_id, slug, name, currency, timezone, session_timeout_secs, payment_timeout_secs,
                           payment_instructions, profile, sample_history)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
    )
    .bind(merchant_id)
    .bind(&shop.bot.slug)
    .bind(&shop.bot.name)
    .bind(&shop.bot.currency)
    .bind(&shop.bot.timezone)
    .bind(shop.bot.session_timeout_secs)
    .bind(shop.bot.payment_timeout_secs)
    .bind(&shop.bot.payment_instructions)
    .bind(shop.bot.profile)
    .bind(shop.bot.sample_history)
    .fetch_one(&mut *tx)
    .await
    .with_context(|| format!("could not create bot `{}`", shop.bot.slug))?;
    for p in &shop.products {
        sqlx::query(
            "INSERT INTO products (bot_id, sku, name, description, price_minor, currency, active)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(bot_id)
        .bind(&p.sku)
        .bind(&p.name)
        .bind(&p.description)
        .bind(p.price_minor)
        .bind(&shop.bot.currency)
        .bind(p.active)
        .execute(&mut *tx)
        .await?;
    }
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
