//! What a shop customer reads that is not composed from a proposal: fixed notices
//! of the engine and the merchant's actions. One home, so the wording stays
//! consistent and a translator finds it all here.

use super::orders::OrderStatus;
use crate::text::money;

/// Told to the customer when a person takes over at their request.
pub const ESCALATED: &str =
    "Te comunico con una persona del equipo; te responderá por aquí en breve.";

/// The gray zone about one product: what the shop says of it, and a person.
pub fn gray_about(name: &str, description: &str) -> String {
    format!(
        "No tengo ese dato sobre {name}. Lo que dice la tienda: «{}». Si quieres, te comunico con una persona del equipo: escribe «quiero hablar con una persona».",
        description.trim().trim_end_matches('.')
    )
}

/// A question the shop's knowledge does not answer: said plainly, with a person
/// offered, never a guess.
pub const GRAY_ZONE: &str = "No tengo ese dato. Si quieres, te comunico con una persona del equipo: escribe «quiero hablar con una persona».";

/// The proposer could not read the message.
pub const CLARIFY_DEFAULT: &str = "No estoy seguro de haber entendido. Puedo mostrarte el catálogo, agregar productos a tu carrito o revisar tu pedido.";

/// Several products fit the words: the candidates follow as choices.
/// The same, beside what was added from the rest of the list (the choices
/// come after the cart).
pub const WHICH_ONE_BESIDE: &str =
    "Agregué lo demás; solo dime cuál de las opciones de abajo quieres (el número o el nombre).";
pub const WHICH_ONE: &str = "¿Cuál de estos quieres? Responde con el número o el nombre.";

/// After three clarifications that got nowhere.
pub const OFFER_PERSON: &str = "Parece que no te estoy entendiendo. ¿Quieres que te comunique con una persona del equipo? Responde «sí».";

/// An insult: a calm limit.
pub const ABUSE_LIMIT: &str = "Entiendo que algo te molestó. Estoy para ayudarte con tu pedido; si prefieres, escribe «quiero hablar con una persona».";

/// Insults again: a person takes it from here.
pub const ABUSE_HANDOFF: &str =
    "Voy a pasar esta conversación a una persona del equipo, que te responderá por aquí.";

/// Small talk.
pub fn social(bot: &str) -> String {
    format!("¡Muy bien, gracias por preguntar! Soy el asistente de {bot}. ¿Te muestro el catálogo?")
}

/// A question the shop has nothing to do with.
pub fn off_topic(bot: &str) -> String {
    format!(
        "Con eso no te puedo ayudar: solo atiendo pedidos de {bot}. Escribe «catálogo» para ver lo que tenemos."
    )
}

/// A number with no product.
/// Choices for a request by kind («algo frío»).
pub const THESE_FIT: &str = "Estas opciones te pueden gustar; responde con el número o el nombre.";
/// No product is marked with everything asked; these are not marked against it.
pub const NEARLY_FIT: &str = "Ningún producto está marcado con todo lo que pides; estos no están marcados en contra, revisa su descripción. Responde con el número o el nombre.";
/// «Quita uno» with several lines in the cart.
/// A line pointed at by what it is, when that fits none or several.
pub const WHICH_LINE: &str = "¿De cuál producto de tu carrito me hablas? Escríbeme su nombre.";
pub const WHICH_TO_TAKE_OUT: &str = "¿De cuál producto quito uno? Escríbeme su nombre.";
pub const WHICH_PRODUCT: &str = "¿De qué producto? Escríbeme la cantidad y el nombre del producto.";

/// "No" to an order summary.
/// «ya voy a cancelar» with an order placed: paying it, or calling it off?
pub const CANCEL_OR_PAY: &str = "¿Quieres anular tu pedido? Si es así, escribe «anular pedido». Si vas a pagarlo, cuando lo hagas envíanos el comprobante por aquí.";

pub const CONFIRM_OR_CANCEL: &str =
    "De acuerdo. Responde «sí» para confirmar tu pedido o «cancelar» para anularlo.";

/// A yes asked («¿así está bien?») or an «ok» after an answer, at the summary.
pub const CONFIRM_ASKED: &str = "Tu pedido queda como en el resumen. Responde «sí, confirmo» para confirmarlo o dime qué quieres cambiar.";

/// A call-off said with a doubt («no sé si cancelar», «¿cancelo?», «olvídalo»).
pub const CANCEL_ASKED: &str = "¿Quieres anular todo tu pedido? Escribe «cancelar pedido» para anularlo; si no, sigue como está.";

/// Thanks and goodbyes.
pub const YOU_ARE_WELCOME: &str = "¡Gracias a ti! Aquí estoy si necesitas algo más.";

/// Audio, stickers, locations and other kinds the bot cannot read.
pub const UNSUPPORTED_MEDIA: &str =
    "Por ahora solo puedo leer texto e imágenes. ¿Me lo escribes, por favor?";

/// An image with no order waiting for payment.
pub const IMAGE_WITHOUT_ORDER: &str = "Recibí tu imagen, pero no tienes un pedido pendiente de pago. Escribe «catálogo» para ver nuestros productos.";

/// Some of a product, without how many.
pub const HOW_MANY_PEOPLE: &str = "¿Para cuántas personas es? Así pongo uno para cada una.";
/// «lo mismo que mi hermana»: whose lines are whose is not kept.
pub const SAME_AS_WHOM: &str = "¿Qué le pongo? Escríbeme los productos con su cantidad.";
/// Pickup said after the order, in a shop that only has pickup.
pub const PICKUP_NOTED: &str =
    "Perfecto, te esperamos en la tienda. Cuando pagues, envíanos el comprobante por aquí.";
/// «lo de siempre»: earlier orders are not read here.
pub const USUAL_NOT_KEPT: &str = "No tengo a la mano tu pedido de siempre. ¿Me dices qué productos quieres y cuántos de cada uno?";
/// «un chocolate para ella y para mí lo de siempre»: the rest taken, the
/// usual asked.
pub const USUAL_BESIDE: &str = "Anoté lo demás. No tengo a la mano tu pedido de siempre: ¿me dices qué productos quieres y cuántos de cada uno?";
/// The listing's last line: a number picks from it.
pub const PICK_BY_NUMBER: &str =
    "Escribe, por ejemplo, «quiero 2» y el nombre del producto, o el número.";
/// A bare number after the listing, once something was ordered by name.
pub const NUMBER_OR_COUNT: &str = "¿Te refieres al número de la lista o a cuántas unidades quieres? Escríbeme la cantidad y el nombre del producto.";
pub const HOW_MANY: &str = "¿Cuántos quieres? Dímelo con un número y el nombre del producto.";

/// Payment words with no order waiting for payment.
pub const NO_PENDING_ORDER: &str = "No encontré un pedido pendiente de pago.";

pub fn proof_received(order_number: i64, total_minor: i64, currency: &str) -> String {
    format!(
        "¡Gracias! Recibimos tu comprobante del pedido #{order_number} por {}. El comercio lo revisará y te avisaremos por aquí.",
        money(total_minor, currency)
    )
}

pub fn order_expired(order_number: i64) -> String {
    format!(
        "Tu pedido #{order_number} se canceló porque no recibimos el pago a tiempo. Si aún lo quieres, puedes pedirlo de nuevo."
    )
}

pub fn payment_approved(order_number: i64, total_minor: i64, currency: &str) -> String {
    format!(
        "¡Pago confirmado! Tu pedido #{order_number} por {} está listo. ¡Gracias por tu compra!",
        money(total_minor, currency)
    )
}

pub fn payment_rejected(order_number: i64, reason: &str) -> String {
    format!(
        "No pudimos confirmar el pago de tu pedido #{order_number}: {reason}. Por favor, envíanos de nuevo el comprobante por aquí."
    )
}

/// A line that would hold more than the shop has left.
pub fn out_of_stock(name: &str, available: i64) -> String {
    if available <= 0 {
        format!("Se nos agotó {name} por ahora. Escribe «catálogo» para ver lo que sí tenemos.")
    } else {
        let left = if available == 1 { "queda" } else { "quedan" };
        format!("De {name} solo nos {left} {available}; ¿te pongo {available}?")
    }
}

/// A confirmation whose units ran out while the customer decided: the order was
/// not created and the cart is still there to change.
pub fn ran_short(name: &str, requested: i64, available: i64) -> String {
    let left = if available <= 0 {
        format!("se nos acaba de agotar {name}")
    } else {
        let left = if available == 1 { "queda" } else { "quedan" };
        format!("de {name} solo nos {left} {available} (pediste {requested})")
    };
    format!(
        "Lo siento, no pude registrar tu pedido: {left}. Tu carrito sigue como estaba; cámbialo y vuelve a escribir «cuánto es» para ver el resumen."
    )
}

/// A paid order's status in a few words, for the customer.
pub fn status_words(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::Preparing => "en preparación",
        OrderStatus::Ready => "listo para recoger",
        OrderStatus::OnTheWay => "en camino",
        OrderStatus::Delivered => "entregado",
        OrderStatus::Cancelled => "cancelado",
        OrderStatus::Paid => "pagado",
        OrderStatus::AwaitingPayment | OrderStatus::ProofReceived => "pendiente de pago",
        OrderStatus::Expired => "vencido",
    }
}

/// What the customer is told when the merchant moves their paid order on.
pub fn order_followed(order_number: i64, status: OrderStatus) -> String {
    match status {
        OrderStatus::Preparing => {
            format!("Estamos preparando tu pedido #{order_number}. Te avisamos cuando esté listo.")
        }
        OrderStatus::Ready => format!("¡Tu pedido #{order_number} está listo para recoger!"),
        OrderStatus::OnTheWay => format!("¡Tu pedido #{order_number} está en camino!"),
        OrderStatus::Delivered => {
            format!("Tu pedido #{order_number} fue entregado. ¡Gracias por tu compra!")
        }
        other => format!("Tu pedido #{order_number} está {}.", status_words(other)),
    }
}

/// What the customer is told when the merchant cancels their order.
pub fn order_cancelled_by_shop(order_number: i64, reason: &str, was_paid: bool) -> String {
    let mut text =
        format!("Lo sentimos: el comercio canceló tu pedido #{order_number}. Motivo: {reason}.");
    if was_paid {
        text.push_str(" Como ya pagaste, el comercio se pondrá en contacto contigo para devolverte el dinero.");
    }
    text
}

/// "¿Y mi pedido?": where the customer's latest order stands.
pub fn order_status_answer(
    order_number: i64,
    status: OrderStatus,
    total_minor: i64,
    currency: &str,
) -> String {
    let total = money(total_minor, currency);
    match status {
        OrderStatus::AwaitingPayment => format!(
            "Tu pedido #{order_number} por {total} está pendiente de pago. Envíanos por aquí la foto del comprobante."
        ),
        OrderStatus::ProofReceived => format!(
            "Recibimos el comprobante de tu pedido #{order_number} por {total}; el comercio lo está revisando y te avisaremos por aquí."
        ),
        OrderStatus::Paid => format!(
            "Tu pedido #{order_number} por {total} está pagado; el comercio te avisará por aquí cuando lo esté preparando."
        ),
        OrderStatus::Preparing => {
            format!("Tu pedido #{order_number} está en preparación. Te avisamos cuando esté listo.")
        }
        OrderStatus::Ready => format!("Tu pedido #{order_number} está listo para recoger."),
        OrderStatus::OnTheWay => format!("Tu pedido #{order_number} está en camino."),
        OrderStatus::Delivered => format!(
            "Tu pedido #{order_number} ya fue entregado. Si algo no está bien, escribe «hablar con una persona»."
        ),
        OrderStatus::Cancelled => format!(
            "Tu pedido #{order_number} fue cancelado. Si quieres, puedes hacer uno nuevo: escribe «catálogo»."
        ),
        OrderStatus::Expired => format!(
            "Tu pedido #{order_number} se canceló porque no recibimos el pago a tiempo. Si aún lo quieres, puedes pedirlo de nuevo."
        ),
    }
}

/// Items of a list the catalog does not have; the rest was added.
pub fn not_sold(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("«{i}»")).collect();
    format!(
        "No tenemos {} en el catálogo; anoté lo demás. ¿Quieres otro producto en su lugar? Escribe «catálogo» para verlos.",
        quoted.join(" ni ")
    )
}

/// «¿tienen salteñas?»: things asked for that the shop does not sell.
pub fn not_sold_asked(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("«{i}»")).collect();
    format!(
        "No vendemos {}, lo siento. Escribe «catálogo» para ver lo que sí tenemos.",
        quoted.join(" ni ")
    )
}

/// Foods asked for beside products the shop sells: those are taken.
pub fn not_sold_beside(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("«{i}»")).collect();
    format!(
        "No vendemos {}, lo siento; anoté lo demás.",
        quoted.join(" ni ")
    )
}

/// A change to a line named by a word several products share.
pub fn which_to_change(names: &[String]) -> String {
    let list = match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} o {last}", init.join(", ")),
    };
    format!("{WHICH_TO_CHANGE} {list}? Escríbeme el cambio otra vez con su nombre.")
}

/// «mejor maracuyá» with several lines it could replace: which one, or
/// «agrega …» to have it besides. (Answered with a line's name, the swap is
/// completed.)
pub fn instead_of_which(lines: &[String], new: &str) -> String {
    let shown: Vec<&str> = lines.iter().take(4).map(String::as_str).collect();
    let more = if lines.len() > 4 { ", …" } else { "" };
    format!(
        "{INSTEAD_OF} {new}: {}{more}? Escríbeme cuál, o «agrega {new}» si es aparte.",
        shown.join(", ")
    )
}

/// How [`instead_of_which`] begins.
pub const INSTEAD_OF: &str = "¿En lugar de cuál pongo";

/// How [`which_to_change`] begins, for reading the answer to it.
pub const WHICH_TO_CHANGE: &str = "¿Cuál de ellos:";

/// A message held more products than one turn acts on (five, or four beside the
/// summary): those went in, the rest is named so the customer sends it again.
pub fn more_than_five(left: &[String]) -> String {
    format!(
        "Anoto hasta cinco productos por mensaje, así que no alcancé a anotar: {}. ¿{} escribes en otro mensaje?",
        left.join(", "),
        if left.len() == 1 { "Me lo" } else { "Me los" }
    )
}

/// The count a list left unsaid for these products, asked.
/// How a question about the counts of several products opens.
pub const HOW_MANY_OF_THESE: &str = "¿Cuántas unidades quieres de ";

pub fn how_many_of(names: &[String]) -> String {
    match names {
        [one] => format!("¿Cuántas unidades de {one} quieres? Dímelo con un número."),
        _ => format!(
            "{HOW_MANY_OF_THESE}{}? Dímelo con un número y el nombre.",
            names.join(" y de ")
        ),
    }
}

/// How each unit of a line is made, said after it was added («dos sin azúcar y
/// dos normales»): nothing the cart holds, said so, with the way to a person.
pub fn kept_as_it_is(quantity: i64, name: &str) -> String {
    format!(
        "No cambié tu carrito: siguen {quantity} × {name}. Por este chat no puedo guardar cómo quieres cada unidad; si es importante, escribe «quiero hablar con una persona» y se lo pasamos al equipo."
    )
}

/// A discount asked for: prices are the shop's.
pub const NO_DISCOUNT: &str = "Los precios son los del catálogo y por este chat no puedo hacer descuentos. Si quieres consultarlo, te comunico con una persona del equipo: escribe «quiero hablar con una persona».";

/// Closes a quote of products asked about with their counts; a yes to it
/// orders them (the rules look for it in the bot's last message).
pub const QUOTE_OFFER: &str = "Si lo quieres, dime «agrégalo».";
