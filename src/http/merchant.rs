//! What every merchant API handler shares: the key that authenticates the
//! merchant, and the checks that keep each merchant to their own bots,
//! conversations and orders (anything else is a 404, as if it did not exist).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use uuid::Uuid;

use super::AppState;
use super::error::{ApiError, parse_json};

/// The authenticated merchant.
pub struct MerchantAuth(pub Uuid);

impl FromRequestParts<AppState> for MerchantAuth {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let key = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .ok_or(ApiError::Unauthorized)?;
        crate::merchant::authenticate(&state.pool, key)
            .await?
            .map(MerchantAuth)
            .ok_or(ApiError::Unauthorized)
    }
}

pub(super) fn parse_id(raw: &str, what: &'static str) -> Result<Uuid, ApiError> {
    raw.parse().map_err(|_| ApiError::NotFound(what))
}

/// Optional JSON body: empty means defaults.
pub(super) fn optional_body<T: serde::de::DeserializeOwned + Default>(
    body: &[u8],
) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        Ok(T::default())
    } else {
        parse_json(body)
    }
}

/// Trimmed text of 1..=max characters.
pub(super) fn bounded_text<'a>(
    field: &str,
    value: &'a str,
    max: usize,
) -> Result<&'a str, ApiError> {
    let text = value.trim();
    if text.is_empty() || text.chars().count() > max {
        return Err(ApiError::BadRequest(format!(
            "`{field}` must be 1-{max} characters"
        )));
    }
    Ok(text)
}

/// A bot of this merchant, or 404.
pub async fn owned_bot(
    state: &AppState,
    merchant_id: Uuid,
    slug: &str,
) -> Result<crate::merchant::Bot, ApiError> {
    crate::merchant::bot_by_slug(&state.pool, slug)
        .await?
        .filter(|bot| bot.merchant_id == merchant_id)
        .ok_or(ApiError::NotFound("bot"))
}
