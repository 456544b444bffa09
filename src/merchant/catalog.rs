//! A shop's catalog as its merchant keeps it: list, add, edit, take a product out,
//! and the whole catalog as a CSV file (all or nothing, every bad line reported).
//! A change reaches running turns through the bot's `config_version`, bumped by
//! the database.

use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use super::{MerchantError, Result, bot_of_profile};
use crate::bots::{Bot, ProfileKind};
use crate::shop::catalog::{self, Product, ProductError, ProductInput, ProductPatch};
use crate::shop::catalog_csv;

impl From<ProductError> for MerchantError {
    fn from(err: ProductError) -> Self {
        match err {
            ProductError::SkuTaken => MerchantError::SkuTaken,
            ProductError::Database(e) => e.into(),
        }
    }
}

/// The merchant's shop bot (a finance bot has no catalog).
pub async fn shop_bot(pool: &PgPool, merchant_id: Uuid, slug: &str) -> Result<Bot> {
    bot_of_profile(
        pool,
        merchant_id,
        slug,
        ProfileKind::Shop,
        "only shop bots have a catalog",
    )
    .await
}

/// Every product, inactive ones included.
pub async fn list(pool: &PgPool, merchant_id: Uuid, slug: &str) -> Result<(Bot, Vec<Product>)> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    let products = catalog::list_all(pool, bot.id).await?;
    Ok((bot, products))
}

pub async fn create(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
    input: &ProductInput,
) -> Result<(Bot, Product)> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    catalog::check(input).map_err(|why| MerchantError::invalid("product", why.en, why.es))?;
    let product = catalog::create(pool, bot.id, &bot.currency, input).await?;
    Ok((bot, product))
}

/// Edits a product (`active: false` takes it out of the catalog; carts drop it at
/// their next turn, orders keep what they were sold at).
pub async fn update(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
    id: i64,
    patch: &ProductPatch,
) -> Result<(Bot, Product)> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    patch
        .check()
        .map_err(|why| MerchantError::invalid("product", why.en, why.es))?;
    let product = catalog::update(pool, bot.id, id, patch)
        .await?
        .ok_or(MerchantError::NotFound("product"))?;
    Ok((bot, product))
}

/// The catalog as a spreadsheet, and the file name to save it under.
pub async fn export_csv(pool: &PgPool, merchant_id: Uuid, slug: &str) -> Result<(String, String)> {
    let (bot, products) = list(pool, merchant_id, slug).await?;
    Ok((
        format!("{}-productos.csv", bot.slug),
        catalog_csv::write(&products),
    ))
}

/// What an import did.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Imported {
    pub created: i64,
    pub updated: i64,
}

/// Creates or updates every row by sku, all or nothing: any bad row refuses the
/// file with each line's problem. Products absent from the file stay as they are.
pub async fn import_csv(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
    file: &[u8],
) -> Result<Imported> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    let text = std::str::from_utf8(file).map_err(|_| {
        MerchantError::invalid(
            "file",
            "the file must be UTF-8 text",
            "La planilla debe estar en UTF-8.",
        )
    })?;
    if text.contains('\0') {
        return Err(MerchantError::invalid(
            "file",
            "the file may not contain NUL characters",
            "La planilla tiene caracteres que no se pueden guardar.",
        ));
    }
    let sheet = catalog_csv::read(text).map_err(MerchantError::BadLines)?;
    if sheet.products.is_empty() {
        return Err(MerchantError::invalid(
            "file",
            "the file has no product rows",
            "La planilla no tiene productos.",
        ));
    }
    let mut tx = pool.begin().await?;
    let (created, updated) = catalog::upsert_all(
        &mut *tx,
        bot.id,
        &bot.currency,
        &sheet.products,
        sheet.given,
    )
    .await?;
    tx.commit().await?;
    Ok(Imported { created, updated })
}
