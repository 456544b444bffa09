//! The shop profile (chat commerce, DESIGN §3): its pure core (states, actions,
//! matrix, events), the offline rules and the LLM's prompt under its contract,
//! the plan and apply steps of a turn, its tables (catalog, cart, orders,
//! payment proofs) and the Spanish a customer reads.

pub mod apply;
pub mod cart;
pub mod catalog;
pub mod catalog_csv;
pub mod contract;
pub mod core;
pub mod delivery;
pub mod effects;
pub mod knowledge;
pub mod memo;
pub mod messages;
pub mod orders;
pub mod payments;
pub mod plan;
pub mod prompt;
pub mod proposer;
pub mod reply;
pub mod rules;
pub mod stock;

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::PgPool;

pub use proposer::ShopProposer;

use self::apply::TurnInput;
use self::catalog::CatalogIndex;
use self::knowledge::answer::Library;
use self::knowledge::model::Model;
use self::plan::ShopSnapshot;
use crate::bots::ProfileKind;
use crate::engine::{Command, Decision, Profile, Turn, VersionedCache};

/// The shop, as the engine runs it.
pub struct Shop {
    pool: PgPool,
    proposer: Arc<ShopProposer>,
    /// Each bot's catalog as of its configuration version.
    catalogs: VersionedCache<CatalogIndex>,
    /// Each bot's knowledge vocabulary as of its configuration version.
    libraries: VersionedCache<Library>,
    /// Writes knowledge answers from passages and embeds, when a model is
    /// configured.
    model: Option<Arc<Model>>,
}

impl Shop {
    pub fn new(pool: PgPool, proposer: Arc<ShopProposer>) -> Self {
        Shop {
            pool,
            proposer,
            catalogs: VersionedCache::default(),
            libraries: VersionedCache::default(),
            model: None,
        }
    }

    /// Knowledge answers written by a model from the passages found (checked,
    /// with the passage itself as the last resort), and embeddings for search
    /// when the server offers them.
    pub fn with_model(mut self, model: Option<Arc<Model>>) -> Self {
        self.model = model;
        self
    }
}

#[async_trait]
impl Profile for Shop {
    fn kind(&self) -> ProfileKind {
        ProfileKind::Shop
    }

    async fn decide(&self, turn: &Turn<'_>) -> anyhow::Result<Decision> {
        let bot_id = turn.bot.id;
        let catalog = self
            .catalogs
            .get(bot_id, turn.snapshot.config_version, || async {
                // Read after the snapshot: at least as new as its version.
                let mut catalog = catalog::load(&self.pool, bot_id).await?;
                catalog.zones = delivery::zones(&self.pool, bot_id).await?;
                Ok::<_, sqlx::Error>((turn.snapshot.config_version, catalog))
            })
            .await?;
        // Stock moves without a catalog change: what is left is read now, and only
        // for shops that count it.
        let catalog = if catalog.tracks_stock() {
            let levels = catalog::stock_levels(&self.pool, bot_id).await?;
            Arc::new(catalog.with_stock(&levels))
        } else {
            catalog
        };
        let version = turn.snapshot.config_version;
        let library = self
            .libraries
            .get(bot_id, version, || async {
                let library = Library::load(&self.pool, bot_id, &catalog).await?;
                Ok::<_, sqlx::Error>((version, library))
            })
            .await?;
        let desk = knowledge::Desk {
            pool: &self.pool,
            bot_id,
            config_version: version,
            catalog: &catalog,
            library: &library,
            currency: &turn.bot.currency,
            model: self.model.as_deref(),
            context: &turn.call_context(),
        };
        let read = ShopSnapshot::read(turn.snapshot)?;
        // «¿Y mi pedido?» with nothing in the cart: the latest order answers it.
        let asked_order = match &turn.burst.command {
            Command::Message(payload)
                if read.cart.is_empty() && rules::asks_order_status(&payload.text) =>
            {
                orders::latest_for(&self.pool, turn.snapshot.conversation.id).await?
            }
            _ => None,
        };
        let plan = plan::plan(
            self.proposer.as_ref(),
            turn,
            &catalog,
            &read.cart,
            &desk,
            asked_order.as_ref(),
        )
        .await?;
        let input = TurnInput::new(turn, &catalog, read.open_order.as_ref());
        Ok(apply::apply(&input, plan))
    }

    async fn sweep(&self) -> anyhow::Result<u64> {
        let queued = orders::queue_payment_timeouts(&self.pool).await?;
        // Chores beside the timers: embeddings for new or edited knowledge, and
        // answers cached before yesterday.
        if let Some(model) = &self.model {
            knowledge::embed_waiting(&self.pool, model, 64).await?;
        }
        let yesterday = chrono::Utc::now().date_naive() - chrono::Days::new(1);
        knowledge::cache::purge(&self.pool, yesterday).await?;
        Ok(queued)
    }
}
