//! Deciding what a shop turn will do, before its transaction opens: the cart and
//! open order the claim read, backend-detected events first, then (only if
//! needed) the proposer, bounded in time, and the grounding of a model's actions
//! on the customer's words.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use uuid::Uuid;

use super::catalog::CatalogIndex;
use super::contract::{CartView, CatalogEntry, Proposal, ProposalInput, ProposedAction};
use super::core::classify::{MessageClass, classify};
use super::core::{Cart, CartLine, Event, State, on_customer_message};
use super::memo::ShopMemo;
use super::messages;
use super::orders::OrderStatus;
use super::proposer::ShopProposer;
use super::rules::grounding::Ungrounded;
use crate::channels::MessagePayload;
use crate::detect::{self, Inbound};
use crate::engine::{Command, Turn, TurnSnapshot};
use crate::proposal::Origin;

/// The order waiting for payment, as a turn reads it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct OpenOrder {
    pub id: Uuid,
    pub number: i64,
    pub status: OrderStatus,
    pub total_minor: i64,
    pub currency: String,
    pub payment_due_at: DateTime<Utc>,
}

/// What the claim read of the shop's tables: the cart with current prices and
/// the open order. Decoded strictly: a shape this version does not know fails
/// the turn (retried, then parked), never a silently empty cart.
pub struct ShopSnapshot {
    pub cart: Cart,
    pub open_order: Option<OpenOrder>,
}

impl ShopSnapshot {
    pub fn read(snapshot: &TurnSnapshot) -> serde_json::Result<Self> {
        let lines: Vec<(i64, i64, i64)> = serde_json::from_value(snapshot.cart.0.clone())?;
        let cart = Cart::new(
            lines
                .into_iter()
                .map(|(product_id, quantity, unit_price_minor)| CartLine {
                    product_id,
                    quantity,
                    unit_price_minor,
                })
                .collect(),
        );
        let open_order = match &snapshot.open_order {
            Some(order) => Some(serde_json::from_value(order.0.clone())?),
            None => None,
        };
        Ok(ShopSnapshot { cart, open_order })
    }
}

/// What a turn will do.
pub enum Plan {
    /// Backend-detected escalation; `notice` is the handoff message.
    Escalate {
        start: State,
        notice: &'static str,
    },
    /// An image or payment words while an order waits for payment.
    PaymentProof {
        start: State,
        payload: MessagePayload,
        /// Questions asked beside the proof that the knowledge answered («ya
        /// pagué, ¿me pueden dar factura?»).
        answers: Vec<Answered>,
    },
    /// An answer that needs no proposer (fixed, or from the backend's rows).
    Say {
        start: State,
        text: std::borrow::Cow<'static, str>,
    },
    /// A proposal to validate against the matrix.
    Propose(Box<ProposePlan>),
    SessionTimeout {
        current: State,
    },
    PaymentTimeout {
        order_id: Uuid,
        current: State,
    },
    /// Questions the shop's knowledge answered; nothing else was asked. The cart,
    /// the state and a pending confirmation stay as they were.
    Knowledge {
        start: State,
        answers: Vec<Answered>,
        /// What the conversation remembers after the answers, when they change
        /// it (the product asked about becomes the one «dame 2» means).
        memo: Option<ShopMemo>,
    },
    /// Small talk, an off-topic question or abuse: answered without a proposer.
    Guard {
        start: State,
        class: MessageClass,
        memo: ShopMemo,
    },
}

impl Plan {
    /// A short name, for metric labels.
    pub fn kind(&self) -> &'static str {
        match self {
            Plan::Escalate { .. } => "escalate",
            Plan::PaymentProof { .. } => "payment_proof",
            Plan::Say { .. } => "say",
            Plan::Propose(_) => "propose",
            Plan::SessionTimeout { .. } => "session_timeout",
            Plan::PaymentTimeout { .. } => "payment_timeout",
            Plan::Guard { .. } => "guard",
            Plan::Knowledge { .. } => "knowledge",
        }
    }

    /// The state a customer message starts from, for plans made of one.
    pub fn start(&self) -> Option<State> {
        match self {
            Plan::Escalate { start, .. }
            | Plan::Say { start, .. }
            | Plan::PaymentProof { start, .. }
            | Plan::Knowledge { start, .. }
            | Plan::Guard { start, .. } => Some(*start),
            Plan::Propose(plan) => Some(plan.start),
            Plan::SessionTimeout { .. } | Plan::PaymentTimeout { .. } => None,
        }
    }
}

/// A question the knowledge answered, and how.
pub struct Answered {
    pub question: String,
    pub answer: super::knowledge::answer::Answer,
}

/// A proposal and the state it was made from.
pub struct ProposePlan {
    pub start: State,
    pub greeted: bool,
    pub proposal: Proposal,
    pub proposer: Origin,
    pub cart: Cart,
    /// What the conversation remembered (choices offered, clarifications).
    pub memo: ShopMemo,
    /// The follow-up as the standalone request the proposer read, if rewritten.
    pub rewritten: Option<String>,
    /// An LLM's actions that stand on nothing the customer said, by index: refused
    /// before the matrix sees them.
    pub ungrounded: Vec<(usize, Ungrounded)>,
    /// The backend's own question when the rules and a grounded model read the
    /// message differently (it names both readings, with their figures).
    pub asked: Option<String>,
    /// The model's actions when none stood on the customer's words (the rules'
    /// reading was proposed instead): each action's type and why it was refused.
    pub replaced: Vec<(String, Ungrounded)>,
    /// Questions of the same message the knowledge answered first.
    pub answered: Vec<Answered>,
}

/// The shop's plan for a turn. A conversation whose stored state is not a shop
/// state is an error (the turn is retried, then parked), never read as IDLE.
/// `asked_order` is the customer's latest order when the message asks where it
/// stands (read by the caller only then).
pub async fn plan(
    proposer: &ShopProposer,
    turn: &Turn<'_>,
    catalog: &CatalogIndex,
    cart: &Cart,
    desk: &super::knowledge::Desk<'_>,
    asked_order: Option<&super::orders::Order>,
) -> anyhow::Result<Plan> {
    let snapshot = turn.snapshot;
    let conversation = &snapshot.conversation;
    let current = State::try_from(conversation.state())?;
    let payload = match &turn.burst.command {
        Command::SessionTimeout => return Ok(Plan::SessionTimeout { current }),
        Command::PaymentTimeout { order_id } => {
            return Ok(Plan::PaymentTimeout {
                order_id: *order_id,
                current,
            });
        }
        Command::Message(payload) => payload,
    };
    let start = on_customer_message(current);
    let events = super::core::detected(detect::detect(Inbound {
        text: &payload.text,
        has_image: payload.has_attachment(),
    }));
    if events.contains(&Event::EscalationRequested) {
        return Ok(Plan::Escalate {
            start,
            notice: messages::ESCALATED,
        });
    }
    if events.contains(&Event::PaymentProofReceived) && start == State::AwaitingPayment {
        // «ya pagué, ¿me pueden dar factura?»: the proof is kept and the
        // question beside it answered.
        let answers = if payload.text.contains('?') {
            let memo = ShopMemo::read(conversation.draft.as_ref());
            asked_beside_a_proof(desk, &payload.text, catalog, &memo).await?
        } else {
            Vec::new()
        };
        return Ok(Plan::PaymentProof {
            start,
            payload: payload.clone(),
            answers,
        });
    }
    if payload.is_unsupported() {
        return Ok(Plan::Say {
            start,
            text: messages::UNSUPPORTED_MEDIA.into(),
        });
    }
    if payload.media.is_some() && payload.text.trim().is_empty() {
        return Ok(Plan::Say {
            start,
            text: messages::IMAGE_WITHOUT_ORDER.into(),
        });
    }

    // «¿Y mi pedido?»: the backend's order says where it stands.
    if let Some(order) = asked_order {
        return Ok(Plan::Say {
            start,
            text: messages::order_status_answer(
                order.number,
                order.status,
                order.total_minor,
                &order.currency,
            )
            .into(),
        });
    }
    let bot = turn.bot;
    let mut memo = ShopMemo::read(conversation.draft.as_ref());
    // A way chosen belongs to the order being made or waiting for its
    // address: never carried into a new one (an order paid, expired or
    // cancelled by the merchant leaves the chat in another state).
    if !matches!(
        start,
        State::CartOpen | State::Checkout | State::AwaitingPayment
    ) {
        memo.fulfilment = None;
    }
    // The bot offered a person after getting nowhere; a yes takes it.
    if memo.person_offered && super::rules::is_yes(&payload.text) {
        return Ok(Plan::Escalate {
            start,
            notice: messages::ESCALATED,
        });
    }
    // «De X solo nos quedan 3; ¿te pongo 3?» — «sí» makes the line what is left
    // (checked again by the matrix against what is left now).
    if let Some((product_id, quantity)) = memo.stock_offer
        && super::rules::takes_offer(&payload.text, quantity)
        && matches!(start, State::Idle | State::Browsing | State::CartOpen)
    {
        let action = if cart.line(product_id).is_some() {
            ProposedAction::new("UPDATE_QUANTITY")
        } else {
            ProposedAction::new("ADD_TO_CART")
        };
        let action = action.product(product_id).quantity(quantity);
        return Ok(direct(
            start,
            vec![action],
            "stock_offer",
            cart,
            memo,
            Vec::new(),
        ));
    }
    // Pickup or delivery, read before anything else: an address is neither small
    // talk nor a question for the knowledge, and its numbers are no quantities.
    let delivery = super::contract::DeliveryView::of(
        &super::delivery::options(bot, &catalog.zones),
        memo.fulfilment.as_ref(),
    );
    let catalog_entries = CatalogEntry::on_sale(catalog);
    // («y un americano para llevar» orders a product: its way is not read,
    // here or by the rules — the summary offers the zones again — unless the
    // bot asked for the way.)
    // (In the cart or at the summary, with the address asked, a message
    // naming a product is an order, never the address: «perdón, eran 4
    // chocolates», «agrégame un brownie también».)
    let names = super::rules::names_a_product(&payload.text, &catalog_entries);
    if let Some(view) = &delivery
        && (!names
            || (memo.asked.is_some()
                && !super::rules::delivery::product_beats_address(start, memo.asked)))
        && let Some(action) =
            super::rules::delivery::read_message(&payload.text, view, memo.asked, start)
        // («mi hija pasa a recogerlo, qué tiene que decir en el mostrador»: in
        // the cart, a pickup beside a question is the knowledge's to answer.)
        && !(start == State::CartOpen
            && memo.asked.is_none()
            && action.params.mode.as_ref().and_then(|m| m.as_str()) == Some("pickup")
            && super::knowledge::route::asks(&payload.text))
    {
        // «sí, a Obrajes, calle 10 #455»: a yes at the summary with the way
        // confirms it too (the matrix holds the confirmation to what was shown).
        // (Only a way that is whole: a zone without an address is asked first.)
        // (A zone without its address is enough: the address is asked
        // right after the order is placed.)
        // (A place no zone lists — «envíenlo a El Alto» — is no way: the
        // matrix says so, and nothing is confirmed.)
        let zone_listed = action
            .params
            .zone_id
            .as_ref()
            .and_then(|z| z.as_i64())
            .is_some_and(|id| view.zones.iter().any(|z| z.zone_id == id));
        let whole =
            action.params.mode.as_ref().and_then(|m| m.as_str()) == Some("pickup") || zone_listed;
        let mut actions = vec![action];
        // (A yes answers the summary's «¿confirmas?», not a question about
        // the way the bot asked after it.)
        // (A bare yes after the bot asked about the way answers that
        // question; «recojo entonces. confirmo», the order confirmed in so
        // many words, confirms even then.)
        if start == State::Checkout
            && whole
            && (super::rules::says_confirmed(&payload.text)
                || (memo.asked.is_none()
                    && super::rules::yes_then_the_way(&payload.text, &catalog_entries).is_some()))
        {
            actions.push(ProposedAction::new("CONFIRM_ORDER"));
        }
        // «listo, eso es todo, para domicilio en Obrajes»: the way and the
        // summary asked together — the summary shows the way (and asks the
        // address, or a yes, when only the zone was said).
        if start == State::CartOpen && whole && super::rules::says_done(&payload.text) {
            actions.push(ProposedAction::new("REVIEW_ORDER"));
        }
        return Ok(direct(start, actions, "rules", cart, memo, Vec::new()));
    }
    // (At the summary a yes may come with it: the rules read both.)
    // («lo recojo yo en unos 20 min» after an order to pick up, in a shop
    // that delivers too, is heard the same.)
    let picked_up = delivery.as_ref().is_none_or(|view| {
        view.chosen
            .as_ref()
            .is_none_or(|chosen| chosen.mode == super::core::Mode::Pickup)
    });
    if picked_up
        && start == State::AwaitingPayment
        && let Some(proposal) = super::rules::pickup_said(&payload.text, start, &catalog_entries)
    {
        return Ok(proposed(start, proposal, "rules", cart, memo, Vec::new()));
    }
    let names_a_product = super::rules::names_a_product(&payload.text, &catalog_entries);
    let class = match classify(&payload.text, names_a_product) {
        // «…estoy de mochilero con mi novia, ¿para qué lado quedan ustedes?»:
        // a word of small talk beside a question about what the shop knows
        // is the shop's to answer.
        MessageClass::OffTopic if super::knowledge::route::asks_of_a_topic(&payload.text) => {
            MessageClass::Shop
        }
        class => class,
    };
    if class != MessageClass::Shop {
        return Ok(Plan::Guard { start, class, memo });
    }
    // Questions for the shop's knowledge first; what is left goes to the proposer.
    // A numbered list's markers are no counts, whichever part reads them.
    let listed = super::rules::without_list_numbers(&payload.text);
    let split = super::knowledge::route::split(&listed, desk.library, |clause| {
        super::rules::names_a_product(clause, &catalog_entries)
    });
    // «Sí, está correcto. Pasaré a recogerlo yo misma»: at the summary, what
    // follows a yes tells how the order goes; unless a question is marked,
    // none is asked of the knowledge.
    // (Only a yes with the way said after it: «ok a qué hora cierran», «ok y
    // el envío es gratis» are still asked of the knowledge.)
    let split = if start == State::Checkout
        && !payload.text.contains('?')
        && super::rules::yes_then_the_way(&payload.text, &catalog_entries).is_some()
        && super::rules::after_a_yes(&payload.text).is_some_and(|rest| {
            // («bueno, aceptan tarjeta», «sí, cuánto demora el delivery» still ask.)
            !crate::text::tokens(&crate::text::normalize(&rest))
                .iter()
                .any(|w| {
                    matches!(
                        *w,
                        "cuanto"
                            | "cuanta"
                            | "cuando"
                            | "como"
                            | "donde"
                            | "cual"
                            | "hay"
                            | "aceptan"
                            | "tienen"
                            | "puedo"
                            | "pueden"
                            | "hacen"
                            | "demora"
                    )
                })
        }) {
        super::knowledge::route::Split {
            questions: Vec::new(),
            rest: listed.clone(),
            explanations: Vec::new(),
            condition: None,
            otherwise: None,
        }
    } else {
        split
    };
    let mut answered = Vec::new();
    for question in &split.questions {
        // «agrégame un cheesecake, ¿lleva gluten?»: the product may be named
        // elsewhere in the message, or be the one just talked about.
        let mut products = super::rules::products_in(question, &catalog_entries);
        if products.is_empty() {
            products = super::rules::products_in(&payload.text, &catalog_entries);
        }
        if products.is_empty() && !super::knowledge::route::asks_the_whole_shop(question) {
            products.extend(memo.focus);
        }
        // «¿en cuánto tiempo está?» after delivery was chosen or talked about
        // asks how long the delivery takes.
        // (The memo keeps the question as asked, not as rewritten.)
        let in_context = asked_in_context(question, &memo, &catalog.zones);
        let answer = desk
            .answer(&in_context, products, memo.asked_before.as_ref())
            .await?;
        let one = Answered {
            question: question.clone(),
            answer,
        };
        // «¿hacen envíos a Sopocachi? ¿y los domingos?»: the next question
        // goes on from this one.
        remember_asked(&mut memo, &one);
        answered.push(one);
    }
    // A question about a named product that the catalog answered, or that
    // nobody can answer («¿cuántas calorías tiene el brownie?»), is answered and
    // nothing else: the state stays (a question never moves the order), and
    // the product asked about is the one «dame 2» means next.
    let about_a_product = !answered.is_empty()
        && names_a_product
        && answered.iter().all(|a| {
            a.answer.gray
                || a.answer
                    .sources
                    .iter()
                    .all(|s| matches!(s, super::knowledge::answer::Source::Product { .. }))
        });
    if about_a_product && super::rules::says_nothing(&split.rest) {
        let asked = super::rules::products_in(&payload.text, &catalog_entries);
        let mut memo = memo;
        match asked.as_slice() {
            // As when the product is shown.
            [only] if ShopMemo::focus_holds_in(start) => {
                memo.focus_on(*only);
            }
            _ => memo.focus = None,
        }
        return Ok(Plan::Knowledge {
            start,
            answers: answered,
            memo: Some(memo),
        });
    }
    // «25 chocolates y 25 cheesecakes, ¿eso tiene descuento?»: the count said
    // is what is asked about; the answer is all, nothing goes in the cart.
    if !answered.is_empty()
        && split
            .questions
            .iter()
            .any(|q| super::rules::asks_of_what_was_said(q))
        // («agrega 2 brownies más, ¿eso tiene descuento?» still adds.)
        && !crate::text::tokens(&super::rules::in_shop_words(&split.rest))
            .iter()
            .any(|w| super::rules::orders_word(w))
    {
        return Ok(Plan::Knowledge {
            start,
            answers: answered,
            memo: Some(memo),
        });
    }
    // «¿tienen salteñas?»: what the knowledge has no word of, and the catalog
    // does not sell, is no product of the shop — said so, and asked what else.
    if !answered.is_empty()
        && answered.iter().all(|a| a.answer.gray)
        && super::rules::says_nothing(&split.rest)
    {
        let unsold = super::rules::unsold_foods(&split.questions.join(" "), &catalog_entries);
        if !unsold.is_empty() {
            let proposal = Proposal::new(
                vec![ProposedAction::new("CLARIFY")],
                super::messages::not_sold_asked(&unsold),
            );
            for a in &mut answered {
                a.answer.text.clear();
            }
            return Ok(proposed(start, proposal, "knowledge", cart, memo, answered));
        }
    }
    // «¿el chai lleva leche? si no, dame dos»: the request stands only on the
    // answer it was put on. A yes-or-no the catalog gave decides; otherwise a
    // request on a «no», or on an answer nobody has, waits for the customer.
    let verdict = answered.iter().find_map(|a| a.answer.verdict);
    let condition_fails = match split.condition {
        Some(wanted) => match verdict {
            Some(answer) => answer != wanted,
            None => !wanted || answered.iter().any(|a| a.answer.gray),
        },
        None => false,
    };
    // «¿…? si tiene dame una limonada, si no un chai»: the other answer
    // known, its own request is taken instead.
    let mut split = split;
    if condition_fails
        && verdict.is_some()
        && let Some(other) = split.otherwise.take()
    {
        split.rest = other;
    } else if (condition_fails || (split.otherwise.is_some() && verdict.is_none()))
        && !answered.is_empty()
    {
        // (Both answers named and neither known: the customer chooses.)
        return Ok(Plan::Knowledge {
            start,
            answers: answered,
            memo: Some(memo),
        });
    }
    // «¿Puede recoger mi hermano? yo no llego»: what is left beside an answer,
    // when it is no shop request at all, is part of the question.
    let rest_is_talk = !answered.is_empty() && {
        let rest = super::rules::shop_phrases(&split.rest);
        (!rest.request || super::rules::only_talk(&split.rest))
            && !super::rules::names_a_product(&split.rest, &catalog_entries)
    };
    let message = if answered.is_empty() {
        // «¿…? Es que una compañera es intolerante»: the reason told is no
        // request of its own.
        split
            .explanations
            .iter()
            .fold(payload.text.clone(), |text, clause| {
                text.replacen(clause.as_str(), "", 1)
            })
            .trim()
            .to_owned()
    } else if (rest_is_talk || super::rules::says_nothing(&split.rest))
        && !(start == State::Checkout
            && confirms(&split.rest, &catalog_entries)
            && split.questions.iter().all(|q| {
                // («Bueno, ¿hacen envíos a Calacoto?», «ok ¿el brownie tiene
                // nueces?»: the answer may change the order; nothing is
                // confirmed beside it.)
                !super::rules::names_a_product(q, &catalog_entries)
                    && !super::knowledge::route::about_the_way(q)
            }))
    {
        // «el brownie tiene nueces?? mi amiga es alérgica»: the one product
        // the questions named is what «sácalo» or «dame 2» means next.
        let mut asked: std::collections::BTreeSet<_> = split
            .questions
            .iter()
            .flat_map(|q| super::rules::products_in(q, &catalog_entries))
            .collect();
        // «¿qué me recomendás calentito y sin cafeína?» answered with one
        // product: that one is what «poneme uno de ese» means next.
        if asked.is_empty() {
            asked = answered
                .iter()
                .flat_map(|a| &a.answer.sources)
                .filter_map(|s| match s {
                    super::knowledge::answer::Source::Product { id, .. } => Some(*id),
                    super::knowledge::answer::Source::Entry { .. } => None,
                })
                .collect();
        }
        let memo = match asked.first() {
            Some(only) if asked.len() == 1 && ShopMemo::focus_holds_in(start) => {
                let mut memo = memo;
                memo.focus_on(*only);
                Some(memo)
            }
            _ => Some(memo),
        };
        return Ok(Plan::Knowledge {
            start,
            answers: answered,
            memo,
        });
    } else {
        split.rest.clone()
    };
    let mut input = ProposalInput {
        current_state: start,
        detected_events: events.clone(),
        cart: CartView::of(cart, catalog),
        customer_message: message,
        recent_history: turn.history(),
        product_catalog: catalog_entries,
        currency: bot.currency.clone(),
        choices: memo.choices.clone(),
        choice_quantity: memo.choice_quantity,
        choices_named: memo.choices_named,
        focus: memo.focus,
        asked_back: memo.clarifications > 0,
        last_changed: memo.last_changed.clone(),
        delivery,
        asked: memo.asked,
        context: turn.call_context(),
        as_written: None,
    };
    // «El matcha es frío, ¿no? Dame uno»: the product the question named is
    // what «uno» means (over one talked about before).
    if !answered.is_empty() {
        let asked: Vec<_> = split
            .questions
            .iter()
            .flat_map(|q| super::rules::products_in(q, &input.product_catalog))
            .collect();
        // («¿el brownie tiene nueces? …si tiene sácalo y poneme un
        // cheesecake»: «sácalo» is the brownie, beside the product named.)
        let points_back = crate::text::tokens(&crate::text::normalize(&split.rest))
            .iter()
            .any(|w| {
                w.len() > 4
                    && (w.ends_with("lo") || w.ends_with("la"))
                    && (super::rules::removes_word(w) || super::rules::orders_word(w))
            });
        if let [only] = asked.as_slice()
            && (points_back || !super::rules::names_a_product(&split.rest, &input.product_catalog))
        {
            input.focus = Some(*only);
        }
    }
    let rewritten = super::rules::rewrite(&input);
    if let Some(standalone) = &rewritten {
        input.as_written = Some(std::mem::replace(
            &mut input.customer_message,
            standalone.clone(),
        ));
    }
    let name = proposer.name();
    let proposal = match tokio::time::timeout(turn.proposer_timeout, proposer.propose(&input)).await
    {
        Ok(Ok(proposal)) => proposal,
        Ok(Err(err)) => {
            tracing::warn!(%err, proposer = name, "proposer failed; asking the customer to rephrase");
            fallback_proposal()
        }
        Err(_) => {
            tracing::warn!(
                proposer = name,
                "proposer timed out; asking the customer to rephrase"
            );
            fallback_proposal()
        }
    };
    let mut origin = proposal.origin.unwrap_or(Origin::Named(name));
    // The rules read only what is there; a model may propose anything. When
    // nothing it proposed stands on the customer's words, the rules' reading
    // takes the turn (they are its fallback) and the model's actions are kept
    // for the audit.
    let mut ungrounded = Vec::new();
    let mut replaced = Vec::new();
    let mut asked = None;
    let mut proposal = proposal;
    if origin == Origin::Llm {
        ungrounded = super::rules::grounding::ungrounded(&input, &proposal);
        super::rules::grounding::refuse_half_changes(&proposal, &mut ungrounded);
        if !ungrounded.is_empty() && ungrounded.len() == proposal.proposed_actions.len() {
            // Some of it stood on the customer's words and fell only with the rest.
            let grounded_in_part = ungrounded
                .iter()
                .any(|(_, why)| *why == super::rules::grounding::Ungrounded::PartOfARefusedChange);
            replaced = std::mem::take(&mut ungrounded)
                .into_iter()
                .map(|(i, why)| (proposal.proposed_actions[i].action_type.clone(), why))
                .collect();
            // The rules' reading takes the turn only where they read the whole
            // message, and not over a model whose change stood in part on the
            // customer's words: there, where the rules would change the cart too,
            // nothing silently wins and the customer is asked.
            let reading = super::rules::settled(&input);
            let changes = super::rules::changes_anything;
            let model_changed = grounded_in_part && changes(&proposal);
            proposal = if reading.confident && !(model_changed && changes(&reading.proposal)) {
                reading.proposal
            } else {
                fallback_proposal()
            };
            origin = Origin::RulesOverUngroundedLlm;
        } else if let Some(question) = super::rules::grounding::disagreement(&input, &proposal) {
            // The rules read every word and the model changed the cart otherwise:
            // one short question names both readings.
            // Every action the model proposed is set aside (the ungrounded ones
            // with their own reason); indices into it mean nothing from here on.
            replaced = proposal
                .proposed_actions
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let why = ungrounded
                        .iter()
                        .find(|(j, _)| *j == i)
                        .map(|(_, why)| why.clone())
                        .unwrap_or(super::rules::grounding::Ungrounded::Disagrees);
                    (a.action_type.clone(), why)
                })
                .collect();
            ungrounded.clear();
            asked = Some(question);
            proposal = Proposal::new(vec![ProposedAction::new("CLARIFY")], "");
            origin = Origin::RulesOverUngroundedLlm;
        }
    }
    // «¿me guardan el pedido hasta mañana?», «oiga, se me olvidó pedir
    // factura»: a message nothing could read as a shop request may still be a
    // question the knowledge answers. Its passage is said when one covers the
    // question; a question nobody wrote about gets the honest gray zone;
    // anything else keeps the question back.
    // (Only over the rules' own reading, never beside a request they doubted —
    // «no sé si pedir 2 brownies o 3» is asked back — and never over a model's
    // proposal: its refused actions are audited with the proposal they came in.)
    if answered.is_empty()
        && !matches!(origin, Origin::Llm | Origin::RulesOverUngroundedLlm)
        && understood_nothing(&proposal)
        && !(names_a_product && says_a_count(&payload.text))
        && super::knowledge::route::asks_or_tells(&payload.text)
    {
        // «¿mandan a El Alto? vivo en Ciudad Satélite»: the clauses with the
        // question mark are what is asked; the rest tells around it.
        let marked = super::knowledge::route::clauses(&payload.text)
            .into_iter()
            .filter(|c| c.contains('?'))
            .collect::<Vec<_>>()
            .join(" ");
        let mut asked_as = vec![payload.text.clone()];
        if !marked.is_empty() && marked != payload.text.trim() {
            asked_as.insert(0, marked);
        }
        let mut found = None;
        for question in asked_as {
            let products = super::rules::products_in(&question, &input.product_catalog);
            let answer = desk
                .answer(&question, products, memo.asked_before.as_ref())
                .await?;
            // A thing nobody wrote about, asked in the marked question, is not
            // looked for in the words around it.
            let settled = !answer.gray || answer.asks_the_unwritten();
            found = Some(Answered { question, answer });
            if settled {
                break;
            }
        }
        if let Some(answered) = found
            && (!answered.answer.gray || super::knowledge::route::asks(&payload.text))
        {
            let mut memo = memo;
            remember_asked(&mut memo, &answered);
            // As for any answer about one product: it is what «dame 2» means next.
            let asked = super::rules::products_in(&answered.question, &input.product_catalog);
            match asked.as_slice() {
                [only] if ShopMemo::focus_holds_in(start) => {
                    memo.focus_on(*only);
                }
                [] => {}
                _ => memo.focus = None,
            }
            return Ok(Plan::Knowledge {
                start,
                answers: vec![answered],
                memo: Some(memo),
            });
        }
    }
    // A request with no question ends what a follow-up could go on from.
    if answered.is_empty() {
        memo.asked_before = None;
    }
    Ok(Plan::Propose(Box::new(ProposePlan {
        start,
        greeted: events.contains(&Event::GreetingReceived) && start == State::Idle,
        proposal,
        proposer: origin,
        cart: cart.clone(),
        memo,
        rewritten,
        ungrounded,
        asked,
        replaced,
        answered,
    })))
}

/// The questions of a message that also tells a payment, answered where the
/// knowledge or the catalog says it (a gray answer beside a proof received
/// would only confuse: the proof's acknowledgement is the reply then).
async fn asked_beside_a_proof(
    desk: &super::knowledge::Desk<'_>,
    text: &str,
    catalog: &CatalogIndex,
    memo: &ShopMemo,
) -> anyhow::Result<Vec<Answered>> {
    let entries = CatalogEntry::on_sale(catalog);
    let split = super::knowledge::route::split(text, desk.library, |clause| {
        super::rules::names_a_product(clause, &entries)
    });
    let mut answered = Vec::new();
    for question in split.questions {
        let products = super::rules::products_in(&question, &entries);
        let answer = desk
            .answer(&question, products, memo.asked_before.as_ref())
            .await?;
        if !answer.gray {
            answered.push(Answered { question, answer });
        }
    }
    Ok(answered)
}

/// `question` as the conversation means it: how long, asked alone, once
/// delivery was chosen (to a zone) or talked about, is how long the delivery
/// takes there; otherwise the question as written (pickup's time answers it).
fn asked_in_context(question: &str, memo: &ShopMemo, zones: &[crate::shop::core::Zone]) -> String {
    use crate::shop::core::Mode;
    if !super::knowledge::route::asks_only_how_long(question) {
        return question.to_owned();
    }
    match &memo.fulfilment {
        Some(choice) if choice.mode == Mode::Delivery => {
            let zone = choice
                .zone_id
                .and_then(|id| zones.iter().find(|z| z.id == id))
                .map(|z| format!(" a {}", z.name))
                .unwrap_or_default();
            format!("¿en cuánto tiempo llega el delivery{zone}?")
        }
        None if memo
            .asked_before
            .as_ref()
            .is_some_and(|b| super::knowledge::route::speaks_of_delivery(&b.question)) =>
        {
            let before = memo.asked_before.as_ref().map(|b| b.question.as_str());
            format!(
                "{} ¿en cuánto tiempo llega el delivery?",
                before.unwrap_or_default()
            )
        }
        _ => question.to_owned(),
    }
}

/// «sí», «dale, lo busco yo»: what is left beside a question at the summary
/// is its yes (with at most the way), so the order is confirmed as the
/// question is answered.
fn confirms(rest: &str, catalog: &[CatalogEntry]) -> bool {
    // («bueno», «ya», «pues» alone are how a question starts, not a yes.)
    let folded = crate::text::normalize(rest);
    let words = crate::text::tokens(&folded);
    let filler = !words.is_empty()
        && words
            .iter()
            .all(|w| matches!(*w, "bueno" | "ya" | "pues" | "eso" | "y" | "entonces"));
    !filler
        && (super::rules::is_yes_with_thanks(rest)
            || super::rules::says_confirmed(rest)
            || super::rules::yes_then_the_way(rest, catalog).is_some())
}

/// A plan whose actions the backend read itself (no proposer, no grounding).
fn direct(
    start: State,
    actions: Vec<ProposedAction>,
    origin: &'static str,
    cart: &Cart,
    memo: ShopMemo,
    answered: Vec<Answered>,
) -> Plan {
    proposed(
        start,
        Proposal::new(actions, ""),
        origin,
        cart,
        memo,
        answered,
    )
}

/// A proposal made without a proposer, with its own text.
fn proposed(
    start: State,
    proposal: Proposal,
    origin: &'static str,
    cart: &Cart,
    memo: ShopMemo,
    answered: Vec<Answered>,
) -> Plan {
    Plan::Propose(Box::new(ProposePlan {
        start,
        greeted: false,
        proposal,
        proposer: Origin::Named(origin),
        cart: cart.clone(),
        memo,
        rewritten: None,
        ungrounded: Vec::new(),
        asked: None,
        replaced: Vec::new(),
        answered,
    }))
}

/// What the conversation keeps of a question just answered: when an entry
/// answered it, «¿y los domingos?» goes on from it next; when the answer came
/// from elsewhere (the catalog, or nobody), nothing does.
fn remember_asked(memo: &mut ShopMemo, last: &Answered) {
    memo.asked_before = match last.answer.sources.first() {
        Some(super::knowledge::answer::Source::Entry { id, title }) if !last.answer.gray => {
            // A question that went on from the one before keeps both together,
            // so a third («¿y a qué hora?») still knows what is talked about.
            let question = match &memo.asked_before {
                Some(before)
                    if super::knowledge::answer::goes_on(&last.question) && before.entry == *id =>
                {
                    format!("{} {}", before.question, last.question)
                }
                _ => last.question.clone(),
            };
            // The latest words, when a chain of follow-ups grows long.
            let skip = question.chars().count().saturating_sub(400);
            Some(super::memo::AskedBefore {
                question: question.chars().skip(skip).collect(),
                entry: *id,
                title: title.clone(),
            })
        }
        _ => None,
    };
}

/// Whether `text` says a count («2», «dos»; not the article «un»).
fn says_a_count(text: &str) -> bool {
    let folded = crate::text::normalize(text);
    crate::text::tokens(&folded)
        .iter()
        .any(|w| !matches!(*w, "un" | "una" | "uno") && crate::text::token_number(w).is_some())
}

/// Whether `proposal` only says the message was not understood.
fn understood_nothing(proposal: &Proposal) -> bool {
    matches!(proposal.proposed_actions.as_slice(),
        [only] if only.action_type == "CLARIFY" && only.params == Default::default())
        && (proposal.response_text.is_empty()
            || proposal.response_text == messages::CLARIFY_DEFAULT)
}

fn fallback_proposal() -> Proposal {
    Proposal::new(vec![ProposedAction::new("CLARIFY")], "")
}
