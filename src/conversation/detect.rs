//! Backend event detection from what the customer sent. The proposer's opinion is
//! never consulted here.

use super::event::Event;
use crate::text::{contains_phrase, normalize, tokens};

/// What arrived, as far as detection cares.
#[derive(Debug, Clone, Copy)]
pub struct Inbound<'a> {
    pub text: &'a str,
    pub has_image: bool,
}

/// Words that open a greeting (shared with the finance rules).
pub const GREETINGS: &[&str] = &[
    "hola",
    "holi",
    "buenas",
    "buenos dias",
    "buen dia",
    "buenas tardes",
    "buenas noches",
    "saludos",
    "que tal",
    "hey",
    "hello",
    "hi",
];

const ESCALATION: &[&str] = &[
    "hablar con alguien",
    "hablar con una persona",
    "hablar con un humano",
    "hablar con un asesor",
    "hablar con una asesora",
    "hablar con un agente",
    "hablar con el dueno",
    "hablar con la duena",
    "hablar con el encargado",
    "hablar con la encargada",
    "hablar con el vendedor",
    "hablar con la vendedora",
    "hablar con soporte",
    "una persona real",
    "un humano",
    "atencion humana",
    "atencion al cliente",
    "quiero un asesor",
    "pasame con alguien",
    "comunicame con alguien",
];

const PAYMENT: &[&str] = &[
    "ya pague",
    "ya le pague",
    "ya te pague",
    "ya hice el pago",
    "ya realice el pago",
    "pago realizado",
    "ya transferi",
    "ya deposite",
    "ya te deposite",
    "te envie el pago",
    "envie el comprobante",
    "te mando el comprobante",
    "aqui esta el comprobante",
    "comprobante",
    "transferencia realizada",
    "ya esta pagado",
];

/// Events visible in one inbound message, in a fixed order.
pub fn detect(inbound: Inbound<'_>) -> Vec<Event> {
    let text = normalize(inbound.text);
    let mut events = Vec::new();
    if is_greeting(&text) {
        events.push(Event::GreetingReceived);
    }
    if inbound.has_image || PAYMENT.iter().any(|p| contains_phrase(&text, p)) {
        events.push(Event::PaymentProofReceived);
    }
    if ESCALATION.iter().any(|p| contains_phrase(&text, p)) {
        events.push(Event::EscalationRequested);
    }
    events
}

fn is_greeting(text: &str) -> bool {
    let words = tokens(text);
    // A greeting opens the message; "hola" inside an order line still counts.
    GREETINGS.iter().any(|g| {
        let g_words: Vec<&str> = g.split(' ').collect();
        words.len() >= g_words.len() && words[..g_words.len()] == g_words[..]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Vec<Event> {
        detect(Inbound {
            text: t,
            has_image: false,
        })
    }

    #[test]
    fn greetings_escalations_and_payments_are_detected() {
        assert_eq!(text("¡Hola! qué tienen"), vec![Event::GreetingReceived]);
        assert_eq!(text("Buenas tardes"), vec![Event::GreetingReceived]);
        assert_eq!(
            text("quiero hablar con una persona"),
            vec![Event::EscalationRequested]
        );
        assert_eq!(
            text("Ya pagué, te envié el comprobante"),
            vec![Event::PaymentProofReceived]
        );
        assert!(text("quiero 2 maracuyá").is_empty());
        assert_eq!(
            detect(Inbound {
                text: "",
                has_image: true
            }),
            vec![Event::PaymentProofReceived]
        );
    }
}
