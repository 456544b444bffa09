//! The merchant's own Telegram chat, a front door like the API and the console:
//! messages from a bot's Telegram chats that are the merchant's, not a
//! customer's. `/start <code>` links a chat, and the linked chat's commands take
//! over, reply, release, approve and reject through the merchant actions. The
//! answer goes straight back to that chat.

mod commands;

pub use commands::{Command, Usage};

use crate::bots::Bot;
use crate::merchant::chat_link::{self, Lookup};
use crate::merchant::{self, MerchantError, Office};
use commands as words;

/// What to tell the chat, when the message was the merchant's; `None` when it is
/// a customer's and goes to the inbox. `update_id` makes a replayed update's reply
/// send nothing twice. An error is the server's, not an answer: Telegram retries.
pub async fn intercept(
    office: &Office,
    bot: &Bot,
    chat_id: &str,
    text: &str,
    update_id: u32,
) -> Result<Option<String>, MerchantError> {
    if bot.merchant_chat_id.as_deref() == Some(chat_id) {
        return run(office, bot, text, update_id).await.map(Some);
    }
    let Some(code) = words::link_code(text) else {
        return Ok(None);
    };
    if !chat_link::link(office, bot, code, chat_id).await? {
        // Someone else's /start with a payload: a customer, as any other.
        return Ok(None);
    }
    Ok(Some(words::LINKED.to_owned()))
}

async fn run(
    office: &Office,
    bot: &Bot,
    text: &str,
    update_id: u32,
) -> Result<String, MerchantError> {
    let command = match words::parse(text) {
        Ok(command) => command,
        Err(usage) => return Ok(usage.to_string()),
    };
    let pool = &office.pool;
    let merchant_id = bot.merchant_id;
    match &command {
        Command::Help => Ok(words::HELP.to_owned()),
        Command::Follow(number, status) => match chat_link::order(pool, bot, *number).await? {
            Some(id) => changed(
                *number,
                merchant::orders::follow(pool, merchant_id, id, *status).await,
            ),
            None => Ok(words::no_order(*number)),
        },
        Command::Cancel(number, reason) => match chat_link::order(pool, bot, *number).await? {
            Some(id) => changed(
                *number,
                merchant::orders::cancel(pool, merchant_id, id, reason).await,
            ),
            None => Ok(words::no_order(*number)),
        },
        Command::Approve(number) | Command::Reject(number, _) => {
            let Some(id) = chat_link::order(pool, bot, *number).await? else {
                return Ok(words::no_order(*number));
            };
            if let Command::Reject(_, reason) = &command {
                let rejected = merchant::payments::reject(pool, merchant_id, id, reason).await;
                outcome(rejected, words::rejected(*number))
            } else {
                let approved = merchant::payments::approve(pool, merchant_id, id, None).await;
                outcome(approved, words::approved(*number))
            }
        }
        Command::TakeOver(reference)
        | Command::Release(reference)
        | Command::Reply(reference, _) => {
            let id = match chat_link::conversation(pool, bot, reference).await? {
                Lookup::One(id) => id,
                Lookup::None => return Ok(words::no_conversation(reference)),
                Lookup::Ambiguous => return Ok(words::ambiguous(reference)),
            };
            match &command {
                Command::TakeOver(_) => outcome(
                    merchant::conversations::take_over(pool, merchant_id, id).await,
                    words::taken(reference),
                ),
                Command::Reply(_, text) => {
                    let key = format!("telegram-update:{}:{update_id}", bot.id);
                    let sent = merchant::conversations::send_reply(
                        pool,
                        merchant_id,
                        id,
                        text,
                        Some(&key),
                    );
                    outcome(sent.await, words::replied(reference))
                }
                _ => match merchant::conversations::hand_back(pool, merchant_id, id, false).await {
                    Ok(handled) => Ok(words::released(
                        reference,
                        crate::labels::state(handled.state),
                    )),
                    Err(err) => refusal(err),
                },
            }
        }
    }
}

/// What the chat reads after an order moved (or why it did not).
fn changed(
    number: i64,
    result: Result<merchant::orders::Changed, MerchantError>,
) -> Result<String, MerchantError> {
    match result {
        Ok(changed) => Ok(words::followed(
            number,
            changed.status,
            changed.customer_told,
        )),
        Err(err) => refusal(err),
    }
}

fn outcome<T>(result: Result<T, MerchantError>, done: String) -> Result<String, MerchantError> {
    match result {
        Ok(_) => Ok(done),
        Err(err) => refusal(err),
    }
}

/// A refused action is told to the merchant, in Spanish; a failure of the server
/// is not an answer (Telegram retries the update).
fn refusal(err: MerchantError) -> Result<String, MerchantError> {
    let why = match err {
        MerchantError::NotAwaitingPayment(_) => "el pedido ya no espera pago".to_owned(),
        MerchantError::CannotFollow { from, to } => format!(
            "el pedido está «{}» y no puede pasar a «{}»",
            crate::labels::order_status(from).to_lowercase(),
            crate::labels::order_status(to).to_lowercase()
        ),
        MerchantError::NotLive(status) => format!(
            "el pedido ya está «{}»",
            crate::labels::order_status(status).to_lowercase()
        ),
        MerchantError::NotTakenOver => {
            "la conversación no está tomada; el bot ya la atiende".to_owned()
        }
        MerchantError::Invalid { es, .. } => es,
        MerchantError::NotFound(_) => "no existe en esta tienda".to_owned(),
        MerchantError::Database(_) | MerchantError::Unexpected(_) => return Err(err),
        other => other.to_string(),
    };
    Ok(words::refused(&why))
}
