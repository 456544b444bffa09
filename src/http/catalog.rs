//! The merchant API of a shop's catalog: list, create, edit, deactivate, and CSV
//! export and import (all or nothing, every bad line reported). A change reaches
//! running turns through the bot's `config_version`, bumped by the database.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, parse_json};
use super::merchant::{MerchantAuth, owned_bot};
use super::openapi::{Answer, Errors};
use crate::merchant::{Bot, BotProfileKind};
use crate::shop::catalog::{self, Product, ProductError, ProductInput, ProductPatch};
use crate::shop::catalog_csv;
use crate::text::money;

/// The merchant's shop bot (a finance bot has no catalog: 409).
async fn shop_bot(state: &AppState, merchant_id: uuid::Uuid, slug: &str) -> Result<Bot, ApiError> {
    let bot = owned_bot(state, merchant_id, slug).await?;
    if bot.profile != BotProfileKind::Shop {
        return Err(ApiError::Conflict(format!(
            "bot `{}` is a {} bot; only shop bots have a catalog",
            bot.slug,
            bot.profile.as_str()
        )));
    }
    Ok(bot)
}

fn view(product: &Product, currency: &str) -> Value {
    json!({
        "id": product.id,
        "sku": product.sku,
        "name": product.name,
        "description": product.description,
        "price_minor": product.price_minor,
        "price": money(product.price_minor, currency),
        "active": product.active,
    })
}

impl From<ProductError> for ApiError {
    fn from(err: ProductError) -> Self {
        match err {
            ProductError::SkuTaken => ApiError::Conflict(err.to_string()),
            ProductError::Database(e) => e.into(),
        }
    }
}

/// `GET /api/v1/bots/{slug}/products`: every product, inactive ones included.
#[utoipa::path(get, path = "/bots/{slug}/products", tag = "catalog", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "`{bot, currency, products: [...]}`"), Errors))]
pub async fn list(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let bot = shop_bot(&state, merchant_id, &slug).await?;
    let products = catalog::list_all(&state.pool, bot.id).await?;
    let products: Vec<Value> = products.iter().map(|p| view(p, &bot.currency)).collect();
    Ok(Json(
        json!({ "bot": bot.slug, "currency": bot.currency, "products": products }),
    ))
}

/// `POST /api/v1/bots/{slug}/products`: `{"sku","name","description","price_minor","active"}`.
#[utoipa::path(post, path = "/bots/{slug}/products", tag = "catalog", params(("slug" = String, Path, description = "the slug")), request_body = ProductInput,
    responses((status = 201, body = Answer, description = "the product"), Errors))]
pub async fn create(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let bot = shop_bot(&state, merchant_id, &slug).await?;
    let input: ProductInput = parse_json(&body?)?;
    catalog::check(&input).map_err(|e| ApiError::BadRequest(e.into()))?;
    let product = catalog::create(&state.pool, bot.id, &bot.currency, &input).await?;
    Ok((StatusCode::CREATED, Json(view(&product, &bot.currency))))
}

/// `PATCH /api/v1/bots/{slug}/products/{id}`: any of `name`, `description`,
/// `price_minor`, `active` (false takes it out of the catalog; carts drop it at
/// their next turn, orders keep what they were sold at).
#[utoipa::path(patch, path = "/bots/{slug}/products/{id}", tag = "catalog",
    params(("slug" = String, Path, description = "the slug"), ("id" = i64, Path, description = "the product")), request_body = ProductPatch,
    responses((status = 200, body = Answer, description = "the product"), Errors))]
pub async fn update(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path((slug, id)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let bot = shop_bot(&state, merchant_id, &slug).await?;
    let id: i64 = id.parse().map_err(|_| ApiError::NotFound("product"))?;
    let patch: ProductPatch = parse_json(&body?)?;
    patch.check().map_err(|e| ApiError::BadRequest(e.into()))?;
    let product = catalog::update(&state.pool, bot.id, id, &patch)
        .await?
        .ok_or(ApiError::NotFound("product"))?;
    Ok(Json(view(&product, &bot.currency)))
}

/// `GET /api/v1/bots/{slug}/products.csv`: the catalog as a spreadsheet.
#[utoipa::path(get, path = "/bots/{slug}/products.csv", tag = "catalog", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = String, content_type = "text/csv", description = "`sku,name,description,price,active`"), Errors))]
pub async fn export(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    let bot = shop_bot(&state, merchant_id, &slug).await?;
    let products = catalog::list_all(&state.pool, bot.id).await?;
    let disposition = format!("attachment; filename=\"{}-productos.csv\"", bot.slug);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        catalog_csv::write(&products),
    ))
}

/// `POST /api/v1/bots/{slug}/products.csv`: creates or updates every row by sku,
/// all or nothing; any bad row refuses the file (422 with each line's problem).
/// Products absent from the file stay as they are.
#[utoipa::path(post, path = "/bots/{slug}/products.csv", tag = "catalog", params(("slug" = String, Path, description = "the slug")),
    request_body(content = String, content_type = "text/csv", description = "`sku,name,description,price,active`"),
    responses((status = 200, body = Answer, description = "`{created, updated}`"), Errors))]
pub async fn import(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let bot = shop_bot(&state, merchant_id, &slug).await?;
    let body = body?;
    let text = std::str::from_utf8(&body)
        .map_err(|_| ApiError::BadRequest("the file must be UTF-8 text".into()))?;
    if text.contains('\0') {
        return Err(ApiError::BadRequest(
            "the file may not contain NUL characters".into(),
        ));
    }
    let products = catalog_csv::read(text).map_err(|lines| ApiError::Invalid {
        error: format!("{} line(s) need fixing; nothing was imported", lines.len()),
        details: json!({ "lines": lines }),
    })?;
    if products.is_empty() {
        return Err(ApiError::BadRequest("the file has no product rows".into()));
    }
    let mut tx = state.pool.begin().await?;
    let (created, updated) =
        catalog::upsert_all(&mut *tx, bot.id, &bot.currency, &products).await?;
    tx.commit().await?;
    Ok(Json(json!({ "created": created, "updated": updated })))
}
