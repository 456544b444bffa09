//! The merchant's bots: list them, create one, change its settings, connect its
//! channels, and read what its LLM use cost and (finance bots) how the learning
//! loop goes.

use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use crate::channels::webchat::session;

use super::{MerchantError, Office, Result, bot_of_profile, bounded_text, owned_bot};
use crate::bots::{self, Bot, BotSettings, CreateBotError, ProfileKind};
use crate::channels::credentials::{self, SetupError, TelegramSetup, WhatsAppSetup};

impl From<SetupError> for MerchantError {
    fn from(err: SetupError) -> Self {
        match err {
            SetupError::Invalid(why) => MerchantError::invalid("channel", why, why),
            SetupError::PhoneTaken => MerchantError::PhoneTaken,
            SetupError::Database(e) => e.into(),
            SetupError::Keys(e) => MerchantError::Unexpected(anyhow::Error::new(e)),
        }
    }
}

impl From<CreateBotError> for MerchantError {
    fn from(err: CreateBotError) -> Self {
        match err {
            CreateBotError::Invalid(why, es) => MerchantError::invalid("bot", why, es),
            CreateBotError::Taken => MerchantError::SlugTaken,
            CreateBotError::Database(e) => e.into(),
        }
    }
}

/// A connected channel (never its secrets).
#[derive(Debug, Clone, Serialize)]
pub struct Connected {
    pub channel: crate::channels::ChannelKind,
    pub phone_number_id: Option<String>,
}

/// A bot as its merchant sees it.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub slug: String,
    pub name: String,
    pub currency: String,
    pub profile: crate::bots::ProfileKind,
    pub timezone: String,
    pub agent_enabled: bool,
    pub merchant_chat_linked: bool,
    pub channels: Vec<Connected>,
    /// Where each platform must send its webhooks (paths on this server).
    pub webhooks: serde_json::Value,
    #[serde(skip)]
    pub bot: Bot,
}

async fn summary(pool: &PgPool, bot: Bot) -> Result<Summary> {
    let channels = credentials::connected(pool, bot.id).await?;
    Ok(Summary {
        slug: bot.slug.clone(),
        name: bot.name.clone(),
        currency: bot.currency.clone(),
        profile: bot.profile,
        timezone: bot.timezone.clone(),
        agent_enabled: bot.agent_enabled,
        merchant_chat_linked: bot.merchant_chat_id.is_some(),
        channels: channels
            .into_iter()
            .map(|(channel, phone_number_id)| Connected {
                channel,
                phone_number_id,
            })
            .collect(),
        webhooks: json!({
            "telegram": format!("/webhooks/telegram/{}", bot.slug),
            "whatsapp": format!("/webhooks/whatsapp/{}", bot.slug),
            "webchat": format!("/webchat/{}/messages", bot.slug),
        }),
        bot,
    })
}

/// Every bot of the merchant, by slug.
pub async fn list(pool: &PgPool, merchant_id: Uuid) -> Result<Vec<Summary>> {
    let mut out = Vec::new();
    for slug in bots::slugs_of(pool, merchant_id).await? {
        let bot = owned_bot(pool, merchant_id, &slug).await?;
        out.push(summary(pool, bot).await?);
    }
    Ok(out)
}

/// A new bot.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewBot {
    pub slug: String,
    pub name: String,
    pub currency: String,
    /// `shop` (the default) or `finance`.
    #[serde(default)]
    pub profile: Option<crate::bots::ProfileKind>,
    /// IANA zone (default `America/Mexico_City`): "today" for a finance bot, and
    /// the times a merchant reads.
    #[serde(default)]
    pub timezone: Option<String>,
    #[serde(default)]
    pub payment_instructions: Option<String>,
    #[serde(default)]
    pub telegram: Option<TelegramSetup>,
    #[serde(default)]
    pub whatsapp: Option<WhatsAppSetup>,
}

/// Creates a bot (a shop unless `profile` says finance) with its channels, all
/// or nothing. Sample history is only ever for the demo.
pub async fn create(pool: &PgPool, merchant_id: Uuid, new: &NewBot) -> Result<Summary> {
    let mut tx = pool.begin().await?;
    let mut spec = bots::NewBot::shop(&new.slug, &new.name, &new.currency);
    if let Some(profile) = new.profile {
        spec.profile = profile;
    }
    if let Some(timezone) = &new.timezone {
        spec.timezone = timezone.trim();
    }
    let bot = bots::create(&mut *tx, merchant_id, &spec).await?;
    if let Some(instructions) = &new.payment_instructions {
        let instructions = bounded_text("payment_instructions", instructions, 500)?;
        bots::update_settings(
            &mut *tx,
            bot.id,
            &BotSettings {
                payment_instructions: Some(instructions.to_owned()),
                ..Default::default()
            },
        )
        .await?;
    }
    if let Some(telegram) = &new.telegram {
        credentials::set_telegram(&mut *tx, bot.id, telegram).await?;
    }
    if let Some(whatsapp) = &new.whatsapp {
        credentials::set_whatsapp(&mut *tx, bot.id, whatsapp).await?;
    }
    tx.commit().await?;
    summary(pool, bot).await
}

/// Settings a merchant may change; `None` keeps the current value.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BotPatch {
    /// The LLM switch: false runs the bot on the offline rules (the rollback flag).
    pub agent_enabled: Option<bool>,
    /// Inactivity after which BROWSING, CART_OPEN and CHECKOUT return to IDLE.
    pub session_timeout_secs: Option<i32>,
    /// Time an order may wait for payment before it expires.
    pub payment_timeout_secs: Option<i32>,
    /// Shown to the customer when an order is confirmed.
    pub payment_instructions: Option<String>,
    /// A takeover with no message from the merchant this long goes back to the
    /// bot; `0` turns that off (the default).
    pub takeover_idle_secs: Option<i32>,
    /// Origins whose pages may embed the web chat (`https://shop.example`, at
    /// most 20); the list replaces the current one.
    pub webchat_origins: Option<Vec<String>>,
    /// The merchant's chat is told when a product falls to this many units
    /// left; `0` tells only when one sells out (the default).
    pub low_stock_threshold: Option<i32>,
    /// The name of an approved WhatsApp template for order updates, sent when
    /// the customer last wrote more than 24 hours ago; its body takes the order
    /// number and the status in words. `""` removes it.
    pub whatsapp_order_template: Option<String>,
    /// The name of an approved WhatsApp template for a finance bot's reminders,
    /// sent when the person last wrote more than 24 hours ago; its body takes
    /// what to remember and the date. `""` removes it (such reminders then wait
    /// for WhatsApp's window and are never sent as free text).
    pub whatsapp_reminder_template: Option<String>,
    /// The templates' language code (`es`, `es_MX`).
    pub whatsapp_template_language: Option<String>,
}

/// A template name as Meta writes them, `""` to remove it.
fn template_name(field: &'static str, value: Option<&str>) -> Result<Option<Option<String>>> {
    match value.map(str::trim) {
        None => Ok(None),
        Some("") => Ok(Some(None)),
        Some(name)
            if name.len() <= 512
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') =>
        {
            Ok(Some(Some(name.to_owned())))
        }
        Some(_) => Err(MerchantError::invalid(
            field,
            format!("`{field}` is a template name: lowercase letters, digits and underscores"),
            "El nombre de la plantilla de WhatsApp lleva solo minúsculas, números y guiones bajos, como en Meta.",
        )),
    }
}

/// Checks and stores a bot's settings; returns the bot as it now is.
pub async fn change_settings(
    office: &Office,
    merchant_id: Uuid,
    slug: &str,
    patch: &BotPatch,
) -> Result<Bot> {
    let bot = owned_bot(&office.pool, merchant_id, slug).await?;
    let in_range = |name: &'static str, value: Option<i32>| match value {
        Some(v) if !(60..=30 * 24 * 3600).contains(&v) => Err(MerchantError::invalid(
            name,
            format!("`{name}` must be between 60 seconds and 30 days"),
            "Los tiempos van de 1 minuto a 30 días.",
        )),
        _ => Ok(()),
    };
    in_range("session_timeout_secs", patch.session_timeout_secs)?;
    in_range("payment_timeout_secs", patch.payment_timeout_secs)?;
    let webchat_origins = match &patch.webchat_origins {
        Some(origins) => Some(web_origins(origins)?),
        None => None,
    };
    let takeover_idle_secs = match patch.takeover_idle_secs {
        None => None,
        Some(0) => Some(None),
        Some(secs) => {
            in_range("takeover_idle_secs", Some(secs))?;
            Some(Some(secs))
        }
    };
    let low_stock_threshold = match patch.low_stock_threshold {
        None => None,
        Some(0) => Some(None),
        Some(units) if (1..=100_000).contains(&units) => Some(Some(units)),
        Some(_) => {
            return Err(MerchantError::invalid(
                "low_stock_threshold",
                "`low_stock_threshold` must be between 0 and 100000 units",
                "El aviso de pocas unidades va de 0 (solo cuando se agota) a 100000.",
            ));
        }
    };
    let whatsapp_order_template = template_name(
        "whatsapp_order_template",
        patch.whatsapp_order_template.as_deref(),
    )?;
    let whatsapp_reminder_template = template_name(
        "whatsapp_reminder_template",
        patch.whatsapp_reminder_template.as_deref(),
    )?;
    let language_ok = |code: &str| {
        let (lang, region) = code.split_once('_').unwrap_or((code, ""));
        (2..=3).contains(&lang.len())
            && lang.chars().all(|c| c.is_ascii_lowercase())
            && (region.is_empty()
                || (region.len() == 2 && region.chars().all(|c| c.is_ascii_uppercase())))
    };
    if let Some(code) = &patch.whatsapp_template_language
        && !language_ok(code)
    {
        return Err(MerchantError::invalid(
            "whatsapp_template_language",
            "`whatsapp_template_language` is a language code such as es or es_MX",
            "El idioma de la plantilla es un código como es o es_MX.",
        ));
    }
    let instructions = match &patch.payment_instructions {
        Some(text) if text.trim().is_empty() => Some(String::new()),
        Some(text) => Some(bounded_text("payment_instructions", text, 500)?.to_owned()),
        None => None,
    };
    let updated = bots::update_settings(
        &office.pool,
        bot.id,
        &BotSettings {
            agent_enabled: patch.agent_enabled,
            session_timeout_secs: patch.session_timeout_secs,
            payment_timeout_secs: patch.payment_timeout_secs,
            payment_instructions: instructions,
            takeover_idle_secs,
            webchat_origins,
            low_stock_threshold,
            whatsapp_order_template,
            whatsapp_reminder_template,
            whatsapp_template_language: patch.whatsapp_template_language.clone(),
        },
    )
    .await?;
    office.directory.forget(&bot.slug);
    Ok(updated)
}

/// A new web-chat identity secret for the bot, sealed at rest and returned once
/// (the merchant's site signs its users' identifiers with it); the old one stops
/// working at once.
pub async fn new_identity_secret(office: &Office, merchant_id: Uuid, slug: &str) -> Result<String> {
    let bot = owned_bot(&office.pool, merchant_id, slug).await?;
    let secret = session::new_identity_secret();
    let sealed = crate::secret::keyring()
        .map_err(|e| MerchantError::Unexpected(e.into()))?
        .encrypt(&secret, &session::identity_secret_context(bot.id));
    bots::set_webchat_identity_secret(&office.pool, bot.id, Some(&sealed)).await?;
    Ok(secret)
}

/// Turns identity verification off for the bot's web chat.
pub async fn clear_identity_secret(office: &Office, merchant_id: Uuid, slug: &str) -> Result<()> {
    let bot = owned_bot(&office.pool, merchant_id, slug).await?;
    bots::set_webchat_identity_secret(&office.pool, bot.id, None).await?;
    Ok(())
}

/// Whether the merchant's site vouched for `identifier` (`hash` is its HMAC under
/// the bot's identity secret). `None` when the bot verifies no identities.
pub async fn verifies_identity(
    pool: &sqlx::PgPool,
    bot_id: Uuid,
    identifier: &str,
    hash: &str,
) -> Result<Option<bool>> {
    let Some(sealed) = bots::webchat_identity_secret(pool, bot_id).await? else {
        return Ok(None);
    };
    let secret = crate::secret::keyring()
        .and_then(|keys| keys.decrypt(&sealed, &session::identity_secret_context(bot_id)))
        .map_err(|e| MerchantError::Unexpected(e.into()))?;
    Ok(Some(session::identity_matches(&secret, identifier, hash)))
}

/// Origins as a browser sends them: `http(s)://host[:port]`, no path, no slash at
/// the end; checked and kept in order without repeats.
fn web_origins(origins: &[String]) -> Result<Vec<String>> {
    if origins.len() > 20 {
        return Err(MerchantError::invalid(
            "webchat_origins",
            "at most 20 origins",
            "Puedes poner hasta 20 sitios.",
        ));
    }
    let mut kept: Vec<String> = Vec::new();
    for origin in origins {
        let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
        let host = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"));
        let ok = host.is_some_and(|h| {
            !h.is_empty()
                && h.len() <= 253
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
        });
        if !ok {
            return Err(MerchantError::invalid(
                "webchat_origins",
                format!("`{origin}` is not an origin such as https://shop.example"),
                format!("«{origin}» no es un sitio como https://mitienda.com"),
            ));
        }
        if !kept.contains(&origin) {
            kept.push(origin);
        }
    }
    Ok(kept)
}

/// A channel's credentials, to connect it or rotate them.
pub enum ChannelSetup {
    Telegram(TelegramSetup),
    WhatsApp(WhatsAppSetup),
}

/// Connects a channel (or rotates its credentials); returns the bot.
pub async fn set_channel(
    office: &Office,
    merchant_id: Uuid,
    slug: &str,
    setup: &ChannelSetup,
) -> Result<Summary> {
    let bot = owned_bot(&office.pool, merchant_id, slug).await?;
    match setup {
        ChannelSetup::Telegram(setup) => {
            credentials::set_telegram(&office.pool, bot.id, setup).await?
        }
        ChannelSetup::WhatsApp(setup) => {
            credentials::set_whatsapp(&office.pool, bot.id, setup).await?
        }
    }
    office.directory.forget(&bot.slug);
    summary(&office.pool, bot).await
}

/// Today's LLM use against the daily budget.
#[derive(Debug, Clone, Serialize)]
pub struct Today {
    pub tokens: i64,
    pub daily_budget_tokens: Option<u64>,
    pub over_budget: bool,
    pub turns_on_rules_over_budget: i64,
}

/// What a bot's LLM use cost, by outcome.
#[derive(Debug, Clone, Serialize)]
pub struct LlmUsage {
    pub bot: String,
    pub today: Today,
    pub calls: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub cost_micros: i64,
    /// Since the start of this month, in the bot's time zone.
    pub month_cost_micros: i64,
    pub by_outcome: Vec<crate::llm::calls::Usage>,
}

pub async fn llm_usage(office: &Office, merchant_id: Uuid, slug: &str) -> Result<LlmUsage> {
    let bot = owned_bot(&office.pool, merchant_id, slug).await?;
    llm_usage_of(office, &bot).await
}

/// The usage of a bot already known to be the merchant's.
pub async fn llm_usage_of(office: &Office, bot: &Bot) -> Result<LlmUsage> {
    let rows = crate::llm::calls::usage(&office.pool, bot.id).await?;
    let total = |f: fn(&crate::llm::calls::Usage) -> i64| rows.iter().map(f).sum::<i64>();
    let (tokens, over_budget_today) =
        crate::llm::calls::today(&office.pool, bot.id, chrono::Utc::now()).await?;
    let budget = office.llm_daily_tokens;
    Ok(LlmUsage {
        bot: bot.slug.clone(),
        today: Today {
            tokens,
            daily_budget_tokens: budget,
            over_budget: budget.is_some_and(|b| tokens as u64 >= b),
            turns_on_rules_over_budget: over_budget_today,
        },
        calls: total(|r| r.calls),
        prompt_tokens: total(|r| r.prompt_tokens),
        completion_tokens: total(|r| r.completion_tokens),
        cost_micros: total(|r| r.cost_micros),
        month_cost_micros: crate::llm::calls::month_cost(&office.pool, bot.id).await?,
        by_outcome: rows,
    })
}

/// A finance bot's learning loop: corrections, rules learned from them, how often
/// a rule filed a transaction, the categories most often corrected.
pub async fn learning(
    pool: &PgPool,
    merchant_id: Uuid,
    slug: &str,
) -> Result<(Bot, crate::finance::learning::Metrics)> {
    let bot = bot_of_profile(
        pool,
        merchant_id,
        slug,
        ProfileKind::Finance,
        "learning metrics exist for finance bots",
    )
    .await?;
    let metrics = crate::finance::learning::metrics(pool, bot.id).await?;
    Ok((bot, metrics))
}
