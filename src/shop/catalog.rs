//! Products of a bot: the only source of names and prices.

use std::collections::HashMap;

use serde::Serialize;
use sqlx::PgExecutor;
use uuid::Uuid;

use crate::conversation::{Catalog, ProductId, ProductInfo};

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

/// Active products ranked for a message: those in `first` (the cart) lead, then
/// by trigram similarity of the name to the message. For LLM prompts.
pub async fn most_relevant(
    db: impl PgExecutor<'_>,
    bot_id: Uuid,
    message: &str,
    first: &[ProductId],
    limit: i64,
) -> sqlx::Result<Vec<Product>> {
    sqlx::query_as(
        "SELECT id, sku, name, description, price_minor, active FROM products
         WHERE bot_id = $1 AND active
         ORDER BY (id = ANY($3)) DESC,
                  word_similarity(translate(lower(name), 'áéíóúüñ', 'aeiouun'), $2) DESC, id
         LIMIT $4",
    )
    .bind(bot_id)
    .bind(crate::text::normalize(message))
    .bind(first)
    .bind(limit)
    .fetch_all(db)
    .await
}
