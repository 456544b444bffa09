//! The shop half of `tendero eval`: turns against the demo shop, scored on the
//! actions proposed, the state reached and the cart left.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use sqlx::PgPool;

use super::{Recording, Report, ScriptTurn, audit_of, check_state, ingest, tokens_of};
use crate::agent::Proposer;
use crate::conversation::ForbiddenKind;
use crate::engine::{Engine, EngineSettings};

/// A change the script does not expect: the cart moved somewhere else than
/// expected, or an order was placed or called off when the script expects
/// another state. Asking back changes nothing, so it is never one.
fn wrong_effect(
    turn: &ScriptTurn,
    (cart_before, state_before): (&BTreeMap<String, i64>, &str),
    (cart, state): (&BTreeMap<String, i64>, &str),
) -> bool {
    let cart_wrong = turn
        .expect
        .cart
        .as_ref()
        .is_some_and(|expected| cart != cart_before && cart != expected);
    let order_moved = state != state_before
        && (state == "AWAITING_PAYMENT"
            || (matches!(state_before, "CHECKOUT" | "AWAITING_PAYMENT") && state == "IDLE"));
    let order_wrong = order_moved
        && turn
            .expect
            .state
            .as_ref()
            .is_some_and(|expected| !expected.eq_ignore_ascii_case(state));
    cart_wrong || order_wrong
}

/// Plays `scripts` (name, turns) against `proposer` on `pool`, which must hold the
/// shop's bot and nothing else of these conversations.
pub async fn run(
    pool: &PgPool,
    bot_id: uuid::Uuid,
    scripts: &[(String, Vec<ScriptTurn>)],
    proposer: Arc<dyn Proposer>,
    settings: EngineSettings,
) -> anyhow::Result<Report> {
    let bot = crate::merchant::bot_by_id(pool, bot_id).await?;
    let recording = Arc::new(Recording::new(proposer));
    let engine = Engine::new(pool.clone(), recording.clone(), settings);
    let skus: HashMap<i64, String> =
        sqlx::query_as("SELECT id, sku FROM products WHERE bot_id = $1")
            .bind(bot.id)
            .fetch_all(pool)
            .await?
            .into_iter()
            .collect();
    let forbidden: Vec<&str> = ForbiddenKind::ALL.iter().map(|k| k.as_str()).collect();
    let mut report = Report::default();
    // Each conversation's cart and state before its next turn.
    let mut before: HashMap<String, (BTreeMap<String, i64>, String)> = HashMap::new();
    for (script_name, turns) in scripts {
        for (index, turn) in turns.iter().enumerate() {
            let inbox_id = ingest(pool, &bot, script_name, index, turn).await?;
            engine.run_until_idle().await?;
            report.turns += 1;

            let proposal = recording
                .shop
                .lock()
                .expect("recording lock")
                .remove(&inbox_id);
            let (conversation_id, state): (uuid::Uuid, String) =
                sqlx::query_as("SELECT c.id, c.fsm_state FROM conversations c JOIN inbox i ON i.conversation_id = c.id WHERE i.id = $1")
                    .bind(inbox_id)
                    .fetch_one(pool)
                    .await?;
            let cart: BTreeMap<String, i64> = sqlx::query_as::<_, (String, i32)>(
                "SELECT p.sku, ci.quantity FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.conversation_id = $1",
            )
            .bind(conversation_id)
            .fetch_all(pool)
            .await?
            .into_iter()
            .map(|(sku, q)| (sku, i64::from(q)))
            .collect();
            let audit = audit_of(pool, inbox_id).await?;
            let rejected = report.tally(&audit, "action_executed", &forbidden);
            report.tokens += tokens_of(pool, inbox_id).await?;

            let mut problems = Vec::new();
            let proposed: Vec<(String, Option<String>, Option<i64>)> = match &proposal {
                Some((proposal, latency)) => {
                    report.proposed(*latency, !rejected);
                    proposal
                        .actions()
                        .iter()
                        .map(|a| {
                            (
                                a.kind.name().to_owned(),
                                a.product_id.given().and_then(|id| skus.get(id).cloned()),
                                a.quantity.given().copied(),
                            )
                        })
                        .collect()
                }
                None => Vec::new(),
            };
            if let Some(expected) = &turn.expect.actions {
                let matches = expected.len() == proposed.len()
                    && expected
                        .iter()
                        .zip(&proposed)
                        .all(|(e, (kind, sku, quantity))| {
                            e.kind.eq_ignore_ascii_case(kind)
                                && e.sku.as_ref().is_none_or(|s| Some(s) == sku.as_ref())
                                && e.quantity.is_none_or(|q| Some(q) == *quantity)
                        });
                if !matches {
                    problems.push(format!("actions {proposed:?}"));
                }
            }
            check_state(turn.expect.state.as_ref(), &state, &mut problems);
            if let Some(expected) = &turn.expect.cart
                && expected != &cart
            {
                problems.push(format!("cart {cart:?}, expected {expected:?}"));
            }
            if let Some(expected) = &turn.expect.actions {
                let first = |kind: Option<&str>| kind.unwrap_or("NONE").to_ascii_uppercase();
                report.intent(
                    &first(expected.first().map(|a| a.kind.as_str())),
                    &first(proposed.first().map(|(kind, ..)| kind.as_str())),
                );
            }
            let key = format!("{script_name}:{}", turn.conversation);
            let (cart_before, state_before) = before
                .insert(key, (cart.clone(), state.clone()))
                .unwrap_or_else(|| (BTreeMap::new(), "IDLE".into()));
            if wrong_effect(turn, (&cart_before, &state_before), (&cart, &state)) {
                report.wrong_effects += 1;
                problems.push("WRONG EFFECT".into());
            }
            report.score(script_name, index, turn, &problems, None);
        }
    }
    Ok(report)
}
