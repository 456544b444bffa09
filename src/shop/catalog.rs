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
    /// What it is like, in the merchant's words: «frío», «sin cafeína», «vegano».
    pub tags: Vec<String>,
    /// What it contains that some cannot eat: «gluten», «lácteos», «frutos secos».
    pub allergens: Vec<String>,
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
        "SELECT id, sku, name, description, price_minor, active, tags, allergens
         FROM products WHERE bot_id = $1 ORDER BY id",
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
    /// What it is like: «frío», «caliente», «sin cafeína», «vegano».
    #[serde(default)]
    pub tags: Vec<String>,
    /// What it contains that some cannot eat.
    #[serde(default)]
    pub allergens: Vec<String>,
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
    pub tags: Option<Vec<String>>,
    pub allergens: Option<Vec<String>>,
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
    )?;
    check_words(Some(&input.tags), Some(&input.allergens))
}

/// Tags and allergens: at most 20 each, each 1-40 characters.
fn check_words(tags: Option<&[String]>, allergens: Option<&[String]>) -> Result<(), &'static str> {
    let bad = |words: Option<&[String]>| {
        words.is_some_and(|w| {
            w.len() > 20
                || w.iter()
                    .any(|t| t.trim().is_empty() || t.chars().count() > 40)
        })
    };
    if bad(tags) {
        return Err("tags: at most 20, each 1-40 characters");
    }
    if bad(allergens) {
        return Err("allergens: at most 20, each 1-40 characters");
    }
    Ok(())
}

/// Tags as stored: trimmed, lowercase, each once, in the order given.
pub fn tidy(words: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in words {
        let word = word.trim().to_lowercase();
        if !word.is_empty() && !out.contains(&word) {
            out.push(word);
        }
    }
    out
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
        )?;
        check_words(self.tags.as_deref(), self.allergens.as_deref())
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
        "INSERT INTO products (bot_id, sku, name, description, price_minor, currency, active, tags, allergens)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         RETURNING id, sku, name, description, price_minor, active, tags, allergens",
    )
    .bind(bot_id)
    .bind(&input.sku)
    .bind(input.name.trim())
    .bind(input.description.trim())
    .bind(input.price_minor)
    .bind(currency)
    .bind(input.active)
    .bind(tidy(&input.tags))
    .bind(tidy(&input.allergens))
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
                price_minor = coalesce($5, price_minor), active = coalesce($6, active),
                tags = coalesce($7, tags), allergens = coalesce($8, allergens)
         WHERE bot_id = $1 AND id = $2
         RETURNING id, sku, name, description, price_minor, active, tags, allergens",
    )
    .bind(bot_id)
    .bind(id)
    .bind(patch.name.as_deref().map(str::trim))
    .bind(patch.description.as_deref().map(str::trim))
    .bind(patch.price_minor)
    .bind(patch.active)
    .bind(patch.tags.as_deref().map(tidy))
    .bind(patch.allergens.as_deref().map(tidy))
    .fetch_optional(db)
    .await
}

/// Which optional columns an import brought: a product updated by a file without
/// them keeps its tags and allergens.
#[derive(Debug, Clone, Copy)]
pub struct Given {
    pub tags: bool,
    pub allergens: bool,
}

/// Creates or updates each product by sku, in one statement (the caller's
/// transaction makes an import all-or-nothing). Returns (created, updated).
pub async fn upsert_all(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    currency: &str,
    products: &[ProductInput],
    given: Given,
) -> sqlx::Result<(i64, i64)> {
    let column = |f: fn(&ProductInput) -> String| products.iter().map(f).collect::<Vec<_>>();
    let skus = column(|p| p.sku.clone());
    let names = column(|p| p.name.trim().to_owned());
    let descriptions = column(|p| p.description.trim().to_owned());
    // Arrays of arrays must be rectangular: each product's words travel as one
    // text, split back in SQL.
    let tags = column(|p| tidy(&p.tags).join("\u{1f}"));
    let allergens = column(|p| tidy(&p.allergens).join("\u{1f}"));
    let prices: Vec<i64> = products.iter().map(|p| p.price_minor).collect();
    let active: Vec<bool> = products.iter().map(|p| p.active).collect();
    sqlx::query_as(
        "WITH written AS (
             INSERT INTO products (bot_id, sku, name, description, price_minor, currency, active, tags, allergens)
             SELECT $1, r.sku, r.name, r.description, r.price_minor, $2, r.active,
                    coalesce(string_to_array(nullif(r.tags, ''), chr(31)), '{}'),
                    coalesce(string_to_array(nullif(r.allergens, ''), chr(31)), '{}')
             FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::bool[], $8::text[], $9::text[])
                  AS r(sku, name, description, price_minor, active, tags, allergens)
             ON CONFLICT (bot_id, sku) DO UPDATE SET name = excluded.name,
                 description = excluded.description, price_minor = excluded.price_minor,
                 active = excluded.active,
                 tags = CASE WHEN $10 THEN excluded.tags ELSE products.tags END,
                 allergens = CASE WHEN $11 THEN excluded.allergens ELSE products.allergens END
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
    .bind(tags)
    .bind(allergens)
    .bind(given.tags)
    .bind(given.allergens)
    .fetch_one(db)
    .await
}
