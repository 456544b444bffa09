//! The OpenAPI 3.1 document of the merchant API, generated from the handlers
//! themselves: the router and the document come from one list of routes
//! (`utoipa_axum::routes!`), so no endpoint exists undocumented.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{IntoResponses, Modify, OpenApi, ToSchema};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Tendero merchant API",
        description = "Conversations, takeover and replies, payments, orders, the catalog, \
                       bots and channels, keys. Every request carries `Authorization: Bearer <key>`; \
                       a key sees only its own merchant's data (anything else is a 404).",
        version = "1"
    ),
    servers((url = "/api/v1")),
    security(("api_key" = [])),
    modifiers(&BearerKey)
)]
pub struct ApiDoc;

struct BearerKey;

impl Modify for BearerKey {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("tdr_…")
                    .build(),
            ),
        );
    }
}

/// Every error: `{"error": "..."}` (422 adds `details`).
#[derive(ToSchema)]
pub struct ErrorBody {
    pub error: String,
}

/// The errors any merchant endpoint may answer.
#[derive(IntoResponses)]
pub enum Errors {
    /// Malformed body or parameter.
    #[response(status = 400)]
    BadRequest(ErrorBody),
    /// Missing, unknown or revoked key.
    #[response(status = 401)]
    Unauthorized(ErrorBody),
    /// Not this merchant's, or not there.
    #[response(status = 404)]
    NotFound(ErrorBody),
    /// The request conflicts with the current state.
    #[response(status = 409)]
    Conflict(ErrorBody),
    /// Well-formed but wrong, with details.
    #[response(status = 422)]
    Unprocessable(ErrorBody),
}

/// A JSON answer (its fields are listed in each operation's description).
pub type Answer = serde_json::Value;
