//! "¿Y mi pedido?": a customer asking where an order they already placed
//! stands, in any of the ways people ask it. The answer comes from the
//! backend's order, never from a proposer.

use crate::text::{contains_phrase, normalize, tokens};

/// Words that name an order already placed.
const ORDER: &[&str] = &[
    "pedido", "pedidos", "orden", "compra", "encargo", "envio", "delivery", "paquete", "order",
];

/// Asking where it is, when it comes, how it goes.
const WHERE: &[&str] = &[
    "donde esta",
    "donde va",
    "por donde",
    "cuando llega",
    "cuando llegara",
    "cuando me llega",
    "a que hora llega",
    "a que hora",
    "ya viene",
    "ya vienen",
    "ya sale",
    "ya salio",
    "ya esta",
    "esta listo",
    "esta lista",
    "como va",
    "como vamos",
    "que paso con",
    "que pasa con",
    "que hay de",
    "estado",
    "cuanto falta",
    "cuanto tarda",
    "cuanto demora",
    "sigue",
    "llega",
    "llego",
    "ya lo mandaron",
    "ya lo enviaron",
    "ya mandaron",
    "ya enviaron",
    "y mi",
    "where is",
    "status",
    "novedades",
    "noticias",
];

/// Said without naming the order, these still only ask about it.
const ALONE: &[&str] = &[
    "ya viene",
    "ya vienen",
    "cuanto falta",
    "cuanto tarda",
    "cuanto demora",
    "ya salio",
    "por donde viene",
    "donde viene",
    "a que hora llega",
    "cuando llega",
    "ya esta listo",
    "ya esta lista",
];

/// Words of a request that only mention the order («cancela mi pedido», «quiero
/// hacer un pedido», «agrega algo a mi pedido»): not a question about it.
const REQUEST: &[&str] = &[
    "cancel",
    "cancela",
    "cancelar",
    "anula",
    "anular",
    "quiero",
    "quisiera",
    "agrega",
    "agregame",
    "anota",
    "anotame",
    "pon",
    "ponme",
    "dame",
    "confirmo",
    "confirmar",
    "hacer",
    "cambia",
    "cambiar",
    "quita",
    "quitame",
    "otro",
    "otra",
    "pagar",
    "comprobante",
];

/// Whether the message asks where a placed order stands.
pub fn asks_order_status(text: &str) -> bool {
    let text = normalize(text);
    let words = tokens(&text);
    if words.is_empty() || words.len() > 16 {
        return false;
    }
    if words.iter().any(|w| REQUEST.contains(w)) {
        return false;
    }
    let named = words.iter().any(|w| ORDER.contains(w));
    let has = |phrases: &[&str]| phrases.iter().any(|p| contains_phrase(&text, p));
    (named && has(WHERE)) || has(ALONE)
}

#[cfg(test)]
mod tests {
    use super::asks_order_status;

    #[test]
    fn questions_about_a_placed_order_are_read_as_such() {
        for asked in [
            "¿y mi pedido?",
            "Hola, ¿dónde está mi pedido?",
            "ya viene mi pedido??",
            "¿Cuánto falta?",
            "cómo va mi orden",
            "¿qué pasó con mi compra? ya pagué hace rato",
            "a qué hora llega el delivery",
            "¿ya está listo?",
            "where is my order",
        ] {
            assert!(asks_order_status(asked), "{asked}");
        }
    }

    #[test]
    fn requests_that_name_the_order_are_not() {
        for said in [
            "cancela mi pedido",
            "quiero hacer un pedido",
            "agrega un brownie a mi pedido",
            "te mando el comprobante",
            "dos cheesecakes",
            "mi pedido es 2 maracuyá",
            "pedido",
        ] {
            assert!(!asks_order_status(said), "{said}");
        }
    }
}
