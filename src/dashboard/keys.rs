//! The keys page: API keys by prefix and label; a new key is shown once; a
//! revoked key (and every console session it opened) stops working at once.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::layout::{csrf_field, flash, page};
use super::session::{Session, same_origin};
use super::{Page, PageError, back};
use crate::http::AppState;
use crate::merchant::{self, RevokeError};

#[derive(Debug, Default, Deserialize)]
pub struct Notice {
    #[serde(default)]
    aviso: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

async fn keys_page(
    state: &AppState,
    session: &Session,
    notice: &Notice,
    new_key: Option<&str>,
) -> Result<Markup, PageError> {
    let keys = merchant::list_keys(&state.pool, session.merchant_id).await?;
    let csrf = session.csrf.as_str();
    let body = html! {
        h1 { "Llaves de API" }
        (flash(notice.aviso.as_deref(), notice.error.as_deref()))
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
                            @if key.revoked_at.is_some() { span.badge.bad { "Revocada" } } @else {
                                form method="post" action=(format!("/dashboard/keys/{}/revocar", key.id)) {
                                    (csrf_field(csrf))
                                    button.danger type="submit" aria-label=(format!("Revocar la llave {}", key.prefix)) { "Revocar" }
                                }
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
    State(state): State<AppState>,
    Query(notice): Query<Notice>,
) -> Result<Page, PageError> {
    Ok(Page(keys_page(&state, &session, &notice, None).await?))
}

#[derive(Debug, Deserialize)]
pub struct KeyForm {
    csrf: String,
    #[serde(default)]
    label: String,
}

/// `POST /dashboard/keys`: the new key is on the page that answers, never in a URL.
pub async fn create(
    session: Session,
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<KeyForm>,
) -> Result<Response, PageError> {
    if !same_origin(&headers) || !session.csrf_ok(&form.csrf) {
        return Err(PageError::Forbidden);
    }
    let label: String = form.label.trim().chars().take(100).collect();
    let (_, key) = merchant::create_labelled_key(&state.pool, session.merchant_id, &label).await?;
    let page = keys_page(&state, &session, &Notice::default(), Some(&key)).await?;
    Ok(Page(page).into_response())
}

/// `POST /dashboard/keys/{id}/revocar`.
pub async fn revoke(
    session: Session,
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Form(form): Form<KeyForm>,
) -> Result<Response, PageError> {
    if !same_origin(&headers) || !session.csrf_ok(&form.csrf) {
        return Err(PageError::Forbidden);
    }
    let id = id.parse().map_err(|_| PageError::NotFound)?;
    let mut tx = state.pool.begin().await?;
    let outcome = match merchant::revoke_key(&mut tx, session.merchant_id, id).await {
        Ok(key) => Ok(key),
        Err(RevokeError::NotFound) => return Err(PageError::NotFound),
        Err(RevokeError::LastKey) => {
            Err("Es tu única llave activa: crea otra antes de revocar esta.".to_owned())
        }
        Err(RevokeError::Database(e)) => return Err(e.into()),
    };
    tx.commit().await?;
    Ok(back(
        "/dashboard/keys",
        outcome.map(|_| "Llave revocada: ya no sirve, tampoco para entrar aquí."),
    ))
}
