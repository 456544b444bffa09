//! The commands the merchant's own Telegram chat answers (`/tomar`, `/soltar`,
//! `/responder`, `/aprobar N`, `/rechazar N motivo`, `/preparando N`, `/listo N`,
//! `/encamino N`, `/entregado N`, `/cancelar N motivo`) and their Spanish answers.
//! Parsing and wording only; `run` carries them out through the merchant actions.
//! Everything here is read by the merchant, so it is in Spanish.

use crate::bots::LINK_CODE_LEN;
use crate::notices::REF_LEN;
use crate::shop::orders::OrderStatus;

/// A command from the merchant's chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Help,
    TakeOver(String),
    Release(String),
    Reply(String, String),
    Approve(i64),
    Reject(i64, String),
    /// A paid order moves on (preparing, ready, on the way, delivered).
    Follow(i64, OrderStatus),
    Cancel(i64, String),
}

/// A command the merchant mistyped; the text says how to write it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub &'static str);

pub const HELP: &str = "Comandos:\n\
    /tomar a1b2c3 — atiendes tú la conversación; el bot calla\n\
    /responder a1b2c3 texto — le escribes al cliente\n\
    /soltar a1b2c3 — el bot vuelve a atenderla\n\
    /aprobar 12 — el pago del pedido #12 es válido\n\
    /rechazar 12 motivo — el comprobante no sirve; se lo pedimos de nuevo\n\
    /preparando 12, /listo 12, /encamino 12, /entregado 12 — le avisamos al cliente cómo va su pedido\n\
    /cancelar 12 motivo — cancelas el pedido; le avisamos y las unidades vuelven a la venta";

const USE_TAKE: Usage =
    Usage("Escribe /tomar seguido del código de la conversación, por ejemplo /tomar a1b2c3.");
const USE_RELEASE: Usage =
    Usage("Escribe /soltar seguido del código de la conversación, por ejemplo /soltar a1b2c3.");
const USE_REPLY: Usage = Usage(
    "Escribe /responder, el código de la conversación y tu mensaje, por ejemplo /responder a1b2c3 Hola, ya te atiendo.",
);
const USE_APPROVE: Usage =
    Usage("Escribe /aprobar seguido del número de pedido, por ejemplo /aprobar 12.");
const USE_REJECT: Usage = Usage(
    "Escribe /rechazar, el número de pedido y el motivo, por ejemplo /rechazar 12 el monto no coincide.",
);

const USE_FOLLOW: Usage = Usage(
    "Escribe el paso y el número de pedido, por ejemplo /encamino 12 (o /preparando 12, /listo 12, /entregado 12).",
);
const USE_CANCEL: Usage = Usage(
    "Escribe /cancelar, el número de pedido y el motivo, por ejemplo /cancelar 12 se nos acabó el producto.",
);

/// Reads a command; any other text gets the help.
pub fn parse(text: &str) -> Result<Command, Usage> {
    let text = text.trim();
    let (head, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    // In groups Telegram appends the bot's name: `/tomar@TiendaBot`.
    let name = head.split('@').next().unwrap_or(head).to_lowercase();
    let rest = rest.trim();
    let (first, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let tail = tail.trim();
    match name.as_str() {
        "/tomar" => reference(first).map(Command::TakeOver).ok_or(USE_TAKE),
        "/soltar" => reference(first).map(Command::Release).ok_or(USE_RELEASE),
        "/responder" => match (reference(first), tail) {
            (Some(r), text) if !text.is_empty() => Ok(Command::Reply(r, text.to_owned())),
            _ => Err(USE_REPLY),
        },
        "/aprobar" => order_number(first).map(Command::Approve).ok_or(USE_APPROVE),
        "/rechazar" => match (order_number(first), tail) {
            (Some(n), reason) if !reason.is_empty() => Ok(Command::Reject(n, reason.to_owned())),
            _ => Err(USE_REJECT),
        },
        "/preparando" | "/listo" | "/encamino" | "/en_camino" | "/entregado" => {
            let status = match name.as_str() {
                "/preparando" => OrderStatus::Preparing,
                "/listo" => OrderStatus::Ready,
                "/entregado" => OrderStatus::Delivered,
                _ => OrderStatus::OnTheWay,
            };
            order_number(first)
                .map(|n| Command::Follow(n, status))
                .ok_or(USE_FOLLOW)
        }
        "/cancelar" => match (order_number(first), tail) {
            (Some(n), reason) if !reason.is_empty() => Ok(Command::Cancel(n, reason.to_owned())),
            _ => Err(USE_CANCEL),
        },
        _ => Ok(Command::Help),
    }
}

/// A conversation code as written: six hex digits, with or without a `#`.
fn reference(word: &str) -> Option<String> {
    let word = word.trim_start_matches('#').to_ascii_lowercase();
    (word.len() == REF_LEN && word.bytes().all(|b| b.is_ascii_hexdigit())).then_some(word)
}

fn order_number(word: &str) -> Option<i64> {
    word.trim_start_matches('#')
        .parse()
        .ok()
        .filter(|n: &i64| *n > 0)
}

/// The `/start <code>` a merchant sends to link this chat.
pub fn link_code(text: &str) -> Option<&str> {
    let rest = text.trim().strip_prefix("/start")?;
    let code = rest.trim();
    (code.len() == LINK_CODE_LEN && code.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(code)
}

pub const LINKED: &str = "¡Listo! Este chat recibirá los avisos de la tienda: clientes que piden una persona y comprobantes de pago. Escribe /ayuda para ver los comandos.";

pub fn no_conversation(reference: &str) -> String {
    format!("No encontré la conversación {reference} en esta tienda.")
}

pub fn ambiguous(reference: &str) -> String {
    format!("El código {reference} corresponde a varias conversaciones; ábrela desde el panel.")
}

pub fn no_order(number: i64) -> String {
    format!("No encontré el pedido #{number} en esta tienda.")
}

pub fn taken(reference: &str) -> String {
    format!(
        "Atiendes tú la conversación {reference}; el bot no le responderá. Escribe /responder {reference} tu mensaje, y /soltar {reference} al terminar."
    )
}

pub fn released(reference: &str, state: &str) -> String {
    format!(
        "El bot vuelve a atender la conversación {reference} ({}).",
        state.to_lowercase()
    )
}

pub fn replied(reference: &str) -> String {
    format!(
        "Mensaje enviado a la conversación {reference}. El bot no le responderá hasta que escribas /soltar {reference}."
    )
}

pub fn approved(number: i64) -> String {
    format!("Pago del pedido #{number} aprobado; ya le avisamos al cliente.")
}

pub fn rejected(number: i64) -> String {
    format!("Comprobante del pedido #{number} rechazado; le pedimos uno nuevo al cliente.")
}

pub fn followed(number: i64, status: OrderStatus, customer_told: bool) -> String {
    let mut text = format!(
        "Pedido #{number}: {}.",
        crate::labels::order_status(status).to_lowercase()
    );
    text.push_str(if customer_told {
        " Ya le avisamos al cliente."
    } else {
        " No pudimos avisarle: en WhatsApp pasaron más de 24 horas desde su último mensaje y el bot no tiene una plantilla aprobada."
    });
    text
}

/// The action could not be done as asked (the order is not waiting for payment,
/// the conversation is not taken over…); `why` is the server's reason.
pub fn refused(why: &str) -> String {
    format!("No se pudo: {why}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_as_written_on_a_phone() {
        assert_eq!(
            parse("/tomar a1B2c3"),
            Ok(Command::TakeOver("a1b2c3".into()))
        );
        assert_eq!(
            parse("/tomar@TiendaBot #a1b2c3"),
            Ok(Command::TakeOver("a1b2c3".into()))
        );
        assert_eq!(
            parse(" /soltar  a1b2c3 "),
            Ok(Command::Release("a1b2c3".into()))
        );
        assert_eq!(parse("/aprobar 12"), Ok(Command::Approve(12)));
        assert_eq!(parse("/aprobar #12"), Ok(Command::Approve(12)));
        assert_eq!(
            parse("/rechazar 12 el monto no coincide"),
            Ok(Command::Reject(12, "el monto no coincide".into()))
        );
        assert_eq!(
            parse("/responder a1b2c3 Hola, ya voy"),
            Ok(Command::Reply("a1b2c3".into(), "Hola, ya voy".into()))
        );
        assert_eq!(
            parse("/encamino #12"),
            Ok(Command::Follow(12, OrderStatus::OnTheWay))
        );
        assert_eq!(
            parse("/listo 3"),
            Ok(Command::Follow(3, OrderStatus::Ready))
        );
        assert_eq!(
            parse("/cancelar 12 no tenemos delivery hoy"),
            Ok(Command::Cancel(12, "no tenemos delivery hoy".into()))
        );
        assert_eq!(parse("/cancelar 12"), Err(USE_CANCEL));
        assert_eq!(parse("/entregado"), Err(USE_FOLLOW));
        assert_eq!(parse("hola"), Ok(Command::Help));
        assert_eq!(parse("/ayuda"), Ok(Command::Help));
    }

    #[test]
    fn mistyped_commands_say_how_to_write_them() {
        assert_eq!(parse("/tomar"), Err(USE_TAKE));
        assert_eq!(parse("/tomar xyz"), Err(USE_TAKE));
        assert_eq!(parse("/aprobar doce"), Err(USE_APPROVE));
        assert_eq!(parse("/aprobar -3"), Err(USE_APPROVE));
        assert_eq!(parse("/rechazar 12"), Err(USE_REJECT));
        assert_eq!(parse("/responder a1b2c3"), Err(USE_REPLY));
    }

    #[test]
    fn only_a_well_formed_code_links() {
        assert_eq!(link_code("/start ABCD2345"), Some("ABCD2345"));
        assert_eq!(link_code("/start"), None);
        assert_eq!(link_code("/start ref-from-an-ad"), None);
        assert_eq!(link_code("hola"), None);
    }
}
