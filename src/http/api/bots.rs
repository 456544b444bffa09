//! `/api/v1/bots`: list, create, settings, channels, the merchant's Telegram chat
//! link and LLM usage — thin doors over `merchant::bots` and `merchant::chat_link`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use super::auth::MerchantAuth;
use super::openapi::{Answer, Errors};
use crate::http::Web;
use crate::http::error::{ApiError, parse_json};
use crate::merchant::bots::{self, BotPatch, ChannelSetup, NewBot};
use crate::merchant::chat_link;
use crate::merchant::delivery::{self, DeliverySettings};

/// `PATCH /api/v1/bots/{slug}`: bot settings a merchant may change.
#[utoipa::path(patch, path = "/bots/{slug}", tag = "bots", params(("slug" = String, Path, description = "the slug")), request_body = BotPatch,
    responses((status = 200, body = Answer, description = "the settings"), Errors))]
pub async fn update_bot(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let patch: BotPatch = parse_json(&body?)?;
    let updated = bots::change_settings(&web.office, merchant_id, &slug, &patch).await?;
    Ok(Json(json!({
        "bot": updated.slug,
        "agent_enabled": updated.agent_enabled,
        "session_timeout_secs": updated.session_timeout_secs,
        "payment_timeout_secs": updated.payment_timeout_secs,
        "payment_instructions": updated.payment_instructions,
        "takeover_idle_secs": updated.takeover_idle_secs,
        "webchat_origins": updated.webchat_origins,
        "low_stock_threshold": updated.low_stock_threshold.unwrap_or(0),
        "whatsapp_order_template": updated.whatsapp_order_template,
        "whatsapp_reminder_template": updated.whatsapp_reminder_template,
        "whatsapp_template_language": updated.whatsapp_template_language,
    })))
}

/// `GET /api/v1/bots/{slug}/llm-usage`: LLM calls, tokens and estimated cost, by
/// outcome (`rules` and `over_budget` are turns answered without a call), and
/// today's use against the daily budget.
#[utoipa::path(get, path = "/bots/{slug}/llm-usage", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "calls, tokens and cost by outcome; today against the budget"), Errors))]
pub async fn llm_usage(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let usage = bots::llm_usage(&web.office, merchant_id, &slug).await?;
    Ok(Json(json!(usage)))
}

/// `GET /api/v1/bots`.
#[utoipa::path(get, path = "/bots", tag = "bots",
    responses((status = 200, body = Answer, description = "`{bots: [{slug, name, currency, agent_enabled, channels, webhooks}]}`; never a secret"), Errors))]
pub async fn list_bots(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
) -> Result<Json<Value>, ApiError> {
    let bots = bots::list(&web.pool, merchant_id).await?;
    Ok(Json(json!({ "bots": bots })))
}

/// `POST /api/v1/bots`: a new bot, with its channel credentials if given.
#[utoipa::path(post, path = "/bots", tag = "bots", request_body = NewBot,
    responses((status = 201, body = Answer, description = "the bot"), Errors))]
pub async fn create_bot(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(axum::http::StatusCode, Json<Value>), ApiError> {
    let new: NewBot = parse_json(&body?)?;
    let created = bots::create(&web.pool, merchant_id, &new).await?;
    Ok((axum::http::StatusCode::CREATED, Json(json!(created))))
}

/// `PUT /api/v1/bots/{slug}/channels/{channel}`: connect or update a channel.
#[utoipa::path(put, path = "/bots/{slug}/channels/{channel}", tag = "bots",
    params(("slug" = String, Path, description = "the slug"), ("channel" = String, Path, description = "`telegram` or `whatsapp`")),
    request_body(content = Answer, description = "Telegram: `{token, secret_token}`; WhatsApp: `{phone_number_id, access_token, app_secret, verify_token}`"),
    responses((status = 200, body = Answer, description = "the bot"), Errors))]
pub async fn set_channel(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path((slug, channel)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body = body?;
    // The bot first: another merchant's bot is a 404 whatever the body says.
    crate::merchant::owned_bot(&web.pool, merchant_id, &slug).await?;
    let setup = match channel.as_str() {
        "telegram" => ChannelSetup::Telegram(parse_json(&body)?),
        "whatsapp" => ChannelSetup::WhatsApp(parse_json(&body)?),
        _ => return Err(ApiError::NotFound("channel")),
    };
    let summary = bots::set_channel(&web.office, merchant_id, &slug, &setup).await?;
    Ok(Json(json!(summary)))
}

/// `POST /api/v1/bots/{slug}/merchant-chat`: a one-time code; the merchant sends
/// `/start <code>` to the bot from the Telegram chat that should get the notices
/// (a new code replaces the old one; linking another chat replaces the linked one).
#[utoipa::path(post, path = "/bots/{slug}/merchant-chat", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "`{code, send, linked}`"), Errors))]
pub async fn new_link(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let code = chat_link::new_code(&web.office, merchant_id, &slug).await?;
    Ok(Json(json!(code)))
}

/// `DELETE /api/v1/bots/{slug}/merchant-chat`: no more notices to that chat.
#[utoipa::path(delete, path = "/bots/{slug}/merchant-chat", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "`{linked: false}`"), Errors))]
pub async fn unlink(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let bot = chat_link::unlink(&web.office, merchant_id, &slug).await?;
    Ok(Json(json!({"bot": bot.slug, "linked": false})))
}

/// `GET /api/v1/bots/{slug}/learning`: corrections, rules learned from them, how
/// often a rule filed a transaction, and the categories most often corrected.
#[utoipa::path(get, path = "/bots/{slug}/learning", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "corrections and rules learned (finance bots)"), Errors))]
pub async fn learning_metrics(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let (bot, metrics) = bots::learning(&web.pool, merchant_id, &slug).await?;
    Ok(Json(json!({ "bot": bot.slug, "learning": metrics })))
}

/// `POST /api/v1/bots/{slug}/webchat/identity-secret`: a new secret for verifying
/// the identities of a site's signed-in users in web chat, shown this once (it is
/// sealed at rest); the previous one stops working.
#[utoipa::path(post, path = "/bots/{slug}/webchat/identity-secret", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 201, body = Answer, description = "`{secret}`: sign identifiers with HMAC-SHA256(secret, identifier), in hex"), Errors))]
pub async fn new_identity_secret(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<(axum::http::StatusCode, Json<Value>), ApiError> {
    let secret = bots::new_identity_secret(&web.office, merchant_id, &slug).await?;
    Ok((
        axum::http::StatusCode::CREATED,
        Json(json!({
            "secret": secret,
            "note": "shown once: send identifier_hash = hex(HMAC-SHA256(secret, identifier)) to POST /webchat/{bot}/sessions",
        })),
    ))
}

/// `DELETE /api/v1/bots/{slug}/webchat/identity-secret`: identities are no longer
/// verified (sessions with one are refused).
#[utoipa::path(delete, path = "/bots/{slug}/webchat/identity-secret", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 204, description = "verification off"), Errors))]
pub async fn clear_identity_secret(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<axum::http::StatusCode, ApiError> {
    bots::clear_identity_secret(&web.office, merchant_id, &slug).await?;
    Ok(axum::http::StatusCode::NO_CONTENT)
}

/// `GET /api/v1/bots/{slug}/delivery`: pickup, delivery and the zones with
/// their fees.
#[utoipa::path(get, path = "/bots/{slug}/delivery", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "`{pickup, delivery, zones: [{id, name, fee_minor, min_order_minor, free_from_minor}]}`"), Errors))]
pub async fn get_delivery(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let delivery = delivery::get(&web.pool, merchant_id, &slug).await?;
    Ok(Json(json!(delivery)))
}

/// `PUT /api/v1/bots/{slug}/delivery`: replaces pickup, delivery and the
/// zones; the fee a customer pays is only ever their zone's.
#[utoipa::path(put, path = "/bots/{slug}/delivery", tag = "bots", params(("slug" = String, Path, description = "the slug")), request_body = DeliverySettings,
    responses((status = 200, body = Answer, description = "the settings as stored"), Errors))]
pub async fn set_delivery(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    // The bot first: another merchant's bot is a 404 whatever the body says.
    crate::merchant::catalog::shop_bot(&web.pool, merchant_id, &slug).await?;
    let settings: DeliverySettings = parse_json(&body?)?;
    let stored = delivery::set(&web.office, merchant_id, &slug, &settings).await?;
    Ok(Json(json!(stored)))
}
