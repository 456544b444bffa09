//! Products of a bot: the only source of names and prices.

use std::collections::HashMap;

use serde::Serialize;
use sqlx::PgExecutor;
use uuid::Uuid;

use crate::shop::core::{Catalog, ProductId, ProductInfo};

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Product {
    pub id: ProductId,
    pub sku: String,
    pub name: String,
    pub description: String,
    pub price_minor: i64,
    pub active: bool,
}

/// A bot's catalog, loaded once per turn.
#[derive(Debug, Clone, Default)]
pub struct CatalogIndex {
    products: Vec<Product>,
    info: HashMap<ProductId, ProductInfo>,
}

impl CatalogIndex {
    pub fn new(products: Vec<Product>) -> Self {
        let info = products
            .iter()
            .map(|p| {
                (
                    p.id,
                    ProductInfo {
                        id: p.id,
                        active: p.active,
                        price_minor: p.price_minor,
                    },
                )
            })
            .collect();
        CatalogIndex { products, info }
    }

    pub fn active(&self) -> impl Iterator<Item = &Product> {
        self.products.iter().filter(|p| p.active)
    }

    pub fn get(&self, id: ProductId) -> Option<&Product> {
        self.products.iter().find(|p| p.id == id)
    }

    pub fn name(&self, id: ProductId) -> &str {
        self.get(id).map_or("ese producto", |p| p.name.as_str())
    }
}

impl Catalog for CatalogIndex {
    fn product(&self, id: ProductId) -> Option<&ProductInfo> {
        self.info.get(&id)
    }
}

pub async fn load(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<CatalogIndex> {
    let products = sqlx::query_as(
        "SELECT id, sku, name, description, price_minor, active FROM products WHERE bot_id = $1 ORDER BY id",
    )
    .bind(bot_id)
    .fetch_all(db)
    .await?;
    Ok(CatalogIndex::new(products))
}

/// A product as a merchant writes it (API body or CSV row).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProductInput {
    pub sku: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub price_minor: i64,
    #[serde(default = "active_by_default")]
    pub active: bool,
}

fn active_by_default() -> bool {
    true
}

/// Changes to one product; absent fields stay as they are.
#[derive(Debug, Clone, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProductPatch {
    pub name: Option<String>,
    pub description: Option<String>,
    pub price_minor: Option<i64>,
    pub active: Option<bool>,
}

/// Highest price accepted (in minor units): a typo guard, not a business rule.
pub const MAX_PRICE_MINOR: i64 = 10_000_000_000;

/// What is wrong with a product as written, if anything.
pub fn check(input: &ProductInput) -> Result<(), &'static str> {
    let sku_ok = (1..=64).contains(&input.sku.len())
        && input
            .sku
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !sku_ok {
        return Err("sku must be 1-64 letters, digits, dashes, dots or underscores");
    }
    check_fields(
        Some(&input.name),
        Some(&input.description),
        Some(input.price_minor),
    )
}

fn check_fields(
    name: Option<&str>,
    description: Option<&str>,
    price_minor: Option<i64>,
) -> Result<(), &'static str> {
    if name.is_some_and(|n| n.trim().is_empty() || n.chars().count() > 100) {
        return Err("name must be 1-100 characters");
    }
    if description.is_some_and(|d| d.chars().count() > 500) {
        return Err("description must be at most 500 characters");
    }
    if price_minor.is_some_and(|p| !(0..=MAX_PRICE_MINOR).contains(&p)) {
        return Err("price must be between 0 and 100,000,000");
    }
    Ok(())
}

impl ProductPatch {
    pub fn check(&self) -> Result<(), &'static str> {
        check_fields(
            self.name.as_deref(),
            self.description.as_deref(),
            self.price_minor,
        )
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProductError {
    #[error("a product with that sku already exists")]
    SkuTaken,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Every product of a bot, inactive ones included, in creation order.
pub async fn list_all(db: impl PgExecutor<'_>, bot_id: Uuid) -> sqlx::Result<Vec<Product>> {
    load(db, bot_id).await.map(|index| index.products)
}

pub async fn create(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    currency: &str,
    input: &ProductInput,
) -> Result<Product, ProductError> {
    let created = sqlx::query_as(
        "INSERT INTO products (bot_id, sku, name, description, price_minor, currency, active)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         RETURNING id, sku, name, description, price_minor, active",
    )
    .bind(bot_id)
    .bind(&input.sku)
    .bind(input.name.trim())
    .bind(input.description.trim())
    .bind(input.price_minor)
    .bind(currency)
    .bind(input.active)
    .fetch_one(db)
    .await;
    match created {
        Ok(product) => Ok(product),
        Err(sqlx::Error::Database(e)) if e.constraint() == Some("products_bot_id_sku_key") => {
            Err(ProductError::SkuTaken)
        }
        Err(e) => Err(e.into()),
    }
}

/// Applies `patch` to the bot's product `id`; `None` if the bot has no such product.
pub async fn update(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    id: ProductId,
    patch: &ProductPatch,
) -> sqlx::Result<Option<Product>> {
    sqlx::query_as(
        "UPDATE products SET name = coalesce($3, name), description = coalesce($4, description),
                price_minor = coalesce($5, price_minor), active = coalesce($6, active)
         WHERE bot_id = $1 AND id = $2
         RETURNING id, sku, name, description, price_minor, active",
    )
    .bind(bot_id)
    .bind(id)
    .bind(patch.name.as_deref().map(str::trim))
    .bind(patch.description.as_deref().map(str::trim))
    .bind(patch.price_minor)
    .bind(patch.active)
    .fetch_optional(db)
    .await
}

/// Creates or updates each product by sku, in one statement (the caller's
/// transaction makes an import all-or-nothing). Returns (created, updated).
pub async fn upsert_all(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    currency: &str,
    products: &[ProductInput],
) -> sqlx::Result<(i64, i64)> {
    let column = |f: fn(&ProductInput) -> String| products.iter().map(f).collect::<Vec<_>>();
    let skus = column(|p| p.sku.clone());
    let names = column(|p| p.name.trim().to_owned());
    let descriptions = column(|p| p.description.trim().to_owned());
    let prices: Vec<i64> = products.iter().map(|p| p.price_minor).collect();
    let active: Vec<bool> = products.iter().map(|p| p.active).collect();
    sqlx::query_as(
        "WITH written AS (
             INSERT INTO products (bot_id, sku, name, description, price_minor, currency, active)
             SELECT $1, r.sku, r.name, r.description, r.price_minor, $2, r.active
             FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::bool[])
                  AS r(sku, name, description, price_minor, active)
             ON CONFLICT (bot_id, sku) DO UPDATE SET name = excluded.name,
                 description = excluded.description, price_minor = excluded.price_minor,
                 active = excluded.active
             RETURNING (xmax = 0) AS inserted
         )
         SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted) FROM written",
    )
    .bind(bot_id)
    .bind(currency)
    .bind(skus)
    .bind(names)
    .bind(descriptions)
    .bind(prices)
    .bind(active)
    .fetch_one(db)
    .await
}
