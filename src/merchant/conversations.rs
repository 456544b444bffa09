//! The merchant's conversations: list and search them, read one whole, take it
//! over (the bot goes silent), hand it back, and answer the customer as a person.

use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use super::{MerchantError, Result, bounded_text, ensure_conversation};
use crate::audit::{self, Actor, Entry, Kind, Scope};
use crate::bots::Bot;
use crate::channels::{ChannelKind, OutPayload};
use crate::contacts::ContactView;
use crate::conversations::{self, Conversation, ListFilter, Listed, StoredState, Update};
use crate::idempotency;
use crate::outbox::{self, Author};
use crate::shop::orders::{Order, OrderItem};
use crate::shop::payments::Proof;
use crate::shop::{cart, catalog, orders, payments as proofs};
use crate::transcript::TranscriptLine;

/// Longest text a merchant may send in one reply.
pub const MAX_REPLY_CHARS: usize = 4096;

/// Which of the merchant's conversations to list.
#[derive(Debug, Clone, Default)]
pub struct Search {
    pub bot: Option<String>,
    pub state: Option<StoredState>,
    /// Only those that need the merchant: escalated, a proof waiting, undelivered.
    pub needs_me: bool,
    /// Text in the contact's name or id, or anywhere in the transcript.
    pub text: Option<String>,
    pub limit: i64,
    /// Rows skipped: a page after the first.
    pub offset: i64,
    /// Chats waiting for a person, then proofs to review, before the rest.
    pub pinned: bool,
}

/// The merchant's conversations, most recently changed first.
pub async fn list(pool: &PgPool, merchant_id: Uuid, search: &Search) -> Result<Vec<Listed>> {
    let text = search
        .text
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty());
    if text.is_some_and(|q| q.chars().count() > 200) {
        return Err(MerchantError::invalid(
            "q",
            "q must be at most 200 characters",
            "Busca con 200 caracteres como máximo.",
        ));
    }
    let filter = ListFilter {
        bot: search.bot.as_deref(),
        state: search.state,
        needs_me: search.needs_me,
        text,
        limit: search.limit.clamp(1, 500),
        offset: search.offset.clamp(0, 1_000_000),
        pinned: search.pinned,
    };
    Ok(conversations::list_for_merchant(pool, merchant_id, &filter).await?)
}

/// Whether the conversation is one of the merchant's.
pub async fn is_theirs(pool: &PgPool, merchant_id: Uuid, id: Uuid) -> Result<bool> {
    Ok(conversations::owned_by(pool, id, merchant_id).await?)
}

/// The open cart, with the catalog's names and the bot's currency.
#[derive(Debug, Clone, Serialize)]
pub struct CartView {
    #[serde(flatten)]
    pub cart: crate::shop::contract::CartView,
    pub currency: String,
}

/// The latest order with its lines and proofs of payment.
#[derive(Debug, Clone, Serialize)]
pub struct OrderView {
    pub order: Order,
    pub items: Vec<OrderItem>,
    #[serde(skip)]
    pub proofs: Vec<Proof>,
}

/// A conversation as the merchant reads it.
pub struct Detail {
    pub conversation: Conversation,
    pub bot: Bot,
    pub contact: ContactView,
    pub transcript: Vec<TranscriptLine>,
    pub cart: CartView,
    pub order: Option<OrderView>,
    /// The customer's earlier orders, newest first (the latest is `order`).
    pub past_orders: Vec<crate::shop::orders::Order>,
    /// The latest audit rows, oldest first.
    pub audit: Vec<audit::Row>,
}

/// The merchant's team saw everything in the conversation so far.
pub async fn mark_seen(pool: &PgPool, merchant_id: Uuid, id: Uuid) -> Result<()> {
    let mut conn = pool.acquire().await?;
    ensure_conversation(&mut conn, merchant_id, id).await?;
    Ok(conversations::reads::mark_seen(&mut *conn, id).await?)
}

/// The merchant's conversation, read now.
pub async fn state(pool: &PgPool, merchant_id: Uuid, id: Uuid) -> Result<Conversation> {
    let mut conn = pool.acquire().await?;
    ensure_conversation(&mut conn, merchant_id, id).await?;
    conversations::get(&mut *conn, id)
        .await?
        .ok_or(MerchantError::NotFound("conversation"))
}

/// The transcript, with each message's delivery.
pub async fn transcript(pool: &PgPool, merchant_id: Uuid, id: Uuid) -> Result<Vec<TranscriptLine>> {
    let mut conn = pool.acquire().await?;
    ensure_conversation(&mut conn, merchant_id, id).await?;
    Ok(crate::transcript::of_conversation(&mut *conn, id).await?)
}

/// The open cart and the latest order.
pub async fn order_and_cart(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
) -> Result<(Conversation, CartView, Option<OrderView>)> {
    let conversation = state(pool, merchant_id, id).await?;
    let bot = crate::bots::by_id(pool, conversation.bot_id).await?;
    let (cart, order) = cart_and_order(pool, &bot, id).await?;
    Ok((conversation, cart, order))
}

async fn cart_and_order(
    pool: &PgPool,
    bot: &Bot,
    id: Uuid,
) -> Result<(CartView, Option<OrderView>)> {
    let catalog = catalog::load(pool, bot.id).await?;
    let cart = cart::load(pool, id).await?;
    let cart = CartView {
        cart: crate::shop::contract::CartView::of(&cart, &catalog),
        currency: bot.currency.clone(),
    };
    let order = match orders::latest_for(pool, id).await? {
        Some(order) => Some(OrderView {
            items: orders::items(pool, order.id).await?,
            proofs: proofs::proofs_of(pool, order.id).await?,
            order,
        }),
        None => None,
    };
    Ok((cart, order))
}

/// The whole conversation, with its latest `audit_limit` audit rows.
pub async fn detail(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    audit_limit: i64,
) -> Result<Detail> {
    let conversation = state(pool, merchant_id, id).await?;
    let bot = crate::bots::by_id(pool, conversation.bot_id).await?;
    let contact = crate::contacts::by_id(pool, conversation.contact_id).await?;
    let transcript = crate::transcript::of_conversation(pool, id).await?;
    let (cart, order) = cart_and_order(pool, &bot, id).await?;
    let past_orders = orders::of_conversation(pool, id, 21)
        .await?
        .into_iter()
        .skip(1)
        .collect();
    let audit = audit::of_conversation(pool, id, audit_limit).await?;
    Ok(Detail {
        conversation,
        bot,
        contact,
        transcript,
        cart,
        order,
        past_orders,
        audit,
    })
}

/// A conversation's audit rows, newest first: of one kind if given, older than
/// `before`.
pub async fn audit_trail(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    kind: Option<Kind>,
    before: Option<i64>,
    limit: i64,
) -> Result<Vec<audit::Row>> {
    let mut conn = pool.acquire().await?;
    ensure_conversation(&mut conn, merchant_id, id).await?;
    Ok(audit::query(&mut *conn, id, kind, before, limit.clamp(1, 1000)).await?)
}

/// Where a conversation stands after a merchant's change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Handled {
    pub id: Uuid,
    pub state: StoredState,
    pub human_override: bool,
}

impl Handled {
    fn of(id: Uuid, update: &Update) -> Self {
        Handled {
            id,
            state: update.state,
            human_override: update.human_override,
        }
    }
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
) -> Result<()> {
    conversations::save(&mut tx, conversation, update).await?;
    audit::record(&mut tx, scope(conversation), rows).await?;
    tx.commit().await?;
    Ok(())
}

/// The merchant takes the conversation: the bot goes silent (a no-op if it is).
pub async fn take_over(pool: &PgPool, merchant_id: Uuid, id: Uuid) -> Result<Handled> {
    let mut tx = pool.begin().await?;
    ensure_conversation(&mut tx, merchant_id, id).await?;
    let conversation = conversations::lock(&mut tx, id).await?;
    let (update, rows) = crate::handoff::takeover(
        &conversation,
        "merchant",
        Actor::Merchant,
        "merchant takeover",
    );
    if rows.is_empty() {
        tx.commit().await?;
    } else {
        commit(tx, &conversation, &update, &rows).await?;
    }
    Ok(Handled::of(id, &update))
}

/// Back to the bot: to the state before the takeover, or from the start.
pub async fn hand_back(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    to_idle: bool,
) -> Result<Handled> {
    let mut tx = pool.begin().await?;
    ensure_conversation(&mut tx, merchant_id, id).await?;
    let conversation = conversations::lock(&mut tx, id).await?;
    let (update, rows) = crate::handoff::release(&conversation, to_idle, Actor::Merchant)
        .map_err(|_| MerchantError::NotTakenOver)?;
    commit(tx, &conversation, &update, &rows).await?;
    Ok(Handled::of(id, &update))
}

/// What a reply did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Replied {
    pub id: Uuid,
    pub outbox_id: i64,
    pub state: StoredState,
    pub human_override: bool,
}

/// A human message to the customer. Sent while the bot is active, it takes the
/// conversation over, so bot and human never talk at once. With an idempotency
/// `key`, a retry answers the first one's result and sends nothing again.
pub async fn send_reply(
    pool: &PgPool,
    merchant_id: Uuid,
    id: Uuid,
    text: &str,
    key: Option<&str>,
) -> Result<Replied> {
    let text = bounded_text("text", text, MAX_REPLY_CHARS)?;
    let mut tx = pool.begin().await?;
    ensure_conversation(&mut tx, merchant_id, id).await?;
    let conversation = conversations::lock(&mut tx, id).await?;
    if let Some(key) = key {
        let request = idempotency::fingerprint(&[b"reply", id.as_bytes(), text.as_bytes()]);
        match idempotency::claim(&mut tx, merchant_id, key, &request).await? {
            idempotency::Claim::Fresh => {}
            idempotency::Claim::Replay(answer) => {
                return serde_json::from_value(answer)
                    .map_err(|e| MerchantError::Unexpected(e.into()));
            }
            idempotency::Claim::Mismatch => {
                return Err(MerchantError::KeyReused { key: key.into() });
            }
        }
    }
    let (update, mut rows) = crate::handoff::takeover(
        &conversation,
        "merchant",
        Actor::Merchant,
        "merchant replied",
    );
    let payload = OutPayload {
        template: None,
        text: text.to_owned(),
        choices: Vec::new(),
        file: None,
    };
    let outbox_id = outbox::enqueue(&mut tx, id, Author::Human, &payload, None).await?;
    rows.push(
        Entry::new(Actor::Merchant, Kind::HumanReply).detail(json!({"outbox_id": outbox_id})),
    );
    let replied = Replied {
        id,
        outbox_id,
        state: update.state,
        human_override: update.human_override,
    };
    if let Some(key) = key {
        idempotency::complete(&mut tx, merchant_id, key, &json!(replied)).await?;
    }
    commit(tx, &conversation, &update, &rows).await?;
    Ok(replied)
}

/// The merchant answered a customer from the WhatsApp Business app (the platform
/// echoes it): a person is handling this conversation, so the bot goes silent,
/// and what they wrote joins the transcript.
pub async fn answered_from_phone(
    pool: &PgPool,
    bot: &Bot,
    customer: &str,
    text: &str,
) -> Result<()> {
    let mut tx = pool.begin().await?;
    let conversation_id =
        conversations::ensure_conversation(&mut tx, bot.id, ChannelKind::Whatsapp, customer)
            .await?;
    let conversation = conversations::lock(&mut tx, conversation_id).await?;
    let (update, mut rows) = crate::handoff::takeover(
        &conversation,
        "merchant",
        Actor::Merchant,
        "merchant replied from the WhatsApp Business app",
    );
    if !rows.is_empty() {
        conversations::save(&mut tx, &conversation, &update).await?;
    }
    if !text.is_empty() {
        crate::transcript::record_human(&mut *tx, conversation.bot_id, conversation_id, text)
            .await?;
    }
    rows.push(Entry::new(Actor::Merchant, Kind::PhoneEcho));
    let scope = Scope {
        bot_id: bot.id,
        conversation_id: Some(conversation_id),
        inbox_id: None,
    };
    audit::record(&mut tx, scope, &rows).await?;
    tx.commit().await?;
    Ok(())
}
