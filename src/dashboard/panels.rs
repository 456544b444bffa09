//! The parts of a conversation page that change while the merchant looks at it:
//! its state with the take-over and hand-back buttons, and the order (with the
//! proof to approve) and cart. Each is also served alone, so the page refreshes
//! them in place when the live feed says the conversation changed.

use axum::extract::{Path, State};
use maud::{Markup, html};
use uuid::Uuid;

use super::layout::csrf_field;
use super::session::Session;
use super::{Console, Page, PageError};
use crate::conversations::Conversation;
use crate::labels;
use crate::merchant::conversations::{self, CartView, OrderView};
use crate::shop::orders::OrderStatus;
use crate::text::money;

/// The state, who has the conversation, and the buttons that change it.
pub fn status(conversation: &Conversation, csrf: &str) -> Markup {
    let id = conversation.id;
    let action = |what: &str| format!("/dashboard/conversations/{id}/{what}");
    html! {
    p {
        "Estado: " strong { (labels::state(conversation.fsm_state)) }
        @if conversation.human_override { " " span.badge.info { "La atiendes tú: el bot no responde" } }
    }
    div.row {
        @if conversation.human_override {
            form method="post" action=(action("soltar")) {
                (csrf_field(csrf))
                button type="submit" { "Devolver al bot" }
            }
            form method="post" action=(action("soltar-inicio")) {
                (csrf_field(csrf))
                button.secondary type="submit" { "Devolver al bot desde el inicio" }
            }
        } @else {
            form method="post" action=(action("tomar")) {
                (csrf_field(csrf))
                button type="submit" { "Tomar la conversación" }
            }
        }
    }
    }
}

/// The latest order (items, proofs, approve and reject) and the open cart.
pub fn order_and_cart(cart: &CartView, order: Option<&OrderView>, csrf: &str) -> Markup {
    html! {
    @if let Some(OrderView { order, items, proofs }) = order {
        section.card aria-labelledby="order" {
            h2 id="order" { "Pedido #" (order.number) }
            p { (labels::order_status(order.status)) " · Total " strong { (money(order.total_minor, &order.currency)) } }
            ul {
                @for item in items {
                    li { (item.quantity) " × " (item.name) " — " (money(item.line_total_minor, &order.currency)) }
                }
            }
            @for proof in proofs {
                figure {
                    @if proof.media.is_some() {
                        img.proof src=(format!("/dashboard/media/{}", proof.id)) alt=(format!("Comprobante de pago del pedido #{}", order.number));
                    }
                    @if !proof.text.is_empty() { figcaption { "El cliente escribió: «" (proof.text) "»" } }
                }
            }
            @if order.status == OrderStatus::ProofReceived {
                div.row {
                    form method="post" action=(format!("/dashboard/orders/{}/aprobar", order.id)) {
                        (csrf_field(csrf))
                        button type="submit" { "Aprobar el pago" }
                    }
                }
                form.row method="post" action=(format!("/dashboard/orders/{}/rechazar", order.id)) {
                    (csrf_field(csrf))
                    div {
                        label for="reason" { "Motivo del rechazo" }
                        input id="reason" name="reason" required maxlength="300" placeholder="No se lee el monto";
                    }
                    button.danger type="submit" { "Rechazar" }
                }
            }
            @if order.status == OrderStatus::AwaitingPayment {
                details {
                    summary { "Ya me pagó (sin comprobante)" }
                    form.row method="post" action=(format!("/dashboard/orders/{}/aprobar", order.id)) {
                        (csrf_field(csrf))
                        div {
                            label for="paid-note" { "Cómo te pagó" }
                            input id="paid-note" name="note" required maxlength="300" placeholder="Efectivo al entregar";
                        }
                        button type="submit" { "Marcar como pagado" }
                    }
                }
            }
            @let next = next_steps(order.status);
            @if !next.is_empty() {
                div.row {
                    @for (step, label) in next {
                        form method="post" action=(format!("/dashboard/orders/{}/{}", order.id, step)) {
                            (csrf_field(csrf))
                            button type="submit" { (label) }
                        }
                    }
                }
            }
            @if order.status.is_live() {
                details {
                    summary { "Cancelar el pedido" }
                    form.row method="post" action=(format!("/dashboard/orders/{}/cancelar", order.id)) {
                        (csrf_field(csrf))
                        div {
                            label for="cancel-reason" { "Motivo (lo lee el cliente)" }
                            input id="cancel-reason" name="reason" required maxlength="300" placeholder="Se nos acabó el producto";
                        }
                        button.danger type="submit" { "Cancelar el pedido" }
                    }
                }
            }
        }
    }
    @if !cart.cart.lines.is_empty() {
        section.card aria-labelledby="cart" {
            h2 id="cart" { "Carrito" }
            ul {
                @for line in &cart.cart.lines {
                    li { (line.quantity) " × " (line.name) " — " (money(line.line_total_minor, &cart.currency)) }
                }
            }
            p { "Total " strong { (money(cart.cart.total_minor, &cart.currency)) } }
        }
    }
    }
}

/// The steps a paid order can take next, as (path word, button).
fn next_steps(status: OrderStatus) -> Vec<(&'static str, &'static str)> {
    [
        (OrderStatus::Preparing, "preparando", "En preparación"),
        (OrderStatus::Ready, "listo", "Listo para recoger"),
        (OrderStatus::OnTheWay, "en-camino", "En camino"),
        (OrderStatus::Delivered, "entregado", "Entregado"),
    ]
    .into_iter()
    .filter(|(to, ..)| status.can_follow_with(*to))
    .map(|(_, step, label)| (step, label))
    .collect()
}

fn parse(id: &str) -> Result<Uuid, PageError> {
    id.parse().map_err(|_| PageError::NotFound)
}

/// `GET /dashboard/conversations/{id}/estado`.
pub async fn status_fragment(
    session: Session,
    State(console): State<Console>,
    Path(id): Path<String>,
) -> Result<Page, PageError> {
    let id = parse(&id)?;
    let conversation: Conversation =
        conversations::state(&console.office.pool, session.merchant_id, id).await?;
    Ok(Page(status(&conversation, session.csrf.as_str())))
}

/// `GET /dashboard/conversations/{id}/pedido`.
pub async fn order_fragment(
    session: Session,
    State(console): State<Console>,
    Path(id): Path<String>,
) -> Result<Page, PageError> {
    let id = parse(&id)?;
    let (_, cart, order) =
        conversations::order_and_cart(&console.office.pool, session.merchant_id, id).await?;
    Ok(Page(order_and_cart(
        &cart,
        order.as_ref(),
        session.csrf.as_str(),
    )))
}
