//! The catalog page: a shop's products to edit in place, a form for a new one,
//! and the CSV export and import (all or nothing, every bad line explained).

use axum::extract::{Multipart, Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use maud::html;
use serde::Deserialize;

use super::layout::{csrf_field, flash, page};
use super::session::{CsrfForm, Session, write_allowed};
use super::{Console, Page, PageError, back, explain};
use crate::bots::{Bot, ProfileKind};
use crate::merchant::{bots, catalog};
use crate::shop::catalog::{ProductInput, ProductPatch};
use crate::shop::catalog_csv::{list, parse_price};
use crate::text::money;

#[derive(Debug, Default, Deserialize)]
pub struct CatalogQuery {
    #[serde(default)]
    bot: Option<String>,
    #[serde(flatten)]
    flash: super::layout::Flash,
}

/// The merchant's shop bots, and the one asked for (or the first).
pub(super) async fn shops(
    console: &Console,
    session: &Session,
    wanted: Option<&str>,
) -> Result<(Vec<Bot>, Option<Bot>), PageError> {
    let bots: Vec<Bot> = bots::list(&console.office.pool, session.merchant_id)
        .await?
        .into_iter()
        .map(|summary| summary.bot)
        .filter(|bot| bot.profile == ProfileKind::Shop)
        .collect();
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
    State(console): State<Console>,
    Query(query): Query<CatalogQuery>,
) -> Result<Page, PageError> {
    catalog_page(
        &console,
        &session,
        query.bot.as_deref(),
        flash(&query.flash),
        None,
    )
    .await
}

/// A product form the server refused: the product it edits (`None`: a new
/// one) and what was typed.
type Draft<'a> = (Option<i64>, &'a ProductForm);

/// The catalog page; `draft` is shown again in its form with what to fix.
async fn catalog_page(
    console: &Console,
    session: &Session,
    wanted: Option<&str>,
    banner: maud::Markup,
    draft: Option<Draft<'_>>,
) -> Result<Page, PageError> {
    let (bots, chosen) = shops(console, session, wanted).await?;
    let csrf = session.csrf.as_str();
    let new_draft = draft.filter(|(id, _)| id.is_none()).map(|(_, form)| form);
    let typed = |field: fn(&ProductForm) -> Option<&str>| {
        new_draft.and_then(field).unwrap_or_default().to_owned()
    };
    let edited = |id: i64| {
        draft
            .filter(|(at, _)| *at == Some(id))
            .map(|(_, form)| form)
    };
    let Some(bot) = chosen else {
        let body = html! { h1 { "Catálogo" } p { "Todavía no tienes una tienda." } };
        return Ok(Page(page("Catálogo", Some(csrf), body)));
    };
    let (_, products) = catalog::list(&console.office.pool, session.merchant_id, &bot.slug).await?;
    let base = format!("/dashboard/catalog/{}", bot.slug);
    let body = html! {
        h1 { "Catálogo de " (bot.name) }
        (banner)
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
                input id="sku" name="sku" required maxlength="64" pattern="[A-Za-z0-9._\\-]+" value=(typed(|f| f.sku.as_deref()))
                      title="Letras sin tilde, números, guiones, puntos o guiones bajos, sin espacios; por ejemplo torta-chocolate";
                label for="name" { "Nombre" }
                input id="name" name="name" required maxlength="100" value=(typed(|f| Some(f.name.as_str())));
                label for="description" { "Descripción" }
                input id="description" name="description" maxlength="500" value=(typed(|f| f.description.as_deref()));
                label for="price" { "Precio (" (crate::text::currency_symbol(&bot.currency)) ")" }
                input id="price" name="price" required inputmode="decimal" placeholder="30,50" value=(typed(|f| Some(f.price.as_str())));
                label for="tags" { "Cómo es (separa con comas)" }
                input id="tags" name="tags" maxlength="400" placeholder="frío, sin cafeína, vegano" value=(typed(|f| f.tags.as_deref()));
                label for="allergens" { "Alérgenos (separa con comas)" }
                input id="allergens" name="allergens" maxlength="400" placeholder="gluten, lácteos, frutos secos" value=(typed(|f| f.allergens.as_deref()));
                label for="stock" { "Unidades en existencia (vacío si no llevas la cuenta)" }
                input id="stock" name="stock" inputmode="numeric" maxlength="7" placeholder="10" value=(typed(|f| f.stock.as_deref()));
                p { button type="submit" { "Agregar" } }
            }
        }
        section aria-labelledby="list" {
            h2 id="list" { "Productos" }
            @for p in &products {
                @let edit = edited(p.id);
                @let shown = |typed: Option<&str>, stored: String| typed.map_or(stored, str::to_owned);
                form.card method="post" action=(format!("{base}/productos/{}", p.id)) aria-label=(format!("Editar {}", p.name)) {
                    (csrf_field(csrf))
                    p.muted { (p.sku) " · " (money(p.price_minor, &bot.currency)) @if !p.active { " · " span.badge.warn { "Oculto" } }
                        @match p.available {
                            Some(0) => { " · " span.badge.warn { "Agotado" } }
                            Some(left) => { " · " (left) " disponibles" @if p.reserved > 0 { " (" (p.reserved) " apartadas en pedidos por pagar)" } }
                            None => {}
                        }
                    }
                    div.row {
                        div {
                            label for=(format!("name-{}", p.id)) { "Nombre" }
                            input id=(format!("name-{}", p.id)) name="name" value=(shown(edit.map(|f| f.name.as_str()), p.name.clone())) required maxlength="100";
                        }
                        div {
                            label for=(format!("price-{}", p.id)) { "Precio" }
                            input id=(format!("price-{}", p.id)) name="price" value=(shown(edit.map(|f| f.price.as_str()), price_text(p.price_minor))) required inputmode="decimal" size="8";
                        }
                        div {
                            label for=(format!("tags-{}", p.id)) { "Cómo es" }
                            input id=(format!("tags-{}", p.id)) name="tags" value=(shown(edit.and_then(|f| f.tags.as_deref()), p.tags.join(", "))) maxlength="400";
                        }
                        div {
                            label for=(format!("allergens-{}", p.id)) { "Alérgenos" }
                            input id=(format!("allergens-{}", p.id)) name="allergens" value=(shown(edit.and_then(|f| f.allergens.as_deref()), p.allergens.join(", "))) maxlength="400";
                        }
                        div {
                            label for=(format!("stock-{}", p.id)) { "En existencia" }
                            input id=(format!("stock-{}", p.id)) name="stock" value=(shown(edit.and_then(|f| f.stock.as_deref()), p.stock.map(|s| s.to_string()).unwrap_or_default())) inputmode="numeric" maxlength="7" size="6";
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
            p { a href=(format!("{base}/productos.csv")) { "Descargar el catálogo" } " (columnas código, nombre, descripción, precio, activo, etiquetas, alérgenos y existencias, separadas por comas o punto y coma; existencias vacío si no llevas la cuenta)." }
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
    #[serde(default)]
    sku: Option<String>,
    name: String,
    #[serde(default)]
    description: Option<String>,
    price: String,
    #[serde(default)]
    active: Option<String>,
    #[serde(default)]
    tags: Option<String>,
    #[serde(default)]
    allergens: Option<String>,
    /// Units on hand; empty: not tracked.
    #[serde(default)]
    stock: Option<String>,
}

/// The units typed: empty is "not tracked".
fn stock_typed(typed: Option<&str>) -> Result<Option<i32>, String> {
    let typed = typed.unwrap_or_default().trim();
    if typed.is_empty() {
        return Ok(None);
    }
    typed
        .parse::<i32>()
        .ok()
        .filter(|n| (0..=crate::shop::catalog::MAX_STOCK).contains(n))
        .map(Some)
        .ok_or_else(|| {
            format!("«{typed}» no es una cantidad de unidades: escribe un número entero, 0 o más, o déjalo vacío si no llevas la cuenta.")
        })
}

/// The price typed, or why it is not one; the bot is checked first, so another
/// merchant's is a 404 whatever was typed.
async fn price(
    console: &Console,
    session: &Session,
    slug: &str,
    typed: &str,
) -> Result<Result<i64, String>, PageError> {
    let price = parse_price(typed);
    if price.is_err() {
        catalog::shop_bot(&console.office.pool, session.merchant_id, slug).await?;
    }
    Ok(price.map_err(|e| e.es()))
}

/// A new product the server refused: the page again, what was typed in the
/// form, what to fix above it.
async fn refused(
    console: &Console,
    session: &Session,
    (slug, id): (&str, Option<i64>),
    form: &ProductForm,
    why: String,
) -> Result<Response, PageError> {
    let banner = super::why_banner(&why);
    let page = catalog_page(console, session, Some(slug), banner, Some((id, form))).await?;
    Ok(super::unprocessable(page))
}

/// `POST /dashboard/catalog/{slug}/productos`.
pub async fn create(
    State(console): State<Console>,
    Path(slug): Path<String>,
    CsrfForm { session, form }: CsrfForm<ProductForm>,
) -> Result<Response, PageError> {
    let to = format!("/dashboard/catalog?bot={slug}");
    let again = |why: String| refused(&console, &session, (&slug, None), &form, why);
    let price_minor = match price(&console, &session, &slug, &form.price).await? {
        Ok(price) => price,
        Err(why) => return again(why).await,
    };
    let stock = match stock_typed(form.stock.as_deref()) {
        Ok(stock) => stock,
        Err(why) => return again(why).await,
    };
    let input = ProductInput {
        stock,
        sku: form.sku.clone().unwrap_or_default().trim().to_owned(),
        name: form.name.clone(),
        description: form.description.clone().unwrap_or_default(),
        price_minor,
        active: true,
        tags: list(form.tags.as_deref().unwrap_or_default()),
        allergens: list(form.allergens.as_deref().unwrap_or_default()),
    };
    match catalog::create(&console.office.pool, session.merchant_id, &slug, &input).await {
        Ok((_, product)) => Ok(back(&to, Ok(&format!("Agregaste {}.", product.name)))),
        Err(err) => again(explain(&err)?).await,
    }
}

/// `POST /dashboard/catalog/{slug}/productos/{id}`.
pub async fn update(
    State(console): State<Console>,
    Path((slug, id)): Path<(String, String)>,
    CsrfForm { session, form }: CsrfForm<ProductForm>,
) -> Result<Response, PageError> {
    let id: i64 = id.parse().map_err(|_| PageError::NotFound)?;
    let to = format!("/dashboard/catalog?bot={slug}");
    let again = |why: String| refused(&console, &session, (&slug, Some(id)), &form, why);
    let price_minor = match price(&console, &session, &slug, &form.price).await? {
        Ok(price) => price,
        Err(why) => return again(why).await,
    };
    let stock = match stock_typed(form.stock.as_deref()) {
        Ok(stock) => stock,
        Err(why) => return again(why).await,
    };
    let patch = ProductPatch {
        // A form without the field (an older page) leaves the stock as it is.
        stock: form.stock.is_some().then_some(stock),
        name: Some(form.name.clone()),
        description: form.description.clone(),
        price_minor: Some(price_minor),
        active: Some(form.active.is_some()),
        tags: form.tags.as_deref().map(list),
        allergens: form.allergens.as_deref().map(list),
    };
    let pool = &console.office.pool;
    match catalog::update(pool, session.merchant_id, &slug, id, &patch).await {
        Ok((_, product)) => Ok(back(&to, Ok(&format!("Guardaste {}.", product.name)))),
        Err(err) => again(explain(&err)?).await,
    }
}

/// `GET /dashboard/catalog/{slug}/productos.csv`.
pub async fn export(
    session: Session,
    State(console): State<Console>,
    Path(slug): Path<String>,
) -> Result<Response, PageError> {
    let (file_name, csv) =
        catalog::export_csv(&console.office.pool, session.merchant_id, &slug).await?;
    let disposition = format!("attachment; filename=\"{file_name}\"");
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        csv,
    )
        .into_response())
}

/// `POST /dashboard/catalog/{slug}/importar` (multipart: `csrf`, `file`).
pub async fn import(
    session: Session,
    State(console): State<Console>,
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
    write_allowed(&session, &headers, &csrf)?;
    let to = format!("/dashboard/catalog?bot={slug}");
    let Some(bytes) = file else {
        // The bot first: another merchant's is a 404, whatever was sent.
        catalog::shop_bot(&console.office.pool, session.merchant_id, &slug).await?;
        return Ok(back(&to, Err("No llegó ninguna planilla.".to_owned())));
    };
    let pool = &console.office.pool;
    let outcome = match catalog::import_csv(pool, session.merchant_id, &slug, &bytes).await {
        Ok(done) => Ok(format!(
            "Listo: {} nuevos, {} actualizados.",
            done.created, done.updated
        )),
        Err(err) => Err(explain(&err)?),
    };
    Ok(back(&to, outcome.as_deref().map_err(Clone::clone)))
}
