//! What a turn is for: the head inbox event, decoded once into a typed command,
//! together with the customer's quick follow-ups that arrived behind it.

use serde::Deserialize;
use uuid::Uuid;

use crate::inbox::{EventKind, MessagePayload, PendingEvent};

/// What a queued inbox event asks the engine to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// One or more customer messages, answered together.
    Message(MessagePayload),
    /// The customer went quiet: an open cart or checkout goes back to IDLE.
    SessionTimeout,
    /// An order was not paid in time.
    PaymentTimeout { order_id: Uuid },
}

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("a turn needs at least one pending event")]
    Empty,
    #[error("unreadable {kind:?} payload: {source}")]
    Payload {
        kind: EventKind,
        #[source]
        source: serde_json::Error,
    },
}

#[derive(Deserialize)]
struct PaymentTimeoutPayload {
    order_id: Uuid,
}

impl Command {
    pub fn decode(event: &PendingEvent) -> Result<Command, CommandError> {
        let payload_error = |source| CommandError::Payload {
            kind: event.kind,
            source,
        };
        Ok(match event.kind {
            EventKind::Message => Command::Message(
                serde_json::from_value(event.payload.clone()).map_err(payload_error)?,
            ),
            EventKind::SessionTimeout => Command::SessionTimeout,
            EventKind::PaymentTimeout => {
                let payload: PaymentTimeoutPayload =
                    serde_json::from_value(event.payload.clone()).map_err(payload_error)?;
                Command::PaymentTimeout {
                    order_id: payload.order_id,
                }
            }
        })
    }
}

/// The events one turn handles and what they ask for together.
#[derive(Debug, Clone, PartialEq)]
pub struct Burst {
    /// Inbox ids, in arrival order; all are marked processed by the turn's commit.
    pub ids: Vec<i64>,
    pub command: Command,
    /// The event that carried an attachment, if any (its proof row points at it).
    pub attachment_event: Option<i64>,
}

impl Burst {
    /// The head event, and the customer messages queued right behind it. A head
    /// that failed before runs alone, so one bad message cannot sink its neighbours.
    pub fn take(events: &[PendingEvent], head_attempts: i32) -> Result<Burst, CommandError> {
        let head = events.first().ok_or(CommandError::Empty)?;
        let command = Command::decode(head)?;
        let Command::Message(first) = command else {
            return Ok(Burst {
                ids: vec![head.id],
                command,
                attachment_event: None,
            });
        };
        let mut ids = vec![head.id];
        let mut messages = vec![(head.id, first)];
        if head_attempts <= 1 {
            for event in &events[1..] {
                if event.kind != EventKind::Message || event.attempts > 0 {
                    break;
                }
                let Ok(Command::Message(message)) = Command::decode(event) else {
                    break;
                };
                ids.push(event.id);
                messages.push((event.id, message));
            }
        }
        let (message, attachment_event) = merge(messages);
        Ok(Burst {
            ids,
            command: Command::Message(message),
            attachment_event,
        })
    }

    pub fn head_id(&self) -> i64 {
        self.ids[0]
    }
}

/// One message from several: texts in order, one per line; the last readable
/// attachment. Unreadable media (audio, stickers) count only when nothing else came.
fn merge(messages: Vec<(i64, MessagePayload)>) -> (MessagePayload, Option<i64>) {
    if messages.len() == 1 {
        let (id, message) = messages.into_iter().next().expect("one message");
        let attachment = message.has_attachment().then_some(id);
        return (message, attachment);
    }
    let all_unsupported = messages.iter().all(|(_, m)| m.is_unsupported());
    if all_unsupported {
        return (MessagePayload::unsupported(), None);
    }
    let text = messages
        .iter()
        .map(|(_, m)| m.text.trim())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let attachment = messages
        .iter()
        .rev()
        .find(|(_, m)| m.has_attachment())
        .map(|(id, m)| (*id, m.media.clone()));
    let (attachment_event, media) = match attachment {
        Some((id, media)) => (Some(id), media),
        None => (None, None),
    };
    (MessagePayload { text, media }, attachment_event)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::inbox::Media;

    fn message(id: i64, text: &str, attempts: i32) -> PendingEvent {
        PendingEvent {
            id,
            kind: EventKind::Message,
            payload: json!({"text": text}),
            external_id: format!("e-{id}"),
            attempts,
            received_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn quick_messages_become_one_command_in_order() {
        let events = [
            message(1, "hola", 0),
            message(2, "quiero", 0),
            message(3, "2 matcha", 0),
        ];
        let burst = Burst::take(&events, 1).unwrap();
        assert_eq!(burst.ids, [1, 2, 3]);
        assert_eq!(
            burst.command,
            Command::Message(MessagePayload {
                text: "hola\nquiero\n2 matcha".into(),
                media: None
            })
        );
    }

    #[test]
    fn a_timeout_or_a_retried_head_runs_alone() {
        let timeout = PendingEvent {
            id: 1,
            kind: EventKind::SessionTimeout,
            payload: json!({}),
            external_id: "t".into(),
            attempts: 0,
            received_at: chrono::Utc::now(),
        };
        let burst = Burst::take(&[timeout, message(2, "hola", 0)], 1).unwrap();
        assert_eq!(burst.ids, [1]);
        assert_eq!(burst.command, Command::SessionTimeout);

        let burst = Burst::take(&[message(1, "hola", 1), message(2, "hola", 0)], 2).unwrap();
        assert_eq!(burst.ids, [1], "a head on its second try is isolated");
        // A follow-up that failed before is not folded into someone else's turn.
        let burst = Burst::take(&[message(1, "a", 0), message(2, "b", 1)], 1).unwrap();
        assert_eq!(burst.ids, [1]);
    }

    #[test]
    fn an_image_in_a_burst_is_kept_with_its_event() {
        let mut image = message(2, "", 0);
        image.payload = json!({"text": "", "media": {"kind": "image", "id": "m-1"}});
        let burst = Burst::take(&[message(1, "te envío el pago", 0), image], 1).unwrap();
        assert_eq!(burst.attachment_event, Some(2));
        let Command::Message(m) = burst.command else {
            panic!("a message")
        };
        assert_eq!(m.text, "te envío el pago");
        assert_eq!(
            m.media,
            Some(Media {
                kind: "image".into(),
                id: "m-1".into()
            })
        );
    }

    #[test]
    fn unreadable_payloads_are_typed_errors() {
        let bad = PendingEvent {
            id: 1,
            kind: EventKind::PaymentTimeout,
            payload: json!({"order_id": "not-a-uuid"}),
            external_id: "p".into(),
            attempts: 0,
            received_at: chrono::Utc::now(),
        };
        assert!(matches!(
            Burst::take(&[bad], 1),
            Err(CommandError::Payload { .. })
        ));
        assert!(matches!(Burst::take(&[], 1), Err(CommandError::Empty)));
    }
}
