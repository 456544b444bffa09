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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_has_its_own_words() {
        let words: std::collections::HashSet<&str> =
            StoredState::ALL.iter().map(|s| state(*s)).collect();
        assert_eq!(words.len(), StoredState::ALL.len());
    }
}
