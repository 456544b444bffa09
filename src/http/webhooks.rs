//! Platform webhooks. Each verifies its caller, parses at the edge, and answers 2xx
//! only after every message of the request is committed to the inbox; it never
//! waits for a turn.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use serde::Deserialize;
use serde_json::{Value, json};

use std::sync::Arc;

use super::Web;
use super::error::ApiError;
use crate::bots::Bot;
use crate::channels::credentials::secret_matches;
use crate::channels::telegram::{self, TelegramEvent};
use crate::channels::whatsapp;
use crate::channels::{ChannelKind, Inbound, MessagePayload};
use crate::directory::BotEntry;
use crate::merchant_chat;
use crate::outbox;

/// Largest webhook body: WhatsApp payloads reach about 3 MB.
pub const MAX_WEBHOOK_BYTES: usize = 4 * 1024 * 1024;

async fn bot_or_404(state: &Web, slug: &str) -> Result<Arc<BotEntry>, ApiError> {
    state
        .bots
        .get_promptly(slug)
        .await
        .map_err(|e| e.map_or(ApiError::Unavailable, ApiError::from))?
        .ok_or(ApiError::NotFound("bot"))
}

async fn store(state: &Web, bot: &Bot, inbound: Inbound) -> Result<(), ApiError> {
    state.ingest.ingest(bot, inbound).await?;
    Ok(())
}

/// `POST /webhooks/telegram/{bot}`.
pub async fn telegram(
    State(state): State<Web>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body = body?;
    let entry = bot_or_404(&state, &slug).await?;
    let (bot, creds) = (
        &entry.bot,
        entry.telegram.as_ref().ok_or(ApiError::NotFound("bot"))?,
    );
    let presented = headers
        .get("x-telegram-bot-api-secret-token")
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    if !secret_matches(presented, &creds.secret_token) {
        return Err(ApiError::BadSignature);
    }
    let event = telegram::parse_update(&body).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    match event {
        TelegramEvent::Message {
            update_id,
            chat_id,
            name,
            message,
        } => {
            let chat = chat_id.to_string();
            if let Some(answer) =
                merchant_chat::intercept(&state.office, bot, &chat, &message.text, update_id)
                    .await?
            {
                answer_merchant(&state, bot, chat, answer);
                return Ok(Json(json!({"ok": true})));
            }
            let inbound = Inbound {
                channel: ChannelKind::Telegram,
                sender: chat,
                display_name: name,
                external_id: format!("tg:{update_id}"),
                message,
            };
            store(&state, bot, inbound).await?;
        }
        TelegramEvent::Callback {
            update_id,
            chat_id,
            name,
            data,
            callback_query_id,
        } => {
            let chat = chat_id.to_string();
            if let Some(answer) =
                merchant_chat::intercept(&state.office, bot, &chat, &data, update_id).await?
            {
                answer_merchant(&state, bot, chat, answer);
            } else {
                let inbound = Inbound {
                    channel: ChannelKind::Telegram,
                    sender: chat,
                    display_name: name,
                    external_id: format!("tg:{update_id}"),
                    message: MessagePayload {
                        text: data,
                        media: None,
                    },
                };
                store(&state, bot, inbound).await?;
            }
            let channel = state.telegram.clone();
            let bot_id = bot.id;
            tokio::spawn(async move { channel.answer_callback(bot_id, &callback_query_id).await });
        }
        TelegramEvent::Membership { chat_id, blocked } => {
            crate::contacts::set_blocked(
                &state.pool,
                bot.id,
                ChannelKind::Telegram,
                &chat_id.to_string(),
                blocked,
            )
            .await?;
        }
        TelegramEvent::Ignored(why) => {
            tracing::debug!(why, "Telegram update acknowledged and ignored")
        }
    }
    Ok(Json(json!({"ok": true})))
}

/// Answers a command in the merchant's chat, after the webhook is acknowledged.
/// Best effort: the action itself is committed, and the console shows its result.
fn answer_merchant(state: &Web, bot: &Bot, chat: String, text: String) {
    let channel = state.telegram.clone();
    let bot_id = bot.id;
    tokio::spawn(async move { channel.say(bot_id, &chat, &text).await });
}

#[derive(Debug, Deserialize)]
pub struct VerifyQuery {
    #[serde(rename = "hub.mode")]
    mode: Option<String>,
    #[serde(rename = "hub.verify_token")]
    verify_token: Option<String>,
    #[serde(rename = "hub.challenge")]
    challenge: Option<String>,
}

/// `GET /webhooks/whatsapp/{bot}`: the subscription handshake.
pub async fn whatsapp_verify(
    State(state): State<Web>,
    Path(slug): Path<String>,
    Query(query): Query<VerifyQuery>,
) -> Result<String, ApiError> {
    let entry = bot_or_404(&state, &slug).await?;
    let creds = entry.whatsapp.as_ref().ok_or(ApiError::NotFound("bot"))?;
    let token = query.verify_token.unwrap_or_default();
    if query.mode.as_deref() == Some("subscribe")
        && secret_matches(token.as_bytes(), &creds.verify_token)
    {
        Ok(query.challenge.unwrap_or_default())
    } else {
        Err(ApiError::Forbidden)
    }
}

/// `POST /webhooks/whatsapp/{bot}`: every message, status and echo of the payload.
pub async fn whatsapp(
    State(state): State<Web>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body = body?;
    let entry = bot_or_404(&state, &slug).await?;
    let (bot, creds) = (
        &entry.bot,
        entry.whatsapp.as_ref().ok_or(ApiError::NotFound("bot"))?,
    );
    let signature = headers
        .get("x-hub-signature-256")
        .and_then(|v| v.to_str().ok());
    if !whatsapp::signature_valid(&body, signature, &creds.app_secret) {
        return Err(ApiError::BadSignature);
    }
    let batch = whatsapp::parse_payload(&body).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let ours = |phone: &str| phone.is_empty() || phone == creds.phone_number_id;
    for message in batch.messages {
        if !ours(&message.phone_number_id) {
            tracing::warn!(phone = %message.phone_number_id, "WhatsApp message for another number; skipped");
            continue;
        }
        let inbound = Inbound {
            channel: ChannelKind::Whatsapp,
            sender: message.from,
            display_name: message.name,
            external_id: format!("wa:{}", message.wamid),
            message: message.message,
        };
        store(&state, bot, inbound).await?;
    }
    for status in batch.statuses.iter().filter(|s| ours(&s.phone_number_id)) {
        outbox::record_delivery_status(
            &state.pool,
            bot.id,
            &status.wamid,
            &status.status,
            status.error.as_deref(),
        )
        .await?;
    }
    for echo in batch.echoes.iter().filter(|e| ours(&e.phone_number_id)) {
        crate::merchant::conversations::answered_from_phone(
            &state.pool,
            bot,
            &echo.customer,
            &echo.text,
        )
        .await?;
    }
    Ok(Json(json!({"ok": true})))
}
