//! The catalog page: a shop's products to edit in place, a form for a new one,
//! and the CSV export and import (all or nothing, every bad line explained).

use axum::Form;
use axum::extract::{Multipart, Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use maud::html;
use serde::Deserialize;

use super::layout::{csrf_field, flash, page};
use super::session::{Session, same_origin};
use super::{Page, PageError, back};
use crate::http::AppState;
use crate::http::merchant::owned_bot;
use crate::merchant::{Bot, BotProfileKind};
use crate::shop::catalog::{self, ProductError, ProductInput, ProductPatch};
use crate::shop::catalog_csv::{self, parse_price};
use crate::text::money;

#[derive(Debug, Default, Deserialize)]
pub struct CatalogQuery {
    #[serde(default)]
    bot: Option<String>,
    #[serde(default)]
    aviso: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// The merchant's shop bots, and the one asked for (or the first).
async fn shops(
    state: &AppState,
    session: &Session,
    wanted: Option<&str>,
) -> Result<(Vec<Bot>, Option<Bot>), PageError> {
    let mut bots = Vec::new();
    for slug in crate::merchant::bot_slugs(&state.pool, session.merchant_id).await? {
        let bot = owned_bot(state, session.merchant_id, &slug).await?;
        if bot.profile == BotProfileKind::Shop {
            bots.push(bot);
        }
    }
    let chosen = match wanted {
        Some(slug) => Some(
            bots.iter()
                .find(|b| b.slug == slug)
                .cloned()
                .ok_or(PageError::NotFound)?,
        ),
        None => bots.first().cloned(),
    };
    Ok((bots, chosen))
}

fn price_text(minor: i64) -> String {
    let (whole, cents) = (minor / 100, minor % 100);
    if cents == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{cents:02}")
    }
}

/// `GET /dashboard/catalog?bot=`.
pub async fn page_(
    session: Session,
    State(state): State<AppState>,
    Query(query): Query<CatalogQuery>,
) -> Result<Page, PageError> {
    let (bots, chosen) = shops(&state, &session, query.bot.as_deref()).await?;
    let csrf = session.csrf.as_str();
    let Some(bot) = chosen else {
        let body = html! { h1 { "Catálogo" } p { "Todavía no tienes una tienda." } };
        return Ok(Page(page("Catálogo", Some(csrf), body)));
    };
    let products = catalog::list_all(&state.pool, bot.id).await?;
    let base = format!("/dashboard/catalog/{}", bot.slug);
    let body = html! {
        h1 { "Catálogo de " (bot.name) }
        (flash(query.aviso.as_deref(), query.error.as_deref()))
        @if bots.len() > 1 {
            form.row method="get" action="/dashboard/catalog" {
                div {
                    label for="bot" { "Tienda" }
                    select id="bot" name="bot" {
                        @for b in &bots { option value=(b.slug) selected[b.slug == bot.slug] { (b.name) } }
                    }
                }
                button type="submit" { "Ver" }
            }
        }
        section.card aria-labelledby="new" {
            h2 id="new" { "Agregar un producto" }
            form method="post" action=(format!("{base}/productos")) {
                (csrf_field(csrf))
                label for="sku" { "Código (sku)" }
                input id="sku" name="sku" required maxlength="64" pattern="[A-Za-z0-9._-]+";
                label for="name" { "Nombre" }
                input id="name" name="name" required maxlength="100";
                label for="description" { "Descripción" }
                input id="description" name="description" maxlength="500";
                label for="price" { "Precio (" (bot.currency) ")" }
                input id="price" name="price" required inputmode="decimal" placeholder="30,50";
                p { button type="submit" { "Agregar" } }
            }
        }
        section aria-labelledby="list" {
            h2 id="list" { "Productos" }
            @for p in &products {
                form.card method="post" action=(format!("{base}/productos/{}", p.id)) aria-label=(format!("Editar {}", p.name)) {
                    (csrf_field(csrf))
                    p.muted { (p.sku) " · " (money(p.price_minor, &bot.currency)) @if !p.active { " · " span.badge.warn { "Oculto" } } }
                    div.row {
                        div {
                            label for=(format!("name-{}", p.id)) { "Nombre" }
                            input id=(format!("name-{}", p.id)) name="name" value=(p.name) required maxlength="100";
                        }
                        div {
                            label for=(format!("price-{}", p.id)) { "Precio" }
                            input id=(format!("price-{}", p.id)) name="price" value=(price_text(p.price_minor)) required inputmode="decimal" size="8";
                        }
                        label.inline for=(format!("active-{}", p.id)) {
                            input id=(format!("active-{}", p.id)) type="checkbox" name="active" value="si" checked[p.active];
                            "A la venta"
                        }
                        button type="submit" { "Guardar" }
                    }
                }
            }
        }
        section.card aria-labelledby="csv" {
            h2 id="csv" { "Planilla (CSV)" }
            p { a href=(format!("{base}/productos.csv")) { "Descargar el catálogo" } " (columnas sku, name, description, price, active)." }
            form method="post" action=(format!("{base}/importar")) enctype="multipart/form-data" {
                (csrf_field(csrf))
                label for="file" { "Subir una planilla" }
                input id="file" type="file" name="file" accept=".csv,text/csv" required;
                p.muted { "Crea o actualiza por sku. Si una fila tiene un error, no se importa nada y te decimos cuál." }
                button type="submit" { "Importar" }
            }
        }
    };
    Ok(Page(page("Catálogo", Some(csrf), body)))
}

#[derive(Debug, Deserialize)]
pub struct ProductForm {
    csrf: String,
    #[serde(default)]
    sku: Option<String>,
    name: String,
    #[serde(default)]
    description: Option<String>,
    price: String,
    #[serde(default)]
    active: Option<String>,
}

async fn shop_for_write(
    state: &AppState,
    session: &Session,
    headers: &HeaderMap,
    csrf: &str,
    slug: &str,
) -> Result<Bot, PageError> {
    if !same_origin(headers) || !session.csrf_ok(csrf) {
        return Err(PageError::Forbidden);
    }
    let (_, bot) = shops(state, session, Some(slug)).await?;
    bot.ok_or(PageError::NotFound)
}

/// `POST /dashboard/catalog/{slug}/productos`.
pub async fn create(
    session: Session,
    State(state): State<AppState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    Form(form): Form<ProductForm>,
) -> Result<Response, PageError> {
    let bot = shop_for_write(&state, &session, &headers, &form.csrf, &slug).await?;
    let to = format!("/dashboard/catalog?bot={}", bot.slug);
    let outcome = async {
        let input = ProductInput {
            sku: form.sku.clone().unwrap_or_default().trim().to_owned(),
            name: form.name.clone(),
            description: form.description.clone().unwrap_or_default(),
            price_minor: parse_price(&form.price)?,
            active: true,
        };
        catalog::check(&input).map_err(str::to_owned)?;
        match catalog::create(&state.pool, bot.id, &bot.currency, &input).await {
            Ok(p) => Ok(format!("Agregaste {}.", p.name)),
            Err(ProductError::SkuTaken) => Err("Ya hay un producto con ese código.".to_owned()),
            Err(ProductError::Database(e)) => {
                tracing::error!(%e, "product create failed");
                Err(FAILED.to_owned())
            }
        }
    }
    .await;
    Ok(back_to(&to, outcome))
}

/// Back to the catalog with what happened (a database error is not the merchant's to read).
fn back_to(to: &str, outcome: Result<String, String>) -> Response {
    back(to, outcome.as_deref().map_err(Clone::clone))
}

const FAILED: &str = "Algo falló de nuestro lado. Inténtalo de nuevo.";

/// `POST /dashboard/catalog/{slug}/productos/{id}`.
pub async fn update(
    session: Session,
    State(state): State<AppState>,
    Path((slug, id)): Path<(String, String)>,
    headers: HeaderMap,
    Form(form): Form<ProductForm>,
) -> Result<Response, PageError> {
    let bot = shop_for_write(&state, &session, &headers, &form.csrf, &slug).await?;
    let id: i64 = id.parse().map_err(|_| PageError::NotFound)?;
    let to = format!("/dashboard/catalog?bot={}", bot.slug);
    let outcome = async {
        let patch = ProductPatch {
            name: Some(form.name.clone()),
            description: form.description.clone(),
            price_minor: Some(parse_price(&form.price)?),
            active: Some(form.active.is_some()),
        };
        patch.check().map_err(str::to_owned)?;
        match catalog::update(&state.pool, bot.id, id, &patch).await {
            Ok(Some(p)) => Ok(format!("Guardaste {}.", p.name)),
            Ok(None) => Err("Ese producto ya no existe.".to_owned()),
            Err(e) => {
                tracing::error!(%e, "product update failed");
                Err(FAILED.to_owned())
            }
        }
    }
    .await;
    Ok(back_to(&to, outcome))
}

/// `GET /dashboard/catalog/{slug}/productos.csv`.
pub async fn export(
    session: Session,
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Response, PageError> {
    let (_, bot) = shops(&state, &session, Some(&slug)).await?;
    let bot = bot.ok_or(PageError::NotFound)?;
    let products = catalog::list_all(&state.pool, bot.id).await?;
    let disposition = format!("attachment; filename=\"{}-productos.csv\"", bot.slug);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        catalog_csv::write(&products),
    )
        .into_response())
}

/// `POST /dashboard/catalog/{slug}/importar` (multipart: `csrf`, `file`).
pub async fn import(
    session: Session,
    State(state): State<AppState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> Result<Response, PageError> {
    let (mut csrf, mut file) = (String::new(), None);
    while let Ok(Some(field)) = multipart.next_field().await {
        match field.name() {
            Some("csrf") => csrf = field.text().await.unwrap_or_default(),
            Some("file") => file = field.bytes().await.ok(),
            _ => {}
        }
    }
    let bot = shop_for_write(&state, &session, &headers, &csrf, &slug).await?;
    let to = format!("/dashboard/catalog?bot={}", bot.slug);
    let outcome = async {
        let bytes = file.ok_or_else(|| "No llegó ninguna planilla.".to_owned())?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| "La planilla debe estar en UTF-8.".to_owned())?;
        if text.contains('\0') {
            return Err("La planilla tiene caracteres que no se pueden guardar.".to_owned());
        }
        let products = catalog_csv::read(text).map_err(|lines| {
            let shown: Vec<String> = lines
                .iter()
                .take(5)
                .map(|l| format!("línea {}: {}", l.line, l.error))
                .collect();
            format!("No se importó nada. Corrige {}", shown.join("; "))
        })?;
        if products.is_empty() {
            return Err("La planilla no tiene productos.".to_owned());
        }
        let failed = |e: sqlx::Error| {
            tracing::error!(%e, "catalog import failed");
            FAILED.to_owned()
        };
        let mut tx = state.pool.begin().await.map_err(failed)?;
        let (created, updated) = catalog::upsert_all(&mut *tx, bot.id, &bot.currency, &products)
            .await
            .map_err(failed)?;
        tx.commit().await.map_err(failed)?;
        Ok(format!("Listo: {created} nuevos, {updated} actualizados."))
    }
    .await;
    Ok(back_to(&to, outcome))
}
