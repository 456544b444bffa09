//! What every merchant API handler shares: the key that authenticates the
//! merchant (anything not theirs is then a 404, as if it did not exist), ids
//! parsed from paths, and optional bodies.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use uuid::Uuid;

use super::super::Web;
use super::super::error::{ApiError, parse_json};

/// The authenticated merchant.
pub struct MerchantAuth(pub Uuid);

impl FromRequestParts<Web> for MerchantAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, web: &Web) -> Result<Self, Self::Rejection> {
        let key = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .ok_or(ApiError::Unauthorized)?;
        crate::merchant::keys::authenticate(&web.pool, key)
            .await?
            .map(MerchantAuth)
            .ok_or(ApiError::Unauthorized)
    }
}

pub fn parse_id(raw: &str, what: &'static str) -> Result<Uuid, ApiError> {
    raw.parse().map_err(|_| ApiError::NotFound(what))
}

/// Optional JSON body: empty means defaults.
pub fn optional_body<T: serde::de::DeserializeOwned + Default>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        Ok(T::default())
    } else {
        parse_json(body)
    }
}
