//! The words a merchant reads for the backend's states and kinds, in Spanish, in
//! one place. Every function matches its enum exhaustively: a new state or kind
//! does not compile until it has its words here.

use crate::audit::Actor;
use crate::channels::ChannelKind;
use crate::conversations::StoredState;
use crate::outbox::Status;
use crate::shop::orders::OrderStatus;
use crate::transcript::Speaker;

pub fn state(state: StoredState) -> &'static str {
    match state {
        StoredState::Idle => "Sin actividad",
        StoredState::Browsing => "Mirando el catálogo",
        StoredState::CartOpen => "Con carrito",
        StoredState::Checkout => "Revisando el pedido",
        StoredState::AwaitingPayment => "Esperando el pago",
        StoredState::Completed => "Completada",
        StoredState::HumanTakeover => "Atendida por una persona",
        StoredState::Clarifying => "Aclarando un dato",
        StoredState::AwaitingConfirmation => "Esperando confirmación",
    }
}

pub fn order_status(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::AwaitingPayment => "Esperando el pago",
        OrderStatus::ProofReceived => "Comprobante por revisar",
        OrderStatus::Paid => "Pagado",
        OrderStatus::Preparing => "En preparación",
        OrderStatus::Ready => "Listo para recoger",
        OrderStatus::OnTheWay => "En camino",
        OrderStatus::Delivered => "Entregado",
        OrderStatus::Cancelled => "Cancelado",
        OrderStatus::Expired => "Vencido",
    }
}

pub fn speaker(speaker: Speaker) -> &'static str {
    match speaker {
        Speaker::Customer => "Cliente",
        Speaker::Bot => "Bot",
        Speaker::Human => "Tú",
        Speaker::System => "Aviso",
    }
}

pub fn channel(channel: ChannelKind) -> &'static str {
    match channel {
        ChannelKind::Webchat => "Chat web",
        ChannelKind::Telegram => "Telegram",
        ChannelKind::Whatsapp => "WhatsApp",
    }
}

pub fn actor(actor: Actor) -> &'static str {
    match actor {
        Actor::Agent => "El asistente",
        Actor::Backend => "El sistema",
        Actor::Customer => "El cliente",
        Actor::Merchant => "Tú",
    }
}

/// How a message to the customer went; `None` for a line that needs no word.
pub fn delivery(status: Status) -> Option<&'static str> {
    match status {
        Status::Sent => Some("Entregado"),
        Status::Pending | Status::Sending => Some("Enviando"),
        Status::Suppressed => Some("No enviado: lo atendías tú"),
        Status::Failed | Status::Dead => Some("No se entregó"),
        Status::Discarded => Some("Descartado"),
    }
}

/// What a shop action does, as the history tells it.
fn action_words(action: &str) -> &'static str {
    match action {
        "SHOW_CATALOG" => "mostrar el catálogo",
        "SHOW_PRODUCT" => "mostrar un producto",
        "ADD_TO_CART" => "agregar al carrito",
        "UPDATE_QUANTITY" => "cambiar una cantidad",
        "REMOVE_ITEM" => "quitar un producto",
        "CLEAR_CART" => "vaciar el carrito",
        "REVIEW_ORDER" => "mostrar el resumen",
        "CONFIRM_ORDER" => "registrar el pedido",
        "CANCEL_ORDER" => "cancelar el pedido",
        "SET_FULFILMENT" => "anotar cómo recibe el pedido",
        "ESCALATE" => "pasar la conversación a una persona",
        "MODIFY_PRICE" => "cambiar un precio",
        "APPLY_DISCOUNT" => "dar un descuento",
        "APPROVE_PAYMENT" => "aprobar un pago",
        "REJECT_PAYMENT" => "rechazar un pago",
        "DISABLE_OVERRIDE" => "quitarte la conversación",
        "SET_DELIVERY_FEE" => "poner un costo de envío",
        "LOG_TRANSACTION" => "anotar un movimiento",
        "SET_BUDGET" => "fijar un presupuesto",
        _ => "una acción",
    }
}

/// One line of a conversation's history in plain Spanish, for the merchant;
/// `None` for the steps that only matter to an engineer (the raw audit stays
/// in the API).
pub fn history(row: &crate::audit::Row) -> Option<String> {
    use crate::audit::Kind;
    let action = row.action.as_deref().unwrap_or_default();
    let number = row.detail["order_number"].as_i64();
    let order = number.map_or_else(|| "el pedido".to_owned(), |n| format!("el pedido #{n}"));
    Some(match row.kind {
        Kind::ActionExecuted => match action {
            "CONFIRM_ORDER" => format!("El bot registró {order}."),
            "CANCEL_ORDER" => "El bot canceló el pedido, como pidió el cliente.".into(),
            "ESCALATE" => "El bot pasó la conversación a una persona.".into(),
            "SHOW_CATALOG" => "El bot mostró el catálogo.".into(),
            "SHOW_PRODUCT" => "El bot mostró un producto.".into(),
            "ADD_TO_CART" => "El bot agregó al carrito lo que pidió el cliente.".into(),
            "UPDATE_QUANTITY" => "El bot cambió una cantidad del carrito.".into(),
            "REMOVE_ITEM" => "El bot quitó un producto del carrito.".into(),
            "CLEAR_CART" => "El bot vació el carrito.".into(),
            "REVIEW_ORDER" => "El bot mostró el resumen del pedido.".into(),
            "SET_FULFILMENT" => "El bot anotó cómo recibe el cliente su pedido.".into(),
            _ => return None,
        },
        Kind::ActionRejected => {
            let code = row.detail["code"].as_str().unwrap_or_default();
            let what = action_words(action);
            match code {
                "forbidden" => format!("Rechazó {what}: eso lo decides tú, no el asistente."),
                "not_grounded" => format!("Descartó {what}: el cliente no lo pidió."),
                "out_of_stock" => "No agregó un producto: no quedaban suficientes unidades.".into(),
                _ => format!("No hizo «{what}»: no correspondía en ese momento."),
            }
        }
        Kind::StateChanged => match (row.from_state, row.to_state) {
            (Some(from), Some(to)) => format!("{} → {}.", state(from), state(to)),
            _ => return None,
        },
        Kind::OverrideChanged => {
            if row.detail["human_override"].as_bool() == Some(false) {
                "El bot volvió a atender la conversación.".into()
            } else {
                "Una persona atiende la conversación; el bot calla.".into()
            }
        }
        Kind::HumanReply => "Le escribiste al cliente.".into(),
        Kind::PaymentProofReceived => "El cliente envió un comprobante de pago.".into(),
        Kind::EventDetected => match action {
            "PAYMENT_APPROVED" => format!("Aprobaste el pago de {order}."),
            "PAYMENT_REJECTED" => format!("Rechazaste el comprobante de {order}."),
            "PAYMENT_TIMEOUT" => format!("Venció el plazo para pagar {order}."),
            "SESSION_TIMEOUT" => "El carrito se cerró por inactividad.".into(),
            _ => return None,
        },
        Kind::OrderStatusChanged => match action.parse::<OrderStatus>() {
            Ok(status) => format!(
                "{}: {}.",
                crate::text::capitalized(&order),
                order_status(status).to_lowercase()
            ),
            Err(_) => return None,
        },
        Kind::KnowledgeAnswered => "El bot respondió con lo que sabe la tienda.".into(),
        Kind::PersonOffered => "El bot ofreció hablar con una persona.".into(),
        Kind::ReplyReplaced => {
            "El sistema cambió un texto del asistente por uno con datos de la tienda.".into()
        }
        Kind::EventParked => {
            "Un mensaje no se pudo procesar; el cliente recibió una disculpa.".into()
        }
        Kind::OutboundNotSent | Kind::OutboundDiscarded => "Un mensaje al cliente no salió.".into(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_reads_as_plain_spanish() {
        use crate::audit::{Kind, Row};
        let row = |kind: Kind, action: Option<&str>, detail: serde_json::Value| Row {
            id: 1,
            actor: Actor::Backend,
            kind,
            action: action.map(str::to_owned),
            from_state: Some(StoredState::Checkout),
            to_state: Some(StoredState::AwaitingPayment),
            reason: Some("APPLY_DISCOUNT is reserved".into()),
            detail,
            created_at: chrono::Utc::now(),
        };
        let said = |r: Row| history(&r).unwrap_or_default();
        assert_eq!(
            said(row(
                Kind::ActionExecuted,
                Some("CONFIRM_ORDER"),
                serde_json::json!({"order_number": 1})
            )),
            "El bot registró el pedido #1."
        );
        assert_eq!(
            said(row(
                Kind::ActionRejected,
                Some("APPLY_DISCOUNT"),
                serde_json::json!({"code": "forbidden"})
            )),
            "Rechazó dar un descuento: eso lo decides tú, no el asistente."
        );
        assert_eq!(
            said(row(Kind::StateChanged, None, serde_json::json!({}))),
            "Revisando el pedido → Esperando el pago."
        );
        assert_eq!(
            history(&row(
                Kind::ActionProposed,
                Some("ADD_TO_CART"),
                serde_json::json!({})
            )),
            None
        );
    }

    #[test]
    fn every_state_has_its_own_words() {
        let words: std::collections::HashSet<&str> =
            StoredState::ALL.iter().map(|s| state(*s)).collect();
        assert_eq!(words.len(), StoredState::ALL.len());
    }
}
