//! WhatsApp Cloud API: webhook verification and signatures, payload parsing (every
//! entry, change, message, status and echo), and sending through `/{phone_number_id}/messages`.

use std::time::Duration;

use async_trait::async_trait;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use sqlx::PgPool;

use super::credentials;
use super::{Channel, ChannelKind, Delivered, Outgoing, SendError, split_text};
use super::{Media, MessagePayload};
use crate::config::Secret;

pub const MAX_TEXT: usize = 4096;
const MAX_BUTTONS: usize = 3;
const MAX_BUTTON_TITLE: usize = 20;
const MAX_LIST_ROWS: usize = 10;
const MAX_ROW_TITLE: usize = 24;
/// Longest caption of a document.
const MAX_CAPTION: usize = 1024;
const MAX_INTERACTIVE_BODY: usize = 1024;
/// Error code for a free-form message outside the customer-service window.
pub const OUTSIDE_WINDOW: &str = "outside the 24-hour window";

/// Checks `X-Hub-Signature-256: sha256=<hex>` over the raw body, in constant time.
pub fn signature_valid(body: &[u8], header: Option<&str>, app_secret: &Secret) -> bool {
    let Some(hex_sig) = header.and_then(|h| h.trim().strip_prefix("sha256=")) else {
        return false;
    };
    let Ok(expected) = hex::decode(hex_sig) else {
        return false;
    };
    let mut mac =
        Hmac::<Sha256>::new_from_slice(app_secret.expose().as_bytes()).expect("HMAC takes any key");
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

/// The signature header value for `body`; for clients and tests.
pub fn sign(body: &[u8], app_secret: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(app_secret.as_bytes()).expect("HMAC takes any key");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[derive(Debug, Clone, PartialEq)]
pub struct WaMessage {
    pub phone_number_id: String,
    pub from: String,
    pub name: Option<String>,
    pub wamid: String,
    pub message: MessagePayload,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WaStatus {
    pub phone_number_id: String,
    pub wamid: String,
    pub status: String,
    pub error: Option<String>,
}

/// The merchant wrote to a customer from the WhatsApp Business app.
#[derive(Debug, Clone, PartialEq)]
pub struct WaEcho {
    pub phone_number_id: String,
    pub customer: String,
    pub text: String,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct WaBatch {
    pub messages: Vec<WaMessage>,
    pub statuses: Vec<WaStatus>,
    pub echoes: Vec<WaEcho>,
}

fn str_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(value, |v, key| v.get(key))?.as_str()
}

/// A webhook body that is not a WhatsApp Business payload.
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    #[error("malformed JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a whatsapp_business_account payload")]
    NotBusinessAccount,
    #[error("missing entry array")]
    MissingEntries,
}

/// Parses a webhook payload. Only its outer shape is required; each message is
/// read leniently, and one the bot cannot read becomes an "unsupported" message
/// (answered politely) rather than being dropped.
pub fn parse_payload(body: &[u8]) -> Result<WaBatch, PayloadError> {
    let payload: Value = serde_json::from_slice(&crate::text::without_nul_escapes(body))?;
    if payload["object"] != "whatsapp_business_account" {
        return Err(PayloadError::NotBusinessAccount);
    }
    let entries = payload["entry"]
        .as_array()
        .ok_or(PayloadError::MissingEntries)?;
    let mut batch = WaBatch::default();
    for entry in entries {
        for change in entry["changes"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let value = &change["value"];
            let phone_number_id = str_at(value, &["metadata", "phone_number_id"])
                .unwrap_or_default()
                .to_owned();
            match change["field"].as_str() {
                Some("messages") => {
                    let names: Vec<(&str, &str)> = value["contacts"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|c| {
                            Some((c["wa_id"].as_str()?, str_at(c, &["profile", "name"])?))
                        })
                        .collect();
                    for message in value["messages"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or_default()
                    {
                        let (Some(from), Some(wamid)) =
                            (message["from"].as_str(), message["id"].as_str())
                        else {
                            tracing::warn!("WhatsApp message without sender or id; skipped");
                            continue;
                        };
                        batch.messages.push(WaMessage {
                            phone_number_id: phone_number_id.clone(),
                            from: from.to_owned(),
                            name: names
                                .iter()
                                .find(|(id, _)| *id == from)
                                .map(|(_, n)| (*n).to_owned()),
                            wamid: wamid.to_owned(),
                            message: read_message(message),
                        });
                    }
                    for status in value["statuses"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or_default()
                    {
                        let (Some(wamid), Some(state)) =
                            (status["id"].as_str(), status["status"].as_str())
                        else {
                            continue;
                        };
                        let error = status["errors"].get(0).map(|e| {
                            if e["code"].as_i64() == Some(131047) {
                                OUTSIDE_WINDOW.to_owned()
                            } else {
                                format!(
                                    "{} {}",
                                    e["code"].as_i64().unwrap_or_default(),
                                    e["title"].as_str().unwrap_or("delivery failed")
                                )
                            }
                        });
                        batch.statuses.push(WaStatus {
                            phone_number_id: phone_number_id.clone(),
                            wamid: wamid.to_owned(),
                            status: state.to_owned(),
                            error,
                        });
                    }
                }
                Some("smb_message_echoes") => {
                    for echo in value["message_echoes"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or_default()
                    {
                        if let Some(to) = echo["to"].as_str() {
                            batch.echoes.push(WaEcho {
                                phone_number_id: phone_number_id.clone(),
                                customer: to.to_owned(),
                                text: str_at(echo, &["text", "body"])
                                    .unwrap_or_default()
                                    .to_owned(),
                            });
                        }
                    }
                }
                other => tracing::debug!(field = ?other, "WhatsApp change ignored"),
            }
        }
    }
    Ok(batch)
}

fn read_message(message: &Value) -> MessagePayload {
    let media = |kind: &str| {
        message[kind]["id"].as_str().map(|id| Media {
            kind: kind.to_owned(),
            id: id.to_owned(),
        })
    };
    match message["type"].as_str().unwrap_or_default() {
        "text" => MessagePayload {
            text: str_at(message, &["text", "body"])
                .unwrap_or_default()
                .to_owned(),
            media: None,
        },
        kind @ ("image" | "document") => MessagePayload {
            text: str_at(message, &[kind, "caption"])
                .unwrap_or_default()
                .to_owned(),
            media: media(kind),
        },
        "interactive" => {
            let reply = message["interactive"]
                .get("button_reply")
                .or_else(|| message["interactive"].get("list_reply"));
            match reply.and_then(|r| r["id"].as_str().or(r["title"].as_str())) {
                Some(choice) => MessagePayload {
                    text: choice.to_owned(),
                    media: None,
                },
                None => MessagePayload::unsupported(),
            }
        }
        "button" => {
            match str_at(message, &["button", "payload"]).or(str_at(message, &["button", "text"])) {
                Some(choice) => MessagePayload {
                    text: choice.to_owned(),
                    media: None,
                },
                None => MessagePayload::unsupported(),
            }
        }
        _ => MessagePayload::unsupported(),
    }
}

pub struct WhatsAppChannel {
    http: reqwest::Client,
    api_url: String,
    version: String,
    pool: PgPool,
}

impl WhatsAppChannel {
    pub fn new(http: reqwest::Client, api_url: &str, version: &str, pool: PgPool) -> Self {
        WhatsAppChannel {
            http,
            api_url: api_url.trim_end_matches('/').to_owned(),
            version: version.to_owned(),
            pool,
        }
    }

    /// A file the customer sent: the media's URL from the Graph API, then the file,
    /// both with the bot's access token.
    pub async fn download(
        &self,
        bot_id: uuid::Uuid,
        media_id: &str,
    ) -> Result<super::media::Download, super::media::DownloadError> {
        use super::media::{DownloadError, bounded_body};
        let creds = credentials::whatsapp(&self.pool, bot_id)
            .await?
            .ok_or(DownloadError::NoCredentials)?;
        let token = creds.access_token.expose();
        let unreachable =
            |e: reqwest::Error| DownloadError::Unreachable(e.without_url().to_string());
        let media_id: String = media_id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_' || *c == '-')
            .collect();
        let answer = self
            .http
            .get(format!("{}/{}/{media_id}", self.api_url, self.version))
            .bearer_auth(token)
            .send()
            .await
            .map_err(unreachable)?;
        if !answer.status().is_success() {
            return Err(DownloadError::Refused(answer.status().to_string()));
        }
        let answer: Value = answer.json().await.map_err(unreachable)?;
        let url = answer["url"]
            .as_str()
            .ok_or_else(|| DownloadError::Refused("no media url".into()))?;
        let response = self
            .http
            .get(url)
            .bearer_auth(token)
            .send()
            .await
            .map_err(unreachable)?;
        bounded_body(response).await
    }

    /// Marks the customer's message read and shows the typing indicator (dismissed
    /// by the reply or after 25 seconds). Best effort.
    pub async fn typing(&self, bot_id: uuid::Uuid, message_id: &str) {
        let Ok(Some(creds)) = credentials::whatsapp(&self.pool, bot_id).await else {
            return;
        };
        let url = format!(
            "{}/{}/{}/messages",
            self.api_url, self.version, creds.phone_number_id
        );
        let body = json!({"messaging_product": "whatsapp", "status": "read",
                          "message_id": message_id, "typing_indicator": {"type": "text"}});
        let sent = self
            .http
            .post(&url)
            .bearer_auth(creds.access_token.expose())
            .json(&body)
            .send()
            .await;
        match sent {
            Ok(response) if !response.status().is_success() => {
                tracing::debug!(status = %response.status(), "WhatsApp typing indicator refused")
            }
            Ok(_) => {}
            Err(err) => {
                tracing::debug!(err = %err.without_url(), "WhatsApp typing indicator failed")
            }
        }
    }

    /// An approved template with its body parameters: what WhatsApp takes
    /// outside the 24-hour customer-service window.
    fn template_body(to: &str, template: &super::Template) -> Value {
        let parameters: Vec<Value> = template
            .parameters
            .iter()
            .map(|p| json!({"type": "text", "text": p}))
            .collect();
        json!({
            "messaging_product": "whatsapp",
            "recipient_type": "individual",
            "to": to,
            "type": "template",
            "template": {
                "name": template.name,
                "language": {"code": template.language},
                "components": [{"type": "body", "parameters": parameters}],
            },
        })
    }

    /// Sends a request to the Cloud API: its status and JSON answer, or a retry
    /// when the API could not be reached.
    async fn answered(
        request: reqwest::RequestBuilder,
    ) -> Result<(reqwest::StatusCode, Value), SendError> {
        let response = request.send().await.map_err(|e| SendError::Retry {
            reason: format!("WhatsApp unreachable: {}", e.without_url()),
            after: None,
        })?;
        let status = response.status();
        Ok((status, response.json().await.unwrap_or(Value::Null)))
    }

    /// Uploads a file to the number's media (`POST /{phone}/media`); its media id.
    async fn upload(
        &self,
        creds: &credentials::WhatsAppCredentials,
        file: super::files::File,
    ) -> Result<String, SendError> {
        let url = format!(
            "{}/{}/{}/media",
            self.api_url, self.version, creds.phone_number_id
        );
        let kind = file.content_type.clone();
        let form = reqwest::multipart::Form::new()
            .text("messaging_product", "whatsapp")
            .text("type", kind)
            .part("file", file.part()?);
        let request = self
            .http
            .post(&url)
            .bearer_auth(creds.access_token.expose())
            .multipart(form);
        let (status, answer) = Self::answered(request).await?;
        match answer["id"].as_str() {
            Some(id) if status.is_success() => Ok(id.to_owned()),
            _ if status.is_server_error() || status.as_u16() == 429 => Err(SendError::Retry {
                reason: format!("WhatsApp media upload {status}"),
                after: None,
            }),
            _ => Err(SendError::Permanent(format!(
                "WhatsApp media upload refused: {status}"
            ))),
        }
    }

    fn body(to: &str, text: &str, choices: &[String]) -> Value {
        let clip = |s: &str, n: usize| s.chars().take(n).collect::<String>();
        if choices.is_empty() || text.chars().count() > MAX_INTERACTIVE_BODY {
            return json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": to,
                          "type": "text", "text": {"preview_url": false, "body": text}});
        }
        let interactive = if choices.len() <= MAX_BUTTONS {
            json!({"type": "button", "body": {"text": text}, "action": {"buttons": choices.iter().map(|c| json!(
                {"type": "reply", "reply": {"id": clip(c, 256), "title": clip(c, MAX_BUTTON_TITLE)}}
            )).collect::<Vec<_>>()}})
        } else {
            json!({"type": "list", "body": {"text": text}, "action": {"button": "Opciones", "sections": [{
                "title": "Opciones",
                "rows": choices.iter().take(MAX_LIST_ROWS).map(|c| json!({"id": clip(c, 200), "title": clip(c, MAX_ROW_TITLE)})).collect::<Vec<_>>(),
            }]}})
        };
        json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": to,
               "type": "interactive", "interactive": interactive})
    }
}

#[async_trait]
impl Channel for WhatsAppChannel {
    fn kind(&self) -> ChannelKind {
        ChannelKind::Whatsapp
    }

    fn rate_limits(&self, message: &Outgoing) -> Vec<(String, u32)> {
        vec![(format!("wa:number:{}", message.bot_id), 80)]
    }

    async fn send(&self, message: &Outgoing) -> Result<Delivered, SendError> {
        let creds = credentials::whatsapp(&self.pool, message.bot_id)
            .await
            .map_err(|e| SendError::Retry {
                reason: e.to_string(),
                after: None,
            })?
            .ok_or_else(|| SendError::Permanent("the bot has no WhatsApp credentials".into()))?;
        let url = format!(
            "{}/{}/{}/messages",
            self.api_url, self.version, creds.phone_number_id
        );
        let bodies: Vec<Value> = match (&message.payload.template, &message.payload.file) {
            (Some(template), _) => vec![Self::template_body(&message.recipient, template)],
            // A file goes alone, uploaded first, its text as the caption.
            (None, Some(file)) => {
                let stored = super::files::to_send(&self.pool, message.bot_id, file).await?;
                let filename = stored.filename.clone();
                let picture = stored.is_picture();
                let media = self.upload(&creds, stored).await?;
                let caption: String = message.payload.text.chars().take(MAX_CAPTION).collect();
                // A picture is shown in the chat; anything else is a document.
                let body = if picture {
                    json!({"messaging_product": "whatsapp", "recipient_type": "individual",
                            "to": message.recipient, "type": "image",
                            "image": {"id": media, "caption": caption}})
                } else {
                    json!({"messaging_product": "whatsapp", "recipient_type": "individual",
                            "to": message.recipient, "type": "document",
                            "document": {"id": media, "filename": filename, "caption": caption}})
                };
                vec![body]
            }
            (None, None) => {
                let parts = split_text(&message.payload.text, MAX_TEXT);
                let last = parts.len().saturating_sub(1);
                parts
                    .iter()
                    .enumerate()
                    .map(|(i, part)| {
                        let choices: &[String] = if i == last {
                            &message.payload.choices
                        } else {
                            &[]
                        };
                        Self::body(&message.recipient, part, choices)
                    })
                    .collect()
            }
        };
        let mut last_id = None;
        for body in &bodies {
            let request = self
                .http
                .post(&url)
                .bearer_auth(creds.access_token.expose())
                .json(body);
            let (status, answer) = Self::answered(request).await?;
            if status.is_success() {
                last_id = answer["messages"][0]["id"].as_str().map(str::to_owned);
                continue;
            }
            let code = answer["error"]["code"].as_i64().unwrap_or_default();
            let detail = answer["error"]["message"]
                .as_str()
                .unwrap_or("no message")
                .to_owned();
            return Err(match (status.as_u16(), code) {
                (_, 131047) => SendError::Permanent(OUTSIDE_WINDOW.into()),
                (_, 131056) => SendError::Retry {
                    reason: "WhatsApp pair rate limit (131056)".into(),
                    after: Some(Duration::from_secs(6)),
                },
                (429, _) | (_, 130429 | 80007) => SendError::Retry {
                    reason: format!("WhatsApp rate limit ({code})"),
                    after: Some(Duration::from_secs(1)),
                },
                (s, _) if s >= 500 => SendError::Retry {
                    reason: format!("WhatsApp {s}: {detail}"),
                    after: None,
                },
                (s, _) => SendError::Permanent(format!("WhatsApp {s} ({code}): {detail}")),
            });
        }
        Ok(Delivered {
            provider_message_id: last_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_checked_over_the_raw_bytes() {
        let body = "{\"text\":\"maracuyá 🍹\"}".as_bytes();
        let secret = Secret::new("app-secret");
        let header = sign(body, "app-secret");
        assert!(signature_valid(body, Some(&header), &secret));
        assert!(!signature_valid(
            b"{\"text\":\"maracuya\"}",
            Some(&header),
            &secret
        ));
        assert!(!signature_valid(body, Some("sha256=zz"), &secret));
        assert!(!signature_valid(body, None, &secret));
        assert!(!signature_valid(body, Some(&sign(body, "other")), &secret));
    }

    #[test]
    fn buttons_and_lists_respect_platform_limits() {
        let three: Vec<String> = ["sí", "cancelar", "una opción con título largo"]
            .map(String::from)
            .to_vec();
        let body = WhatsAppChannel::body("591700", "¿Confirmas?", &three);
        let buttons = body["interactive"]["action"]["buttons"].as_array().unwrap();
        assert_eq!(buttons.len(), 3);
        assert!(
            buttons
                .iter()
                .all(|b| b["reply"]["title"].as_str().unwrap().chars().count() <= 20)
        );
        let many: Vec<String> = (0..12).map(|i| format!("opción {i}")).collect();
        let list = WhatsAppChannel::body("591700", "Elige", &many);
        assert_eq!(list["interactive"]["type"], "list");
        assert_eq!(
            list["interactive"]["action"]["sections"][0]["rows"]
                .as_array()
                .unwrap()
                .len(),
            10
        );
        assert_eq!(WhatsAppChannel::body("591700", "hola", &[])["type"], "text");
    }
}

#[cfg(test)]
mod fixture_tests {
    use super::*;

    fn fixture(name: &str) -> WaBatch {
        let path = format!(
            "{}/fixtures/whatsapp/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        parse_payload(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn every_fixture_payload_parses_to_what_it_means() {
        let text = fixture("text");
        assert_eq!(text.messages[0].message.text, "hola");
        assert_eq!(text.messages[0].name.as_deref(), Some("Mateo"));
        assert_eq!(text.messages[0].phone_number_id, "106540352242922");
        assert_eq!(
            fixture("image").messages[0]
                .message
                .media
                .as_ref()
                .unwrap()
                .id,
            "1003383421387256"
        );
        assert_eq!(
            fixture("document").messages[0]
                .message
                .media
                .as_ref()
                .unwrap()
                .kind,
            "document"
        );
        assert_eq!(
            fixture("interactive_button_reply").messages[0].message.text,
            "Sí"
        );
        assert_eq!(
            fixture("interactive_list_reply").messages[0].message.text,
            "menú"
        );
        assert_eq!(fixture("button").messages[0].message.text, "catálogo");
        assert_eq!(
            fixture("audio").messages[0]
                .message
                .media
                .as_ref()
                .unwrap()
                .kind,
            "unsupported"
        );
        let mixed = fixture("status_and_message");
        assert_eq!(mixed.messages.len(), 2, "every entry's messages");
        assert_eq!(mixed.statuses[0].status, "read");
        let failed = fixture("status_failed");
        assert_eq!(failed.statuses[0].error.as_deref(), Some(OUTSIDE_WINDOW));
        assert!(failed.messages.is_empty());
        let echo = fixture("smb_message_echoes");
        assert_eq!(echo.echoes[0].customer, "59171234567");
        assert!(parse_payload(b"{\"object\":\"page\",\"entry\":[]}").is_err());
        assert!(parse_payload(b"[]").is_err());
    }
}
