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
    /// Units on hand; `None` when the merchant does not track them.
    pub stock: Option<i32>,
    /// Units held by orders waiting for their payment.
    pub reserved: i32,
    /// What a customer can still buy (`stock - reserved`, never below 0);
    /// `None` when not tracked.
    pub available: Option<i64>,
}

/// The product columns, as `Product` reads them.
pub(crate) const PRODUCT_COLUMNS: &str = "id, sku, name, description, price_minor, active, tags, allergens, \
     stock, reserved, CASE WHEN stock IS NULL THEN NULL ELSE greatest(stock - reserved, 0)::bigint END AS available";

/// A bot's catalog, loaded once per turn.
#[derive(Debug, Clone, Default)]
pub struct CatalogIndex {
    products: Vec<Product>,
    info: HashMap<ProductId, ProductInfo>,
    /// Where the shop delivers (loaded with the catalog for turns; empty when
    /// read for a merchant's list).
    pub zones: Vec<crate::shop::core::Zone>,
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
                        available: p.available,
                    },
                )
            })
            .collect();
        CatalogIndex {
            products,
            info,
            zones: Vec::new(),
        }
    }

    pub fn active(&self) -> impl Iterator<Item = &Product> {
        self.products.iter().filter(|p| p.active)
    }

    /// Whether any product's stock is tracked (a turn then reads it fresh).
    pub fn tracks_stock(&self) -> bool {
        self.products.iter().any(|p| p.stock.is_some())
    }

    /// This catalog with the stock levels read now: `(id, stock, reserved)`.
    pub fn with_stock(&self, levels: &[(ProductId, i32, i32)]) -> CatalogIndex {
        let mut products = self.products.clone();
        for product in &mut products {
            if let Some((_, stock, reserved)) = levels.iter().find(|(id, ..)| *id == product.id) {
                product.stock = Some(*stock);
                product.reserved = *reserved;
                product.available = Some(i64::from((stock - reserved).max(0)));
            }
        }
        let mut fresh = CatalogIndex::new(products);
        fresh.zones = self.zones.clone();
        fresh
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
    let products = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PRODUCT_COLUMNS} FROM products WHERE bot_id = $1 ORDER BY id"
    )))
    .bind(bot_id)
    .fetch_all(db)
    .await?;
    Ok(CatalogIndex::new(products))
}

/// The tracked products' stock now, `(id, stock, reserved)`: what a turn reads
/// beside its cached catalog.
pub async fn stock_levels(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
) -> sqlx::Result<Vec<(ProductId, i32, i32)>> {
    sqlx::query_as(
        "SELECT id, stock, reserved FROM products WHERE bot_id = $1 AND stock IS NOT NULL",
    )
    .bind(bot_id)
    .fetch_all(db)
    .await
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
    /// Units on hand; absent or `null` when the stock is not tracked.
    #[serde(default)]
    pub stock: Option<i32>,
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
    /// Units on hand; `null` stops tracking the stock, absent leaves it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i32>)]
    pub stock: Option<Option<i32>>,
}

/// A field that is present (even as `null`) is `Some`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    serde::Deserialize::deserialize(deserializer).map(Some)
}

/// Most units on hand a product may have: a typo guard.
pub const MAX_STOCK: i32 = 1_000_000;

/// What is wrong with a product as written: for the API (English) and for the
/// merchant's console and files (Spanish, in the page's words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    pub en: &'static str,
    pub es: &'static str,
}

const fn problem(en: &'static str, es: &'static str) -> Problem {
    Problem { en, es }
}

fn check_stock(stock: Option<i32>) -> Result<(), Problem> {
    if stock.is_some_and(|s| !(0..=MAX_STOCK).contains(&s)) {
        return Err(problem(
            "stock must be a whole number between 0 and 1,000,000",
            "Las unidades en existencia son un número entero de 0 a 1.000.000.",
        ));
    }
    Ok(())
}

/// Highest price accepted (in minor units): a typo guard, not a business rule.
pub const MAX_PRICE_MINOR: i64 = 10_000_000_000;

/// What is wrong with a product as written, if anything.
pub fn check(input: &ProductInput) -> Result<(), Problem> {
    let sku_ok = (1..=64).contains(&input.sku.len())
        && input
            .sku
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !sku_ok {
        return Err(problem(
            "sku must be 1-64 letters, digits, dashes, dots or underscores",
            "El código lleva de 1 a 64 letras sin tilde, números, guiones, puntos o guiones bajos, sin espacios; por ejemplo «torta-chocolate».",
        ));
    }
    check_fields(
        Some(&input.name),
        Some(&input.description),
        Some(input.price_minor),
    )?;
    check_stock(input.stock)?;
    check_words(Some(&input.tags), Some(&input.allergens))
}

/// Tags and allergens: at most 20 each, each 1-40 characters.
fn check_words(tags: Option<&[String]>, allergens: Option<&[String]>) -> Result<(), Problem> {
    let bad = |words: Option<&[String]>| {
        words.is_some_and(|w| {
            w.len() > 20
                || w.iter()
                    .any(|t| t.trim().is_empty() || t.chars().count() > 40)
        })
    };
    if bad(tags) {
        return Err(problem(
            "tags: at most 20, each 1-40 characters",
            "«Cómo es»: hasta 20 palabras separadas por comas, cada una de 1 a 40 letras.",
        ));
    }
    if bad(allergens) {
        return Err(problem(
            "allergens: at most 20, each 1-40 characters",
            "Alérgenos: hasta 20 separados por comas, cada uno de 1 a 40 letras.",
        ));
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
) -> Result<(), Problem> {
    if name.is_some_and(|n| n.trim().is_empty() || n.chars().count() > 100) {
        return Err(problem(
            "name must be 1-100 characters",
            "El nombre lleva de 1 a 100 letras.",
        ));
    }
    if description.is_some_and(|d| d.chars().count() > 500) {
        return Err(problem(
            "description must be at most 500 characters",
            "La descripción lleva hasta 500 letras.",
        ));
    }
    if price_minor.is_some_and(|p| !(0..=MAX_PRICE_MINOR).contains(&p)) {
        return Err(problem(
            "price must be between 0 and 100,000,000",
            "El precio va de 0 a 100.000.000.",
        ));
    }
    Ok(())
}

impl ProductPatch {
    pub fn check(&self) -> Result<(), Problem> {
        check_fields(
            self.name.as_deref(),
            self.description.as_deref(),
            self.price_minor,
        )?;
        check_stock(self.stock.flatten())?;
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
    let created = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO products (bot_id, sku, name, description, price_minor, currency, active, tags, allergens, stock)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         RETURNING {PRODUCT_COLUMNS}"
    )))
    .bind(bot_id)
    .bind(&input.sku)
    .bind(input.name.trim())
    .bind(input.description.trim())
    .bind(input.price_minor)
    .bind(currency)
    .bind(input.active)
    .bind(tidy(&input.tags))
    .bind(tidy(&input.allergens))
    .bind(input.stock)
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
    // A product whose stock stops being tracked holds no reservations either.
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE products SET name = coalesce($3, name), description = coalesce($4, description),
                price_minor = coalesce($5, price_minor), active = coalesce($6, active),
                tags = coalesce($7, tags), allergens = coalesce($8, allergens),
                stock = CASE WHEN $9 THEN $10 ELSE stock END,
                reserved = CASE WHEN $9 AND $10::integer IS NULL THEN 0 ELSE reserved END
         WHERE bot_id = $1 AND id = $2
         RETURNING {PRODUCT_COLUMNS}"
    )))
    .bind(bot_id)
    .bind(id)
    .bind(patch.name.as_deref().map(str::trim))
    .bind(patch.description.as_deref().map(str::trim))
    .bind(patch.price_minor)
    .bind(patch.active)
    .bind(patch.tags.as_deref().map(tidy))
    .bind(patch.allergens.as_deref().map(tidy))
    .bind(patch.stock.is_some())
    .bind(patch.stock.flatten())
    .fetch_optional(db)
    .await
}

/// Which optional columns an import brought: a product updated by a file without
/// them keeps its tags and allergens.
#[derive(Debug, Clone, Copy)]
pub struct Given {
    pub tags: bool,
    pub allergens: bool,
    pub stock: bool,
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
    let stock: Vec<Option<i32>> = products.iter().map(|p| p.stock).collect();
    sqlx::query_as(
        "WITH written AS (
             INSERT INTO products (bot_id, sku, name, description, price_minor, currency, active, tags, allergens, stock)
             SELECT $1, r.sku, r.name, r.description, r.price_minor, $2, r.active,
                    coalesce(string_to_array(nullif(r.tags, ''), chr(31)), '{}'),
                    coalesce(string_to_array(nullif(r.allergens, ''), chr(31)), '{}'),
                    r.stock
             FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::bool[], $8::text[], $9::text[], $12::integer[])
                  AS r(sku, name, description, price_minor, active, tags, allergens, stock)
             ON CONFLICT (bot_id, sku) DO UPDATE SET name = excluded.name,
                 description = excluded.description, price_minor = excluded.price_minor,
                 active = excluded.active,
                 tags = CASE WHEN $10 THEN excluded.tags ELSE products.tags END,
                 allergens = CASE WHEN $11 THEN excluded.allergens ELSE products.allergens END,
                 stock = CASE WHEN $13 THEN excluded.stock ELSE products.stock END,
                 reserved = CASE WHEN $13 AND excluded.stock IS NULL THEN 0 ELSE products.reserved END
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
    .bind(stock)
    .bind(given.stock)
    .fetch_one(db)
    .await
}
