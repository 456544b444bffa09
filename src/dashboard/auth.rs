//! Signing in with an API key and out again.

use axum::Form;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use serde::Deserialize;

use super::layout::{flash, page};
use super::session::{self, CsrfForm};
use super::{Console, Page, PageError};

#[derive(Debug, Default, Deserialize)]
pub struct LoginQuery {
    #[serde(flatten)]
    flash: super::layout::Flash,
}

/// `GET /dashboard/login`.
pub async fn form(Query(query): Query<LoginQuery>) -> Page {
    let body = html! {
        h1 { "Entrar a la consola" }
        (flash(&query.flash))
        form.card method="post" action="/dashboard/login" {
            label for="key" { "Llave de API" }
            input id="key" name="key" type="password" autocomplete="current-password" required
                  aria-describedby="key-help" size="40";
            p.muted id="key-help" { "La llave que empieza con tdr_: la muestra «tendero serve» la primera vez que inicia, y «tendero merchant create-key TU-COMERCIO» crea otra." }
            button type="submit" { "Entrar" }
        }
    };
    Page(page("Entrar", None, body))
}

#[derive(Debug, Deserialize)]
pub struct LoginForm {
    key: String,
}

/// `POST /dashboard/login`: a valid key opens a session (a cookie only the server
/// can read back); anything else asks again.
pub async fn sign_in(
    State(console): State<Console>,
    headers: HeaderMap,
    Form(login): Form<LoginForm>,
) -> Result<Response, PageError> {
    let Some((merchant_id, key_id)) =
        crate::merchant::keys::authenticate_key(&console.office.pool, &login.key).await?
    else {
        return Ok(Redirect::to(&format!(
            "/dashboard/login?{}",
            super::layout::signed_flash("error", "Esa llave no es válida.")
        ))
        .into_response());
    };
    let token = session::open(&console.pool, merchant_id, key_id).await?;
    Ok((
        [(header::SET_COOKIE, session::cookie(&token, &headers))],
        Redirect::to("/dashboard"),
    )
        .into_response())
}

/// `POST /dashboard/logout`.
pub async fn sign_out(
    State(console): State<Console>,
    CsrfForm { session, .. }: CsrfForm<serde::de::IgnoredAny>,
) -> Result<Response, PageError> {
    session::close(&console.pool, &session).await?;
    Ok((
        [(header::SET_COOKIE, session::cleared_cookie())],
        Redirect::to("/dashboard/login"),
    )
        .into_response())
}
