//! The merchant console at `/dashboard`: server-rendered pages in Spanish for a
//! phone screen, signed in with an API key, live through server-sent events. Every
//! action goes through the same functions as the merchant API, so the console can
//! do nothing the API cannot, and the API's checks hold here too.

mod auth;
mod conversation;
mod events;
mod inbox;
pub mod layout;
mod media;
pub mod session;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use maud::{Markup, html};

use crate::http::AppState;
use crate::http::error::ApiError;

/// An HTML page or fragment.
pub struct Page(pub Markup);

impl IntoResponse for Page {
    fn into_response(self) -> Response {
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            self.0.into_string(),
        )
            .into_response()
    }
}

/// What a page could not do, shown as a page.
#[derive(Debug)]
pub enum PageError {
    NotFound,
    Forbidden,
    Failed(ApiError),
}

impl From<ApiError> for PageError {
    fn from(err: ApiError) -> Self {
        match err {
            ApiError::NotFound(_) => PageError::NotFound,
            other => PageError::Failed(other),
        }
    }
}

impl From<sqlx::Error> for PageError {
    fn from(err: sqlx::Error) -> Self {
        PageError::Failed(err.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let (status, text) = match &self {
            PageError::NotFound => (StatusCode::NOT_FOUND, "No encontramos esa página."),
            PageError::Forbidden => (
                StatusCode::FORBIDDEN,
                "La sesión no pudo confirmar esta acción. Vuelve a la página e inténtalo de nuevo.",
            ),
            PageError::Failed(ApiError::Unexpected(err)) => {
                tracing::error!(error = %format!("{err:#}"), "console page failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Algo falló de nuestro lado. Inténtalo de nuevo en un momento.",
                )
            }
            PageError::Failed(_) => (StatusCode::BAD_REQUEST, "No se pudo hacer eso."),
        };
        let body = html! {
            h1 { (text) }
            p { a href="/dashboard" { "Volver a la bandeja" } }
        };
        (status, Page(layout::page("Aviso", None, body))).into_response()
    }
}

/// Back to `to` with a message for the merchant.
pub fn back(to: &str, outcome: Result<&str, String>) -> Response {
    let (key, text) = match &outcome {
        Ok(done) => ("aviso", (*done).to_owned()),
        Err(error) => ("error", error.clone()),
    };
    let query: String = form_urlencoded::Serializer::new(String::new())
        .append_pair(key, &text)
        .finish();
    Redirect::to(&format!("{to}?{query}")).into_response()
}

/// What an API error says to a merchant, in Spanish.
pub fn explain(err: &ApiError) -> String {
    match err {
        ApiError::BadRequest(why) | ApiError::Conflict(why) => format!("No se pudo: {why}."),
        ApiError::Invalid { error, .. } => format!("No se pudo: {error}."),
        ApiError::NotFound(_) => "Eso ya no existe o no es tuyo.".into(),
        _ => "Algo falló de nuestro lado. Inténtalo de nuevo.".into(),
    }
}

const POLICY: &str = "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; \
                      connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/dashboard", get(inbox::page_))
        .route("/dashboard/inbox", get(inbox::fragment))
        .route("/dashboard/events", get(events::stream))
        .route("/dashboard/login", get(auth::form).post(auth::sign_in))
        .route("/dashboard/logout", post(auth::sign_out))
        .route("/dashboard/conversations/{id}", get(conversation::page_))
        .route(
            "/dashboard/conversations/{id}/{action}",
            post(conversation::act),
        )
        .route(
            "/dashboard/orders/{id}/{decision}",
            post(conversation::decide),
        )
        .route("/dashboard/media/{proof}", get(media::proof))
        .route(
            "/dashboard/app.css",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
                    layout::STYLE,
                )
            }),
        )
        .route(
            "/dashboard/app.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    layout::SCRIPT,
                )
            }),
        )
        .layer(DefaultBodyLimit::max(64 * 1024))
        .layer(axum::middleware::map_response(
            |mut response: Response| async move {
                let headers = response.headers_mut();
                headers.insert(
                    header::CONTENT_SECURITY_POLICY,
                    HeaderValue::from_static(POLICY),
                );
                headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
                headers.insert(
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                );
                headers.insert(
                    header::REFERRER_POLICY,
                    HeaderValue::from_static("same-origin"),
                );
                headers
                    .entry(header::CACHE_CONTROL)
                    .or_insert(HeaderValue::from_static("no-store"));
                response
            },
        ))
}
