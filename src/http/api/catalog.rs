//! `/api/v1/bots/{slug}/products`: a shop's catalog and its CSV — thin doors over
//! `merchant::catalog`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde_json::{Value, json};

use super::auth::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::http::Web;
use crate::http::error::{ApiError, parse_json};
use crate::merchant::catalog;
use crate::shop::catalog::{Product, ProductInput, ProductPatch};
use crate::text::money;

fn view(product: &Product, currency: &str) -> Value {
    json!({
        "id": product.id,
        "sku": product.sku,
        "name": product.name,
        "description": product.description,
        "price_minor": product.price_minor,
        "price": money(product.price_minor, currency),
        "active": product.active,
        "tags": product.tags,
        "allergens": product.allergens,
        "stock": product.stock,
        "reserved": product.reserved,
        "available": product.available,
        "sold_out": product.available == Some(0),
    })
}

/// `GET /api/v1/bots/{slug}/products`: every product, inactive ones included.
#[utoipa::path(get, path = "/bots/{slug}/products", tag = "catalog", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "`{bot, currency, products: [...]}`"), Errors))]
pub async fn list(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let (bot, products) = catalog::list(&web.pool, merchant_id, &slug).await?;
    let products: Vec<Value> = products.iter().map(|p| view(p, &bot.currency)).collect();
    Ok(Json(
        json!({ "bot": bot.slug, "currency": bot.currency, "products": products }),
    ))
}

/// `POST /api/v1/bots/{slug}/products`: `{"sku","name","description","price_minor","active","tags","allergens","stock"}`
/// (`stock`: units on hand, absent or null when not tracked).
#[utoipa::path(post, path = "/bots/{slug}/products", tag = "catalog", params(("slug" = String, Path, description = "the slug")), request_body = ProductInput,
    responses((status = 201, body = Answer, description = "the product"), Errors))]
pub async fn create(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    // The bot first: another merchant's bot is a 404 whatever the body says.
    catalog::shop_bot(&web.pool, merchant_id, &slug).await?;
    let input: ProductInput = parse_json(&body?)?;
    let (bot, product) = catalog::create(&web.pool, merchant_id, &slug, &input).await?;
    Ok((StatusCode::CREATED, Json(view(&product, &bot.currency))))
}

/// `PATCH /api/v1/bots/{slug}/products/{id}`: any of `name`, `description`,
/// `price_minor`, `active`, `tags`, `allergens` (`active: false` takes it out of the catalog; carts drop it at
/// their next turn, orders keep what they were sold at).
#[utoipa::path(patch, path = "/bots/{slug}/products/{id}", tag = "catalog",
    params(("slug" = String, Path, description = "the slug"), ("id" = i64, Path, description = "the product")), request_body = ProductPatch,
    responses((status = 200, body = Answer, description = "the product"), Errors))]
pub async fn update(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path((slug, id)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    catalog::shop_bot(&web.pool, merchant_id, &slug).await?;
    let id: i64 = id.parse().map_err(|_| ApiError::NotFound("product"))?;
    let patch: ProductPatch = parse_json(&body?)?;
    let (bot, product) = catalog::update(&web.pool, merchant_id, &slug, id, &patch).await?;
    Ok(Json(view(&product, &bot.currency)))
}

/// `GET /api/v1/bots/{slug}/products.csv`: the catalog as a spreadsheet.
#[utoipa::path(get, path = "/bots/{slug}/products.csv", tag = "catalog", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = String, content_type = "text/csv", description = "`sku,name,description,price,active,tags,allergens`"), Errors))]
pub async fn export(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    let (file_name, csv) = catalog::export_csv(&web.pool, merchant_id, &slug).await?;
    let disposition = format!("attachment; filename=\"{file_name}\"");
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        csv,
    ))
}

/// `POST /api/v1/bots/{slug}/products.csv`: creates or updates every row by sku,
/// all or nothing; any bad row refuses the file (422 with each line's problem).
/// Products absent from the file stay as they are.
#[utoipa::path(post, path = "/bots/{slug}/products.csv", tag = "catalog", params(("slug" = String, Path, description = "the slug")),
    request_body(content = String, content_type = "text/csv", description = "`sku,name,description,price,active,tags,allergens`"),
    responses((status = 200, body = Answer, description = "`{created, updated}`"), Errors))]
pub async fn import(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    catalog::shop_bot(&web.pool, merchant_id, &slug).await?;
    let imported = catalog::import_csv(&web.pool, merchant_id, &slug, &body?).await?;
    Ok(Json(json!(imported)))
}
