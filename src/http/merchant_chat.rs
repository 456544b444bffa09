//! Messages from a bot's Telegram chats that are the merchant's, not a
//! customer's: `/start <code>` links a chat, and the linked chat's commands take
//! over, reply, release, approve and reject through the same functions as the
//! API and the console. The answer goes straight back to that chat.

use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use super::AppState;
use super::error::ApiError;
use super::merchant::{MerchantAuth, owned_bot};
use super::openapi::{Answer, Errors};
use crate::conversations;
use crate::merchant::{self, Bot};
use crate::merchant_chat::{self as words, Command};
use crate::shop::orders;

/// What to tell the chat, when the message was the merchant's; `None` when it is
/// a customer's and goes to the inbox. `update_id` makes a replayed update's reply
/// send nothing twice.
pub async fn intercept(
    state: &AppState,
    bot: &Bot,
    chat_id: &str,
    text: &str,
    update_id: u32,
) -> Result<Option<String>, ApiError> {
    if bot.merchant_chat_id.as_deref() == Some(chat_id) {
        return run(state, bot, text, update_id).await.map(Some);
    }
    let Some(code) = words::link_code(text) else {
        return Ok(None);
    };
    if !merchant::link_merchant_chat(&state.pool, bot.id, code, chat_id).await? {
        // Someone else's /start with a payload: a customer, as any other.
        return Ok(None);
    }
    state.bots.forget(&bot.slug);
    tracing::info!(bot = %bot.slug, "merchant chat linked");
    Ok(Some(words::LINKED.to_owned()))
}

async fn run(state: &AppState, bot: &Bot, text: &str, update_id: u32) -> Result<String, ApiError> {
    let command = match words::parse(text) {
        Ok(command) => command,
        Err(usage) => return Ok(usage.to_string()),
    };
    let pool = &state.pool;
    let merchant_id = bot.merchant_id;
    match &command {
        Command::Help => Ok(words::HELP.to_owned()),
        Command::Approve(number) | Command::Reject(number, _) => {
            let Some(id) = orders::by_number(pool, bot.id, *number).await? else {
                return Ok(words::no_order(*number));
            };
            if let Command::Reject(_, reason) = &command {
                let rejected = super::payments::reject(pool, merchant_id, id, reason).await;
                outcome(rejected, words::rejected(*number))
            } else {
                let approved = super::payments::approve(pool, merchant_id, id).await;
                outcome(approved, words::approved(*number))
            }
        }
        Command::TakeOver(reference)
        | Command::Release(reference)
        | Command::Reply(reference, _) => {
            let found = conversations::with_prefix(pool, bot.id, reference).await?;
            let id = match found.as_slice() {
                [id] => *id,
                [] => return Ok(words::no_conversation(reference)),
                _ => return Ok(words::ambiguous(reference)),
            };
            match &command {
                Command::TakeOver(_) => outcome(
                    super::conversations::take_over(pool, merchant_id, id).await,
                    words::taken(reference),
                ),
                Command::Reply(_, text) => {
                    let key = format!("telegram-update:{}:{update_id}", bot.id);
                    let sent =
                        super::conversations::send_reply(pool, merchant_id, id, text, Some(&key));
                    outcome(sent.await, words::replied(reference))
                }
                _ => match super::conversations::hand_back(pool, merchant_id, id, false).await {
                    Ok(update) => Ok(words::released(reference, update.state.as_str())),
                    Err(err) => refusal(err),
                },
            }
        }
    }
}

fn outcome<T>(result: Result<T, ApiError>, done: String) -> Result<String, ApiError> {
    match result {
        Ok(_) => Ok(done),
        Err(err) => refusal(err),
    }
}

/// A refused action is told to the merchant; a failure of the server is not an
/// answer (Telegram retries the update).
fn refusal(err: ApiError) -> Result<String, ApiError> {
    match err {
        ApiError::Conflict(why) => Ok(words::refused(&spanish(&why))),
        ApiError::BadRequest(why) | ApiError::Invalid { error: why, .. } => {
            Ok(words::refused(&spanish(&why)))
        }
        ApiError::NotFound(_) => Ok(words::refused("no existe en esta tienda")),
        other => Err(other),
    }
}

/// The server's reasons, as the merchant reads them.
fn spanish(why: &str) -> String {
    if why.contains("not awaiting payment") {
        "el pedido ya no espera pago".into()
    } else if why.contains("not taken over") {
        "la conversación no está tomada; el bot ya la atiende".into()
    } else if why.contains("characters") {
        "el texto está vacío o es demasiado largo".into()
    } else {
        why.into()
    }
}

/// `POST /api/v1/bots/{slug}/merchant-chat`: a one-time code; the merchant sends
/// `/start <code>` to the bot from the Telegram chat that should get the notices
/// (a new code replaces the old one; linking another chat replaces the linked one).
#[utoipa::path(post, path = "/bots/{slug}/merchant-chat", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "`{code, send, linked}`"), Errors))]
pub async fn new_link(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    let code = link_code(&state, &bot).await?;
    Ok(Json(json!({
        "bot": bot.slug,
        "code": code,
        "send": format!("/start {code}"),
        "linked": bot.merchant_chat_id.is_some(),
    })))
}

/// A fresh link code, once the bot is on Telegram (the only place it is used).
pub async fn link_code(state: &AppState, bot: &Bot) -> Result<String, ApiError> {
    if crate::channels::credentials::telegram(&state.pool, bot.id)
        .await?
        .is_none()
    {
        return Err(ApiError::Conflict(
            "connect the bot to Telegram first: the merchant links a chat by writing to it".into(),
        ));
    }
    let code = merchant::new_link_code(&state.pool, bot.id).await?;
    state.bots.forget(&bot.slug);
    Ok(code)
}

/// `DELETE /api/v1/bots/{slug}/merchant-chat`: no more notices to that chat.
#[utoipa::path(delete, path = "/bots/{slug}/merchant-chat", tag = "bots", params(("slug" = String, Path, description = "the slug")),
    responses((status = 200, body = Answer, description = "`{linked: false}`"), Errors))]
pub async fn unlink(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    merchant::unlink_merchant_chat(&state.pool, bot.id).await?;
    state.bots.forget(&bot.slug);
    Ok(Json(json!({"bot": bot.slug, "linked": false})))
}
