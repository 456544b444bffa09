//! What the merchant's own chat is told about a conversation: a customer who
//! asked for a person, a payment proof, a message given up on. Each notice has its
//! Spanish text, the conversation's short reference, a link to the console when
//! the server knows its address, and one-tap commands. Written by the turn (or the
//! park) that caused it, through the outbox.

use uuid::Uuid;

use crate::text::money;

/// Hex digits of a conversation id that name it in the merchant's chat.
pub const REF_LEN: usize = 6;

/// The short name of a conversation in notices and commands (`a1b2c3`).
pub fn conversation_ref(id: Uuid) -> String {
    id.simple().to_string()[..REF_LEN].to_owned()
}

/// Something a turn tells the merchant's chat about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The bot handed the conversation to a person (the customer asked, or kept
    /// insulting, or the bot could not help).
    Escalated { last_message: String },
    /// A message could not be handled after every retry; the customer got an
    /// apology that says the team was told.
    Parked { last_message: String },
    /// A takeover nobody wrote in for a while went back to the bot.
    TakeoverReleased { idle_minutes: i32 },
    /// An order took a product down to the bot's low-stock threshold.
    StockLow { product: String, left: i64 },
    /// An order took a product's last units.
    SoldOut { product: String },
    /// A proof of payment arrived for an order.
    PaymentProof {
        order_number: i64,
        total_minor: i64,
        currency: String,
    },
}

/// The notice's text and its one-tap commands (Telegram shows them as buttons).
pub fn render(
    notice: &Notice,
    conversation_id: Uuid,
    console_url: Option<&str>,
) -> (String, Vec<String>) {
    let reference = conversation_ref(conversation_id);
    let link = console_url
        .map(|base| format!("\n{base}/dashboard/conversations/{conversation_id}"))
        .unwrap_or_default();
    match notice {
        Notice::Escalated { last_message } => {
            let quoted: String = last_message.chars().take(300).collect();
            (
                format!(
                    "🙋 Un cliente pide hablar con una persona (conversación {reference}).\n\
                     Último mensaje: «{quoted}»{link}\n\
                     El bot ya no le responde. Escribe /responder {reference} tu mensaje, \
                     o /soltar {reference} para devolverla al bot."
                ),
                vec![format!("/soltar {reference}")],
            )
        }
        Notice::StockLow { product, left } => (
            format!(
                "📦 Quedan {left} de {product} (sin contar lo ya apartado en pedidos). \
                 Cuando repongas, actualiza las unidades en el catálogo."
            ),
            Vec::new(),
        ),
        Notice::SoldOut { product } => (
            format!(
                "🚫 Se agotó {product}: el bot ya no lo vende. Cuando repongas, actualiza \
                 las unidades en el catálogo."
            ),
            Vec::new(),
        ),
        Notice::TakeoverReleased { idle_minutes } => (
            format!(
                "⏱️ La conversación {reference} volvió al bot: nadie del equipo le escribió en \
                 {idle_minutes} minutos desde que la tomaron.{link}\n\
                 Escribe /tomar {reference} para atenderla de nuevo."
            ),
            vec![format!("/tomar {reference}")],
        ),
        Notice::Parked { last_message } => {
            let quoted: String = last_message.chars().take(300).collect();
            (
                format!(
                    "⚠️ No pude procesar un mensaje de la conversación {reference} tras varios \
                     intentos; el cliente recibió una disculpa.\n\
                     Mensaje: «{quoted}»{link}\n\
                     Escribe /tomar {reference} para atenderla tú."
                ),
                vec![format!("/tomar {reference}")],
            )
        }
        Notice::PaymentProof {
            order_number,
            total_minor,
            currency,
        } => (
            format!(
                "🧾 Llegó un comprobante de pago del pedido #{order_number} por {} \
                 (conversación {reference}).{link}\n\
                 Revísalo y responde /aprobar {order_number} o /rechazar {order_number} motivo.",
                money(*total_minor, currency)
            ),
            vec![format!("/aprobar {order_number}")],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_links_to_the_conversation_when_the_server_knows_its_address() {
        let id = Uuid::parse_str("a1b2c3d4-0000-4000-8000-000000000000").unwrap();
        let proof = Notice::PaymentProof {
            order_number: 7,
            total_minor: 6000,
            currency: "BOB".into(),
        };
        let (text, buttons) = render(&proof, id, Some("https://tienda.example"));
        assert!(text.contains("pedido #7"), "{text}");
        assert!(text.contains("https://tienda.example/dashboard/conversations/a1b2c3d4-"));
        assert_eq!(buttons, vec!["/aprobar 7".to_owned()]);
        let (text, _) = render(&proof, id, None);
        assert!(!text.contains("http"), "{text}");
        assert!(text.contains("a1b2c3"));
    }
}
