//! The merchant's conversations: list and search, read whole, take over, release
//! and reply.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::AppState;
use super::error::{ApiError, parse_json};
use super::merchant::{MerchantAuth, bounded_text, optional_body, parse_id};
use super::openapi::{Answer, Errors};
use crate::audit::{self, Actor, Entry, Scope};
use crate::channels::OutPayload;
use crate::conversation::StoredState;
use crate::conversations::{self, Conversation, Update};
use crate::idempotency;
use crate::outbox::{self, Author};
use crate::shop::{cart, catalog, orders};

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
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
#[utoipa::path(get, path = "/conversations", tag = "conversations", params(ListQuery),
    responses((status = 200, body = Answer, description = "`{conversations: [{id, bot, channel, state, human_override, contact_name, updated_at, escalated, proof_waiting, undelivered}]}`"), Errors))]
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

#[utoipa::path(get, path = "/conversations/{id}", tag = "conversations", params(("id" = String, Path, description = "the id")),
    responses((status = 200, body = Answer, description = "state, override, contact, transcript with delivery status, cart, latest order, audit"), Errors))]
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

pub(super) fn scope(conversation: &Conversation) -> Scope {
    Scope {
        bot_id: conversation.bot_id,
        conversation_id: Some(conversation.id),
        inbox_id: None,
    }
}

/// Saves a merchant's change with its audit rows and commits.
pub(super) async fn commit(
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

fn summary(conversation_id: Uuid, update: &Update) -> Json<Value> {
    Json(json!({
        "id": conversation_id,
        "state": update.state.as_str(),
        "human_override": update.human_override,
    }))
}

#[utoipa::path(post, path = "/conversations/{id}/takeover", tag = "conversations", params(("id" = String, Path, description = "the id")),
    responses((status = 200, body = Answer, description = "`{id, state, human_override}`: the bot is silent from now on"), Errors))]
pub async fn takeover(
    MerchantAuth(merchant_id): MerchantAuth,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "conversation")?;
    let update = take_over(&state.pool, merchant_id, id).await?;
    Ok(summary(id, &update))
}

/// The merchant takes the conversation: the bot goes silent (a no-op if it is).
pub async fn take_over(pool: &PgPool, merchant_id: Uuid, id: Uuid) -> Result<Update, ApiError> {
    let mut tx = pool.begin().await?;
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
    Ok(update)
}

#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct ReleaseBody {
    to: Option<String>,
}

#[utoipa::path(post, path = "/conversations/{id}/release", tag = "conversations", params(("id" = String, Path, description = "the id")),
    request_body(content = Option<ReleaseBody>, description = "empty, or `{\"to\": \"IDLE\"}`"),
    responses((status = 200, body = Answer, description = "`{id, state, human_override}`"), Errors))]
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
    let update = hand_back(&state.pool, merchant_id, id, to_idle).await?;
    Ok(summary(id, &update))
}

/// The bot takes the conversation back: at the state it was taken from, or IDLE.
pub async fn hand_back(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    to_idle: bool,
) -> Result<Update, ApiError> {
    let mut tx = pool.begin().await?;
    let conversation = lock_owned(&mut tx, merchant_id, id).await?;
    let (update, rows) = conversations::release(&conversation, to_idle, Actor::Merchant)
        .map_err(|e| ApiError::Conflict(e.to_string()))?;
    commit(tx, &conversation, &update, &rows).await?;
    Ok(update)
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct ReplyBody {
    text: String,
}

/// A human message to the customer. Sent while the bot is active, it takes the
/// conversation over, so bot and human never talk at once. With an
/// `Idempotency-Key` header, a retried request answers the first one's result and
/// sends nothing again; the same key on a different request is a 422.
#[utoipa::path(post, path = "/conversations/{id}/reply", tag = "conversations",
    params(("id" = String, Path, description = "the id"), ("Idempotency-Key" = Option<String>, Header, description = "a retry with the same key sends nothing again")),
    request_body = ReplyBody,
    responses((status = 200, body = Answer, description = "`{id, outbox_id, state, human_override}`"), Errors))]
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
    send_reply(&state.pool, merchant_id, id, &body.text, key.as_deref())
        .await
        .map(Json)
}

/// A human message to the customer, taking the conversation over; with a key, at
/// most once.
pub async fn send_reply(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    text: &str,
    key: Option<&str>,
) -> Result<Value, ApiError> {
    let text = bounded_text("text", text, super::webchat::MAX_TEXT_CHARS)?;
    let mut tx = pool.begin().await?;
    let conversation = lock_owned(&mut tx, merchant_id, id).await?;
    if let Some(key) = key {
        let request = idempotency::fingerprint(&[b"reply", id.as_bytes(), text.as_bytes()]);
        match idempotency::claim(&mut tx, merchant_id, key, &request).await? {
            idempotency::Claim::Fresh => {}
            idempotency::Claim::Replay(answer) => return Ok(answer),
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
    if let Some(key) = key {
        idempotency::complete(&mut tx, merchant_id, key, &answer).await?;
    }
    commit(tx, &conversation, &update, &rows).await?;
    Ok(answer)
}
