//! Telegram: parsing webhook updates (with teloxide's types) and sending through
//! the Bot API (`sendMessage`, `answerCallbackQuery`).

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use sqlx::PgPool;
use teloxide_core::types::{ChatMemberKind, MediaKind, MessageKind, Update, UpdateKind};

use super::credentials;
use super::{Channel, ChannelKind, Delivered, Outgoing, SendError, split_text};
use super::{Media, MessagePayload};

/// Longest caption of a document.
const MAX_CAPTION: usize = 1024;
/// Longest text of one `sendMessage`.
pub const MAX_TEXT: usize = 4096;
/// Longest `callback_data` of an inline button, in bytes.
const MAX_CALLBACK_DATA: usize = 64;

/// What one update means to Tendero.
#[derive(Debug, Clone, PartialEq)]
pub enum TelegramEvent {
    /// A customer message (text, photo, document, or something unsupported).
    Message {
        update_id: u32,
        chat_id: i64,
        name: Option<String>,
        message: MessagePayload,
    },
    /// An inline-button press: its data is the customer's answer.
    Callback {
        update_id: u32,
        chat_id: i64,
        name: Option<String>,
        data: String,
        callback_query_id: String,
    },
    /// The user blocked (`true`) or unblocked the bot.
    Membership { chat_id: i64, blocked: bool },
    /// Acknowledged and ignored (edits, kinds a shop bot does not handle).
    Ignored(&'static str),
}

/// A webhook body that is not a Telegram update.
#[derive(Debug, thiserror::Error)]
#[error("not a Telegram update: {0}")]
pub struct UpdateError(#[from] serde_json::Error);

/// How the merchant sees a Telegram customer: the first name, and the
/// username when there is one («Ana (@ana_p)»).
fn shown_name(user: &teloxide_core::types::User) -> String {
    match &user.username {
        Some(username) => format!("{} (@{username})", user.first_name),
        None => user.first_name.clone(),
    }
}

/// Parses one webhook body.
pub fn parse_update(body: &[u8]) -> Result<TelegramEvent, UpdateError> {
    let update: Update = serde_json::from_slice(&crate::text::without_nul_escapes(body))?;
    let update_id = update.id.0;
    Ok(match update.kind {
        UpdateKind::Message(message) => {
            let name = message.from.as_ref().map(shown_name);
            let payload = match &message.kind {
                MessageKind::Common(common) => match &common.media_kind {
                    MediaKind::Text(text) => MessagePayload {
                        text: text.text.clone(),
                        media: None,
                    },
                    MediaKind::Photo(photo) => MessagePayload {
                        text: photo.caption.clone().unwrap_or_default(),
                        media: photo.photo.last().map(|p| Media {
                            kind: "image".into(),
                            id: p.file.id.to_string(),
                        }),
                    },
                    MediaKind::Document(doc) => MessagePayload {
                        text: doc.caption.clone().unwrap_or_default(),
                        media: Some(Media {
                            kind: "document".into(),
                            id: doc.document.file.id.to_string(),
                        }),
                    },
                    _ => MessagePayload::unsupported(),
                },
                _ => return Ok(TelegramEvent::Ignored("service message")),
            };
            TelegramEvent::Message {
                update_id,
                chat_id: message.chat.id.0,
                name,
                message: payload,
            }
        }
        UpdateKind::EditedMessage(_) => TelegramEvent::Ignored("edited message"),
        UpdateKind::CallbackQuery(query) => {
            let chat_id = query
                .message
                .as_ref()
                .map(|m| m.chat().id.0)
                .unwrap_or(query.from.id.0 as i64);
            TelegramEvent::Callback {
                update_id,
                chat_id,
                name: Some(shown_name(&query.from)),
                data: query.data.clone().unwrap_or_default(),
                callback_query_id: query.id.0.clone(),
            }
        }
        UpdateKind::MyChatMember(member) => match member.new_chat_member.kind {
            ChatMemberKind::Banned(_) => TelegramEvent::Membership {
                chat_id: member.chat.id.0,
                blocked: true,
            },
            ChatMemberKind::Member(_) => TelegramEvent::Membership {
                chat_id: member.chat.id.0,
                blocked: false,
            },
            _ => TelegramEvent::Ignored("membership change"),
        },
        _ => TelegramEvent::Ignored("update kind not handled"),
    })
}

pub struct TelegramChannel {
    http: reqwest::Client,
    api_url: String,
    pool: PgPool,
}

impl TelegramChannel {
    pub fn new(http: reqwest::Client, api_url: &str, pool: PgPool) -> Self {
        TelegramChannel {
            http,
            api_url: api_url.trim_end_matches('/').to_owned(),
            pool,
        }
    }

    async fn call(&self, token: &str, method: &str, body: &Value) -> Result<Value, SendError> {
        let request = self
            .http
            .post(format!("{}/bot{token}/{method}", self.api_url))
            .json(body);
        Self::answered(request).await
    }

    /// The file's bytes as an upload (multipart): a picture with `sendPhoto`,
    /// shown in the chat; anything else with `sendDocument`.
    async fn send_document(
        &self,
        token: &str,
        chat_id: i64,
        file: super::files::File,
        caption: &str,
    ) -> Result<Value, SendError> {
        let (method, field) = if file.is_picture() {
            ("sendPhoto", "photo")
        } else {
            ("sendDocument", "document")
        };
        let form = reqwest::multipart::Form::new()
            .text("chat_id", chat_id.to_string())
            .text("caption", caption.to_owned())
            .part(field, file.part()?);
        let request = self
            .http
            .post(format!("{}/bot{token}/{method}", self.api_url))
            .multipart(form);
        Self::answered(request).await
    }

    async fn answered(request: reqwest::RequestBuilder) -> Result<Value, SendError> {
        let response = request.send().await.map_err(|e| SendError::Retry {
            reason: format!("Telegram unreachable: {}", e.without_url()),
            after: None,
        })?;
        let status = response.status();
        let answer: Value = response.json().await.unwrap_or(Value::Null);
        if status.is_success() && answer["ok"] == true {
            return Ok(answer);
        }
        let description = answer["description"]
            .as_str()
            .unwrap_or("no description")
            .to_owned();
        Err(match status.as_u16() {
            429 => SendError::Retry {
                reason: format!("Telegram rate limit: {description}"),
                after: Some(Duration::from_secs(
                    answer["parameters"]["retry_after"].as_u64().unwrap_or(1),
                )),
            },
            403 => SendError::Blocked,
            code if code >= 500 => SendError::Retry {
                reason: format!("Telegram {code}: {description}"),
                after: None,
            },
            code => SendError::Permanent(format!("Telegram {code}: {description}")),
        })
    }

    /// Shows "typing…" in the chat while a turn works. Best effort.
    pub async fn typing(&self, bot_id: uuid::Uuid, chat_id: &str) {
        let Ok(Some(creds)) = credentials::telegram(&self.pool, bot_id).await else {
            return;
        };
        let body = json!({"chat_id": chat_id, "action": "typing"});
        if let Err(err) = self
            .call(creds.token.expose(), "sendChatAction", &body)
            .await
        {
            tracing::debug!(%err, "sendChatAction failed");
        }
    }

    /// A file the customer sent (`getFile`, then the file itself).
    pub async fn download(
        &self,
        bot_id: uuid::Uuid,
        file_id: &str,
    ) -> Result<super::media::Download, super::media::DownloadError> {
        use super::media::{DownloadError, bounded_body};
        let creds = credentials::telegram(&self.pool, bot_id)
            .await?
            .ok_or(DownloadError::NoCredentials)?;
        let token = creds.token.expose();
        let answer = self
            .call(token, "getFile", &json!({"file_id": file_id}))
            .await
            .map_err(|e| DownloadError::Refused(e.to_string()))?;
        let path = answer["result"]["file_path"]
            .as_str()
            .ok_or_else(|| DownloadError::Refused("getFile gave no file_path".into()))?;
        let response = self
            .http
            .get(format!("{}/file/bot{token}/{path}", self.api_url))
            .send()
            .await
            .map_err(|e| DownloadError::Unreachable(e.without_url().to_string()))?;
        bounded_body(response).await
    }

    /// A plain message to a chat outside any conversation (the merchant's answers
    /// to commands). Best effort: a failure is logged.
    pub async fn say(&self, bot_id: uuid::Uuid, chat_id: &str, text: &str) {
        let Ok(Some(creds)) = credentials::telegram(&self.pool, bot_id).await else {
            return;
        };
        for part in split_text(text, MAX_TEXT) {
            let body = json!({"chat_id": chat_id, "text": part});
            if let Err(err) = self.call(creds.token.expose(), "sendMessage", &body).await {
                tracing::warn!(%err, "answer to the merchant's chat not sent");
                return;
            }
        }
    }

    /// Stops the button's spinner. Best effort: a failure only leaves it spinning.
    pub async fn answer_callback(&self, bot_id: uuid::Uuid, callback_query_id: &str) {
        let Ok(Some(creds)) = credentials::telegram(&self.pool, bot_id).await else {
            return;
        };
        let body = json!({"callback_query_id": callback_query_id});
        if let Err(err) = self
            .call(creds.token.expose(), "answerCallbackQuery", &body)
            .await
        {
            tracing::debug!(%err, "answerCallbackQuery failed");
        }
    }
}

#[async_trait]
impl Channel for TelegramChannel {
    fn kind(&self) -> ChannelKind {
        ChannelKind::Telegram
    }

    fn rate_limits(&self, message: &Outgoing) -> Vec<(String, u32)> {
        vec![
            (
                format!("tg:chat:{}:{}", message.bot_id, message.recipient),
                1,
            ),
            (format!("tg:bot:{}", message.bot_id), 30),
        ]
    }

    async fn send(&self, message: &Outgoing) -> Result<Delivered, SendError> {
        let creds = credentials::telegram(&self.pool, message.bot_id)
            .await
            .map_err(|e| SendError::Retry {
                reason: e.to_string(),
                after: None,
            })?
            .ok_or_else(|| SendError::Permanent("the bot has no Telegram credentials".into()))?;
        let chat_id: i64 = message
            .recipient
            .parse()
            .map_err(|_| SendError::Permanent("not a Telegram chat id".into()))?;
        // A file goes alone, its text as the caption: one call, so a retry never
        // sends half of it twice.
        if let Some(file) = &message.payload.file {
            let stored = super::files::to_send(&self.pool, message.bot_id, file).await?;
            let caption = split_text(&message.payload.text, MAX_CAPTION)
                .into_iter()
                .next()
                .unwrap_or_default();
            let answer = self
                .send_document(creds.token.expose(), chat_id, stored, &caption)
                .await?;
            return Ok(Delivered {
                provider_message_id: answer["result"]["message_id"]
                    .as_i64()
                    .map(|id| id.to_string()),
            });
        }
        let parts = split_text(&message.payload.text, MAX_TEXT);
        let mut last_id = None;
        for (i, part) in parts.iter().enumerate() {
            let mut body = json!({"chat_id": chat_id, "text": part});
            if i + 1 == parts.len() && !message.payload.choices.is_empty() {
                let buttons: Vec<Value> = message
                    .payload
                    .choices
                    .iter()
                    .map(|c| json!({"text": c, "callback_data": truncate_bytes(c, MAX_CALLBACK_DATA)}))
                    .collect();
                body["reply_markup"] = json!({"inline_keyboard": [buttons]});
            }
            let answer = self
                .call(creds.token.expose(), "sendMessage", &body)
                .await?;
            last_id = answer["result"]["message_id"]
                .as_i64()
                .map(|id| id.to_string());
        }
        Ok(Delivered {
            provider_message_id: last_id,
        })
    }
}

fn truncate_bytes(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_customer_is_named_by_first_name_and_username() {
        let path = format!("{}/fixtures/telegram/text.json", env!("CARGO_MANIFEST_DIR"));
        let mut update: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        update["message"]["from"]["username"] = json!("ana_p");
        let TelegramEvent::Message { name, .. } =
            parse_update(update.to_string().as_bytes()).unwrap()
        else {
            panic!("a message");
        };
        let first = update["message"]["from"]["first_name"].as_str().unwrap();
        assert_eq!(name, Some(format!("{first} (@ana_p)")));
    }

    fn fixture(name: &str) -> TelegramEvent {
        let path = format!(
            "{}/fixtures/telegram/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        parse_update(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn every_fixture_update_kind_parses_to_what_it_means() {
        match fixture("text") {
            TelegramEvent::Message {
                update_id,
                chat_id,
                name,
                message,
            } => {
                assert_eq!((update_id, chat_id), (100000001, 555000111));
                assert_eq!(name.as_deref(), Some("Lucía"));
                assert_eq!(message.text, "hola");
            }
            other => panic!("{other:?}"),
        }
        match fixture("photo") {
            TelegramEvent::Message { message, .. } => {
                assert_eq!(message.media.unwrap().id, "AgACAgEAAxkBAAMMlarge");
                assert!(message.text.contains("comprobante"));
            }
            other => panic!("{other:?}"),
        }
        match fixture("document") {
            TelegramEvent::Message { message, .. } => {
                assert_eq!(message.media.unwrap().kind, "document")
            }
            other => panic!("{other:?}"),
        }
        match fixture("callback_query") {
            TelegramEvent::Callback {
                data,
                callback_query_id,
                chat_id,
                ..
            } => {
                assert_eq!((data.as_str(), chat_id), ("Sí", 555000111));
                assert_eq!(callback_query_id, "4382bfdwdsb323b2d9");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            fixture("edited_message"),
            TelegramEvent::Ignored("edited message")
        );
        assert_eq!(
            fixture("my_chat_member_kicked"),
            TelegramEvent::Membership {
                chat_id: 555000111,
                blocked: true
            }
        );
        assert!(
            matches!(fixture("sticker"), TelegramEvent::Message { message, .. } if message.is_unsupported())
        );
        assert!(matches!(fixture("poll"), TelegramEvent::Ignored(_)));
        assert!(parse_update(b"{\"update_id\": \"x\"}").is_err());
    }
}
