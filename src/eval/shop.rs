//! The shop half of `tendero eval`: turns against the demo shop, scored on the
//! actions proposed, the state reached and the cart left.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use sqlx::PgPool;

use super::oracle::Oracle;
use super::{
    AuditRow, Recording, Report, ScriptTurn, Setup, audit_of, check_state, ingest, reply_of,
    tokens_of,
};
use crate::engine::{Engine, EngineSettings};
use crate::shop::core::ForbiddenKind;

/// A cart change, or an order placed or dropped.
fn effect(
    (cart_before, state_before): (&BTreeMap<String, i64>, &str),
    (cart, state): (&BTreeMap<String, i64>, &str),
) -> bool {
    cart != cart_before
        || (state != state_before
            && (state == "AWAITING_PAYMENT"
                || (matches!(state_before, "CHECKOUT" | "AWAITING_PAYMENT") && state == "IDLE")))
}

/// On a turn that began where the script expects, an effect the script does not
/// expect: the cart left other than expected, or an order placed or called off
/// when the script expects another state. Asking back changes nothing, so it is
/// never one.
fn wrong_effect(
    turn: &ScriptTurn,
    before: (&BTreeMap<String, i64>, &str),
    after: (&BTreeMap<String, i64>, &str),
) -> bool {
    if !effect(before, after) {
        return false;
    }
    let cart_wrong = after.0 != before.0
        && turn
            .expect
            .cart
            .as_ref()
            .is_some_and(|expected| after.0 != expected);
    let state_wrong = after.1 != before.1
        && turn
            .expect
            .state
            .as_ref()
            .is_some_and(|expected| !expected.eq_ignore_ascii_case(after.1));
    cart_wrong || state_wrong
}

/// Whether a script line expects more actions than one proposal may hold.
fn beyond_the_limit(turn: &ScriptTurn) -> bool {
    turn.expect
        .actions
        .as_ref()
        .is_some_and(|a| a.len() > crate::proposal::MAX_ACTIONS)
}

/// The lines of the conversation's order awaiting payment (its proof sent or
/// not: the state is AWAITING_PAYMENT either way), by sku.
async fn open_order_lines(
    pool: &PgPool,
    conversation_id: uuid::Uuid,
) -> sqlx::Result<BTreeMap<String, i64>> {
    let rows: Vec<(String, i32)> = sqlx::query_as(
        "SELECT p.sku, oi.quantity FROM orders o \
         JOIN order_items oi ON oi.order_id = o.id \
         JOIN products p ON p.id = oi.product_id \
         WHERE o.conversation_id = $1 \
           AND o.status IN ('awaiting_payment', 'proof_received')",
    )
    .bind(conversation_id)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(sku, q)| (sku, i64::from(q)))
        .collect())
}

/// The backend's refusals of a turn, as a miss shows them («refused
/// ADD_TO_CART: not_grounded …»), so a false refusal is seen at once.
fn refusals(audit: &[AuditRow]) -> Vec<String> {
    audit
        .iter()
        .filter(|row| row.kind == crate::audit::Kind::ActionRejected)
        .map(|row| {
            format!(
                "refused {} ({}: {})",
                row.action.as_deref().unwrap_or("?"),
                row.code.as_deref().unwrap_or("unknown"),
                row.detail["value"]
            )
        })
        .collect()
}

/// The actions a script line expects, as a model would propose them. A line
/// that leaves them out (several sequences would be right) gets the plainest
/// one that takes the script's cart and state from the line before to this
/// line's: removals, then changed lines, then additions, or the one action a
/// state change stands for.
fn expected_proposal(
    turn: &ScriptTurn,
    ids: &HashMap<&str, i64>,
    zones: &HashMap<String, i64>,
    before: &(BTreeMap<String, i64>, String),
) -> Vec<serde_json::Value> {
    let action = |kind: &str, sku: Option<&str>, quantity: Option<i64>| {
        let mut params = serde_json::Map::new();
        if let Some(expected) = turn
            .expect
            .actions
            .iter()
            .flatten()
            .find(|a| a.kind == kind && a.kind == "SET_FULFILMENT")
        {
            if let Some(mode) = &expected.mode {
                params.insert("mode".into(), mode.as_str().into());
            }
            if let Some(zone) = &expected.zone {
                // A place that is no zone is named as the customer said it.
                let id = zones.get(&zone.to_lowercase());
                params.insert(
                    "zone_id".into(),
                    id.map_or_else(|| zone.as_str().into(), |id| (*id).into()),
                );
            }
            if let Some(address) = &expected.address {
                params.insert("address".into(), address.as_str().into());
            }
        }
        if let Some(offered) = turn
            .expect
            .actions
            .iter()
            .flatten()
            .find(|a| a.kind == kind)
            .and_then(|a| a.candidates.as_ref())
        {
            let ids: Vec<i64> = offered
                .iter()
                .filter_map(|s| ids.get(s.as_str()).copied())
                .collect();
            params.insert("candidates".into(), ids.into());
        }
        if let Some(id) = sku.and_then(|sku| ids.get(sku)) {
            params.insert("product_id".into(), (*id).into());
        }
        if let Some(q) = quantity {
            params.insert("quantity".into(), q.into());
        }
        serde_json::json!({"type": kind, "params": params})
    };
    if let Some(actions) = &turn.expect.actions {
        // A model sets the way before it confirms («sí, confirmo, paso a
        // recoger»), whatever order the script wrote them in.
        let mut actions: Vec<serde_json::Value> = actions
            .iter()
            .map(|a| action(&a.kind, a.sku.as_deref(), a.quantity))
            .collect();
        // More than one proposal holds: as a model would, one line per
        // product («Ana: capuchino … Vivi: capuchino» is 2 × Capuchino), then
        // the first five.
        if actions.len() > crate::proposal::MAX_ACTIONS {
            let mut merged: Vec<serde_json::Value> = Vec::new();
            for a in actions {
                let same = merged.iter_mut().find(|m| {
                    a["type"] == "ADD_TO_CART"
                        && m["type"] == "ADD_TO_CART"
                        && m["params"]["product_id"] == a["params"]["product_id"]
                });
                match same {
                    Some(m) => {
                        let total = m["params"]["quantity"].as_i64().unwrap_or(1)
                            + a["params"]["quantity"].as_i64().unwrap_or(1);
                        m["params"]["quantity"] = total.into();
                    }
                    None => merged.push(a),
                }
            }
            actions = merged;
            actions.truncate(crate::proposal::MAX_ACTIONS);
        }
        return super::way_first(&actions, |a| a["type"].as_str().unwrap_or_default());
    }
    let (cart, state) = before;
    let to_state = turn
        .expect
        .state
        .clone()
        .unwrap_or_else(|| state.clone())
        .to_ascii_uppercase();
    let to_cart = turn.expect.cart.clone().unwrap_or_else(|| cart.clone());
    let state = state.to_ascii_uppercase();
    let mut out = Vec::new();
    match (state.as_str(), to_state.as_str()) {
        (_, "HUMAN_TAKEOVER") => return vec![action("ESCALATE", None, None)],
        ("CHECKOUT", "AWAITING_PAYMENT") => return vec![action("CONFIRM_ORDER", None, None)],
        ("CART_OPEN" | "CHECKOUT" | "AWAITING_PAYMENT", "IDLE") if to_cart.is_empty() => {
            return vec![action("CANCEL_ORDER", None, None)];
        }
        _ => {}
    }
    for sku in cart.keys().filter(|sku| !to_cart.contains_key(*sku)) {
        out.push(action("REMOVE_ITEM", Some(sku), None));
    }
    for (sku, q) in &to_cart {
        match cart.get(sku) {
            Some(had) if had == q => {}
            Some(had) if q < had => out.push(action("UPDATE_QUANTITY", Some(sku), Some(*q))),
            Some(had) => out.push(action("ADD_TO_CART", Some(sku), Some(q - had))),
            None => out.push(action("ADD_TO_CART", Some(sku), Some(*q))),
        }
    }
    if out.is_empty() {
        out.push(match (state.as_str(), to_state.as_str()) {
            ("CART_OPEN", "CHECKOUT") => action("REVIEW_ORDER", None, None),
            ("IDLE", "BROWSING") => action("SHOW_CATALOG", None, None),
            _ => action("CLARIFY", None, None),
        });
    }
    out.truncate(crate::proposal::MAX_ACTIONS);
    out
}

/// Whether a proposed addition or new total does what the script's other
/// one says, on a line the cart held: adding 1 to 2 brownies is setting them
/// to 3 («otro más» is written either way).
fn same_effect(
    expected: &super::ExpectedAction,
    kind: &str,
    sku: Option<&str>,
    quantity: Option<i64>,
    had: &BTreeMap<String, i64>,
) -> bool {
    let (Some(sku), Some(quantity), Some(wanted)) = (sku, quantity, expected.quantity) else {
        return false;
    };
    let Some(&held) = had.get(sku).filter(|q| **q > 0) else {
        return false;
    };
    if expected.sku.as_deref() != Some(sku) {
        return false;
    }
    let (expected_kind, kind) = (
        expected.kind.to_ascii_uppercase(),
        kind.to_ascii_uppercase(),
    );
    match (expected_kind.as_str(), kind.as_str()) {
        ("UPDATE_QUANTITY", "ADD_TO_CART") => held + quantity == wanted,
        ("ADD_TO_CART", "UPDATE_QUANTITY") => held + wanted == quantity,
        _ => false,
    }
}

/// Plays `scripts` (name, turns) against `proposer` on `pool`, which must hold the
/// shop's bot and nothing else of these conversations.
pub async fn run(
    pool: &PgPool,
    bot_id: uuid::Uuid,
    scripts: &[(String, Vec<ScriptTurn>)],
    proposer: Arc<crate::shop::ShopProposer>,
    settings: EngineSettings,
    oracle: Option<&Oracle>,
) -> anyhow::Result<Report> {
    let bot = crate::bots::by_id(pool, bot_id).await?;
    let recording: Arc<Recording<crate::shop::proposer::ShopContract>> =
        Arc::new(Recording::new(proposer));
    let proposers = crate::startup::Proposers::shop(recording.clone());
    let engine = Engine::new(
        pool.clone(),
        crate::startup::profiles(pool, &proposers),
        settings,
    );
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
    // Each conversation's cart and state as the script last said they should be.
    type Expected = (Option<BTreeMap<String, i64>>, Option<String>);
    let mut expected: HashMap<String, Expected> = HashMap::new();
    let ids: HashMap<&str, i64> = skus.iter().map(|(id, sku)| (sku.as_str(), *id)).collect();
    // Each conversation's cart and state as its script wrote them, for the
    // oracle's plainest reading of a line without actions.
    let mut written: HashMap<String, (BTreeMap<String, i64>, String)> = HashMap::new();
    // How the shop was loaded delivers: what a script without its own setup gets.
    let as_loaded = super::SetupDelivery {
        pickup: bot.pickup_enabled,
        delivery: bot.delivery_enabled,
        zones: crate::shop::delivery::zones(pool, bot.id)
            .await?
            .into_iter()
            .map(|z| crate::shop::delivery::ZoneInput {
                name: z.name,
                fee_minor: z.fee_minor,
                min_order_minor: z.min_order_minor,
                free_from_minor: z.free_from_minor,
            })
            .collect(),
    };
    for (script_name, turns) in scripts {
        for (index, turn) in turns.iter().enumerate() {
            let key = format!("{script_name}:{}", turn.conversation);
            let script = written
                .entry(key)
                .or_insert_with(|| (BTreeMap::new(), "IDLE".into()));
            if let Some(setup) = &turn.setup {
                set_up(pool, bot.id, setup, &as_loaded).await?;
            }
            if let Some(oracle) = oracle {
                let zones: HashMap<String, i64> = crate::shop::delivery::zones(pool, bot.id)
                    .await?
                    .into_iter()
                    .map(|z| (z.name.to_lowercase(), z.id))
                    .collect();
                oracle.answer(expected_proposal(turn, &ids, &zones, script));
            }
            // The cart the script holds before this turn: «otro más» may be
            // written as an addition or as the line's new total.
            let had = script.0.clone();
            if let Some(cart) = &turn.expect.cart {
                script.0 = cart.clone();
            }
            if let Some(state) = &turn.expect.state {
                script.1 = state.clone();
            }
            let inbox_id = ingest(pool, &bot, script_name, index, turn).await?;
            engine.run_until_idle().await?;
            report.turns += 1;

            let proposal = recording.take(inbox_id);
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
            // An order awaiting payment holds what the cart held: a script may
            // write either the emptied cart or the order's lines (also once a
            // person took the conversation over with the order still open).
            let cart = if cart.is_empty()
                && matches!(state.as_str(), "AWAITING_PAYMENT" | "HUMAN_TAKEOVER")
                && turn.expect.cart.as_ref().is_some_and(|c| !c.is_empty())
            {
                open_order_lines(pool, conversation_id).await?
            } else {
                cart
            };
            let audit = audit_of(pool, inbox_id).await?;
            let rejected = report.tally(&audit, crate::audit::Kind::ActionExecuted, &forbidden);
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
                // No proposer was asked (a knowledge answer that shows the
                // product it was about): the actions the backend executed.
                None => {
                    // What the backend read itself (a delivery answer, an offer
                    // taken): the actions it proposed, refused ones included.
                    let proposed: Vec<_> = audit
                        .iter()
                        .filter(|row| row.kind == crate::audit::Kind::ActionProposed)
                        .filter_map(|row| {
                            let params = &row.detail["params"];
                            let product = params["product_id"]
                                .as_i64()
                                .and_then(|id| skus.get(&id).cloned());
                            Some((row.action.clone()?, product, params["quantity"].as_i64()))
                        })
                        .collect();
                    let executed: Vec<_> = audit
                        .iter()
                        .filter(|row| row.kind == crate::audit::Kind::ActionExecuted)
                        .filter_map(|row| {
                            let product = row.detail["product_id"]
                                .as_i64()
                                .and_then(|id| skus.get(&id).cloned());
                            Some((row.action.clone()?, product, None))
                        })
                        .collect();
                    let executed = if proposed.is_empty() {
                        executed
                    } else {
                        proposed
                    };
                    // «Quiero hablar con alguien»: the backend hands over on the
                    // words alone, with no proposer asked.
                    let was_human = before
                        .get(&format!("{script_name}:{}", turn.conversation))
                        .is_some_and(|(_, s)| s == "HUMAN_TAKEOVER");
                    if executed.is_empty() && state == "HUMAN_TAKEOVER" && !was_human {
                        vec![("ESCALATE".to_owned(), None, None)]
                    } else {
                        executed
                    }
                }
            };
            if let Some(expected) = &turn.expect.actions {
                let expected = super::questions_last(
                    &super::way_first(super::without_talk(expected, |e| e.kind.as_str()), |e| {
                        e.kind.as_str()
                    }),
                    |e| e.kind.as_str(),
                );
                // (Only the script's order is put right: a proposer must set
                // the way before it confirms.)
                let talked = super::questions_last(
                    super::without_talk(&proposed, |(kind, ..)| kind.as_str()),
                    |(kind, ..)| kind.as_str(),
                );
                let matches = expected.len() == talked.len()
                    && expected
                        .iter()
                        .zip(&talked)
                        .all(|(e, (kind, sku, quantity))| {
                            (e.kind.eq_ignore_ascii_case(kind)
                                && e.sku.as_ref().is_none_or(|s| Some(s) == sku.as_ref())
                                && e.quantity.is_none_or(|q| Some(q) == *quantity))
                                || same_effect(e, kind, sku.as_deref(), *quantity, &had)
                        });
                if !matches {
                    problems.push(format!("actions {proposed:?}"));
                }
            }
            check_state(turn.expect.state.as_ref(), &state, &mut problems);
            let reply = reply_of(pool, inbox_id).await?;
            for text in turn.expect.reply.iter().flatten() {
                if !reply.to_lowercase().contains(&text.to_lowercase()) {
                    problems.push(format!("reply lacks {text:?}"));
                }
            }
            // A product shown answers from its catalog row (name, price,
            // description): that row is the source.
            let shown: Vec<String> = proposed
                .iter()
                .filter(|(kind, ..)| kind == "SHOW_PRODUCT")
                .filter_map(|(_, sku, _)| sku.as_ref().map(|sku| format!("producto:{sku}")))
                .collect();
            score_knowledge(
                pool,
                bot.id,
                turn,
                (&audit, shown),
                &mut report.knowledge,
                &mut problems,
            )
            .await?;
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
            // Where the script said this conversation would be before this turn.
            let (expected_cart, expected_state) = expected.entry(key).or_default();
            let on_script = expected_cart.as_ref().is_none_or(|c| *c == cart_before)
                && expected_state
                    .as_ref()
                    .is_none_or(|s: &String| s.eq_ignore_ascii_case(&state_before));
            let (before, after) = (
                (&cart_before, state_before.as_str()),
                (&cart, state.as_str()),
            );
            if !on_script {
                if effect(before, after) {
                    report.effects_off_script += 1;
                }
            } else if beyond_the_limit(turn) {
                // A line expecting more actions than a proposal holds (the
                // design's five) cannot be met in one turn: a miss, whose lines
                // left out are not judged — but every line it did change must be
                // as the script says.
                problems.push(format!(
                    "expects more than {} actions in one turn",
                    crate::proposal::MAX_ACTIONS
                ));
                let expected_cart = turn.expect.cart.as_ref();
                let changed_wrong = after.0.iter().any(|(sku, q)| {
                    before.0.get(sku) != Some(q)
                        && expected_cart.is_some_and(|c| c.get(sku) != Some(q))
                });
                if changed_wrong {
                    report.wrong_effects += 1;
                    problems.push("WRONG EFFECT".into());
                }
            } else if wrong_effect(turn, before, after) {
                report.wrong_effects += 1;
                problems.push("WRONG EFFECT".into());
            }
            if problems.is_empty() {
                // Right in every respect the script checks: where it is now is on script.
                *expected_cart = Some(cart.clone());
                *expected_state = Some(state.clone());
            }
            if let Some(cart) = &turn.expect.cart {
                *expected_cart = Some(cart.clone());
            }
            if let Some(state) = &turn.expect.state {
                *expected_state = Some(state.clone());
            }
            if !problems.is_empty() {
                problems.extend(refusals(&audit));
            }
            let shown = (!problems.is_empty()).then_some(reply.as_str());
            report.score(script_name, index, turn, &problems, shown);
        }
        if turns.iter().any(|t| t.setup.is_some()) {
            set_up(pool, bot.id, &Setup::default(), &as_loaded).await?;
        }
    }
    Ok(report)
}

/// Sets the shop up as a script asks (the default: the shop as loaded, no
/// stock counted).
async fn set_up(
    pool: &PgPool,
    bot_id: uuid::Uuid,
    setup: &Setup,
    as_loaded: &super::SetupDelivery,
) -> anyhow::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("UPDATE products SET stock = NULL, reserved = 0 WHERE bot_id = $1")
        .bind(bot_id)
        .execute(&mut *tx)
        .await?;
    for (sku, units) in &setup.stock {
        let found = sqlx::query("UPDATE products SET stock = $3 WHERE bot_id = $1 AND sku = $2")
            .bind(bot_id)
            .bind(sku)
            .bind(units)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        anyhow::ensure!(found == 1, "setup: no product `{sku}`");
    }
    let delivery = setup.delivery.clone().unwrap_or_else(|| as_loaded.clone());
    crate::shop::delivery::replace(
        &mut tx,
        bot_id,
        delivery.pickup,
        delivery.delivery,
        &delivery.zones,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Scores a turn's knowledge answers against what the script expects: the
/// right source cited, the gray zone where (and only where) the knowledge has no
/// answer, and no figure or name an answer's sources do not hold.
async fn score_knowledge(
    pool: &PgPool,
    bot_id: uuid::Uuid,
    turn: &ScriptTurn,
    (audit, shown): (&[super::AuditRow], Vec<String>),
    score: &mut super::report::KnowledgeScore,
    problems: &mut Vec<String>,
) -> sqlx::Result<()> {
    let answers: Vec<&serde_json::Value> = audit
        .iter()
        .filter(|row| row.kind == crate::audit::Kind::KnowledgeAnswered)
        .map(|row| &row.detail)
        .collect();
    let gray = answers.iter().any(|a| a["gray"] == true);
    let cited: Vec<String> = answers
        .iter()
        .filter(|a| a["gray"] == false)
        .flat_map(|a| a["sources"].as_array().cloned().unwrap_or_default())
        .map(|source| match source["kind"].as_str() {
            Some("product") => format!("producto:{}", source["sku"].as_str().unwrap_or("")),
            _ => source["title"].as_str().unwrap_or("").to_owned(),
        })
        .chain(shown)
        .collect();
    // How the answers were worked out, for whoever reads a miss.
    let steps = || {
        answers
            .iter()
            .map(|a| a["steps"].to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let judged = turn.expect.gray.is_some() || turn.expect.sources.is_some();
    if judged && gray {
        score.gray_given += 1;
    }
    if turn.expect.gray == Some(true) {
        score.expected_gray += 1;
        if gray && cited.is_empty() {
            score.gray_both += 1;
        } else {
            problems.push(format!(
                "expected the gray zone, answered from {cited:?} (steps {})",
                steps()
            ));
        }
    }
    if let Some(expected) = turn.expect.sources.as_ref().and_then(|s| s.first()) {
        score.expected_answers += 1;
        if cited.iter().any(|c| c.eq_ignore_ascii_case(expected)) {
            score.right_source += 1;
        } else {
            let steps = steps();
            if gray {
                problems.push(format!(
                    "gray zone, expected an answer from {expected:?} (steps {steps})"
                ));
            } else {
                problems.push(format!(
                    "cited {cited:?}, expected {expected:?} (steps {steps})"
                ));
            }
        }
    }
    // Invented facts: a figure or a capitalized name the cited sources do not hold.
    for answer in answers.iter().filter(|a| a["gray"] == false) {
        let mut known = String::new();
        for source in answer["sources"].as_array().into_iter().flatten() {
            match source["kind"].as_str() {
                Some("product") => {
                    type ProductFacts = (String, String, i64, Vec<String>, Vec<String>);
                    let row: Option<ProductFacts> = sqlx::query_as(
                        "SELECT name, description, price_minor, tags, allergens FROM products WHERE bot_id = $1 AND id = $2",
                    )
                    .bind(bot_id)
                    .bind(source["id"].as_i64().unwrap_or(0))
                    .fetch_optional(pool)
                    .await?;
                    if let Some((name, description, price, tags, allergens)) = row {
                        known.push_str(&format!(
                            " {name} {description} {} {} {} ",
                            crate::text::money(price, "BOB"),
                            tags.join(" "),
                            allergens.join(" ")
                        ));
                    }
                }
                _ => {
                    let body: Option<(String, String)> = sqlx::query_as(
                        "SELECT title, body FROM knowledge_entries WHERE bot_id = $1 AND id = $2",
                    )
                    .bind(bot_id)
                    .bind(source["id"].as_i64().unwrap_or(0))
                    .fetch_optional(pool)
                    .await?;
                    if let Some((title, body)) = body {
                        known.push_str(&format!(" {title} {body} "));
                    }
                }
            }
        }
        let text = answer["text"].as_str().unwrap_or("");
        if let Some(invented) = invented_in(text, &known) {
            score.invented += 1;
            problems.push(format!("INVENTED {invented:?}"));
        }
    }
    Ok(())
}

/// The first run of digits, or capitalized word past a sentence's start, that
/// `text` gives and `known` does not hold.
fn invented_in(text: &str, known: &str) -> Option<String> {
    let known_folded = crate::text::normalize(known);
    let known_words: std::collections::HashSet<&str> =
        crate::text::tokens(&known_folded).into_iter().collect();
    let digits = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|d| !d.is_empty())
            .map(|d| d.trim_start_matches('0').to_owned())
            .collect()
    };
    let known_digits: std::collections::HashSet<String> = digits(known).into_iter().collect();
    if let Some(d) = digits(text).into_iter().find(|d| !known_digits.contains(d)) {
        return Some(d);
    }
    for sentence in text.split(['.', '!', '?', '\n', ':', '«', '»']) {
        for (k, raw) in sentence.split_whitespace().enumerate() {
            let word: String = raw.chars().filter(|c| c.is_alphanumeric()).collect();
            if k == 0
                || word.chars().count() < 3
                || !word.chars().next().is_some_and(char::is_uppercase)
            {
                continue;
            }
            let folded = crate::text::normalize(&word);
            if !known_words.contains(folded.as_str())
                && !matches!(folded.as_str(), "segun" | "fuente")
            {
                return Some(word);
            }
        }
    }
    None
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
    fn only_a_turn_that_began_on_script_can_have_a_wrong_effect() {
        let this = turn(&[("americano", 1), ("croissant", 5)]);
        let before = cart(&[("americano", 1)]);
        let right = cart(&[("americano", 1), ("croissant", 5)]);
        let short = cart(&[("americano", 1), ("croissant", 4)]);
        let on = |after| wrong_effect(&this, (&before, "CART_OPEN"), (after, "CART_OPEN"));
        assert!(!on(&right));
        assert!(on(&short), "the wrong amount");
        assert!(!on(&before), "changing nothing is never one");
        assert!(effect((&before, "CART_OPEN"), (&short, "CART_OPEN")));
        assert!(!effect((&before, "CART_OPEN"), (&before, "BROWSING")));
    }

    #[test]
    fn one_more_is_an_addition_or_the_line_s_new_total() {
        let had = cart(&[("limonada", 2)]);
        let expected = |json: serde_json::Value| -> super::super::ExpectedAction {
            serde_json::from_value(json).unwrap()
        };
        let total = expected(
            serde_json::json!({"type": "UPDATE_QUANTITY", "sku": "limonada", "quantity": 3}),
        );
        let added =
            expected(serde_json::json!({"type": "ADD_TO_CART", "sku": "limonada", "quantity": 1}));
        assert!(same_effect(
            &total,
            "ADD_TO_CART",
            Some("limonada"),
            Some(1),
            &had
        ));
        assert!(same_effect(
            &added,
            "UPDATE_QUANTITY",
            Some("limonada"),
            Some(3),
            &had
        ));
        assert!(!same_effect(
            &total,
            "ADD_TO_CART",
            Some("limonada"),
            Some(2),
            &had
        ));
        let both = cart(&[("limonada", 2), ("brownie", 2)]);
        assert!(
            !same_effect(&added, "UPDATE_QUANTITY", Some("brownie"), Some(3), &both),
            "another product"
        );
        assert!(
            !same_effect(&total, "ADD_TO_CART", Some("limonada"), Some(3), &cart(&[])),
            "a line the cart did not hold is added whole"
        );
    }
}
