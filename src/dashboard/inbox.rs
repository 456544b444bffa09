//! The inbox: the merchant's conversations, newest first, with what needs them
//! flagged, filtered by bot, state and "needs me", refreshed live.

use axum::extract::{Query, State};
use maud::{Markup, html};
use serde::Deserialize;

use super::layout::{self, page, state_label};
use super::session::Session;
use super::{Page, PageError};
use crate::conversation::StoredState;
use crate::conversations::{self, ListFilter, Listed};
use crate::http::AppState;

#[derive(Debug, Default, Deserialize)]
pub struct InboxQuery {
    #[serde(default)]
    bot: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    needs: Option<String>,
    #[serde(default)]
    aviso: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

impl InboxQuery {
    fn filter(&self) -> ListFilter<'_> {
        ListFilter {
            bot: self.bot.as_deref().filter(|b| !b.is_empty()),
            state: self
                .state
                .as_deref()
                .and_then(|s| s.parse::<StoredState>().ok()),
            needs_me: self.needs.as_deref() == Some("me"),
            text: None,
            limit: 100,
        }
    }
}

async fn listed(
    state: &AppState,
    session: &Session,
    query: &InboxQuery,
) -> Result<Vec<Listed>, PageError> {
    Ok(conversations::list_for_merchant(&state.pool, session.merchant_id, &query.filter()).await?)
}

fn list(items: &[Listed]) -> Markup {
    html! {
        @if items.is_empty() {
            p.muted { "No hay conversaciones con estos filtros." }
        }
        ul.list aria-label="Conversaciones" {
            @for c in items {
                li.card {
                    a href={ "/dashboard/conversations/" (c.id) } {
                        strong { (c.contact_name.as_deref().unwrap_or("Cliente sin nombre")) }
                        " "
                        span.muted { (c.bot) " · " (c.channel) " · " (state_label(&c.state)) }
                        br;
                        @if c.escalated { span.badge.bad { "Pidió una persona" } }
                        @if c.proof_waiting { span.badge.warn { "Comprobante por revisar" } }
                        @if c.undelivered { span.badge.bad { "Mensaje no entregado" } }
                        @if c.human_override && !c.escalated { span.badge.info { "Atendida por ti" } }
                        span.muted { "Actualizada " (c.updated_at.format("%d/%m %H:%M")) " UTC" }
                    }
                }
            }
        }
    }
}

/// `GET /dashboard`.
pub async fn page_(
    session: Session,
    State(state): State<AppState>,
    Query(query): Query<InboxQuery>,
) -> Result<Page, PageError> {
    let items = listed(&state, &session, &query).await?;
    let bots = crate::merchant::bot_slugs(&state.pool, session.merchant_id).await?;
    let states = [
        "IDLE",
        "BROWSING",
        "CART_OPEN",
        "CHECKOUT",
        "AWAITING_PAYMENT",
        "COMPLETED",
        "HUMAN_TAKEOVER",
        "CLARIFYING",
        "AWAITING_CONFIRMATION",
    ];
    let body = html! {
        h1 { "Bandeja" }
        (layout::flash(query.aviso.as_deref(), query.error.as_deref()))
        form.row method="get" action="/dashboard" aria-label="Filtros" {
            div {
                label for="bot" { "Bot" }
                select id="bot" name="bot" {
                    option value="" { "Todos" }
                    @for slug in &bots {
                        option value=(slug) selected[query.bot.as_deref() == Some(slug.as_str())] { (slug) }
                    }
                }
            }
            div {
                label for="state" { "Estado" }
                select id="state" name="state" {
                    option value="" { "Todos" }
                    @for s in states {
                        option value=(s) selected[query.state.as_deref() == Some(s)] { (state_label(s)) }
                    }
                }
            }
            label.inline for="needs" {
                input id="needs" type="checkbox" name="needs" value="me" checked[query.needs.as_deref() == Some("me")];
                "Solo lo que me necesita"
            }
            button type="submit" { "Filtrar" }
        }
        div id="inbox" data-live data-fragment="/dashboard/inbox" aria-live="polite" {
            (list(&items))
        }
    };
    Ok(Page(page("Bandeja", Some(&session.csrf), body)))
}

/// `GET /dashboard/inbox`: the list alone, for live refreshes.
pub async fn fragment(
    session: Session,
    State(state): State<AppState>,
    Query(query): Query<InboxQuery>,
) -> Result<Page, PageError> {
    let items = listed(&state, &session, &query).await?;
    Ok(Page(list(&items)))
}
