//! The bots page: each bot's channels (secrets can be written, never read back),
//! its timeouts and payment instructions, the LLM switch, and what the LLM cost.

use axum::extract::{Path, Query, State};
use axum::response::Response;
use maud::html;
use serde::Deserialize;

use super::layout::{csrf_field, flash, page};
use super::session::{CsrfForm, Session};
use super::{Console, Page, PageError, back, explain};
use crate::bots::ProfileKind;
use crate::channels::ChannelKind;
use crate::channels::credentials::{TelegramSetup, WhatsAppSetup};
use crate::merchant::bots::{self, BotPatch, ChannelSetup};
use crate::merchant::chat_link;

#[derive(Debug, Default, Deserialize)]
pub struct Notice {
    #[serde(flatten)]
    flash: super::layout::Flash,
}

/// `GET /dashboard/bots`.
pub async fn page_(
    session: Session,
    State(console): State<Console>,
    Query(notice): Query<Notice>,
    headers: axum::http::HeaderMap,
) -> Result<Page, PageError> {
    bots_page(&console, &session, &headers, flash(&notice.flash), None).await
}

/// A form of a bot's card the server refused, shown again as typed.
#[derive(Clone, Copy)]
enum Draft<'a> {
    Delivery(&'a str, &'a DeliveryForm),
    Settings(&'a str, &'a SettingsForm),
}

/// The bots page; `draft` is a form shown again as typed.
async fn bots_page(
    console: &Console,
    session: &Session,
    headers: &axum::http::HeaderMap,
    banner: maud::Markup,
    draft: Option<Draft<'_>>,
) -> Result<Page, PageError> {
    let csrf = session.csrf.as_str();
    let public = public_base(headers);
    let mut cards = Vec::new();
    for summary in bots::list(&console.office.pool, session.merchant_id).await? {
        let bot = &summary.bot;
        let channels = &summary.channels;
        let usage = bots::llm_usage_of(&console.office, bot).await?;
        let base = format!("/dashboard/bots/{}", bot.slug);
        let calls: i64 = usage
            .by_outcome
            .iter()
            .filter(|u| u.outcome.is_call())
            .map(|u| u.calls)
            .sum();
        let cost = usage.cost_micros;
        let tokens_today = usage.today.tokens;
        let over_budget = usage.today.turns_on_rules_over_budget;
        let canned =
            crate::merchant::notes::canned(&console.office.pool, session.merchant_id, &bot.slug)
                .await?;
        let zones = if bot.profile == ProfileKind::Shop {
            crate::shop::delivery::zones(&console.office.pool, bot.id).await?
        } else {
            Vec::new()
        };
        let shop = bot.profile == ProfileKind::Shop;
        let typed_settings = match draft {
            Some(Draft::Settings(slug, form)) if slug == bot.slug => Some(form),
            _ => None,
        };
        let typed_delivery = match draft {
            Some(Draft::Delivery(slug, form)) if slug == bot.slug => Some(form),
            _ => None,
        };
        // What the field shows: what was typed, if refused, else what is stored.
        let value = |typed: fn(&SettingsForm) -> Option<&str>, stored: String| {
            typed_settings.and_then(typed).map_or(stored, str::to_owned)
        };
        let model = console.office.llm_daily_tokens.is_some();
        let site = console.public_url.clone().unwrap_or_else(|| public.clone());
        cards.push(html! {
            section.card aria-labelledby=(format!("bot-{}", bot.slug)) {
                h2 id=(format!("bot-{}", bot.slug)) {
                    (bot.name) " "
                    span.muted { "(" (if shop { "tienda" } else { "finanzas personales" }) " · código " (bot.slug) ")" }
                }
                p {
                    "Canales: "
                    @if channels.is_empty() { "solo chat web" }
                    @for connected in channels { span.badge.ok { (crate::labels::channel(connected.channel)) } }
                }
                details {
                    summary { "Direcciones para Telegram y WhatsApp" }
                    p.muted { "Cópialas tal cual donde te las pidan." }
                    p { "Telegram (setWebhook): " code { (site) "/webhooks/telegram/" (bot.slug) } }
                    p { "WhatsApp (URL de devolución de llamada en Meta): " code { (site) "/webhooks/whatsapp/" (bot.slug) } }
                }
                @if model {
                    p {
                        "Inteligencia artificial: este mes costó " (usd(usage.month_cost_micros))
                        " (el proveedor cobra en dólares); desde el inicio, " (calls) " consultas por " (usd(cost))
                        " · hoy " (tokens_today) " unidades de texto"
                        @if let Some(budget) = usage.today.daily_budget_tokens { " de " (budget) " por día" }
                        @if over_budget > 0 { " " span.badge.warn { "Se acabó el presupuesto de hoy: responden las reglas" } }
                    }
                } @else {
                    p.muted { "Este servidor no tiene un modelo de inteligencia artificial configurado: el bot responde con sus reglas, sin costo." }
                }
                form method="post" action=(format!("{base}/ajustes")) {
                    (csrf_field(csrf))
                    @if model {
                        input type="hidden" name="ai_shown" value="si";
                        label.inline for=(format!("ai-{}", bot.slug)) {
                            input id=(format!("ai-{}", bot.slug)) type="checkbox" name="agent_enabled" value="si" checked[bot.agent_enabled];
                            "Usar inteligencia artificial (si no, responden las reglas)"
                        }
                    }
                    label for=(format!("session-{}", bot.slug)) {
                        @if shop { "Minutos sin actividad para cerrar un carrito" } @else { "Minutos sin actividad para olvidar una pregunta a medias" }
                    }
                    input id=(format!("session-{}", bot.slug)) name="session_minutes" type="number" min="1" max="43200" value=(value(|f| Some(f.session_minutes.as_str()), (bot.session_timeout_secs / 60).to_string()));
                    label for=(format!("takeover-{}", bot.slug)) { "Minutos sin que escribas para que el bot retome una conversación que tomaste (0: nunca)" }
                    input id=(format!("takeover-{}", bot.slug)) name="takeover_minutes" type="number" min="0" max="43200" value=(value(|f| Some(f.takeover_minutes.as_str()), bot.takeover_idle_secs.map_or(0, |s| s / 60).to_string()));
                    @if shop {
                        label for=(format!("payment-{}", bot.slug)) { "Horas para pagar un pedido" }
                        input id=(format!("payment-{}", bot.slug)) name="payment_hours" type="number" min="1" max="720" value=(value(|f| f.payment_hours.as_deref(), (bot.payment_timeout_secs / 3600).to_string()));
                        label for=(format!("instructions-{}", bot.slug)) { "Instrucciones de pago" }
                        textarea id=(format!("instructions-{}", bot.slug)) name="payment_instructions" maxlength="500" { (value(|f| f.payment_instructions.as_deref(), bot.payment_instructions.clone())) }
                        label for=(format!("low-stock-{}", bot.slug)) { "Avísame en mi chat cuando a un producto le queden estas unidades (0: solo cuando se agote)" }
                        input id=(format!("low-stock-{}", bot.slug)) name="low_stock" type="number" min="0" max="100000" value=(value(|f| f.low_stock.as_deref(), bot.low_stock_threshold.unwrap_or(0).to_string()));
                        label for=(format!("wa-template-{}", bot.slug)) { "Plantilla aprobada de WhatsApp para avisos de pedidos (si el cliente no escribió en 24 horas)" }
                        input id=(format!("wa-template-{}", bot.slug)) name="wa_template" maxlength="512" placeholder="estado_pedido" value=(value(|f| f.wa_template.as_deref(), bot.whatsapp_order_template.clone().unwrap_or_default()));
                        label for=(format!("wa-language-{}", bot.slug)) { "Idioma de la plantilla" }
                        input id=(format!("wa-language-{}", bot.slug)) name="wa_language" maxlength="6" value=(value(|f| f.wa_language.as_deref(), bot.whatsapp_template_language.clone()));
                    }
                    p { button type="submit" { "Guardar ajustes" } }
                }
                @if bot.profile == ProfileKind::Shop {
                    (delivery_card(bot, &zones, csrf, typed_delivery))
                }
                (canned_card(bot, &canned, csrf))
                (merchant_chat_card(bot, csrf, channels.iter().any(|c| c.channel == ChannelKind::Telegram)))
                (site_chat_card(bot, csrf, &public))
                details {
                    summary { "Conectar Telegram" }
                    form method="post" action=(format!("{base}/telegram")) {
                        (csrf_field(csrf))
                        label for=(format!("tg-token-{}", bot.slug)) { "Token del bot" }
                        input id=(format!("tg-token-{}", bot.slug)) name="token" type="password" autocomplete="off" required aria-describedby=(format!("tg-token-help-{}", bot.slug));
                        p.muted id=(format!("tg-token-help-{}", bot.slug)) { "Te lo da @BotFather en Telegram cuando creas el bot (/newbot); se ve como 123456:ABC…" }
                        label for=(format!("tg-secret-{}", bot.slug)) { "Clave secreta del webhook" }
                        input id=(format!("tg-secret-{}", bot.slug)) name="secret_token" type="password" autocomplete="off" required aria-describedby=(format!("tg-secret-help-{}", bot.slug));
                        p.muted id=(format!("tg-secret-help-{}", bot.slug)) { "Invéntala (letras, números, _ o -) y úsala también al registrar la dirección de arriba: así sabemos que los mensajes vienen de Telegram." }
                        p { button type="submit" { "Conectar" } }
                    }
                }
                details {
                    summary { "Conectar WhatsApp" }
                    form method="post" action=(format!("{base}/whatsapp")) {
                        (csrf_field(csrf))
                        label for=(format!("wa-phone-{}", bot.slug)) { "Identificador del número de teléfono" }
                        input id=(format!("wa-phone-{}", bot.slug)) name="phone_number_id" required inputmode="numeric" aria-describedby=(format!("wa-phone-help-{}", bot.slug));
                        p.muted id=(format!("wa-phone-help-{}", bot.slug)) { "En Meta for Developers: tu app → WhatsApp → Configuración de la API; es un número largo, no tu teléfono." }
                        label for=(format!("wa-token-{}", bot.slug)) { "Token de acceso" }
                        input id=(format!("wa-token-{}", bot.slug)) name="access_token" type="password" autocomplete="off" required aria-describedby=(format!("wa-token-help-{}", bot.slug));
                        p.muted id=(format!("wa-token-help-{}", bot.slug)) { "Un token permanente de un usuario del sistema en el Business Manager (el temporal vence en 24 horas)." }
                        label for=(format!("wa-app-{}", bot.slug)) { "Clave secreta de la app" }
                        input id=(format!("wa-app-{}", bot.slug)) name="app_secret" type="password" autocomplete="off" required aria-describedby=(format!("wa-app-help-{}", bot.slug));
                        p.muted id=(format!("wa-app-help-{}", bot.slug)) { "En tu app: Configuración → Básica → Clave secreta de la app." }
                        label for=(format!("wa-verify-{}", bot.slug)) { "Token de verificación" }
                        input id=(format!("wa-verify-{}", bot.slug)) name="verify_token" type="password" autocomplete="off" required aria-describedby=(format!("wa-verify-help-{}", bot.slug));
                        p.muted id=(format!("wa-verify-help-{}", bot.slug)) { "Invéntalo y escríbelo también en Meta al configurar el webhook con la dirección de arriba." }
                        p { button type="submit" { "Conectar" } }
                    }
                }
            }
        });
    }
    let body = html! {
        h1 { "Bots" }
        (banner)
        p.muted { "Los secretos se guardan cifrados y nunca se muestran de vuelta." }
        @for card in &cards { (card) }
        section.card aria-labelledby="nuevo-bot" {
            h2 id="nuevo-bot" { "Crear un bot" }
            form method="post" action="/dashboard/bots/nuevo" {
                (csrf_field(csrf))
                p { label for="nuevo-tipo" { "Tipo" } " "
                    select id="nuevo-tipo" name="tipo" {
                        option value="tienda" { "Tienda (catálogo, carrito y pedidos)" }
                        option value="finanzas" { "Finanzas personales (gastos, presupuestos y deudas)" }
                    } }
                p { label for="nuevo-codigo" { "Código (va en las direcciones; minúsculas, números y guiones)" } " "
                    input id="nuevo-codigo" name="codigo" required pattern="[a-z0-9][a-z0-9\\-]{0,62}" maxlength="63"; }
                p { label for="nuevo-nombre" { "Nombre" } " "
                    input id="nuevo-nombre" name="nombre" required maxlength="100"; }
                p { label for="nuevo-moneda" { "Moneda (código de tres letras)" } " "
                    input id="nuevo-moneda" name="moneda" required value="BOB" pattern="[A-Za-z]{3}" maxlength="3"; }
                p { label for="nuevo-zona" { "Zona horaria" } " "
                    input id="nuevo-zona" name="zona" required value="America/La_Paz" maxlength="64"; }
                p { button type="submit" { "Crear el bot" } }
            }
        }
    };
    Ok(Page(page("Bots", Some(csrf), body)))
}

/// This server as the merchant's browser reached it, for the embed snippet.
/// An estimated cost in dollars, in a shop's words.
fn usd(micros: i64) -> String {
    let cents = micros / 10_000;
    if micros > 0 && cents == 0 {
        "menos de US$ 0,01".into()
    } else {
        format!("US$ {},{:02}", cents / 100, cents % 100)
    }
}

fn public_base(headers: &axum::http::HeaderMap) -> String {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let host = header("x-forwarded-host")
        .or_else(|| header("host"))
        .unwrap_or("localhost:8080");
    let scheme = header("x-forwarded-proto").unwrap_or("http");
    format!("{scheme}://{host}")
}

/// The web chat on the merchant's own site: the snippet to paste, the sites
/// allowed to use it, and the secret for signed-in users.
fn site_chat_card(bot: &crate::bots::Bot, csrf: &str, public: &str) -> maud::Markup {
    let action = format!("/dashboard/bots/{}/chat-web", bot.slug);
    let snippet = format!(
        "<script src=\"{public}/webchat/{}/widget.js\" defer></script>",
        bot.slug
    );
    html! {
        details {
            summary { "Chat web en tu sitio" }
            p { "Pega esto en las páginas de tu sitio, antes de " code { "</body>" } ":" }
            pre.snippet { code { (snippet) } }
            form method="post" action=(action) {
                (csrf_field(csrf))
                input type="hidden" name="accion" value="sitios";
                label for=(format!("origins-{}", bot.slug)) { "Sitios que pueden mostrar el chat (uno por línea, como https://mitienda.com)" }
                textarea id=(format!("origins-{}", bot.slug)) name="sitios" rows="3" { (bot.webchat_origins.join("\n")) }
                p { button type="submit" { "Guardar sitios" } }
            }
            form method="post" action=(action) {
                (csrf_field(csrf))
                input type="hidden" name="accion" value="secreto";
                p.muted { "Si tus clientes inician sesión en tu sitio, tu servidor puede firmar su identidad para que sigan su conversación en cualquier dispositivo. El secreto se muestra una sola vez; crear otro anula el anterior." }
                button type="submit" { "Crear secreto de identidad" }
            }
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct NewBotForm {
    tipo: String,
    codigo: String,
    nombre: String,
    moneda: String,
    zona: String,
}

/// `POST /dashboard/bots/nuevo`: a new shop or finance bot (web chat at once;
/// channels connected from its card). Never with sample history.
pub async fn create(
    State(console): State<Console>,
    CsrfForm { session, form }: CsrfForm<NewBotForm>,
) -> Result<Response, PageError> {
    let profile = match form.tipo.as_str() {
        "tienda" => ProfileKind::Shop,
        "finanzas" => ProfileKind::Finance,
        _ => return Ok(back("/dashboard/bots", Err("Elige el tipo de bot.".into()))),
    };
    let new = bots::NewBot {
        slug: form.codigo.trim().to_owned(),
        name: form.nombre.trim().to_owned(),
        currency: form.moneda.trim().to_uppercase(),
        profile: Some(profile),
        timezone: Some(form.zona.trim().to_owned()),
        payment_instructions: None,
        telegram: None,
        whatsapp: None,
    };
    let outcome = match bots::create(&console.office.pool, session.merchant_id, &new).await {
        Ok(_) => Ok("Bot creado. Conecta sus canales en su tarjeta."),
        Err(err) => Err(explain(&err)?),
    };
    Ok(back("/dashboard/bots", outcome))
}

#[derive(Debug, Deserialize)]
pub struct SiteChatForm {
    accion: String,
    #[serde(default)]
    sitios: String,
}

/// `POST /dashboard/bots/{slug}/chat-web`: the allowed sites, or a new identity
/// secret (shown on the page that answers, once; never put in a link).
pub async fn site_chat(
    State(console): State<Console>,
    Path(slug): Path<String>,
    CsrfForm { session, form }: CsrfForm<SiteChatForm>,
) -> Result<Response, PageError> {
    use axum::response::IntoResponse;
    let office = &console.office;
    match form.accion.as_str() {
        "sitios" => {
            let patch = BotPatch {
                webchat_origins: Some(
                    form.sitios
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_owned)
                        .collect(),
                ),
                ..BotPatch::default()
            };
            let outcome =
                match bots::change_settings(office, session.merchant_id, &slug, &patch).await {
                    Ok(_) => Ok("Sitios guardados."),
                    Err(err) => Err(explain(&err)?),
                };
            Ok(back("/dashboard/bots", outcome))
        }
        "secreto" => match bots::new_identity_secret(office, session.merchant_id, &slug).await {
            Ok(secret) => {
                let body = html! {
                    h1 { "Secreto de identidad" }
                    p { "Cópialo ahora: no se volverá a mostrar. Tu servidor envía, junto con el identificador del cliente, "
                        code { "identifier_hash" } " = HMAC-SHA256 de ese identificador con este secreto, en hexadecimal." }
                    pre.snippet { code { (secret) } }
                    p { a href="/dashboard/bots" { "Volver a los bots" } }
                };
                Ok(Page(page(
                    "Secreto de identidad",
                    Some(session.csrf.as_str()),
                    body,
                ))
                .into_response())
            }
            Err(err) => Ok(back("/dashboard/bots", Err(explain(&err)?))),
        },
        _ => Err(PageError::NotFound),
    }
}

/// Where escalations and payment proofs reach the merchant on Telegram.
fn merchant_chat_card(bot: &crate::bots::Bot, csrf: &str, on_telegram: bool) -> maud::Markup {
    let action = format!("/dashboard/bots/{}/avisos", bot.slug);
    html! {
        h3 { "Avisos por Telegram" }
        @if !on_telegram {
            p.muted { "Conecta Telegram para recibir en tu chat los clientes que piden una persona y los comprobantes de pago." }
        } @else if bot.merchant_chat_id.is_some() {
            p {
                span.badge.ok { "Chat vinculado" }
                " Ahí llegan los avisos; desde ese chat puedes usar /tomar, /responder, /soltar, /aprobar, /rechazar, /preparando, /listo, /encamino, /entregado y /cancelar."
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
    accion: String,
}

/// `POST /dashboard/bots/{slug}/avisos`: a link code (shown once) or unlinking.
pub async fn merchant_chat(
    State(console): State<Console>,
    Path(slug): Path<String>,
    CsrfForm { session, form }: CsrfForm<MerchantChatForm>,
) -> Result<Response, PageError> {
    let office = &console.office;
    let outcome = match form.accion.as_str() {
        "vincular" => match chat_link::new_code(office, session.merchant_id, &slug).await {
            Ok(code) => {
                let told = format!(
                    "Envía «{}» al bot desde el chat de Telegram donde quieres los avisos.",
                    code.send
                );
                return Ok(back("/dashboard/bots", Ok(&told)));
            }
            Err(err) => Err(explain(&err)?),
        },
        "quitar" => match chat_link::unlink(office, session.merchant_id, &slug).await {
            Ok(_) => Ok("Ese chat ya no recibirá avisos."),
            Err(err) => Err(explain(&err)?),
        },
        _ => return Err(PageError::NotFound),
    };
    Ok(back("/dashboard/bots", outcome))
}

#[derive(Debug, Deserialize)]
pub struct SettingsForm {
    /// The AI switch was on the page (only when a model is configured).
    #[serde(default)]
    ai_shown: Option<String>,
    #[serde(default)]
    agent_enabled: Option<String>,
    session_minutes: String,
    /// Absent on finance bots' forms (no orders there).
    #[serde(default)]
    payment_hours: Option<String>,
    #[serde(default)]
    takeover_minutes: String,
    #[serde(default)]
    payment_instructions: Option<String>,
    /// Absent on finance bots' forms (no stock there).
    #[serde(default)]
    low_stock: Option<String>,
    #[serde(default)]
    wa_template: Option<String>,
    #[serde(default)]
    wa_language: Option<String>,
}

/// Canned replies: their shortcuts, texts, a form for a new one.
fn canned_card(
    bot: &crate::bots::Bot,
    canned: &[crate::notes::Canned],
    csrf: &str,
) -> maud::Markup {
    let base = format!("/dashboard/bots/{}/respuestas", bot.slug);
    html! {
        details {
            summary { "Respuestas rápidas (" (canned.len()) ")" }
            @for reply in canned {
                form.row method="post" action=(format!("{base}/{}/borrar", reply.id)) {
                    (csrf_field(csrf))
                    p { code { "/" (reply.shortcut) } " " (reply.text) }
                    button.secondary type="submit" aria-label=(format!("Borrar /{}", reply.shortcut)) { "Borrar" }
                }
            }
            form method="post" action=(base) {
                (csrf_field(csrf))
                label for=(format!("shortcut-{}", bot.slug)) { "Atajo" }
                input id=(format!("shortcut-{}", bot.slug)) name="shortcut" required maxlength="30" pattern="[a-z0-9\\-]+" placeholder="horario";
                label for=(format!("canned-{}", bot.slug)) { "Texto" }
                textarea id=(format!("canned-{}", bot.slug)) name="text" required maxlength="1000" {}
                p { button type="submit" { "Guardar respuesta rápida" } }
            }
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct CannedForm {
    #[serde(default)]
    shortcut: String,
    #[serde(default)]
    text: String,
}

/// `POST /dashboard/bots/{slug}/respuestas`.
pub async fn add_canned(
    State(console): State<Console>,
    Path(slug): Path<String>,
    CsrfForm { session, form }: CsrfForm<CannedForm>,
) -> Result<Response, PageError> {
    let pool = &console.office.pool;
    let outcome = match crate::merchant::notes::set_canned(
        pool,
        session.merchant_id,
        &slug,
        &form.shortcut,
        &form.text,
    )
    .await
    {
        Ok(reply) => Ok(format!("Guardaste /{}.", reply.shortcut)),
        Err(err) => Err(explain(&err)?),
    };
    Ok(back(
        "/dashboard/bots",
        outcome.as_deref().map_err(Clone::clone),
    ))
}

/// `POST /dashboard/bots/{slug}/respuestas/{id}/borrar`.
pub async fn delete_canned(
    State(console): State<Console>,
    Path((slug, id)): Path<(String, String)>,
    CsrfForm { session, .. }: CsrfForm<serde::de::IgnoredAny>,
) -> Result<Response, PageError> {
    let id: i64 = id.parse().map_err(|_| PageError::NotFound)?;
    let pool = &console.office.pool;
    let outcome =
        match crate::merchant::notes::delete_canned(pool, session.merchant_id, &slug, id).await {
            Ok(()) => Ok("Respuesta rápida borrada."),
            Err(err) => Err(explain(&err)?),
        };
    Ok(back("/dashboard/bots", outcome))
}

/// Pickup, delivery and the zones, one per line as «Zona; costo; pedido mínimo».
fn delivery_card(
    bot: &crate::bots::Bot,
    zones: &[crate::shop::core::Zone],
    csrf: &str,
    typed: Option<&DeliveryForm>,
) -> maud::Markup {
    let money_text = |minor: i64| {
        if minor % 100 == 0 {
            (minor / 100).to_string()
        } else {
            format!("{}.{:02}", minor / 100, minor % 100)
        }
    };
    let lines: Vec<String> = zones
        .iter()
        .map(|z| {
            let mut cells = vec![z.name.clone(), money_text(z.fee_minor)];
            match (z.min_order_minor, z.free_from_minor) {
                (min, Some(free)) => {
                    cells.push(min.map(money_text).unwrap_or_default());
                    cells.push(money_text(free));
                }
                (Some(min), None) => cells.push(money_text(min)),
                (None, None) => {}
            }
            cells.join("; ")
        })
        .collect();
    let zones_text = typed.map_or_else(|| lines.join("\n"), |form| form.zones.clone());
    let (pickup, delivery) = typed.map_or((bot.pickup_enabled, bot.delivery_enabled), |form| {
        (form.pickup.is_some(), form.delivery.is_some())
    });
    html! {
        details open[typed.is_some()] {
            summary { "Entrega de pedidos" }
            form method="post" action=(format!("/dashboard/bots/{}/entrega", bot.slug)) {
                (csrf_field(csrf))
                label.inline for=(format!("pickup-{}", bot.slug)) {
                    input id=(format!("pickup-{}", bot.slug)) type="checkbox" name="pickup" value="si" checked[pickup];
                    "Recojo en la tienda"
                }
                label.inline for=(format!("delivery-{}", bot.slug)) {
                    input id=(format!("delivery-{}", bot.slug)) type="checkbox" name="delivery" value="si" checked[delivery];
                    "Envío a domicilio"
                }
                label for=(format!("zones-{}", bot.slug)) { "Zonas de envío: una por línea, «zona; costo; pedido mínimo; envío gratis desde» (los dos últimos son opcionales)" }
                textarea id=(format!("zones-{}", bot.slug)) name="zones" rows="5" maxlength="5000" placeholder="Sopocachi; 10\nMiraflores; 12; 50" { (zones_text) }
                p.muted { "En el resumen el bot ofrece las zonas con su costo; si el cliente no pide envío, el pedido es para recoger. El costo de la zona lo suma el sistema: nadie más puede fijarlo." }
                p { button type="submit" { "Guardar entrega" } }
            }
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct DeliveryForm {
    #[serde(default)]
    pickup: Option<String>,
    #[serde(default)]
    delivery: Option<String>,
    #[serde(default)]
    zones: String,
}

/// «Zona; costo; pedido mínimo» lines as zones, or the first line that is not one.
fn zones_typed(text: &str) -> Result<Vec<crate::shop::delivery::ZoneInput>, String> {
    let mut zones = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split([';', '|', '\t']).map(str::trim).collect();
        let bad = || {
            format!(
                "Línea {} de las zonas: escribe «zona; costo», «zona; costo; pedido mínimo» o «zona; costo; pedido mínimo; envío gratis desde», por ejemplo «Sopocachi; 10».",
                n + 1
            )
        };
        let (name, fee, min, free) = match cells.as_slice() {
            [name, fee] => (*name, *fee, "", ""),
            [name, fee, min] => (*name, *fee, *min, ""),
            [name, fee, min, free] => (*name, *fee, *min, *free),
            _ => return Err(bad()),
        };
        let fee_minor = crate::shop::catalog_csv::parse_price(fee).map_err(|_| bad())?;
        let optional = |cell: &str| -> Result<Option<i64>, String> {
            if cell.is_empty() {
                Ok(None)
            } else {
                crate::shop::catalog_csv::parse_price(cell)
                    .map(Some)
                    .map_err(|_| bad())
            }
        };
        zones.push(crate::shop::delivery::ZoneInput {
            name: name.to_owned(),
            fee_minor,
            min_order_minor: optional(min)?,
            free_from_minor: optional(free)?,
        });
    }
    Ok(zones)
}

/// A bot's form the server refused: the page again, what was typed in the
/// form, what to fix above it.
async fn refused(
    console: &Console,
    session: &Session,
    headers: &axum::http::HeaderMap,
    draft: Draft<'_>,
    why: String,
) -> Result<Response, PageError> {
    let (Draft::Delivery(slug, _) | Draft::Settings(slug, _)) = draft;
    // The bot first: another merchant's is a 404, whatever was typed.
    crate::merchant::owned_bot(&console.office.pool, session.merchant_id, slug).await?;
    let page = bots_page(
        console,
        session,
        headers,
        super::why_banner(&why),
        Some(draft),
    )
    .await?;
    Ok(super::unprocessable(page))
}

/// `POST /dashboard/bots/{slug}/entrega`.
pub async fn delivery(
    State(console): State<Console>,
    Path(slug): Path<String>,
    headers: axum::http::HeaderMap,
    CsrfForm { session, form }: CsrfForm<DeliveryForm>,
) -> Result<Response, PageError> {
    let again = |why: String| {
        refused(
            &console,
            &session,
            &headers,
            Draft::Delivery(&slug, &form),
            why,
        )
    };
    let zones = match zones_typed(&form.zones) {
        Ok(zones) => zones,
        Err(why) => {
            // The bot first: another merchant's is a 404, whatever was typed.
            crate::merchant::catalog::shop_bot(&console.office.pool, session.merchant_id, &slug)
                .await?;
            return again(why).await;
        }
    };
    let settings = crate::merchant::delivery::DeliverySettings {
        pickup: form.pickup.is_some(),
        delivery: form.delivery.is_some(),
        zones,
    };
    match crate::merchant::delivery::set(&console.office, session.merchant_id, &slug, &settings)
        .await
    {
        Ok(_) => Ok(back(
            "/dashboard/bots",
            Ok("Entrega guardada: el bot la usa desde el próximo mensaje."),
        )),
        Err(err) => again(explain(&err)?).await,
    }
}

/// `POST /dashboard/bots/{slug}/ajustes`.
pub async fn settings(
    State(console): State<Console>,
    Path(slug): Path<String>,
    headers: axum::http::HeaderMap,
    CsrfForm { session, form }: CsrfForm<SettingsForm>,
) -> Result<Response, PageError> {
    let again = |why: String| {
        refused(
            &console,
            &session,
            &headers,
            Draft::Settings(&slug, &form),
            why,
        )
    };
    let number = |raw: &str, per: i32| {
        raw.trim()
            .parse::<i32>()
            .ok()
            .and_then(|n| n.checked_mul(per))
    };
    let takeover = if form.takeover_minutes.trim().is_empty() {
        Some(0)
    } else {
        number(&form.takeover_minutes, 60)
    };
    let payment = match form.payment_hours.as_deref() {
        None => Some(None),
        Some(hours) => number(hours, 3600).map(Some),
    };
    let (Some(session_secs), Some(payment_secs), Some(takeover_secs)) =
        (number(&form.session_minutes, 60), payment, takeover)
    else {
        return again("Escribe los tiempos con números enteros.".into()).await;
    };
    let low_stock = match form.low_stock.as_deref().map(str::trim) {
        None => None,
        Some("") => Some(0),
        Some(typed) => match typed.parse::<i32>() {
            Ok(units) => Some(units),
            Err(_) => {
                return again(
                    "Escribe las unidades del aviso de pocas unidades con un número entero.".into(),
                )
                .await;
            }
        },
    };
    let patch = BotPatch {
        low_stock_threshold: low_stock,
        whatsapp_order_template: form.wa_template.clone(),
        // Set through the API (`PATCH /api/v1/bots/{slug}`); the page leaves it.
        whatsapp_reminder_template: None,
        whatsapp_template_language: form
            .wa_language
            .as_deref()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned),
        // Without a model configured the switch is not on the page: it stays.
        agent_enabled: form.ai_shown.as_ref().map(|_| form.agent_enabled.is_some()),
        session_timeout_secs: Some(session_secs),
        payment_timeout_secs: payment_secs,
        payment_instructions: form.payment_instructions.clone(),
        takeover_idle_secs: Some(takeover_secs),
        webchat_origins: None,
    };
    match bots::change_settings(&console.office, session.merchant_id, &slug, &patch).await {
        Ok(_) => Ok(back("/dashboard/bots", Ok("Ajustes guardados."))),
        Err(err) => again(explain(&err)?).await,
    }
}

#[derive(Debug, Deserialize)]
pub struct ChannelForm {
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
    State(console): State<Console>,
    Path((slug, channel)): Path<(String, String)>,
    CsrfForm { session, form }: CsrfForm<ChannelForm>,
) -> Result<Response, PageError> {
    let setup = match channel.as_str() {
        "telegram" => ChannelSetup::Telegram(TelegramSetup {
            token: form.token.trim().to_owned(),
            secret_token: form.secret_token.trim().to_owned(),
        }),
        "whatsapp" => ChannelSetup::WhatsApp(WhatsAppSetup {
            phone_number_id: form.phone_number_id.trim().to_owned(),
            access_token: form.access_token.trim().to_owned(),
            app_secret: form.app_secret.trim().to_owned(),
            verify_token: form.verify_token.trim().to_owned(),
        }),
        _ => return Err(PageError::NotFound),
    };
    let outcome = match bots::set_channel(&console.office, session.merchant_id, &slug, &setup).await
    {
        Ok(_) => Ok("Canal conectado."),
        Err(err) => Err(explain(&err)?),
    };
    Ok(back("/dashboard/bots", outcome))
}
