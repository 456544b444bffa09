//! One conversation: transcript with delivery status, cart, order and proof of
//! payment, the audit timeline, and what the merchant can do: take over, hand
//! back, reply, approve or reject a payment. Reads and actions go through the
//! merchant actions and come back here with what happened.

use axum::extract::{Path, Query, State};
use axum::response::Response;
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

use super::layout::{csrf_field, flash, page};
use super::panels;
use super::session::{CsrfForm, Session};
use super::{Console, Page, PageError, back, explain};
use crate::labels;
use crate::merchant::{conversations, orders, payments};
use crate::shop::orders::OrderStatus;
use crate::transcript::{Direction, TranscriptLine};

#[derive(Debug, Default, Deserialize)]
pub struct Notice {
    #[serde(flatten)]
    flash: super::layout::Flash,
}

/// `GET /dashboard/conversations/{id}`.
pub async fn page_(
    session: Session,
    State(console): State<Console>,
    Path(id): Path<String>,
    Query(notice): Query<Notice>,
) -> Result<Page, PageError> {
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    let detail = conversations::detail(&console.office.pool, session.merchant_id, id, 100).await?;
    conversations::mark_seen(&console.office.pool, session.merchant_id, id).await?;
    let notes =
        crate::merchant::notes::of_conversation(&console.office.pool, session.merchant_id, id)
            .await?;
    let canned =
        crate::merchant::notes::canned(&console.office.pool, session.merchant_id, &detail.bot.slug)
            .await?;
    let (conversation, bot, contact) = (&detail.conversation, &detail.bot, &detail.contact);
    let csrf = session.csrf.as_str();
    let status = panels::status(conversation, csrf);
    let order = panels::order_and_cart(&detail.cart, detail.order.as_ref(), csrf);
    let audit: Vec<&crate::audit::Row> = detail.audit.iter().collect();
    let transcript = &detail.transcript;
    let unnamed = format!(
        "Cliente de {}",
        labels::channel(contact.channel).to_lowercase()
    );
    let name = contact
        .display_name
        .as_deref()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or(&unnamed);
    let action = |what: &str| format!("/dashboard/conversations/{id}/{what}");
    let body = html! {
        p { a href="/dashboard" { "← Bandeja" } }
        h1 { (name) }
        p.muted { (bot.slug) " · " (labels::channel(contact.channel)) " · " (contact.external_id) }
        (flash(&notice.flash))
        p id="news" hidden { "Hay novedades: " a href=(format!("/dashboard/conversations/{id}")) { "actualizar" } }
        section.card aria-labelledby="now" {
            h2 id="now" { "Ahora" }
            div data-live data-conversation=(id) data-fragment=(action("estado")) {
                (status)
            }
        }
        div data-live data-conversation=(id) data-fragment=(action("pedido")) {
            (order)
        }
        @if !detail.past_orders.is_empty() {
            details.card {
                summary { "Pedidos anteriores de este cliente (" (detail.past_orders.len()) ")" }
                ul {
                    @for past in &detail.past_orders {
                        li {
                            "#" (past.number) " · " (past.created_at.format("%d/%m/%Y")) " · "
                            (crate::text::money(past.total_minor, &past.currency)) " · "
                            (labels::order_status(past.status))
                        }
                    }
                }
            }
        }
        section aria-labelledby="chat" {
            h2 id="chat" { "Conversación" }
            div.transcript data-live data-conversation=(id) data-fragment=(format!("/dashboard/conversations/{id}/mensajes")) aria-live="polite" {
                (transcript_lines(transcript))
            }
            form.reply method="post" action=(action("responder")) {
                (csrf_field(csrf))
                label for="text" { "Responder al cliente" }
                textarea id="text" name="text" required maxlength="4000" aria-describedby="canned-help" {}
                @if !canned.is_empty() {
                    p.muted id="canned-help" { "Respuestas rápidas: escribe «/» y el atajo, o tócala." }
                    div.row.canned {
                        @for reply in &canned {
                            button.secondary type="button" data-canned=(reply.text) data-shortcut=(reply.shortcut) { "/" (reply.shortcut) }
                        }
                    }
                }
                p.muted { "Al responder, tomas la conversación: el bot deja de contestar." }
                button type="submit" { "Enviar" }
            }
        }
        section.card aria-labelledby="notes" {
            h2 id="notes" { "Notas privadas" }
            p.muted { "Solo las ve tu equipo; el cliente nunca las recibe." }
            @for note in &notes {
                p.note { span.muted { (note.created_at.format("%d/%m %H:%M")) " · " } span.text { (note.text) } }
            }
            form method="post" action=(action("nota")) {
                (csrf_field(csrf))
                label for="note" { "Nueva nota" }
                textarea id="note" name="text" required maxlength="2000" {}
                button.secondary type="submit" { "Guardar nota" }
            }
        }
        section aria-labelledby="audit" {
            details {
                summary id="audit" { "Detalles: qué hizo el bot y por qué" }
                ol.history {
                    @for row in &audit {
                        @if let Some(line) = labels::history(row) {
                            li { span.muted { (row.created_at.format("%d/%m %H:%M")) " · " } (line) }
                        }
                    }
                }
            }
        }
    };
    Ok(Page(page(name, Some(csrf), body)))
}

fn transcript_lines(transcript: &[TranscriptLine]) -> Markup {
    html! {
        @for line in transcript {
            div class={ "msg " (if line.direction == Direction::In { "in" } else { "out" }) } {
                span.muted { (labels::speaker(line.author)) " · " (line.created_at.format("%d/%m %H:%M")) " " }
                @if let Some(status) = line.delivery {
                    @if let Some(delivery) = labels::delivery(status) {
                        span class={ "badge " (delivery_class(status)) } { (delivery) }
                    }
                }
                div.text { (line.text) }
                @if !line.choices.is_empty() {
                    div.row aria-label="Botones que vio el cliente" {
                        @for choice in line.choices.iter() { span.badge.info { (choice) } }
                    }
                }
                @if let Some(error) = &line.delivery_error {
                    @if line.delivery.is_some_and(|d| d.undelivered()) { div.muted { (error) } }
                }
            }
        }
    }
}

/// The badge's colour: good, bad or neutral news.
fn delivery_class(status: crate::outbox::Status) -> &'static str {
    use crate::outbox::Status;
    match status {
        Status::Sent => "ok",
        Status::Failed | Status::Dead => "bad",
        Status::Pending | Status::Sending | Status::Suppressed | Status::Discarded => "info",
    }
}

/// `GET /dashboard/conversations/{id}/mensajes`: the transcript alone, for live
/// refreshes (the reply box is never touched).
pub async fn transcript(
    session: Session,
    State(console): State<Console>,
    Path(id): Path<String>,
) -> Result<Page, PageError> {
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    let lines = conversations::transcript(&console.office.pool, session.merchant_id, id).await?;
    Ok(Page(transcript_lines(&lines)))
}

#[derive(Debug, Deserialize)]
pub struct ActionForm {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    /// How an order without a proof was paid.
    #[serde(default)]
    note: Option<String>,
}

/// `POST /dashboard/conversations/{id}/{tomar|soltar|soltar-inicio|responder}`.
pub async fn act(
    State(console): State<Console>,
    Path((id, action)): Path<(String, String)>,
    CsrfForm { session, form }: CsrfForm<ActionForm>,
) -> Result<Response, PageError> {
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    let pool = &console.office.pool;
    let merchant = session.merchant_id;
    let outcome = match action.as_str() {
        "tomar" => conversations::take_over(pool, merchant, id)
            .await
            .map(|_| "Tomaste la conversación: el bot ya no responde."),
        "soltar" => conversations::hand_back(pool, merchant, id, false)
            .await
            .map(|_| "El bot vuelve a atender esta conversación."),
        "soltar-inicio" => conversations::hand_back(pool, merchant, id, true)
            .await
            .map(|_| "El bot vuelve a atender, desde el inicio."),
        "responder" => {
            let text = form.text.as_deref().unwrap_or("");
            conversations::send_reply(pool, merchant, id, text, None)
                .await
                .map(|_| "Mensaje enviado.")
        }
        "nota" => {
            let text = form.text.as_deref().unwrap_or("");
            crate::merchant::notes::add(pool, merchant, id, text)
                .await
                .map(|_| "Nota guardada: solo la ve tu equipo.")
        }
        _ => return Err(PageError::NotFound),
    };
    let outcome = match outcome {
        Ok(done) => Ok(done),
        Err(err) => Err(explain(&err)?),
    };
    Ok(back(&format!("/dashboard/conversations/{id}"), outcome))
}

/// What the merchant reads after an order changed.
fn changed_notice(cancelled: bool, customer_told: bool) -> &'static str {
    match (cancelled, customer_told) {
        (true, true) => {
            "Pedido cancelado: le avisamos al cliente y las unidades vuelven a la venta."
        }
        (true, false) => {
            "Pedido cancelado; las unidades vuelven a la venta. No pudimos avisarle: en WhatsApp pasaron más de 24 horas desde su último mensaje y el bot no tiene plantilla aprobada."
        }
        (false, true) => "Pedido actualizado: le avisamos al cliente.",
        (false, false) => {
            "Pedido actualizado. No pudimos avisarle: en WhatsApp pasaron más de 24 horas desde su último mensaje y el bot no tiene plantilla aprobada."
        }
    }
}

/// `POST /dashboard/orders/{id}/{aprobar|rechazar|preparando|listo|en-camino|entregado|cancelar}`.
pub async fn decide(
    State(console): State<Console>,
    Path((id, decision)): Path<(String, String)>,
    CsrfForm { session, form }: CsrfForm<ActionForm>,
) -> Result<Response, PageError> {
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    let pool = &console.office.pool;
    let conversation = orders::conversation_of(pool, session.merchant_id, id).await?;
    let outcome = match decision.as_str() {
        "aprobar" => payments::approve(pool, session.merchant_id, id, form.note.as_deref())
            .await
            .map(|_| "Pago aprobado: le avisamos al cliente."),
        "rechazar" => {
            let reason = form.reason.as_deref().unwrap_or("");
            payments::reject(pool, session.merchant_id, id, reason)
                .await
                .map(|_| "Pago rechazado: le pedimos otro comprobante al cliente.")
        }
        "cancelar" => {
            let reason = form.reason.as_deref().unwrap_or("");
            orders::cancel(pool, session.merchant_id, id, reason)
                .await
                .map(|changed| changed_notice(true, changed.customer_told))
        }
        step => {
            let status = match step {
                "preparando" => OrderStatus::Preparing,
                "listo" => OrderStatus::Ready,
                "en-camino" => OrderStatus::OnTheWay,
                "entregado" => OrderStatus::Delivered,
                _ => return Err(PageError::NotFound),
            };
            orders::follow(pool, session.merchant_id, id, status)
                .await
                .map(|changed| changed_notice(false, changed.customer_told))
        }
    };
    let outcome = match outcome {
        Ok(done) => Ok(done),
        Err(err) => Err(explain(&err)?),
    };
    Ok(back(
        &format!("/dashboard/conversations/{conversation}"),
        outcome,
    ))
}
