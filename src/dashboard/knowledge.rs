//! The knowledge page: what a shop knows beyond its catalog (hours, delivery,
//! payments, allergens, returns), to add, edit and delete, and a question to try
//! as a customer would ask it, showing which entries answered it.

use axum::extract::{Path, Query, State};
use axum::response::Response;
use maud::{Markup, html};
use serde::Deserialize;

use super::layout::{csrf_field, flash, page};
use super::session::{CsrfForm, Session};
use super::{Console, Page, PageError, back, explain};
use crate::merchant::knowledge::{self, EntryPatch, NewEntry};
use crate::shop::knowledge::answer::{Answer, Source};

#[derive(Debug, Default, Deserialize)]
pub struct KnowledgeQuery {
    #[serde(default)]
    bot: Option<String>,
    /// A question to try.
    #[serde(default)]
    pregunta: Option<String>,
    #[serde(flatten)]
    flash: super::layout::Flash,
}

/// `GET /dashboard/conocimiento?bot=&pregunta=`.
pub async fn page_(
    session: Session,
    State(console): State<Console>,
    Query(query): Query<KnowledgeQuery>,
) -> Result<Page, PageError> {
    let banner = flash(&query.flash);
    knowledge_page(&console, &session, &query, banner, None).await
}

/// An entry form the server refused: the entry it edits (`None`: a new one)
/// and what was typed.
type Draft<'a> = (Option<i64>, &'a EntryForm);

/// The knowledge page; `draft` is shown again in its form with what to fix.
async fn knowledge_page(
    console: &Console,
    session: &Session,
    query: &KnowledgeQuery,
    banner: Markup,
    draft: Option<Draft<'_>>,
) -> Result<Page, PageError> {
    let typed = |id: Option<i64>| draft.filter(|(at, _)| *at == id).map(|(_, form)| form);
    let (bots, chosen) = super::catalog::shops(console, session, query.bot.as_deref()).await?;
    let csrf = session.csrf.as_str();
    let Some(bot) = chosen else {
        let body = html! { h1 { "Lo que sabe tu tienda" } p { "Todavía no tienes una tienda." } };
        return Ok(Page(page("Conocimiento", Some(csrf), body)));
    };
    let pool = &console.office.pool;
    let (_, entries) = knowledge::list(pool, session.merchant_id, &bot.slug).await?;
    let question = query
        .pregunta
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty());
    let tried = match question {
        Some(q) => Some(
            knowledge::try_question(pool, session.merchant_id, &bot.slug, q)
                .await
                .map_err(|err| explain(&err)),
        ),
        None => None,
    };
    let base = format!("/dashboard/conocimiento/{}", bot.slug);
    let body = html! {
        h1 { "Lo que sabe " (bot.name) }
        p.muted { "El bot responde con esto las preguntas que el catálogo no contesta: horarios, envíos, pagos, alérgenos, devoluciones. Cita la entrada que usó; si no está aquí, dice que no tiene el dato y ofrece una persona." }
        (banner)
        @if bots.len() > 1 {
            form.row method="get" action="/dashboard/conocimiento" {
                div {
                    label for="bot" { "Tienda" }
                    select id="bot" name="bot" {
                        @for b in &bots { option value=(b.slug) selected[b.slug == bot.slug] { (b.name) } }
                    }
                }
                button type="submit" { "Ver" }
            }
        }
        section.card aria-labelledby="try" {
            h2 id="try" { "Probar una pregunta" }
            form.row method="get" action="/dashboard/conocimiento" {
                input type="hidden" name="bot" value=(bot.slug);
                div {
                    label for="pregunta" { "Pregunta, como la escribiría un cliente" }
                    input id="pregunta" name="pregunta" maxlength="500" value=(question.unwrap_or_default()) placeholder="¿hacen envíos a Sopocachi?";
                }
                button type="submit" { "Probar" }
            }
            @if let Some(tried) = &tried {
                (tried_answer(tried))
            }
        }
        section.card aria-labelledby="new" {
            h2 id="new" { "Agregar una entrada" }
            form method="post" action=(format!("{base}/entradas")) {
                (csrf_field(csrf))
                label for="title" { "Título" }
                input id="title" name="title" required maxlength="200" placeholder="Envíos" value=(typed(None).map_or("", |f| f.title.as_str()));
                label for="body" { "Texto (puede ser Markdown)" }
                textarea id="body" name="body" required maxlength="20000" rows="5" placeholder="Hacemos envíos a Sopocachi por Bs 10…" { (typed(None).map_or("", |f| f.body.as_str())) }
                p { button type="submit" { "Agregar" } }
            }
        }
        section aria-labelledby="list" {
            h2 id="list" { "Entradas (" (entries.len()) ")" }
            @if entries.is_empty() {
                p.muted { "Aún no hay entradas: el bot dirá que no tiene el dato a cualquier pregunta fuera del catálogo." }
            }
            @for entry in &entries {
                div.card {
                    form method="post" action=(format!("{base}/entradas/{}", entry.id)) aria-label=(format!("Editar {}", entry.title)) {
                        (csrf_field(csrf))
                        label for=(format!("title-{}", entry.id)) { "Título" }
                        input id=(format!("title-{}", entry.id)) name="title" value=(typed(Some(entry.id)).map_or(entry.title.as_str(), |f| f.title.as_str())) required maxlength="200";
                        label for=(format!("body-{}", entry.id)) { "Texto" }
                        textarea id=(format!("body-{}", entry.id)) name="body" required maxlength="20000" rows="4" { (typed(Some(entry.id)).map_or(entry.body.as_str(), |f| f.body.as_str())) }
                        p { button type="submit" { "Guardar" } }
                    }
                    form method="post" action=(format!("{base}/entradas/{}/borrar", entry.id)) aria-label=(format!("Borrar {}", entry.title)) {
                        (csrf_field(csrf))
                        button.secondary type="submit" { "Borrar" }
                    }
                }
            }
        }
    };
    Ok(Page(page("Conocimiento", Some(csrf), body)))
}

/// A tried question's answer, where it came from, or why there is none.
fn tried_answer(tried: &Result<Answer, Result<String, PageError>>) -> Markup {
    match tried {
        Ok(answer) => html! {
            div role="status" {
                @if answer.gray {
                    p { span.badge.warn { "Sin dato" } " El bot respondería:" }
                } @else {
                    p { span.badge { "Respondida" } " El bot respondería:" }
                }
                blockquote { (answer.text) }
                @if !answer.sources.is_empty() {
                    p { "Fuentes: "
                        @for (k, source) in answer.sources.iter().enumerate() {
                            @if k > 0 { ", " }
                            (match source {
                                Source::Entry { title, .. } => format!("«{title}»"),
                                Source::Product { name, .. } => format!("el producto {name}"),
                            })
                        }
                    }
                }
            }
        },
        Err(Ok(why)) => html! { p.error role="alert" { (why) } },
        Err(Err(_)) => html! { p.error role="alert" { "No se pudo probar la pregunta." } },
    }
}

#[derive(Debug, Deserialize)]
pub struct EntryForm {
    title: String,
    body: String,
}

fn to(slug: &str) -> String {
    format!("/dashboard/conocimiento?bot={slug}")
}

/// `POST /dashboard/conocimiento/{slug}/entradas`.
pub async fn create(
    State(console): State<Console>,
    Path(slug): Path<String>,
    CsrfForm { session, form }: CsrfForm<EntryForm>,
) -> Result<Response, PageError> {
    let new = NewEntry {
        title: form.title.trim().to_owned(),
        body: form.body.trim().to_owned(),
    };
    match knowledge::create(&console.office.pool, session.merchant_id, &slug, &new).await {
        Ok(entry) => Ok(back(
            &to(&slug),
            Ok(&format!("Agregaste «{}».", entry.title)),
        )),
        Err(err) => refused(&console, &session, (&slug, None), &form, explain(&err)?).await,
    }
}

/// An entry the server refused: the page again, what was typed in its form.
async fn refused(
    console: &Console,
    session: &Session,
    (slug, id): (&str, Option<i64>),
    form: &EntryForm,
    why: String,
) -> Result<Response, PageError> {
    let query = KnowledgeQuery {
        bot: Some(slug.to_owned()),
        ..KnowledgeQuery::default()
    };
    let page = knowledge_page(
        console,
        session,
        &query,
        super::why_banner(&why),
        Some((id, form)),
    )
    .await?;
    Ok(super::unprocessable(page))
}

/// `POST /dashboard/conocimiento/{slug}/entradas/{id}`.
pub async fn update(
    State(console): State<Console>,
    Path((slug, id)): Path<(String, String)>,
    CsrfForm { session, form }: CsrfForm<EntryForm>,
) -> Result<Response, PageError> {
    let id: i64 = id.parse().map_err(|_| PageError::NotFound)?;
    let patch = EntryPatch {
        title: Some(form.title.trim().to_owned()),
        body: Some(form.body.trim().to_owned()),
    };
    let pool = &console.office.pool;
    match knowledge::update(pool, session.merchant_id, &slug, id, &patch).await {
        Ok(entry) => Ok(back(
            &to(&slug),
            Ok(&format!("Guardaste «{}».", entry.title)),
        )),
        Err(err) => refused(&console, &session, (&slug, Some(id)), &form, explain(&err)?).await,
    }
}

#[derive(Debug, Deserialize)]
pub struct Nothing {}

/// `POST /dashboard/conocimiento/{slug}/entradas/{id}/borrar`.
pub async fn delete(
    State(console): State<Console>,
    Path((slug, id)): Path<(String, String)>,
    CsrfForm { session, .. }: CsrfForm<Nothing>,
) -> Result<Response, PageError> {
    let id: i64 = id.parse().map_err(|_| PageError::NotFound)?;
    knowledge::delete(&console.office.pool, session.merchant_id, &slug, id).await?;
    Ok(back(&to(&slug), Ok("Borraste la entrada.")))
}
