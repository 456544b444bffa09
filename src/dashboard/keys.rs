//! The keys page: API keys by prefix and label; a new key is shown once; a
//! revoked key (and every console session it opened) stops working at once.

use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::layout::{csrf_field, flash, page};
use super::session::{CsrfForm, Session};
use super::{Console, Page, PageError, back, explain};
use crate::merchant::keys;

#[derive(Debug, Default, Deserialize)]
pub struct Notice {
    #[serde(flatten)]
    flash: super::layout::Flash,
}

async fn keys_page(
    console: &Console,
    session: &Session,
    notice: &Notice,
    new_key: Option<&str>,
) -> Result<Markup, PageError> {
    let keys = keys::list(&console.office.pool, session.merchant_id).await?;
    let csrf = session.csrf.as_str();
    let body = html! {
        h1 { "Llaves de API" }
        (flash(&notice.flash))
        @if let Some(key) = new_key {
            section.card role="status" aria-labelledby="new-key" {
                h2 id="new-key" { "Tu nueva llave" }
                p { "Cópiala ahora: no la volveremos a mostrar." }
                p { code id="key-value" { (key) } }
            }
        }
        form.row.card method="post" action="/dashboard/keys" {
            (csrf_field(csrf))
            div {
                label for="label" { "Para qué es" }
                input id="label" name="label" maxlength="100" placeholder="Caja del local";
            }
            button type="submit" { "Crear una llave" }
        }
        table {
            thead { tr { th scope="col" { "Llave" } th scope="col" { "Para qué" } th scope="col" { "Creada" } th scope="col" { "Estado" } } }
            tbody {
                @for key in &keys {
                    tr {
                        td { code { (key.prefix) "…" } }
                        td { (key.label) }
                        td { (key.created_at.format("%d/%m/%Y")) }
                        td {
                            @if key.id == session.key_id { span.badge.ok { "Con esta entraste" } " " }
                            @if key.revoked_at.is_some() { span.badge.bad { "Revocada" } } @else {
                                a href=(format!("/dashboard/keys/{}/revocar", key.id)) aria-label=(format!("Revocar la llave {}", key.prefix)) { "Revocar…" }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(page("Llaves", Some(csrf), body))
}

/// `GET /dashboard/keys`.
pub async fn page_(
    session: Session,
    State(console): State<Console>,
    Query(notice): Query<Notice>,
) -> Result<Page, PageError> {
    let new_key = super::session::take_key(&console.office.pool, &session)
        .await
        .map_err(PageError::Failed)?;
    Ok(Page(
        keys_page(&console, &session, &notice, new_key.as_deref()).await?,
    ))
}

#[derive(Debug, Deserialize)]
pub struct KeyForm {
    #[serde(default)]
    label: String,
}

/// `POST /dashboard/keys`: the new key waits, sealed, for the page the redirect
/// leads to (shown there once, never in a URL; a reload creates nothing).
pub async fn create(
    State(console): State<Console>,
    CsrfForm { session, form }: CsrfForm<KeyForm>,
) -> Result<Response, PageError> {
    let label: String = form.label.trim().chars().take(100).collect();
    let pool = &console.office.pool;
    let key = keys::create(pool, session.merchant_id, &label).await?;
    super::session::stash_key(pool, &session, &key.key)
        .await
        .map_err(PageError::Failed)?;
    Ok(Redirect::to("/dashboard/keys").into_response())
}

/// `GET /dashboard/keys/{id}/revocar`: what revoking a key does, asked first.
pub async fn confirm_revoke(
    session: Session,
    State(console): State<Console>,
    Path(id): Path<String>,
) -> Result<Page, PageError> {
    let id: uuid::Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    let keys = keys::list(&console.office.pool, session.merchant_id).await?;
    let key = keys
        .iter()
        .find(|k| k.id == id && k.revoked_at.is_none())
        .ok_or(PageError::NotFound)?;
    let csrf = session.csrf.as_str();
    let body = html! {
        h1 { "¿Revocar la llave " code { (key.prefix) "…" } "?" }
        p { "Todo lo que use esta llave dejará de funcionar al instante: integraciones, scripts y las sesiones de la consola abiertas con ella. No se puede deshacer." }
        @if key.id == session.key_id {
            p.flash.error role="alert" { "Es la llave con la que entraste: tu sesión se cerrará y tendrás que entrar con otra." }
        }
        div.row {
            form method="post" action=(format!("/dashboard/keys/{}/revocar", key.id)) {
                (csrf_field(csrf))
                button.danger type="submit" { "Sí, revocar" }
            }
            a.button href="/dashboard/keys" { "No, volver" }
        }
    };
    Ok(Page(page("Revocar una llave", Some(csrf), body)))
}

/// `POST /dashboard/keys/{id}/revocar`.
pub async fn revoke(
    State(console): State<Console>,
    Path(id): Path<String>,
    CsrfForm { session, .. }: CsrfForm<serde::de::IgnoredAny>,
) -> Result<Response, PageError> {
    let id = id.parse().map_err(|_| PageError::NotFound)?;
    let outcome = match keys::revoke(&console.office.pool, session.merchant_id, id).await {
        Ok(_) => Ok("Llave revocada: ya no sirve, tampoco para entrar aquí."),
        Err(err) => Err(explain(&err)?),
    };
    Ok(back("/dashboard/keys", outcome))
}
