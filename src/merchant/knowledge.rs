//! What a shop knows beyond its catalog, as its merchant keeps it: entries with a
//! title and a body (add, read, change, delete, import many at once) and a
//! question tried against them, to see which entries answer it. A change reaches
//! the next turn through the bot's configuration version.

use serde::Deserialize;
use sqlx::PgPool;
use uuid::Uuid;

use super::catalog::shop_bot;
use super::{MerchantError, Result};
use crate::bots::Bot;
use crate::shop::knowledge::{self, Entry};

/// Most entries one import may bring.
pub const MAX_IMPORT: usize = 200;

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEntry {
    pub title: String,
    pub body: String,
}

#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryPatch {
    pub title: Option<String>,
    pub body: Option<String>,
}

fn checked(title: Option<&str>, body: Option<&str>) -> Result<()> {
    knowledge::check(title, body).map_err(|why| {
        MerchantError::invalid(
            "entry",
            why,
            "El título va de 1 a 200 caracteres y el texto de 1 a 20 000.",
        )
    })
}

pub async fn list(pool: &PgPool, merchant_id: Uuid, slug: &str) -> Result<(Bot, Vec<Entry>)> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    let entries = knowledge::list(pool, bot.id).await?;
    Ok((bot, entries))
}

pub async fn get(pool: &PgPool, merchant_id: Uuid, slug: &str, id: i64) -> Result<Entry> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    knowledge::get(pool, bot.id, id)
        .await?
        .ok_or(MerchantError::NotFound("entry"))
}

pub async fn create(pool: &PgPool, merchant_id: Uuid, slug: &str, new: &NewEntry) -> Result<Entry> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    checked(Some(&new.title), Some(&new.body))?;
    let mut tx = pool.begin().await?;
    let entry = knowledge::create(&mut tx, bot.id, &new.title, &new.body).await?;
    tx.commit().await?;
    Ok(entry)
}

/// Adds every entry, all or nothing; returns how many.
pub async fn import(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
    entries: &[NewEntry],
) -> Result<usize> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    if entries.is_empty() || entries.len() > MAX_IMPORT {
        return Err(MerchantError::invalid(
            "entries",
            format!("an import holds 1-{MAX_IMPORT} entries"),
            format!("Se importan de 1 a {MAX_IMPORT} entradas a la vez."),
        ));
    }
    for entry in entries {
        checked(Some(&entry.title), Some(&entry.body))?;
    }
    let mut tx = pool.begin().await?;
    for entry in entries {
        knowledge::create(&mut tx, bot.id, &entry.title, &entry.body).await?;
    }
    tx.commit().await?;
    Ok(entries.len())
}

pub async fn update(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
    id: i64,
    patch: &EntryPatch,
) -> Result<Entry> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    checked(patch.title.as_deref(), patch.body.as_deref())?;
    let mut tx = pool.begin().await?;
    let entry = knowledge::update(
        &mut tx,
        bot.id,
        id,
        patch.title.as_deref(),
        patch.body.as_deref(),
    )
    .await?
    .ok_or(MerchantError::NotFound("entry"))?;
    tx.commit().await?;
    Ok(entry)
}

pub async fn delete(pool: &PgPool, merchant_id: Uuid, slug: &str, id: i64) -> Result<()> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    if knowledge::delete(pool, bot.id, id).await? {
        Ok(())
    } else {
        Err(MerchantError::NotFound("entry"))
    }
}

/// A question tried as a customer would ask it (without a model): the answer and
/// the entries it came from, or the gray zone.
pub async fn try_question(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
    question: &str,
) -> Result<knowledge::answer::Answer> {
    let bot = shop_bot(pool, merchant_id, slug).await?;
    let question = super::bounded_text("question", question, 500)?;
    let catalog = crate::shop::catalog::load(pool, bot.id).await?;
    let library = knowledge::answer::Library::load(pool, bot.id, &catalog).await?;
    let products = crate::shop::rules::products_named(question, &catalog);
    let ask = knowledge::answer::Ask {
        pool,
        bot_id: bot.id,
        catalog: &catalog,
        library: &library,
        question,
        products,
        currency: &bot.currency,
        writer: None,
        embedder: None,
        context: &crate::llm::CallContext::default(),
    };
    Ok(knowledge::answer::answer(&ask).await?)
}
