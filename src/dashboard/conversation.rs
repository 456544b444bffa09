//! One conversation: transcript with delivery status, cart, order and proof of
//! payment, the audit timeline, and what the merchant can do: take over, hand
//! back, reply, approve or reject a payment. Actions call the merchant API's own
//! functions and come back here with what happened.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use maud::{Markup, html};
use serde::Deserialize;
use uuid::Uuid;

use super::layout::{csrf_field, flash, page};
use super::panels;
use super::session::{Session, same_origin};
use super::{Page, PageError, back, explain};
use crate::http::AppState;
use crate::http::{conversations as api, payments};
use crate::shop::orders;

#[derive(Debug, Default, Deserialize)]
pub struct Notice {
    #[serde(default)]
    aviso: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

fn author_label(author: &str) -> &'static str {
    match author {
        "customer" => "Cliente",
        "bot" => "Bot",
        "human" | "merchant" => "Tú",
        "system" => "Aviso",
        _ => "Otro",
    }
}

fn delivery_badge(status: Option<&str>) -> Markup {
    html! {
        @match status {
            Some("sent") => span.badge.ok { "Entregado" },
            Some("pending") | Some("sending") => span.badge.info { "Enviando" },
            Some("suppressed") => span.badge.info { "No enviado: lo atendías tú" },
            Some("failed") | Some("dead") => span.badge.bad { "No se entregó" },
            Some("discarded") => span.badge.info { "Descartado" },
            _ => "",
        }
    }
}

/// `GET /dashboard/conversations/{id}`.
pub async fn page_(
    session: Session,
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(notice): Query<Notice>,
) -> Result<Page, PageError> {
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    let pool = &state.pool;
    if !crate::conversations::owned_by(pool, id, session.merchant_id).await? {
        return Err(PageError::NotFound);
    }
    let conversation = crate::conversations::get(pool, id)
        .await?
        .ok_or(PageError::NotFound)?;
    let bot = crate::merchant::bot_by_id(pool, conversation.bot_id).await?;
    let contact = crate::contacts::by_id(pool, conversation.contact_id).await?;
    let transcript = crate::transcript::of_conversation(pool, id).await?;
    let csrf = session.csrf.as_str();
    let status = panels::status(&conversation, csrf);
    let order = panels::order_and_cart(pool, &conversation, &bot, csrf).await?;
    let mut audit = crate::audit::of_conversation(pool, id, 100).await?;
    audit.reverse();
    let name = contact
        .display_name
        .as_deref()
        .unwrap_or("Cliente sin nombre");
    let action = |what: &str| format!("/dashboard/conversations/{id}/{what}");
    let body = html! {
        p { a href="/dashboard" { "← Bandeja" } }
        h1 { (name) }
        p.muted { (bot.slug) " · " (contact.channel) " · " (contact.external_id) }
        (flash(notice.aviso.as_deref(), notice.error.as_deref()))
        p id="news" hidden { "Hay novedades: " a href=(format!("/dashboard/conversations/{id}")) { "actualizar" } }
        section.card aria-labelledby="now" {
            h2 id="now" { "Ahora" }
            div data-live data-conversation=(id) data-fragment=(action("estado")) {
                (status)
            }
            form method="post" action=(action("responder")) {
                (csrf_field(csrf))
                label for="text" { "Responder al cliente" }
                textarea id="text" name="text" required maxlength="4000" {}
                p.muted { "Al responder, tomas la conversación: el bot deja de contestar." }
                button type="submit" { "Enviar" }
            }
        }
        div data-live data-conversation=(id) data-fragment=(action("pedido")) {
            (order)
        }
        section aria-labelledby="chat" {
            h2 id="chat" { "Conversación" }
            div.transcript data-live data-conversation=(id) data-fragment=(format!("/dashboard/conversations/{id}/mensajes")) aria-live="polite" {
                (transcript_lines(&transcript))
            }
        }
        section aria-labelledby="audit" {
            h2 id="audit" { "Historial de decisiones" }
            table {
                thead { tr { th scope="col" { "Hora" } th scope="col" { "Quién" } th scope="col" { "Qué" } th scope="col" { "Detalle" } } }
                tbody {
                    @for row in &audit {
                        tr {
                            td { (row.created_at.format("%d/%m %H:%M:%S")) }
                            td { (row.actor) }
                            td { (row.kind) @if let Some(action) = &row.action { " " code { (action) } } }
                            td {
                                @if let (Some(from), Some(to)) = (&row.from_state, &row.to_state) { (from) " → " (to) " " }
                                @if let Some(reason) = &row.reason { span.muted { (reason) } }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(Page(page(name, Some(csrf), body)))
}

fn transcript_lines(transcript: &[crate::transcript::TranscriptLine]) -> Markup {
    html! {
        @for line in transcript {
            div class={ "msg " (if line.direction == "in" { "in" } else { "out" }) } {
                span.muted { (author_label(&line.author)) " · " (line.created_at.format("%d/%m %H:%M")) " " }
                (delivery_badge(line.delivery.as_deref()))
                div { (line.text) }
                @if let Some(error) = &line.delivery_error {
                    @if matches!(line.delivery.as_deref(), Some("failed") | Some("dead")) { div.muted { (error) } }
                }
            }
        }
    }
}

/// `GET /dashboard/conversations/{id}/mensajes`: the transcript alone, for live
/// refreshes (the reply box is never touched).
pub async fn transcript(
    session: Session,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Page, PageError> {
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    if !crate::conversations::owned_by(&state.pool, id, session.merchant_id).await? {
        return Err(PageError::NotFound);
    }
    let lines = crate::transcript::of_conversation(&state.pool, id).await?;
    Ok(Page(transcript_lines(&lines)))
}

#[derive(Debug, Deserialize)]
pub struct ActionForm {
    csrf: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

fn checked(session: &Session, headers: &HeaderMap, form: &ActionForm) -> Result<(), PageError> {
    if same_origin(headers) && session.csrf_ok(&form.csrf) {
        Ok(())
    } else {
        Err(PageError::Forbidden)
    }
}

/// `POST /dashboard/conversations/{id}/{tomar|soltar|soltar-inicio|responder}`.
pub async fn act(
    session: Session,
    State(state): State<AppState>,
    Path((id, action)): Path<(String, String)>,
    headers: HeaderMap,
    Form(form): Form<ActionForm>,
) -> Result<Response, PageError> {
    checked(&session, &headers, &form)?;
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    let pool = &state.pool;
    let merchant = session.merchant_id;
    let outcome = match action.as_str() {
        "tomar" => api::take_over(pool, merchant, id)
            .await
            .map(|_| "Tomaste la conversación: el bot ya no responde."),
        "soltar" => api::hand_back(pool, merchant, id, false)
            .await
            .map(|_| "El bot vuelve a atender esta conversación."),
        "soltar-inicio" => api::hand_back(pool, merchant, id, true)
            .await
            .map(|_| "El bot vuelve a atender, desde el inicio."),
        "responder" => {
            api::send_reply(pool, merchant, id, form.text.as_deref().unwrap_or(""), None)
                .await
                .map(|_| "Mensaje enviado.")
        }
        _ => return Err(PageError::NotFound),
    };
    if let Err(crate::http::error::ApiError::NotFound(_)) = &outcome {
        return Err(PageError::NotFound);
    }
    let to = format!("/dashboard/conversations/{id}");
    Ok(back(&to, outcome.map_err(|e| explain(&e))))
}

/// `POST /dashboard/orders/{id}/{aprobar|rechazar}`.
pub async fn decide(
    session: Session,
    State(state): State<AppState>,
    Path((id, decision)): Path<(String, String)>,
    headers: HeaderMap,
    Form(form): Form<ActionForm>,
) -> Result<Response, PageError> {
    checked(&session, &headers, &form)?;
    let id: Uuid = id.parse().map_err(|_| PageError::NotFound)?;
    let pool = &state.pool;
    let order = orders::by_id(pool, id).await?.ok_or(PageError::NotFound)?;
    let outcome = match decision.as_str() {
        "aprobar" => payments::approve(pool, session.merchant_id, id)
            .await
            .map(|_| "Pago aprobado: le avisamos al cliente."),
        "rechazar" => payments::reject(
            pool,
            session.merchant_id,
            id,
            form.reason.as_deref().unwrap_or(""),
        )
        .await
        .map(|_| "Pago rechazado: le pedimos otro comprobante al cliente."),
        _ => return Err(PageError::NotFound),
    };
    if let Err(crate::http::error::ApiError::NotFound(_)) = &outcome {
        return Err(PageError::NotFound);
    }
    let to = format!("/dashboard/conversations/{}", order.conversation_id);
    Ok(back(&to, outcome.map_err(|e| explain(&e))))
}
