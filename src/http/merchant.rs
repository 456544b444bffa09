//! The merchant API under `/api/v1`. A key sees and changes only its own merchant's
//! bots, conversations and orders; anything else is a 404, as if it did not exist.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

use super::AppState;
use super::error::{ApiError, parse_json};
use crate::audit::{self, Actor, Entry, Scope};
use crate::channels::OutPayload;
use crate::conversation::{Event, Release, State as FsmState, StoredState, on_event};
use crate::conversations::{self, Conversation, Update};
use crate::idempotency;
use crate::outbox::{self, Author};
use crate::shop::orders::OrderStatus;
use crate::shop::{cart, catalog, messages, orders};

/// The authenticated merchant.
pub struct MerchantAuth(pub Uuid);

impl FromRequestParts<AppState> for MerchantAuth {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let key = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .ok_or(ApiError::Unauthorized)?;
        crate::merchant::authenticate(&state.pool, key)
            .await?
            .map(MerchantAuth)
            .ok_or(ApiError::Unauthorized)
    }
}

fn parse_id(raw: &str, what: &'static str) -> Result<Uuid, ApiError> {
    raw.parse().map_err(|_| ApiError::NotFound(what))
}

/// Optional JSON body: empty means defaults.
fn optional_body<T: serde::de::DeserializeOwned + Default>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        Ok(T::default())
    } else {
        parse_json(body)
    }
}

#[derive(Debug, Deserialize)]
pub struct ListQuery {
    bot: Option<String>,
    state: Option<String>,
    /// `me`: only conversations that need the merchant.
    needs: Option<String>,
    /// Text to look for in the contact or the transcript.
    q: Option<String>,
    limit: Option<i64>,
}

/// `GET /api/v1/conversations?bot=&state=&needs=me&q=&limit=`: the merchant's
/// conversations, each flagged when it needs them (escalated, a proof waiting,
/// a reply undelivered).
pub async fn list_conversations(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    let fsm_state = match &query.state {
        Some(s) => Some(
            s.parse::<StoredState>()
                .map_err(|e| ApiError::BadRequest(e.to_string()))?,
        ),
        None => None,
    };
    let needs_me = match query.needs.as_deref() {
        None => false,
        Some("me") => true,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "needs must be `me`, not `{other}`"
            )));
        }
    };
    let text = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty());
    if text.is_some_and(|q| q.chars().count() > 200) {
        return Err(ApiError::BadRequest(
            "q must be at most 200 characters".into(),
        ));
    }
    let filter = conversations::ListFilter {
        bot: query.bot.as_deref(),
        state: fsm_state,
        needs_me,
        text,
        limit: query.limit.unwrap_or(50).clamp(1, 500),
    };
    let items = conversations::list_for_merchant(&state.pool, merchant_id, &filter).await?;
    Ok(Json(json!({ "conversations": items })))
}

/// The conversation if it belongs to the merchant.
/// 404 unless the conversation belongs to the merchant.
async fn ensure_owned(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<(), ApiError> {
    if conversations::owned_by(&mut *conn, id, merchant_id).await? {
        Ok(())
    } else {
        Err(ApiError::NotFound("conversation"))
    }
}

/// The merchant's conversation, locked for the rest of the transaction.
async fn lock_owned(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<Conversation, ApiError> {
    ensure_owned(&mut *conn, merchant_id, id).await?;
    Ok(conversations::lock(conn, id).await?)
}

pub async fn get_conversation(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "conversation")?;
    let mut conn = state.pool.acquire().await?;
    ensure_owned(&mut conn, merchant_id, id).await?;
    let conversation = conversations::get(&mut *conn, id)
        .await?
        .ok_or(ApiError::NotFound("conversation"))?;
    let bot = crate::merchant::bot_by_id(&mut *conn, conversation.bot_id).await?;
    let contact = crate::contacts::by_id(&mut *conn, conversation.contact_id).await?;
    let transcript = crate::transcript::of_conversation(&mut *conn, id).await?;
    let catalog = catalog::load(&mut *conn, bot.id).await?;
    let cart = cart::load(&mut *conn, id).await?;
    let order = match orders::latest_for(&mut *conn, id).await? {
        Some(order) => {
            let items = orders::items(&mut *conn, order.id).await?;
            Some(json!({"order": order, "items": items}))
        }
        None => None,
    };
    let audit = audit::of_conversation(&mut *conn, id, 500).await?;
    Ok(Json(json!({
        "id": conversation.id,
        "bot": bot.slug,
        "state": conversation.fsm_state,
        "human_override": conversation.human_override,
        "override_by": conversation.override_by,
        "state_before_takeover": conversation.state_before_takeover,
        "version": conversation.version,
        "contact": contact,
        "transcript": transcript,
        "cart": {
            "lines": cart.lines().iter().map(|l| json!({
                "product_id": l.product_id, "name": catalog.name(l.product_id), "quantity": l.quantity,
                "unit_price_minor": l.unit_price_minor, "line_total_minor": l.line_total_minor(),
            })).collect::<Vec<_>>(),
            "total_minor": cart.total_minor(),
            "currency": bot.currency,
        },
        "order": order,
        "audit": audit,
    })))
}

fn scope(conversation: &Conversation) -> Scope {
    Scope {
        bot_id: conversation.bot_id,
        conversation_id: Some(conversation.id),
        inbox_id: None,
    }
}

/// Saves a merchant's change with its audit rows and commits.
async fn commit(
    mut tx: sqlx::Transaction<'_, sqlx::Postgres>,
    conversation: &Conversation,
    update: &Update,
    rows: &[Entry],
) -> Result<(), ApiError> {
    conversations::save(&mut tx, conversation, update).await?;
    audit::record(&mut tx, scope(conversation), rows).await?;
    tx.commit().await?;
    Ok(())
}

/// Trimmed text of 1..=max characters.
fn bounded_text<'a>(field: &str, value: &'a str, max: usize) -> Result<&'a str, ApiError> {
    let text = value.trim();
    if text.is_empty() || text.chars().count() > max {
        return Err(ApiError::BadRequest(format!(
            "`{field}` must be 1-{max} characters"
        )));
    }
    Ok(text)
}

fn summary(conversation_id: Uuid, update: &Update) -> Json<Value> {
    Json(json!({
        "id": conversation_id,
        "state": update.state.as_str(),
        "human_override": update.human_override,
    }))
}

pub async fn takeover(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "conversation")?;
    let mut tx = state.pool.begin().await?;
    let conversation = lock_owned(&mut tx, merchant_id, id).await?;
    let (update, rows) = conversations::takeover(
        &conversation,
        "merchant",
        Actor::Merchant,
        "merchant takeover",
    );
    if !rows.is_empty() {
        conversations::save(&mut tx, &conversation, &update).await?;
        audit::record(&mut tx, scope(&conversation), &rows).await?;
    }
    tx.commit().await?;
    Ok(summary(id, &update))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReleaseBody {
    to: Option<String>,
}

pub async fn release(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "conversation")?;
    let body: ReleaseBody = optional_body(&body?)?;
    let to_idle = match body.to.as_deref() {
        None => false,
        Some(s) if s.eq_ignore_ascii_case("IDLE") => true,
        Some(_) => return Err(ApiError::BadRequest("`to` may only be \"IDLE\"".into())),
    };
    let mut tx = state.pool.begin().await?;
    let conversation = lock_owned(&mut tx, merchant_id, id).await?;
    let (update, rows) = conversations::release(&conversation, to_idle, Actor::Merchant)
        .map_err(|e| ApiError::Conflict(e.to_string()))?;
    commit(tx, &conversation, &update, &rows).await?;
    Ok(summary(id, &update))
}

#[derive(Debug, Deserialize)]
struct ReplyBody {
    text: String,
}

/// A human message to the customer. Sent while the bot is active, it takes the
/// conversation over, so bot and human never talk at once. With an
/// `Idempotency-Key` header, a retried request answers the first one's result and
/// sends nothing again; the same key on a different request is a 422.
pub async fn reply(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let raw = body?;
    let key = match headers.get("idempotency-key") {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .filter(|k| idempotency::valid_key(k))
                .ok_or_else(|| {
                    ApiError::BadRequest(
                        "Idempotency-Key must be 1-200 visible ASCII characters".into(),
                    )
                })?
                .to_owned(),
        ),
    };
    let id = parse_id(&id, "conversation")?;
    let body: ReplyBody = parse_json(&raw)?;
    let text = bounded_text("text", &body.text, super::webchat::MAX_TEXT_CHARS)?;
    let mut tx = state.pool.begin().await?;
    let conversation = lock_owned(&mut tx, merchant_id, id).await?;
    if let Some(key) = &key {
        let request = idempotency::fingerprint(&[b"reply", id.as_bytes(), text.as_bytes()]);
        match idempotency::claim(&mut tx, merchant_id, key, &request).await? {
            idempotency::Claim::Fresh => {}
            idempotency::Claim::Replay(answer) => return Ok(Json(answer)),
            idempotency::Claim::Mismatch => {
                return Err(ApiError::Invalid {
                    error: "this Idempotency-Key was used for a different request".into(),
                    details: json!({"idempotency_key": key}),
                });
            }
        }
    }
    let (update, mut rows) = conversations::takeover(
        &conversation,
        "merchant",
        Actor::Merchant,
        "merchant replied",
    );
    let payload = OutPayload {
        text: text.to_owned(),
        choices: Vec::new(),
    };
    let outbox_id = outbox::enqueue(&mut tx, id, Author::Human, &payload, None).await?;
    rows.push(Entry::new(Actor::Merchant, "human_reply").detail(json!({"outbox_id": outbox_id})));
    let answer = json!({
        "id": id, "outbox_id": outbox_id, "state": update.state.as_str(), "human_override": update.human_override,
    });
    if let Some(key) = &key {
        idempotency::complete(&mut tx, merchant_id, key, &answer).await?;
    }
    commit(tx, &conversation, &update, &rows).await?;
    Ok(Json(answer))
}

/// Locks an order of this merchant and its conversation, in that order of checks.
async fn owned_order(
    conn: &mut PgConnection,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<(orders::Order, Conversation), ApiError> {
    let order = orders::by_id(&mut *conn, id)
        .await?
        .ok_or(ApiError::NotFound("order"))?;
    if crate::merchant::owner_of(&mut *conn, order.bot_id).await? != merchant_id {
        return Err(ApiError::NotFound("order"));
    }
    // Lock the conversation first, as turns do, then the order.
    let conversation = conversations::lock(conn, order.conversation_id).await?;
    let order = orders::lock(conn, id)
        .await?
        .ok_or(ApiError::NotFound("order"))?;
    if !order.status.is_open() {
        return Err(ApiError::Conflict(format!(
            "order is {}, not awaiting payment",
            order.status.as_str()
        )));
    }
    Ok((order, conversation))
}

/// Applies a payment event to the conversation, including one under takeover (the
/// state it returns to is updated instead).
fn payment_update(conversation: &Conversation, event: Event) -> Update {
    // Orders exist only in shop conversations; a state the event does not apply to
    // stays as it is.
    let step = |stored: StoredState| {
        let no_release = Release {
            before: None,
            to_idle: false,
        };
        FsmState::try_from(stored)
            .ok()
            .and_then(|state| on_event(state, event, no_release).ok())
            .map_or(stored, StoredState::from)
    };
    let mut update = Update::keep(conversation);
    if conversation.human_override {
        update.state_before_takeover = conversation.state_before_takeover().map(step);
    } else {
        update.state = step(conversation.state());
    }
    update
}

pub async fn approve_payment(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "order")?;
    let mut tx = state.pool.begin().await?;
    let (order, conversation) = owned_order(&mut tx, merchant_id, id).await?;
    orders::set_status(&mut tx, order.id, OrderStatus::Paid, None).await?;
    let update = payment_update(&conversation, Event::PaymentApproved);
    let text = messages::payment_approved(order.number, order.total_minor, &order.currency);
    let payload = OutPayload {
        text,
        choices: Vec::new(),
    };
    outbox::enqueue(&mut tx, conversation.id, Author::Human, &payload, None).await?;
    let mut rows = vec![
        Entry::new(Actor::Merchant, "event_detected")
            .action(Event::PaymentApproved.as_str())
            .detail(json!({"order_id": order.id, "order_number": order.number})),
    ];
    rows.extend(Entry::state_change(
        Actor::Merchant,
        conversation.state(),
        update.state,
        "payment approved",
    ));
    commit(tx, &conversation, &update, &rows).await?;
    Ok(Json(
        json!({"order_id": order.id, "status": OrderStatus::Paid, "conversation_state": update.state.as_str()}),
    ))
}

#[derive(Debug, Deserialize)]
struct RejectBody {
    reason: String,
}

pub async fn reject_payment(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "order")?;
    let body: RejectBody = parse_json(&body?)?;
    let reason = bounded_text("reason", &body.reason, 300)?;
    let mut tx = state.pool.begin().await?;
    let (order, conversation) = owned_order(&mut tx, merchant_id, id).await?;
    orders::set_status(
        &mut tx,
        order.id,
        OrderStatus::AwaitingPayment,
        Some(reason),
    )
    .await?;
    let update = payment_update(&conversation, Event::PaymentRejected);
    let payload = OutPayload {
        text: messages::payment_rejected(order.number, reason),
        choices: Vec::new(),
    };
    outbox::enqueue(&mut tx, conversation.id, Author::Human, &payload, None).await?;
    let rows = vec![
        Entry::new(Actor::Merchant, "event_detected")
            .action(Event::PaymentRejected.as_str())
            .reason(reason)
            .detail(json!({"order_id": order.id, "order_number": order.number})),
    ];
    commit(tx, &conversation, &update, &rows).await?;
    Ok(Json(
        json!({"order_id": order.id, "status": OrderStatus::AwaitingPayment}),
    ))
}

/// A bot of this merchant, or 404.
pub async fn owned_bot(
    state: &AppState,
    merchant_id: Uuid,
    slug: &str,
) -> Result<crate::merchant::Bot, ApiError> {
    crate::merchant::bot_by_slug(&state.pool, slug)
        .await?
        .filter(|bot| bot.merchant_id == merchant_id)
        .ok_or(ApiError::NotFound("bot"))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BotPatch {
    /// The LLM switch: false runs the bot on the offline rules (the rollback flag).
    agent_enabled: Option<bool>,
    /// Inactivity after which BROWSING, CART_OPEN and CHECKOUT return to IDLE.
    session_timeout_secs: Option<i32>,
    /// Time an order may wait for payment before it expires.
    payment_timeout_secs: Option<i32>,
    /// Shown to the customer when an order is confirmed.
    payment_instructions: Option<String>,
}

/// `PATCH /api/v1/bots/{slug}`: bot settings a merchant may change.
pub async fn update_bot(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let patch: BotPatch = parse_json(&body?)?;
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    let in_range = |name: &str, value: Option<i32>| match value {
        Some(v) if !(60..=30 * 24 * 3600).contains(&v) => Err(ApiError::BadRequest(format!(
            "`{name}` must be between 60 seconds and 30 days"
        ))),
        _ => Ok(()),
    };
    in_range("session_timeout_secs", patch.session_timeout_secs)?;
    in_range("payment_timeout_secs", patch.payment_timeout_secs)?;
    let instructions = match &patch.payment_instructions {
        Some(text) if text.trim().is_empty() => Some(String::new()),
        Some(text) => Some(bounded_text("payment_instructions", text, 500)?.to_owned()),
        None => None,
    };
    let updated = crate::merchant::update_settings(
        &state.pool,
        bot.id,
        &crate::merchant::BotSettings {
            agent_enabled: patch.agent_enabled,
            session_timeout_secs: patch.session_timeout_secs,
            payment_timeout_secs: patch.payment_timeout_secs,
            payment_instructions: instructions,
        },
    )
    .await?;
    state.bots.forget(&bot.slug);
    Ok(Json(json!({
        "bot": updated.slug,
        "agent_enabled": updated.agent_enabled,
        "session_timeout_secs": updated.session_timeout_secs,
        "payment_timeout_secs": updated.payment_timeout_secs,
        "payment_instructions": updated.payment_instructions,
    })))
}

/// `GET /api/v1/bots/{slug}/llm-usage`: LLM calls, tokens and estimated cost, by
/// outcome (`rules` and `over_budget` are turns answered without a call), and
/// today's use against the daily budget.
pub async fn llm_usage(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(slug): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    let rows = crate::llm_calls::usage(&state.pool, bot.id).await?;
    let total = |f: fn(&crate::llm_calls::Usage) -> i64| rows.iter().map(f).sum::<i64>();
    let (tokens_today, over_budget_today) =
        crate::llm_calls::today(&state.pool, bot.id, chrono::Utc::now()).await?;
    Ok(Json(json!({
        "bot": bot.slug,
        "today": {
            "tokens": tokens_today,
            "daily_budget_tokens": state.llm_daily_tokens,
            "over_budget": state.llm_daily_tokens.is_some_and(|b| tokens_today as u64 >= b),
            "turns_on_rules_over_budget": over_budget_today,
        },
        "calls": total(|r| r.calls),
        "prompt_tokens": total(|r| r.prompt_tokens),
        "completion_tokens": total(|r| r.completion_tokens),
        "cost_micros": total(|r| r.cost_micros),
        "by_outcome": rows,
    })))
}

impl From<crate::channels::credentials::SetupError> for ApiError {
    fn from(err: crate::channels::credentials::SetupError) -> Self {
        use crate::channels::credentials::SetupError;
        match err {
            SetupError::Invalid(why) => ApiError::BadRequest(why.into()),
            SetupError::PhoneTaken => ApiError::Conflict(err.to_string()),
            SetupError::Database(e) => e.into(),
            SetupError::Keys(e) => ApiError::Unexpected(anyhow::Error::new(e)),
        }
    }
}

async fn bot_summary(state: &AppState, bot: &crate::merchant::Bot) -> Result<Value, ApiError> {
    let channels = crate::channels::credentials::connected(&state.pool, bot.id).await?;
    Ok(json!({
        "slug": bot.slug,
        "name": bot.name,
        "currency": bot.currency,
        "agent_enabled": bot.agent_enabled,
        // Which channels are connected; secrets are never returned.
        "channels": channels.into_iter().map(|(channel, phone)| json!({"channel": channel, "phone_number_id": phone})).collect::<Vec<_>>(),
        "webhooks": {
            "telegram": format!("/webhooks/telegram/{}", bot.slug),
            "whatsapp": format!("/webhooks/whatsapp/{}", bot.slug),
            "webchat": format!("/webchat/{}/messages", bot.slug),
        },
    }))
}

/// `GET /api/v1/bots`.
pub async fn list_bots(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
) -> Result<Json<Value>, ApiError> {
    let slugs = crate::merchant::bot_slugs(&state.pool, merchant_id).await?;
    let mut bots = Vec::new();
    for slug in slugs {
        let bot = owned_bot(&state, merchant_id, &slug).await?;
        bots.push(bot_summary(&state, &bot).await?);
    }
    Ok(Json(json!({ "bots": bots })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewBot {
    slug: String,
    name: String,
    currency: String,
    #[serde(default)]
    payment_instructions: Option<String>,
    #[serde(default)]
    telegram: Option<crate::channels::credentials::TelegramSetup>,
    #[serde(default)]
    whatsapp: Option<crate::channels::credentials::WhatsAppSetup>,
}

/// `POST /api/v1/bots`: a new bot, with its channel credentials if given.
pub async fn create_bot(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(axum::http::StatusCode, Json<Value>), ApiError> {
    use crate::merchant::CreateBotError;
    let new: NewBot = parse_json(&body?)?;
    let mut tx = state.pool.begin().await?;
    let bot =
        crate::merchant::create_bot(&mut *tx, merchant_id, &new.slug, &new.name, &new.currency)
            .await
            .map_err(|e| match e {
                CreateBotError::Invalid(why) => ApiError::BadRequest(why.into()),
                CreateBotError::Taken => ApiError::Conflict(e.to_string()),
                CreateBotError::Database(e) => e.into(),
            })?;
    if let Some(instructions) = &new.payment_instructions {
        let instructions = bounded_text("payment_instructions", instructions, 500)?;
        crate::merchant::update_settings(
            &mut *tx,
            bot.id,
            &crate::merchant::BotSettings {
                payment_instructions: Some(instructions.to_owned()),
                ..Default::default()
            },
        )
        .await?;
    }
    if let Some(telegram) = &new.telegram {
        crate::channels::credentials::set_telegram(&mut *tx, bot.id, telegram).await?;
    }
    if let Some(whatsapp) = &new.whatsapp {
        crate::channels::credentials::set_whatsapp(&mut *tx, bot.id, whatsapp).await?;
    }
    tx.commit().await?;
    Ok((
        axum::http::StatusCode::CREATED,
        Json(bot_summary(&state, &bot).await?),
    ))
}

/// `PUT /api/v1/bots/{slug}/channels/{channel}`: connect or update a channel.
pub async fn set_channel(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path((slug, channel)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body = body?;
    let bot = owned_bot(&state, merchant_id, &slug).await?;
    match channel.as_str() {
        "telegram" => {
            let setup: crate::channels::credentials::TelegramSetup = parse_json(&body)?;
            crate::channels::credentials::set_telegram(&state.pool, bot.id, &setup).await?;
            state.bots.forget(&bot.slug);
        }
        "whatsapp" => {
            let setup: crate::channels::credentials::WhatsAppSetup = parse_json(&body)?;
            crate::channels::credentials::set_whatsapp(&state.pool, bot.id, &setup).await?;
            state.bots.forget(&bot.slug);
        }
        _ => return Err(ApiError::NotFound("channel")),
    }
    Ok(Json(bot_summary(&state, &bot).await?))
}
