//! The merchant API under `/api/v1`: one thin handler per operation over the
//! merchant actions (`crate::merchant`), and the OpenAPI document generated from
//! the same list of handlers.

pub mod audit;
pub mod auth;
pub mod bots;
pub mod catalog;
pub mod conversations;
pub mod keys;
pub mod knowledge;
pub mod openapi;
pub mod orders;
pub mod payments;
pub mod undelivered;

use axum::extract::DefaultBodyLimit;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::Web;

/// Largest merchant API body.
const API_BODY_BYTES: usize = 64 * 1024;
/// Largest catalog file (5,000 rows of a few hundred bytes) or knowledge import.
const CSV_BODY_BYTES: usize = 2 * 1024 * 1024;

/// The merchant API and its OpenAPI document, from one list of handlers.
pub fn router() -> OpenApiRouter<Web> {
    // A catalog file may be larger than other bodies.
    let files = OpenApiRouter::new()
        .routes(routes!(catalog::export, catalog::import))
        .routes(routes!(knowledge::import))
        .layer(DefaultBodyLimit::max(CSV_BODY_BYTES));
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(routes!(conversations::list_conversations))
        .routes(routes!(conversations::get_conversation))
        .routes(routes!(conversations::takeover))
        .routes(routes!(conversations::release))
        .routes(routes!(conversations::reply))
        .routes(routes!(audit::query))
        .routes(routes!(orders::list))
        .routes(routes!(orders::set_status))
        .routes(routes!(orders::cancel))
        .routes(routes!(payments::approve_payment))
        .routes(routes!(payments::reject_payment))
        .routes(routes!(undelivered::list))
        .routes(routes!(undelivered::retry))
        .routes(routes!(undelivered::discard))
        .routes(routes!(keys::list, keys::create))
        .routes(routes!(keys::revoke))
        .routes(routes!(bots::list_bots, bots::create_bot))
        .routes(routes!(bots::update_bot))
        .routes(routes!(bots::set_channel))
        .routes(routes!(bots::llm_usage))
        .routes(routes!(bots::get_delivery, bots::set_delivery))
        .routes(routes!(
            bots::new_identity_secret,
            bots::clear_identity_secret
        ))
        .routes(routes!(bots::new_link, bots::unlink))
        .routes(routes!(bots::learning_metrics))
        .routes(routes!(catalog::list, catalog::create))
        .routes(routes!(catalog::update))
        .routes(routes!(knowledge::list, knowledge::create))
        .routes(routes!(knowledge::try_question))
        .routes(routes!(
            knowledge::get,
            knowledge::update,
            knowledge::delete
        ))
        .merge(files)
        .layer(DefaultBodyLimit::max(API_BODY_BYTES))
}

/// The OpenAPI document of the merchant API.
pub fn openapi() -> utoipa::openapi::OpenApi {
    router().into_openapi()
}
