//! `/api/v1/conversations`: list and search, read whole, take over, release and
//! reply — each a thin door over `merchant::conversations`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{MerchantAuth, optional_body, parse_id};
use super::openapi::{Answer, Errors};
use crate::conversations::StoredState;
use crate::http::Web;
use crate::http::error::{ApiError, parse_json};
use crate::idempotency;
use crate::merchant::conversations::{self, Search};

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
    /// Rows to skip: the next page starts at the previous `offset + limit`.
    offset: Option<i64>,
}

/// `GET /api/v1/conversations?bot=&state=&needs=me&q=&limit=&offset=`: the merchant's
/// conversations, each flagged when it needs them (escalated, a proof waiting,
/// a reply undelivered).
#[utoipa::path(get, path = "/conversations", tag = "conversations", params(ListQuery),
    responses((status = 200, body = Answer, description = "`{conversations: [{id, bot, channel, state, human_override, contact_name, updated_at, escalated, proof_waiting, undelivered, last_message, order_number, order_total_minor, order_currency, updated_local, unread}]}`"), Errors))]
pub async fn list_conversations(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    let state = match &query.state {
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
    let search = Search {
        bot: query.bot,
        state,
        needs_me,
        text: query.q,
        limit: query.limit.unwrap_or(50),
        offset: query.offset.unwrap_or(0),
        pinned: false,
    };
    let items = conversations::list(&web.pool, merchant_id, &search).await?;
    Ok(Json(json!({ "conversations": items })))
}

#[utoipa::path(get, path = "/conversations/{id}", tag = "conversations", params(("id" = String, Path, description = "the id")),
    responses((status = 200, body = Answer, description = "state, override, contact, transcript with delivery status, cart, latest order, audit"), Errors))]
pub async fn get_conversation(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "conversation")?;
    let detail = conversations::detail(&web.pool, merchant_id, id, 500).await?;
    let conversation = &detail.conversation;
    Ok(Json(json!({
        "id": conversation.id,
        "bot": detail.bot.slug,
        "state": conversation.fsm_state,
        "human_override": conversation.human_override,
        "override_by": conversation.override_by,
        "state_before_takeover": conversation.state_before_takeover,
        "version": conversation.version,
        "contact": detail.contact,
        "transcript": detail.transcript,
        "cart": detail.cart,
        "order": detail.order,
        "audit": detail.audit,
    })))
}

#[utoipa::path(post, path = "/conversations/{id}/takeover", tag = "conversations", params(("id" = String, Path, description = "the id")),
    responses((status = 200, body = Answer, description = "`{id, state, human_override}`: the bot is silent from now on"), Errors))]
pub async fn takeover(
    MerchantAuth(merchant_id): MerchantAuth,
    State(web): State<Web>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_id(&id, "conversation")?;
    let handled = conversations::take_over(&web.pool, merchant_id, id).await?;
    Ok(Json(json!(handled)))
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
    State(web): State<Web>,
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
    let handled = conversations::hand_back(&web.pool, merchant_id, id, to_idle).await?;
    Ok(Json(json!(handled)))
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
    State(web): State<Web>,
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
    let replied =
        conversations::send_reply(&web.pool, merchant_id, id, &body.text, key.as_deref()).await?;
    Ok(Json(json!(replied)))
}
