//! The bots page: each bot's channels (secrets can be written, never read back),
//! its timeouts and payment instructions, the LLM switch, and what the LLM cost.

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use maud::html;
use serde::Deserialize;

use super::layout::{csrf_field, flash, page};
use super::session::{Session, same_origin};
use super::{Page, PageError, back, explain};
use crate::channels::credentials::{self, TelegramSetup, WhatsAppSetup};
use crate::http::AppState;
use crate::http::bots::{BotPatch, change_settings};
use crate::http::merchant::owned_bot;

#[derive(Debug, Default, Deserialize)]
pub struct Notice {
    #[serde(default)]
    aviso: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// `GET /dashboard/bots`.
pub async fn page_(
    session: Session,
    State(state): State<AppState>,
    Query(notice): Query<Notice>,
) -> Result<Page, PageError> {
    let csrf = session.csrf.as_str();
    let mut cards = Vec::new();
    for slug in crate::merchant::bot_slugs(&state.pool, session.merchant_id).await? {
        let bot = owned_bot(&state, session.merchant_id, &slug).await?;
        let channels = credentials::connected(&state.pool, bot.id).await?;
        let usage = crate::llm_calls::usage(&state.pool, bot.id).await?;
        let (tokens_today, over_budget) =
            crate::llm_calls::today(&state.pool, bot.id, chrono::Utc::now()).await?;
        let base = format!("/dashboard/bots/{}", bot.slug);
        let calls: i64 = usage
            .iter()
            .filter(|u| !matches!(u.outcome.as_str(), "rules" | "over_budget"))
            .map(|u| u.calls)
            .sum();
        let cost: i64 = usage.iter().map(|u| u.cost_micros).sum();
        cards.push(html! {
            section.card aria-labelledby=(format!("bot-{}", bot.slug)) {
                h2 id=(format!("bot-{}", bot.slug)) { (bot.name) " " span.muted { "(" (bot.slug) ", " (bot.profile.as_str()) ")" } }
                p {
                    "Canales: "
                    @if channels.is_empty() { "solo chat web" }
                    @for (channel, _) in &channels { span.badge.ok { (channel) } }
                }
                p.muted { "Webhooks: /webhooks/telegram/" (bot.slug) " · /webhooks/whatsapp/" (bot.slug) " · chat web: /webchat/" (bot.slug) "/messages" }
                p {
                    "IA: " (calls) " consultas, costo estimado US$ " (format!("{:.4}", cost as f64 / 1_000_000.0))
                    " · hoy " (tokens_today) " tokens"
                    @if let Some(budget) = state.llm_daily_tokens { " de " (budget) }
                    @if over_budget > 0 { " " span.badge.warn { "Presupuesto diario agotado: responden las reglas" } }
                }
                form method="post" action=(format!("{base}/ajustes")) {
                    (csrf_field(csrf))
                    label.inline for=(format!("ai-{}", bot.slug)) {
                        input id=(format!("ai-{}", bot.slug)) type="checkbox" name="agent_enabled" value="si" checked[bot.agent_enabled];
                        "Usar IA (si no, responden las reglas)"
                    }
                    label for=(format!("session-{}", bot.slug)) { "Minutos sin actividad para cerrar un carrito" }
                    input id=(format!("session-{}", bot.slug)) name="session_minutes" type="number" min="1" max="43200" value=(bot.session_timeout_secs / 60);
                    label for=(format!("payment-{}", bot.slug)) { "Horas para pagar un pedido" }
                    input id=(format!("payment-{}", bot.slug)) name="payment_hours" type="number" min="1" max="720" value=(bot.payment_timeout_secs / 3600);
                    label for=(format!("instructions-{}", bot.slug)) { "Instrucciones de pago" }
                    textarea id=(format!("instructions-{}", bot.slug)) name="payment_instructions" maxlength="500" { (bot.payment_instructions) }
                    p { button type="submit" { "Guardar ajustes" } }
                }
                (merchant_chat_card(&bot, csrf, channels.iter().any(|(c, _)| c == "telegram")))
                details {
                    summary { "Conectar Telegram" }
                    form method="post" action=(format!("{base}/telegram")) {
                        (csrf_field(csrf))
                        label for=(format!("tg-token-{}", bot.slug)) { "Token del bot (de @BotFather)" }
                        input id=(format!("tg-token-{}", bot.slug)) name="token" type="password" autocomplete="off" required;
                        label for=(format!("tg-secret-{}", bot.slug)) { "Secreto del webhook" }
                        input id=(format!("tg-secret-{}", bot.slug)) name="secret_token" type="password" autocomplete="off" required;
                        p { button type="submit" { "Conectar" } }
                    }
                }
                details {
                    summary { "Conectar WhatsApp" }
                    form method="post" action=(format!("{base}/whatsapp")) {
                        (csrf_field(csrf))
                        label for=(format!("wa-phone-{}", bot.slug)) { "Phone number ID" }
                        input id=(format!("wa-phone-{}", bot.slug)) name="phone_number_id" required;
                        label for=(format!("wa-token-{}", bot.slug)) { "Access token" }
                        input id=(format!("wa-token-{}", bot.slug)) name="access_token" type="password" autocomplete="off" required;
                        label for=(format!("wa-app-{}", bot.slug)) { "App secret" }
                        input id=(format!("wa-app-{}", bot.slug)) name="app_secret" type="password" autocomplete="off" required;
                        label for=(format!("wa-verify-{}", bot.slug)) { "Verify token" }
                        input id=(format!("wa-verify-{}", bot.slug)) name="verify_token" type="password" autocomplete="off" required;
                        p { button type="submit" { "Conectar" } }
                    }
                }
            }
        });
    }
    let body = html! {
        h1 { "Bots" }
        (flash(notice.aviso.as_deref(), notice.error.as_deref()))
        p.muted { "Los secretos se guardan cifrados y nunca se muestran de vuelta." }
        @for card in &cards { (card) }
    };
    Ok(Page(page("Bots", Some(csrf), body)))
}

/// Where escalations and payment proofs reach the merchant on Telegram.
fn merchant_chat_card(bot: &crate::merchant::Bot, csrf: &str, on_telegram: bool) -> maud::Markup {
    let action = format!("/dashboard/bots/{}/avisos", bot.slug);
    html! {
        h3 { "Avisos por Telegram" }
        @if !on_telegram {
            p.muted { "Conecta Telegram para recibir en tu chat los clientes que piden una persona y los comprobantes de pago." }
        } @else if bot.merchant_chat_id.is_some() {
            p {
                span.badge.ok { "Chat vinculado" }
                " Ahí llegan los avisos; desde ese chat puedes usar /tomar, /responder, /soltar, /aprobar y /rechazar."
            }
            form method="post" action=(action) {
                (csrf_field(csrf))
                input type="hidden" name="accion" value="quitar";
                button type="submit" { "Dejar de avisar a ese chat" }
            }
        } @else {
            p.muted { "Pide un código y envíalo al bot desde tu Telegram como /start CÓDIGO." }
            form method="post" action=(action) {
                (csrf_field(csrf))
                input type="hidden" name="accion" value="vincular";
                button type="submit" { "Obtener código de vinculación" }
            }
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct MerchantChatForm {
    csrf: String,
    accion: String,
}

/// `POST /dashboard/bots/{slug}/avisos`: a link code (shown once) or unlinking.
pub async fn merchant_chat(
    session: Session,
    State(state): State<AppState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    Form(form): Form<MerchantChatForm>,
) -> Result<Response, PageError> {
    allowed(&session, &headers, &form.csrf)?;
    let bot = owned_bot(&state, session.merchant_id, &slug).await?;
    let outcome = match form.accion.as_str() {
        "vincular" => match crate::http::merchant_chat::link_code(&state, &bot).await {
            Ok(code) => {
                let told = format!(
                    "Envía «/start {code}» al bot desde el chat de Telegram donde quieres los avisos."
                );
                return Ok(back("/dashboard/bots", Ok(&told)));
            }
            Err(err) => Err(explain(&err)),
        },
        "quitar" => crate::merchant::unlink_merchant_chat(&state.pool, bot.id)
            .await
            .map(|()| {
                state.bots.forget(&bot.slug);
                "Ese chat ya no recibirá avisos."
            })
            .map_err(|e| explain(&e.into())),
        _ => return Err(PageError::NotFound),
    };
    Ok(back("/dashboard/bots", outcome))
}

#[derive(Debug, Deserialize)]
pub struct SettingsForm {
    csrf: String,
    #[serde(default)]
    agent_enabled: Option<String>,
    session_minutes: String,
    payment_hours: String,
    #[serde(default)]
    payment_instructions: String,
}

fn allowed(session: &Session, headers: &HeaderMap, csrf: &str) -> Result<(), PageError> {
    if same_origin(headers) && session.csrf_ok(csrf) {
        Ok(())
    } else {
        Err(PageError::Forbidden)
    }
}

/// `POST /dashboard/bots/{slug}/ajustes`.
pub async fn settings(
    session: Session,
    State(state): State<AppState>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    Form(form): Form<SettingsForm>,
) -> Result<Response, PageError> {
    allowed(&session, &headers, &form.csrf)?;
    let bot = owned_bot(&state, session.merchant_id, &slug).await?;
    let number = |raw: &str, per: i32| {
        raw.trim()
            .parse::<i32>()
            .ok()
            .and_then(|n| n.checked_mul(per))
    };
    let (Some(session_secs), Some(payment_secs)) = (
        number(&form.session_minutes, 60),
        number(&form.payment_hours, 3600),
    ) else {
        return Ok(back(
            "/dashboard/bots",
            Err("Escribe los tiempos con números enteros.".into()),
        ));
    };
    let patch = BotPatch {
        agent_enabled: Some(form.agent_enabled.is_some()),
        session_timeout_secs: Some(session_secs),
        payment_timeout_secs: Some(payment_secs),
        payment_instructions: Some(form.payment_instructions.clone()),
    };
    let outcome = change_settings(&state, &bot, &patch)
        .await
        .map(|_| "Ajustes guardados.")
        .map_err(|e| explain(&e));
    Ok(back("/dashboard/bots", outcome))
}

#[derive(Debug, Deserialize)]
pub struct ChannelForm {
    csrf: String,
    #[serde(default)]
    token: String,
    #[serde(default)]
    secret_token: String,
    #[serde(default)]
    phone_number_id: String,
    #[serde(default)]
    access_token: String,
    #[serde(default)]
    app_secret: String,
    #[serde(default)]
    verify_token: String,
}

/// `POST /dashboard/bots/{slug}/{telegram|whatsapp}`.
pub async fn channel(
    session: Session,
    State(state): State<AppState>,
    Path((slug, channel)): Path<(String, String)>,
    headers: HeaderMap,
    Form(form): Form<ChannelForm>,
) -> Result<Response, PageError> {
    allowed(&session, &headers, &form.csrf)?;
    let bot = owned_bot(&state, session.merchant_id, &slug).await?;
    let saved = match channel.as_str() {
        "telegram" => {
            let setup = TelegramSetup {
                token: form.token.trim().to_owned(),
                secret_token: form.secret_token.trim().to_owned(),
            };
            credentials::set_telegram(&state.pool, bot.id, &setup).await
        }
        "whatsapp" => {
            let setup = WhatsAppSetup {
                phone_number_id: form.phone_number_id.trim().to_owned(),
                access_token: form.access_token.trim().to_owned(),
                app_secret: form.app_secret.trim().to_owned(),
                verify_token: form.verify_token.trim().to_owned(),
            };
            credentials::set_whatsapp(&state.pool, bot.id, &setup).await
        }
        _ => return Err(PageError::NotFound),
    };
    state.bots.forget(&bot.slug);
    let outcome = saved
        .map(|_| "Canal conectado.")
        .map_err(|e| explain(&crate::http::error::ApiError::from(e)));
    Ok(back("/dashboard/bots", outcome))
}
