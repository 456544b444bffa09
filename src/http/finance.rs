//! The merchant API of finance bots: how the learning loop goes.

use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use super::AppState;
use super::error::ApiError;
use super::merchant::{MerchantAuth, owned_bot};
use super::openapi::{Answer, Errors};
use crate::finance::learning;
use crate::merchant::BotProfileKind;

/// `GET /api/v1/bots/{slug}/learning`: corrections, rules learned from them, how
/// often a rule filed a transaction, and the categories most often corrected.
#[utoipa::path(get, path = "/bots/{slug}/learning", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "corrections and rules learned (finance bots)"), Errors))]
pub async fn learning_metrics(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    if bot.profile != BotProfileKind::Finance {
        return Err(ApiError::Conflict(format!(
            "bot `{}` is a {} bot; learning metrics exist for finance bots",
            bot.slug,
            bot.profile.as_str()
        )));
    }
    let metrics = learning::metrics(&state.pool, bot.id).await?;
    Ok(Json(json!({ "bot": bot.slug, "learning": metrics })))
}
