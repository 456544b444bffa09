//! The merchant console at `/dashboard`, a front door like the API: server-rendered
//! pages in Spanish for a phone screen, signed in with an API key, live through
//! server-sent events. Every action and every read goes through the merchant
//! actions (`crate::merchant`), so the console can do nothing the API cannot, and
//! the API's checks hold here too (the architecture test keeps it that way).

mod auth;
mod bots;
mod catalog;
mod conversation;
mod events;
mod inbox;
mod keys;
mod knowledge;
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

use crate::merchant::{MerchantError, Office};
use crate::notify::Notifier;

/// What the console's handlers reach.
#[derive(Clone)]
pub struct Console {
    /// For the console's own sessions.
    pub pool: sqlx::PgPool,
    /// Live updates of the inbox and of a conversation.
    pub notifier: Notifier,
    /// Fires on shutdown: event streams end so the server can stop at once.
    pub shutdown: tokio_util::sync::CancellationToken,
    /// What merchant actions reach.
    pub office: Office,
    /// The server's public address (`TENDERO_PUBLIC_URL`), for the webhook
    /// addresses a merchant pastes into Telegram and Meta.
    pub public_url: Option<String>,
}

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
    /// The server's fault (logged once, never shown).
    Failed(anyhow::Error),
}

impl From<MerchantError> for PageError {
    fn from(err: MerchantError) -> Self {
        match err {
            MerchantError::NotFound(_) => PageError::NotFound,
            MerchantError::Database(e) => PageError::Failed(e.into()),
            MerchantError::Unexpected(e) => PageError::Failed(e),
            // A refusal a page could not word: shown as the server's answer.
            other => PageError::Failed(anyhow::anyhow!("{other}")),
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
            PageError::Failed(err) => {
                tracing::error!(error = %format!("{err:#}"), "console page failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Algo falló de nuestro lado. Inténtalo de nuevo en un momento.",
                )
            }
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
    let query = layout::signed_flash(key, &text);
    let joiner = if to.contains('?') { '&' } else { '?' };
    Redirect::to(&format!("{to}{joiner}{query}")).into_response()
}

/// What a refused merchant action says to the merchant, in Spanish, to show on
/// the page they come back to. Not there (or not theirs) is a 404 page and a
/// failure of the server an error page, not a message.
pub fn explain(err: &MerchantError) -> Result<String, PageError> {
    Ok(match err {
        MerchantError::NotFound(_) => return Err(PageError::NotFound),
        MerchantError::Database(_) | MerchantError::Unexpected(_) => {
            return Err(PageError::Failed(anyhow::anyhow!("{err}")));
        }
        MerchantError::Invalid { es, .. } => es.clone(),
        MerchantError::BadLines(lines) => {
            let mut text = String::from("No se importó nada. Corrige estas líneas:");
            for line in lines.iter().take(20) {
                text.push_str(&format!(" línea {}: {}", line.line, line.es));
            }
            text
        }
        MerchantError::NotAwaitingPayment(_) => {
            "No se pudo: el pedido ya no espera el pago.".into()
        }
        MerchantError::NotTakenOver => {
            "No se pudo: la conversación no está tomada; el bot ya la atiende.".into()
        }
        MerchantError::CannotFollow { from, to } => format!(
            "No se pudo: el pedido está «{}» y no puede pasar a «{}».",
            crate::labels::order_status(*from),
            crate::labels::order_status(*to)
        ),
        MerchantError::NotLive(status) => format!(
            "No se pudo: el pedido ya está «{}».",
            crate::labels::order_status(*status)
        ),
        MerchantError::WrongProfile { .. } => {
            "No se pudo: esto no aplica a este tipo de bot.".into()
        }
        MerchantError::KeyReused { .. } => "No se pudo: ese envío ya se hizo.".into(),
        MerchantError::LastKey => {
            "Es tu única llave activa: crea otra antes de revocar esta.".into()
        }
        MerchantError::SkuTaken => "Ya hay un producto con ese código.".into(),
        MerchantError::SlugTaken => "Ya hay un bot con ese nombre corto.".into(),
        MerchantError::PhoneTaken => "Ese número de WhatsApp ya está conectado a otro bot.".into(),
        MerchantError::TelegramNotConnected => {
            "Primero conecta el bot a Telegram: el chat se vincula escribiéndole al bot.".into()
        }
    })
}

const POLICY: &str = "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; \
                      connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The console's routes: one list makes both the router and `ROUTES`, so a test
/// can call every one of them (tenant isolation is checked route by route).
macro_rules! console {
    ($( $method:ident $path:literal => $handler:expr $(; $layer:expr)? ),* $(,)?) => {
        /// Every console route as (method, path).
        pub const ROUTES: &[(&str, &str)] = &[$((stringify!($method), $path)),*];

        fn routes() -> Router<Console> {
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
    get "/dashboard/conocimiento" => knowledge::page_,
    post "/dashboard/conocimiento/{slug}/entradas" => knowledge::create,
    post "/dashboard/conocimiento/{slug}/entradas/{id}" => knowledge::update,
    post "/dashboard/conocimiento/{slug}/entradas/{id}/borrar" => knowledge::delete,
    get "/dashboard/bots" => bots::page_,
    post "/dashboard/bots/nuevo" => bots::create,
    post "/dashboard/bots/{slug}/ajustes" => bots::settings,
    post "/dashboard/bots/{slug}/entrega" => bots::delivery,
    post "/dashboard/bots/{slug}/respuestas" => bots::add_canned,
    post "/dashboard/bots/{slug}/respuestas/{id}/borrar" => bots::delete_canned,
    post "/dashboard/bots/{slug}/avisos" => bots::merchant_chat,
    post "/dashboard/bots/{slug}/chat-web" => bots::site_chat,
    post "/dashboard/bots/{slug}/{channel}" => bots::channel,
    get "/dashboard/keys" => keys::page_,
    post "/dashboard/keys" => keys::create,
    get "/dashboard/keys/{id}/revocar" => keys::confirm_revoke,
    post "/dashboard/keys/{id}/revocar" => keys::revoke,
    get "/dashboard/app.css" => || async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], layout::STYLE) },
    get "/dashboard/app.js" => || async { ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], layout::SCRIPT) },
}

/// What a refused form says above it, shown again as typed.
pub fn why_banner(why: &str) -> Markup {
    maud::html! { p.flash.error role="alert" { (why) } }
}

/// A page shown again because the server refused its form (422).
pub fn unprocessable(page: Page) -> Response {
    (StatusCode::UNPROCESSABLE_ENTITY, page).into_response()
}

/// The console's page for an address it does not have.
pub fn not_found() -> Response {
    PageError::NotFound.into_response()
}

pub fn router(console: Console) -> Router {
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
        .with_state(console)
}
