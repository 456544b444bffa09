//! The parts of a conversation page that change while the merchant looks at it:
//! its state with the take-over and hand-back buttons, and the order (with the
//! proof to approve) and cart. Each is also served alone, so the page refreshes
//! them in place when the live feed says the conversation changed.

use axum::extract::{Path, State};
use maud::{Markup, html};
use sqlx::PgPool;
use uuid::Uuid;

use super::layout::{csrf_field, state_label};
use super::session::Session;
use super::{Page, PageError};
use crate::conversations::Conversation;
use crate::http::AppState;
use crate::merchant::Bot;
use crate::shop::orders::OrderStatus;
use crate::shop::{cart, catalog, orders, payments as proofs};
use crate::text::money;

fn order_status(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::AwaitingPayment => "Esperando el pago",
        OrderStatus::ProofReceived => "Comprobante por revisar",
        OrderStatus::Paid => "Pagado",
        OrderStatus::Cancelled => "Cancelado",
        OrderStatus::Expired => "Vencido",
    }
}

/// The state, who has the conversation, and the buttons that change it.
pub fn status(conversation: &Conversation, csrf: &str) -> Markup {
    let id = conversation.id;
    let action = |what: &str| format!("/dashboard/conversations/{id}/{what}");
    html! {
    p {
        "Estado: " strong { (state_label(conversation.fsm_state.as_str())) }
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
pub async fn order_and_cart(
    pool: &PgPool,
    conversation: &Conversation,
    bot: &Bot,
    csrf: &str,
) -> Result<Markup, PageError> {
    let id = conversation.id;
    let catalog = catalog::load(pool, bot.id).await?;
    let cart = cart::load(pool, id).await?;
    let order = orders::latest_for(pool, id).await?;
    let (items, proofs) = match &order {
        Some(order) => (
            orders::items(pool, order.id).await?,
            proofs::proofs_of(pool, order.id).await?,
        ),
        None => (Vec::new(), Vec::new()),
    };
    Ok(html! {
    @if let Some(order) = &order {
        section.card aria-labelledby="order" {
            h2 id="order" { "Pedido #" (order.number) }
            p { (order_status(order.status)) " · Total " strong { (money(order.total_minor, &order.currency)) } }
            ul {
                @for item in &items {
                    li { (item.quantity) " × " (item.name) " — " (money(item.line_total_minor, &order.currency)) }
                }
            }
            @for proof in &proofs {
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
        }
    }
    @if !cart.lines().is_empty() {
        section.card aria-labelledby="cart" {
            h2 id="cart" { "Carrito" }
            ul {
                @for line in cart.lines() {
                    li { (line.quantity) " × " (catalog.name(line.product_id)) " — " (money(line.line_total_minor(), &bot.currency)) }
                }
            }
            p { "Total " strong { (money(cart.total_minor(), &bot.currency)) } }
        }
    }
    })
}

/// The merchant's conversation, or 404.
async fn owned(state: &AppState, session: &Session, id: &str) -> Result<Conversation, PageError> {
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    if !crate::conversations::owned_by(&state.pool, id, session.merchant_id).await? {
        return Err(PageError::NotFound);
    }
    crate::conversations::get(&state.pool, id)
        .await?
        .ok_or(PageError::NotFound)
}

/// `GET /dashboard/conversations/{id}/estado`.
pub async fn status_fragment(
    session: Session,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Page, PageError> {
    let conversation = owned(&state, &session, &id).await?;
    Ok(Page(status(&conversation, session.csrf.as_str())))
}

/// `GET /dashboard/conversations/{id}/pedido`.
pub async fn order_fragment(
    session: Session,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Page, PageError> {
    let conversation = owned(&state, &session, &id).await?;
    let bot = crate::merchant::bot_by_id(&state.pool, conversation.bot_id).await?;
    let markup = order_and_cart(&state.pool, &conversation, &bot, session.csrf.as_str()).await?;
    Ok(Page(markup))
}
