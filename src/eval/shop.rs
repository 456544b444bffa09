//! The shop half of `tendero eval`: turns against the demo shop, scored on the
//! actions proposed, the state reached and the cart left.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use sqlx::PgPool;

use super::{Recording, Report, ScriptTurn, audit_of, check_state, ingest, tokens_of};
use crate::agent::Proposer;
use crate::conversation::ForbiddenKind;
use crate::engine::{Engine, EngineSettings};

/// The change a turn made to the cart: sku → quantity added (or, negative, taken).
fn delta(before: &BTreeMap<String, i64>, after: &BTreeMap<String, i64>) -> BTreeMap<String, i64> {
    before
        .keys()
        .chain(after.keys())
        .filter_map(|sku| {
            let change =
                after.get(sku).copied().unwrap_or(0) - before.get(sku).copied().unwrap_or(0);
            (change != 0).then(|| (sku.clone(), change))
        })
        .collect()
}

/// An executed change the script does not expect of this turn: the cart changed
/// other than by the script's own step (its expected cart against the cart it
/// expected before — so one missed turn does not make every later turn of that
/// conversation "wrong"), or an order was placed or dropped against the script.
fn wrong_effect(
    turn: &ScriptTurn,
    expected_before: &BTreeMap<String, i64>,
    (cart_before, state_before): (&BTreeMap<String, i64>, &str),
    (cart, state): (&BTreeMap<String, i64>, &str),
) -> bool {
    let cart_wrong = turn.expect.cart.as_ref().is_some_and(|expected| {
        cart != cart_before && delta(cart_before, cart) != delta(expected_before, expected)
    });
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
    // Each conversation's cart as the script last said it should be.
    let mut expected_carts: HashMap<String, BTreeMap<String, i64>> = HashMap::new();
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
                .insert(key.clone(), (cart.clone(), state.clone()))
                .unwrap_or_else(|| (BTreeMap::new(), "IDLE".into()));
            let expected_before = match &turn.expect.cart {
                Some(expected) => expected_carts.insert(key, expected.clone()),
                None => expected_carts.get(&key).cloned(),
            }
            .unwrap_or_else(|| cart_before.clone());
            if wrong_effect(
                turn,
                &expected_before,
                (&cart_before, &state_before),
                (&cart, &state),
            ) {
                report.wrong_effects += 1;
                problems.push("WRONG EFFECT".into());
            }
            report.score(script_name, index, turn, &problems, None);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cart(lines: &[(&str, i64)]) -> BTreeMap<String, i64> {
        lines.iter().map(|(s, q)| ((*s).to_owned(), *q)).collect()
    }

    fn turn(expected: &[(&str, i64)]) -> ScriptTurn {
        let expected: serde_json::Map<String, serde_json::Value> = expected
            .iter()
            .map(|(s, q)| ((*s).to_owned(), (*q).into()))
            .collect();
        serde_json::from_value(serde_json::json!({
            "conversation": "c", "message": "m", "expect": {"cart": expected}
        }))
        .unwrap()
    }

    #[test]
    fn the_right_step_after_a_missed_one_is_a_miss_not_a_wrong_effect() {
        // The script expected americano before; the proposer missed it, then added
        // the five croissants this turn asks for.
        let this = turn(&[("americano", 1), ("croissant", 5)]);
        let expected_before = cart(&[("americano", 1)]);
        let before = cart(&[]);
        let after = cart(&[("croissant", 5)]);
        assert!(!wrong_effect(
            &this,
            &expected_before,
            (&before, "BROWSING"),
            (&after, "CART_OPEN")
        ));
        // Adding something else, or the wrong amount, is a wrong effect.
        let after = cart(&[("croissant", 4)]);
        assert!(wrong_effect(
            &this,
            &expected_before,
            (&before, "BROWSING"),
            (&after, "CART_OPEN")
        ));
        let after = cart(&[("croissant", 5), ("matcha", 1)]);
        assert!(wrong_effect(
            &this,
            &expected_before,
            (&before, "BROWSING"),
            (&after, "CART_OPEN")
        ));
        // Changing nothing is never one.
        assert!(!wrong_effect(
            &this,
            &expected_before,
            (&before, "BROWSING"),
            (&before, "BROWSING")
        ));
    }
}
