//! The inbox: the merchant's conversations, newest first, with what needs them
//! flagged, filtered by bot, state and "needs me", refreshed live.

use axum::extract::{Query, State};
use maud::{Markup, html};
use serde::Deserialize;

use super::layout::{self, page};
use super::session::Session;
use super::{Console, Page, PageError};
use crate::conversations::{Listed, StoredState};
use crate::labels;
use crate::merchant::conversations::{self, Search};

#[derive(Debug, Default, Deserialize)]
pub struct InboxQuery {
    #[serde(default)]
    bot: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    needs: Option<String>,
    #[serde(flatten)]
    flash: super::layout::Flash,
}

impl InboxQuery {
    fn search(&self) -> Search {
        Search {
            bot: self.bot.clone().filter(|b| !b.is_empty()),
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
    console: &Console,
    session: &Session,
    query: &InboxQuery,
) -> Result<Vec<Listed>, PageError> {
    let pool = &console.office.pool;
    Ok(conversations::list(pool, session.merchant_id, &query.search()).await?)
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
                        span.muted { (c.bot) " · " (labels::channel(c.channel)) " · " (labels::state(c.state)) }
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
    State(console): State<Console>,
    Query(query): Query<InboxQuery>,
) -> Result<Page, PageError> {
    let items = listed(&console, &session, &query).await?;
    let bots: Vec<String> = crate::merchant::bots::list(&console.office.pool, session.merchant_id)
        .await?
        .into_iter()
        .map(|summary| summary.slug)
        .collect();
    let body = html! {
        h1 { "Bandeja" }
        (layout::flash(&query.flash))
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
                    @for s in StoredState::ALL {
                        option value=(s.as_str()) selected[query.state.as_deref() == Some(s.as_str())] { (labels::state(s)) }
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
    State(console): State<Console>,
    Query(query): Query<InboxQuery>,
) -> Result<Page, PageError> {
    let items = listed(&console, &session, &query).await?;
    Ok(Page(list(&items)))
}
