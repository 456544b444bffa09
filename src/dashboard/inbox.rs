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
    /// Words to look for in names and messages.
    #[serde(default)]
    q: Option<String>,
    /// Page number, from 1.
    #[serde(default)]
    pagina: Option<String>,
    #[serde(flatten)]
    flash: super::layout::Flash,
}

/// Conversations on one page of the inbox.
const PAGE: i64 = 50;

impl InboxQuery {
    fn search(&self) -> Search {
        Search {
            bot: self.bot.clone().filter(|b| !b.is_empty()),
            state: self
                .state
                .as_deref()
                .and_then(|s| s.parse::<StoredState>().ok()),
            needs_me: self.needs.as_deref() == Some("me"),
            text: self.q.clone().filter(|q| !q.trim().is_empty()),
            // One more than shown: whether there is a next page.
            limit: PAGE + 1,
            offset: (self.page() - 1) * PAGE,
            pinned: true,
        }
    }

    fn page(&self) -> i64 {
        self.pagina
            .as_deref()
            .and_then(|p| p.parse::<i64>().ok())
            .filter(|p| (1..=10_000).contains(p))
            .unwrap_or(1)
    }

    /// This query's address with another page.
    fn at_page(&self, page: i64) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (key, value) in [
            ("bot", &self.bot),
            ("state", &self.state),
            ("needs", &self.needs),
            ("q", &self.q),
        ] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                query.append_pair(key, value);
            }
        }
        query.append_pair("pagina", &page.to_string());
        format!("/dashboard?{}", query.finish())
    }
}

/// The customer as the inbox names them: their name, or the channel and the
/// end of their id («Chat web ·3f2a»).
fn customer(c: &Listed) -> String {
    match c.contact_name.as_deref() {
        Some(name) if !name.trim().is_empty() => name.to_owned(),
        _ => format!("Cliente de {}", labels::channel(c.channel).to_lowercase()),
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

fn list(items: &[Listed], query: &InboxQuery) -> Markup {
    let more = items.len() as i64 > PAGE;
    let shown = &items[..items.len().min(PAGE as usize)];
    let page = query.page();
    html! {
        @if shown.is_empty() {
            p.muted { "No hay conversaciones con estos filtros." }
        }
        ul.list aria-label="Conversaciones" data-waiting=(shown.iter().filter(|c| c.escalated || c.proof_waiting).count()) {
            @for c in shown {
                li.card {
                    a href={ "/dashboard/conversations/" (c.id) } {
                        strong { (customer(c)) }
                        @if c.unread > 0 {
                            " " span.badge.info { (if c.unread >= 100 { "99+".to_owned() } else { c.unread.to_string() }) " sin leer" }
                        }
                        " "
                        span.muted { (labels::state(c.state)) " · " (c.updated_local) }
                        @if let (Some(number), Some(total), Some(currency)) = (c.order_number, c.order_total_minor, c.order_currency.as_deref()) {
                            " " span.muted { "· Pedido #" (number) " · " (crate::text::money(total, currency)) }
                        }
                        @if let Some(last) = &c.last_message { br; span.last { (last) } }
                        br;
                        @if c.escalated { span.badge.bad { "Pidió una persona" } }
                        @if c.proof_waiting { span.badge.warn { "Comprobante por revisar" } }
                        @if c.undelivered { span.badge.bad { "Mensaje no entregado" } }
                        @if c.human_override && !c.escalated { span.badge.info { "Atendida por ti" } }
                    }
                }
            }
        }
        nav.row aria-label="Páginas" {
            @if page > 1 { a href=(query.at_page(page - 1)) { "← Más recientes" } }
            @if more { a href=(query.at_page(page + 1)) { "Más antiguas →" } }
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
            div {
                label for="q" { "Buscar" }
                input id="q" name="q" type="search" maxlength="200" placeholder="Nombre o palabras del chat" value=(query.q.clone().unwrap_or_default());
            }
            label.inline for="needs" {
                input id="needs" type="checkbox" name="needs" value="me" checked[query.needs.as_deref() == Some("me")];
                "Solo lo que me necesita"
            }
            button type="submit" { "Filtrar" }
        }
        p {
            button.secondary type="button" id="notify" hidden { "Avisarme en este navegador" }
        }
        div id="inbox" data-live data-fragment="/dashboard/inbox" aria-live="polite" {
            (list(&items, &query))
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
    Ok(Page(list(&items, &query)))
}
