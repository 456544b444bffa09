//! The merchant's bots: list, create, settings, channels and LLM usage.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, parse_json};
use super::merchant::{MerchantAuth, bounded_text, owned_bot};
use super::openapi::{Answer, Errors};

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BotPatch {
    /// The LLM switch: false runs the bot on the offline rules (the rollback flag).
    pub agent_enabled: Option<bool>,
    /// Inactivity after which BROWSING, CART_OPEN and CHECKOUT return to IDLE.
    pub session_timeout_secs: Option<i32>,
    /// Time an order may wait for payment before it expires.
    pub payment_timeout_secs: Option<i32>,
    /// Shown to the customer when an order is confirmed.
    pub payment_instructions: Option<String>,
}

/// `PATCH /api/v1/bots/{slug}`: bot settings a merchant may change.
#[utoipa::path(patch, path = "/bots/{slug}", tag = "bots", params(("slug" = String, Path, description = "the slug")), request_body = BotPatch,
    responses((status = 200, body = Answer, description = "the settings"), Errors))]
pub async fn update_bot(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let patch: BotPatch = parse_json(&body?)?;
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    let updated = change_settings(&state, &bot, &patch).await?;
    Ok(Json(json!({
        "bot": updated.slug,
        "agent_enabled": updated.agent_enabled,
        "session_timeout_secs": updated.session_timeout_secs,
        "payment_timeout_secs": updated.payment_timeout_secs,
        "payment_instructions": updated.payment_instructions,
    })))
}

/// Checks and stores a bot's settings; the webhook directory forgets its copy.
pub async fn change_settings(
    state: &AppState,
    bot: &crate::merchant::Bot,
    patch: &BotPatch,
) -> Result<crate::merchant::Bot, ApiError> {
    let in_range = |name: &str, value: Option<i32>| match value {
        Some(v) if !(60..=30 * 24 * 3600).contains(&v) => Err(ApiError::BadRequest(format!(
            "`{name}` must be between 60 seconds and 30 days"
        ))),
        _ => Ok(()),
    };
    in_range("session_timeout_secs", patch.session_timeout_secs)?;
    in_range("payment_timeout_secs", patch.payment_timeout_secs)?;
    let instructions = match &patch.payment_instructions {
        Some(text) if text.trim().is_empty() => Some(String::new()),
        Some(text) => Some(bounded_text("payment_instructions", text, 500)?.to_owned()),
        None => None,
    };
    let updated = crate::merchant::update_settings(
        &state.pool,
        bot.id,
        &crate::merchant::BotSettings {
            agent_enabled: patch.agent_enabled,
            session_timeout_secs: patch.session_timeout_secs,
            payment_timeout_secs: patch.payment_timeout_secs,
            payment_instructions: instructions,
        },
    )
    .await?;
    state.bots.forget(&bot.slug);
    Ok(updated)
}

/// `GET /api/v1/bots/{slug}/llm-usage`: LLM calls, tokens and estimated cost, by
/// outcome (`rules` and `over_budget` are turns answered without a call), and
/// today's use against the daily budget.
#[utoipa::path(get, path = "/bots/{slug}/llm-usage", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "calls, tokens and cost by outcome; today against the budget"), Errors))]
pub async fn llm_usage(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    let rows = crate::llm_calls::usage(&state.pool, bot.id).await?;
    let total = |f: fn(&crate::llm_calls::Usage) -> i64| rows.iter().map(f).sum::<i64>();
    let (tokens_today, over_budget_today) =
        crate::llm_calls::today(&state.pool, bot.id, chrono::Utc::now()).await?;
    Ok(Json(json!({
        "bot": bot.slug,
        "today": {
            "tokens": tokens_today,
            "daily_budget_tokens": state.llm_daily_tokens,
            "over_budget": state.llm_daily_tokens.is_some_and(|b| tokens_today as u64 >= b),
            "turns_on_rules_over_budget": over_budget_today,
        },
        "calls": total(|r| r.calls),
        "prompt_tokens": total(|r| r.prompt_tokens),
        "completion_tokens": total(|r| r.completion_tokens),
        "cost_micros": total(|r| r.cost_micros),
        "by_outcome": rows,
    })))
}

impl From<crate::channels::credentials::SetupError> for ApiError {
    fn from(err: crate::channels::credentials::SetupError) -> Self {
        use crate::channels::credentials::SetupError;
        match err {
            SetupError::Invalid(why) => ApiError::BadRequest(why.into()),
            SetupError::PhoneTaken => ApiError::Conflict(err.to_string()),
            SetupError::Database(e) => e.into(),
            SetupError::Keys(e) => ApiError::Unexpected(anyhow::Error::new(e)),
        }
    }
}

async fn bot_summary(state: &AppState, bot: &crate::merchant::Bot) -> Result<Value, ApiError> {
    let channels = crate::channels::credentials::connected(&state.pool, bot.id).await?;
    Ok(json!({
        "slug": bot.slug,
        "name": bot.name,
        "currency": bot.currency,
        "agent_enabled": bot.agent_enabled,
        "merchant_chat_linked": bot.merchant_chat_id.is_some(),
        // Which channels are connected; secrets are never returned.
        "channels": channels.into_iter().map(|(channel, phone)| json!({"channel": channel, "phone_number_id": phone})).collect::<Vec<_>>(),
        "webhooks": {
            "telegram": format!("/webhooks/telegram/{}", bot.slug),
            "whatsapp": format!("/webhooks/whatsapp/{}", bot.slug),
            "webchat": format!("/webchat/{}/messages", bot.slug),
        },
    }))
}

/// `GET /api/v1/bots`.
#[utoipa::path(get, path = "/bots", tag = "bots",
    responses((status = 200, body = Answer, description = "`{bots: [{slug, name, currency, agent_enabled, channels, webhooks}]}`; never a secret"), Errors))]
pub async fn list_bots(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
) -> Result<Json<Value>, ApiError> {
    let slugs = crate::merchant::bot_slugs(&state.pool, merchant_id).await?;
    let mut bots = Vec::new();
    for slug in slugs {
        let bot = owned_bot(&state, merchant_id, &slug).await?;
        bots.push(bot_summary(&state, &bot).await?);
    }
    Ok(Json(json!({ "bots": bots })))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct NewBot {
    slug: String,
    name: String,
    currency: String,
    #[serde(default)]
    payment_instructions: Option<String>,
    #[serde(default)]
    telegram: Option<crate::channels::credentials::TelegramSetup>,
    #[serde(default)]
    whatsapp: Option<crate::channels::credentials::WhatsAppSetup>,
}

/// `POST /api/v1/bots`: a new bot, with its channel credentials if given.
#[utoipa::path(post, path = "/bots", tag = "bots", request_body = NewBot,
    responses((status = 201, body = Answer, description = "the bot"), Errors))]
pub async fn create_bot(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(axum::http::StatusCode, Json<Value>), ApiError> {
    use crate::merchant::CreateBotError;
    let new: NewBot = parse_json(&body?)?;
    let mut tx = state.pool.begin().await?;
    let bot =
        crate::merchant::create_bot(&mut *tx, merchant_id, &new.slug, &new.name, &new.currency)
            .await
            .map_err(|e| match e {
                CreateBotError::Invalid(why) => ApiError::BadRequest(why.into()),
                CreateBotError::Taken => ApiError::Conflict(e.to_string()),
                CreateBotError::Database(e) => e.into(),
            })?;
    if let Some(instructions) = &new.payment_instructions {
        let instructions = bounded_text("payment_instructions", instructions, 500)?;
        crate::merchant::update_settings(
            &mut *tx,
            bot.id,
            &crate::merchant::BotSettings {
                payment_instructions: Some(instructions.to_owned()),
                ..Default::default()
            },
        )
        .await?;
    }
    if let Some(telegram) = &new.telegram {
        crate::channels::credentials::set_telegram(&mut *tx, bot.id, telegram).await?;
    }
    if let Some(whatsapp) = &new.whatsapp {
        crate::channels::credentials::set_whatsapp(&mut *tx, bot.id, whatsapp).await?;
    }
    tx.commit().await?;
    Ok((
        axum::http::StatusCode::CREATED,
        Json(bot_summary(&state, &bot).await?),
    ))
}

/// `PUT /api/v1/bots/{slug}/channels/{channel}`: connect or update a channel.
#[utoipa::path(put, path = "/bots/{slug}/channels/{channel}", tag = "bots",
    params(("slug" = String, Path, description = "the slug"), ("channel" = String, Path, description = "`telegram` or `whatsapp`")),
    request_body(content = Answer, description = "Telegram: `{token, secret_token}`; WhatsApp: `{phone_number_id, access_token, app_secret, verify_token}`"),
    responses((status = 200, body = Answer, description = "the bot"), Errors))]
pub async fn set_channel(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path((slug, channel)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body = body?;
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    match channel.as_str() {
        "telegram" => {
            let setup: crate::channels::credentials::TelegramSetup = parse_json(&body)?;
            crate::channels::credentials::set_telegram(&state.pool, bot.id, &setup).await?;
            state.bots.forget(&bot.slug);
        }
        "whatsapp" => {
            let setup: crate::channels::credentials::WhatsAppSetup = parse_json(&body)?;
            crate::channels::credentials::set_whatsapp(&state.pool, bot.id, &setup).await?;
            state.bots.forget(&bot.slug);
        }
        _ => return Err(ApiError::NotFound("channel")),
    }
    Ok(Json(bot_summary(&state, &bot).await?))
}
