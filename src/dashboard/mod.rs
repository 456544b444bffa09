//! The merchant console at `/dashboard`: server-rendered pages in Spanish for a
//! phone screen, signed in with an API key, live through server-sent events. Every
//! action goes through the same functions as the merchant API, so the console can
//! do nothing the API cannot, and the API's checks hold here too.

mod auth;
mod bots;
mod catalog;
mod conversation;
mod events;
mod inbox;
mod keys;
pub mod layout;
mod media;
mod panels;
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
    let joiner = if to.contains('?') { '&' } else { '?' };
    Redirect::to(&format!("{to}{joiner}{query}")).into_response()
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

/// The console's routes: one list makes both the router and `ROUTES`, so a test
/// can call every one of them (tenant isolation is checked route by route).
macro_rules! console {
    ($( $method:ident $path:literal => $handler:expr $(; $layer:expr)? ),* $(,)?) => {
        /// Every console route as (method, path).
        pub const ROUTES: &[(&str, &str)] = &[$((stringify!($method), $path)),*];

        fn routes() -> Router<AppState> {
            Router::new()$(.route($path, $method($handler)$(.layer($layer))?))*
        }
    };
}

console! {
    get "/dashboard" => inbox::page_,
    get "/dashboard/inbox" => inbox::fragment,
    get "/dashboard/events" => events::stream,
    get "/dashboard/login" => auth::form,
    post "/dashboard/login" => auth::sign_in,
    post "/dashboard/logout" => auth::sign_out,
    get "/dashboard/conversations/{id}" => conversation::page_,
    get "/dashboard/conversations/{id}/mensajes" => conversation::transcript,
    get "/dashboard/conversations/{id}/estado" => panels::status_fragment,
    get "/dashboard/conversations/{id}/pedido" => panels::order_fragment,
    post "/dashboard/conversations/{id}/{action}" => conversation::act,
    post "/dashboard/orders/{id}/{decision}" => conversation::decide,
    get "/dashboard/media/{proof}" => media::proof,
    get "/dashboard/catalog" => catalog::page_,
    post "/dashboard/catalog/{slug}/productos" => catalog::create,
    post "/dashboard/catalog/{slug}/productos/{id}" => catalog::update,
    get "/dashboard/catalog/{slug}/productos.csv" => catalog::export,
    post "/dashboard/catalog/{slug}/importar" => catalog::import; DefaultBodyLimit::max(2 * 1024 * 1024),
    get "/dashboard/bots" => bots::page_,
    post "/dashboard/bots/{slug}/ajustes" => bots::settings,
    post "/dashboard/bots/{slug}/avisos" => bots::merchant_chat,
    post "/dashboard/bots/{slug}/{channel}" => bots::channel,
    get "/dashboard/keys" => keys::page_,
    post "/dashboard/keys" => keys::create,
    post "/dashboard/keys/{id}/revocar" => keys::revoke,
    get "/dashboard/app.css" => || async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], layout::STYLE) },
    get "/dashboard/app.js" => || async { ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], layout::SCRIPT) },
}

pub fn router() -> Router<AppState> {
    routes()
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
