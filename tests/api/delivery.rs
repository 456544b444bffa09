//! Pickup or delivery, priced by the backend: the bot asks how the order
//! reaches the customer, the zone's fee joins the summary and the total, an
//! address outside every zone gets an honest answer, and a proposed fee is
//! refused like a proposed price.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tendero::proposal::ProposerError;
use tendero::shop::contract::{Proposal, ProposalInput, ProposedAction};
use tendero::shop::proposer::{Proposer, RulesProposer, ShopContract};
use tendero::startup::Proposers;

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

async fn deliver(app: &TestApp) -> Value {
    let (status, body) = app
        .api(
            Method::PUT,
            "/bots/demo-shop/delivery",
            &app.key,
            Some(json!({
                "pickup": true,
                "delivery": true,
                "zones": [
                    {"name": "Sopocachi", "fee_minor": 1000, "min_order_minor": 5000},
                    {"name": "Miraflores", "fee_minor": 1200},
                ],
            })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_merchant_sets_pickup_delivery_and_zones_and_bad_settings_change_nothing(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    // The demo shop delivers to the zones its knowledge names.
    let before = app.get_json("/bots/demo-shop/delivery").await;
    assert_eq!(
        (before["pickup"].clone(), before["delivery"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(before["zones"].as_array().map(Vec::len), Some(3));
    assert_eq!(before["zones"][0]["fee_minor"], 800);
    assert_eq!(before["zones"][0]["free_from_minor"], 20000);
    assert!(before["zones"][2]["free_from_minor"].is_null());
    let stored = deliver(&app).await;
    assert_eq!(stored["zones"][0]["name"], "Sopocachi");
    assert_eq!(stored["zones"][1]["fee_minor"], 1200);
    for bad in [
        json!({"pickup": false, "delivery": false}),
        json!({"pickup": true, "delivery": true, "zones": []}),
        json!({"pickup": true, "delivery": true, "zones": [{"name": "A", "fee_minor": 1}, {"name": "a", "fee_minor": 2}]}),
        json!({"pickup": true, "delivery": true, "zones": [{"name": "A", "fee_minor": -1}]}),
        json!({"pickup": true, "delivery": true, "zones": [{"name": "A", "fee_minor": 1, "free_from_minor": 0}]}),
        json!({"pickup": true, "delivery": true, "zones": [{"name": "A", "fee_minor": 1, "min_order_minor": 4000, "free_from_minor": 2000}]}),
        json!({"pickup": true, "delivery": true, "zones": [{"name": " ", "fee_minor": 1}]}),
        json!({"pickup": true, "delivery": true, "zones": [{"name": "A", "fee_minor": 1, "eta": "1h"}]}),
        json!({"pickup": "sí"}),
    ] {
        let (status, body) = app
            .api(
                Method::PUT,
                "/bots/demo-shop/delivery",
                &app.key,
                Some(bad.clone()),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    assert_eq!(
        app.get_json("/bots/demo-shop/delivery").await,
        stored,
        "nothing changed"
    );
    tendero::demo::load_shop(&app.pool, tendero::demo::DEMO_FINANCE)
        .await
        .unwrap();
    let (status, _) = app
        .api(
            Method::PUT,
            "/bots/demo-finanzas/delivery",
            &app.key,
            Some(json!({"pickup": true, "delivery": false})),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::CONFLICT,
        "a finance bot delivers nothing"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_zone_chosen_below_its_minimum_says_the_minimum_at_once(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    deliver(&app).await;
    let s = "ema";
    app.say(s, "quiero 1 maracuyá").await;
    app.say(s, "cuánto es").await;
    let zone = app.say(s, "envíalo a Sopocachi").await;
    assert!(
        zone[0].contains("Envío a Sopocachi: Bs 10.")
            && zone[0].contains("El pedido mínimo para envío a esa zona es Bs 50")
            && zone[0].contains("tu pedido suma Bs 30")
            && zone[0].contains("o recogerlo en la tienda")
            && !zone[0].contains("¿A qué dirección"),
        "the address waits for the minimum: {zone:?}"
    );
    assert_eq!(app.cart(s).await, vec![("maracuya".to_owned(), 1)]);
    // A confirmation refused for the minimum says it once.
    let refused = app.say(s, "confirmo, envíalo a Sopocachi").await;
    assert_eq!(refused[0].matches("mínimo").count(), 1, "{refused:?}");

    // Placed in the same turn (the cart then empty), the order's own lines
    // are what met the minimum: no note of it.
    let s = "flor";
    app.say(s, "quiero 2 maracuyá").await;
    app.say(s, "cuánto es").await;
    let placed = app.say(s, "confirmo, envíalo a Sopocachi").await;
    assert!(
        placed[0].contains("Envío a Sopocachi: Bs 10.") && !placed[0].contains("pedido mínimo"),
        "{placed:?}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_delivery_order_asks_the_zone_and_address_and_adds_the_zones_fee(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    deliver(&app).await;
    let s = "dora";
    app.say(s, "quiero 2 maracuyá").await;
    let summary = app.say(s, "cuánto es").await;
    assert!(
        summary[0].contains("Recoges en la tienda — sin costo")
            && summary[0].contains("Si prefieres que te lo enviemos, dime la zona y la dirección")
            && summary[0].contains("• Sopocachi — Bs 10 (pedido mínimo Bs 50)")
            && summary[0].contains("• Miraflores — Bs 12"),
        "{summary:?}"
    );

    let outside = app.say(s, "envíenlo a El Alto por favor").await;
    assert!(
        outside[0].contains("¿A qué zona te lo enviamos?")
            && outside[0].contains("por ahora no llegamos ahí; puedes recogerlo en la tienda"),
        "{outside:?}"
    );
    let still = app.say(s, "El Alto").await;
    assert!(still[0].contains("No encontré esa zona"), "{still:?}");

    let zone = app.say(s, "Sopocachi").await;
    assert!(
        zone[0].contains("Envío a Sopocachi: Bs 10.") && zone[0].contains("¿A qué dirección"),
        "{zone:?}"
    );
    let address = app
        .say(s, "Calle Guachalla 123, edificio Azul, piso 2")
        .await;
    assert!(
        address[0]
            .contains("Envío a Calle Guachalla 123, edificio Azul, piso 2, Sopocachi — Bs 10")
            && address[0].contains("Total: Bs 70")
            && address[0].contains("¿Confirmas tu pedido?"),
        "{address:?}"
    );
    assert_eq!(
        app.cart(s).await,
        vec![("maracuya".into(), 2)],
        "the address's numbers are no quantities"
    );
    let confirmed = app.say(s, "sí").await;
    assert!(
        confirmed[0].contains("Tu pedido #1 por Bs 70 quedó registrado")
            && confirmed[0].contains("el envío (Bs 10) está incluido"),
        "{confirmed:?}"
    );
    let (fulfilment, zone, address, fee, total): (String, String, String, i64, i64) = sqlx::query_as(
        "SELECT fulfilment, delivery_zone, delivery_address, delivery_fee_minor, total_minor FROM orders",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        (
            fulfilment.as_str(),
            zone.as_str(),
            address.as_str(),
            fee,
            total
        ),
        (
            "delivery",
            "Sopocachi",
            "Calle Guachalla 123, edificio Azul, piso 2",
            1000,
            7000
        )
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn pickup_costs_nothing_and_a_small_order_meets_the_zones_minimum(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    deliver(&app).await;
    app.say("pia", "quiero 1 brownie").await;
    app.say("pia", "cuánto es").await;
    let chosen = app.say("pia", "lo recojo yo").await;
    assert!(
        chosen[0].contains("Recoges en la tienda — sin costo")
            && chosen[0].contains("Total: Bs 16"),
        "{chosen:?}"
    );
    let confirmed = app.say("pia", "sí").await;
    assert!(
        confirmed[0].contains("Lo recoges en la tienda"),
        "{confirmed:?}"
    );

    app.say("leo", "quiero 1 brownie").await;
    app.say("leo", "cuánto es").await;
    app.say("leo", "delivery a Sopocachi, calle 5 #12").await;
    let small = app.say("leo", "sí").await;
    assert!(
        small[0].contains("Para enviar a Sopocachi el pedido mínimo es Bs 50"),
        "{small:?}"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM orders").await,
        1,
        "only the pickup order"
    );
    // Another zone has no minimum; the address said before stays.
    let other = app.say("leo", "entonces a Miraflores").await;
    assert!(
        other[0].contains("Envío a calle 5 #12, Miraflores — Bs 12")
            && other[0].contains("Total: Bs 28"),
        "{other:?}"
    );
    app.say("leo", "sí").await;
    let totals: Vec<i64> = sqlx::query_scalar("SELECT total_minor FROM orders ORDER BY number")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(totals, [1600, 2800]);
}

/// A proposer that names a delivery fee of its own.
struct FeeSetter;

#[async_trait]
impl Proposer<ShopContract> for FeeSetter {
    fn name(&self) -> &'static str {
        "fee-setter"
    }

    async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
        if input.customer_message.contains("gratis") {
            let mut free = ProposedAction::new("SET_FULFILMENT");
            free.params.zone_id = Some(json!(input.delivery.as_ref().unwrap().zones[0].zone_id));
            free.params.address = Some("Calle 1".into());
            free.params.fee = Some(json!(0));
            return Ok(Proposal::new(
                vec![free, ProposedAction::new("SET_DELIVERY_FEE")],
                "Te lo envío gratis.",
            ));
        }
        Proposer::<ShopContract>::propose(&RulesProposer, input).await
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_proposed_delivery_fee_is_refused_like_a_proposed_price(pool: sqlx::PgPool) {
    let app = spawn_app_with(pool, Proposers::shop(Arc::new(FeeSetter))).await;
    deliver(&app).await;
    app.say("fer", "quiero 2 maracuyá").await;
    app.say("fer", "cuánto es").await;
    let told = app.say("fer", "dame las maracuyás gratis").await;
    assert!(
        !told[0].contains("gratis"),
        "the model's words are not used: {told:?}"
    );
    let conversation_id = app.conversation_id("fer").await;
    let refused: Vec<(String, Option<String>, Option<String>)> = app
        .audit(conversation_id)
        .await
        .into_iter()
        .filter(|(kind, ..)| kind == "action_rejected")
        .collect();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(
        refused.iter().all(|(_, _, reason)| reason
            .as_deref()
            .is_some_and(|r| r.contains("SetDeliveryFee"))),
        "{refused:?}"
    );
    let chosen: Option<Value> = sqlx::query_scalar("SELECT draft->'fulfilment' FROM conversations")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(
        chosen.as_ref().is_none_or(Value::is_null),
        "nothing was chosen: {chosen:?}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn in_the_demo_a_yes_picks_up_and_a_yes_with_a_place_delivers_free_from_the_threshold(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    // Nothing said of the way: picked up, as the summary said.
    app.say("ana", "quiero 2 capuchinos").await;
    app.say("ana", "eso es todo").await;
    let picked = app.say("ana", "sí").await;
    assert!(picked[0].contains("Lo recoges en la tienda"), "{picked:?}");
    // A yes with a place a zone lists and the street: confirmed with the
    // zone's fee, which the summary listed.
    app.say("beto", "quiero 2 capuchinos").await;
    app.say("beto", "eso es todo").await;
    let sent = app
        .say("beto", "sí, mándalo a Obrajes, calle 10 número 455")
        .await;
    assert!(
        sent.iter().any(|m| m.contains("por Bs 56 quedó registrado")
            && m.contains("el envío (Bs 12) está incluido")),
        "{sent:?}"
    );
    // An order of Bs 200 or more goes free to zone 1.
    app.say("caro", "quiero 10 capuchinos").await;
    app.say("caro", "eso es todo").await;
    let free = app
        .say("caro", "sí, a Sopocachi, calle Guachalla 512")
        .await;
    assert!(
        free.iter()
            .any(|m| m.contains("por Bs 220 quedó registrado") && m.contains("el envío es gratis")),
        "{free:?}"
    );
    let rows: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT fulfilment, delivery_fee_minor, total_minor FROM orders ORDER BY number",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        rows,
        vec![
            ("pickup".into(), 0, 4400),
            ("delivery".into(), 1200, 5600),
            ("delivery".into(), 0, 22000),
        ]
    );
    // A question about delivery chooses nothing.
    app.say("dani", "quiero 2 capuchinos").await;
    let asked = app
        .say("dani", "cuánto cobran de envío a Calacoto y cuánto tarda?")
        .await;
    assert!(asked[0].contains("Delivery"), "{asked:?}");
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 3);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_yes_with_a_zone_places_the_order_and_the_address_asked_next_is_kept_on_it(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    app.say("eva", "quiero 2 capuchinos").await;
    app.say("eva", "eso es todo").await;
    // The zone said with the yes: placed with the zone's fee, the address
    // asked right after.
    let placed = app.say("eva", "sí, mándamelo a Miraflores porfa").await;
    assert!(
        placed
            .iter()
            .any(|m| m.contains("por Bs 56 quedó registrado")
                && m.contains("el envío (Bs 12) está incluido")
                && m.contains("¿A qué dirección te lo enviamos?")),
        "{placed:?}"
    );
    let address = || async {
        sqlx::query_as::<_, (String, Option<String>, String)>(
            "SELECT fulfilment, delivery_address, status::text FROM orders",
        )
        .fetch_one(&app.pool)
        .await
        .unwrap()
    };
    assert_eq!(
        address().await,
        ("delivery".into(), None, "awaiting_payment".into())
    );
    // Thanks, another way or another zone are no address of it.
    for not_an_address in [
        "muchas gracias",
        "mejor lo recojo yo",
        "mejor mándalo a Calacoto, calle 5",
    ] {
        let said = app.say("eva", not_an_address).await;
        assert!(
            !said.iter().any(|m| m.contains("Anotado")),
            "{not_an_address}: {said:?}"
        );
        assert_eq!(address().await.1, None, "{not_an_address}");
    }
    // The address, answered (asked still, after the messages between): kept
    // on the order, nothing else changes.
    let kept = app
        .say("eva", "calle 10 número 455, casa verde de rejas")
        .await;
    assert!(
        kept.iter()
            .any(|m| m.contains("Anotado: te lo enviamos a calle 10 número 455")),
        "{kept:?}"
    );
    assert_eq!(
        address().await,
        (
            "delivery".into(),
            Some("calle 10 número 455, casa verde de rejas".into()),
            "awaiting_payment".into()
        )
    );
    // Another address later is no change to a placed order.
    app.say("eva", "mejor a la avenida Busch 1540").await;
    assert_eq!(
        address().await.1.as_deref(),
        Some("calle 10 número 455, casa verde de rejas")
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 1);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_place_no_zone_lists_places_no_order_and_a_yes_to_an_address_asked_places_it(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    // A yes with a place no zone lists: no order, pickup or other.
    app.say("fede", "quiero 2 capuchinos").await;
    app.say("fede", "eso es todo").await;
    let refused = app.say("fede", "sí, envíenlo a El Alto por favor").await;
    assert!(
        !refused.iter().any(|m| m.contains("quedó registrado")),
        "{refused:?}"
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    // A zone chosen before the yes: the summary showed its fee and asked the
    // address; «ok» places the order and asks the address right after, and
    // the address given then is kept on the order.
    app.say("gabi", "quiero 2 capuchinos").await;
    app.say("gabi", "envíamelo a Miraflores").await;
    let summary = app.say("gabi", "eso es todo").await;
    assert!(
        summary[0].contains("¿A qué dirección")
            && summary[0].contains("responde «sí» para confirmar el pedido"),
        "the summary offers the yes it will take: {summary:?}"
    );
    let placed = app.say("gabi", "ok").await;
    assert!(
        placed.iter().any(|m| m.contains("quedó registrado"))
            && placed.iter().any(|m| m.contains("¿A qué dirección")),
        "{placed:?}"
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 1);
    app.say("gabi", "calle Héroes del Acre 1780, casa verde")
        .await;
    let (zone, address): (String, Option<String>) =
        sqlx::query_as("SELECT delivery_zone, delivery_address FROM orders")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(zone.contains("Miraflores"), "{zone}");
    assert!(
        address.is_some_and(|a| a.contains("Héroes del Acre 1780")),
        "the address asked after the order is kept on it"
    );
}

/// In the cart, with the address asked after a zone was chosen, a message
/// naming a product changes the cart and is never kept as the address.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_order_change_while_the_address_is_asked_is_no_address(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let s = "hugo";
    app.say(s, "quiero 3 capuchinos").await;
    let asked = app.say(s, "envíamelo a Miraflores").await;
    assert!(asked[0].contains("¿A qué dirección"), "{asked:?}");
    app.say(s, "mejor que sean 4 capuchinos").await;
    assert_eq!(app.cart(s).await, vec![("capuchino".into(), 4)]);
    let summary = app.say(s, "eso es todo").await;
    assert!(
        !summary[0].contains("sean 4") && summary[0].contains("¿A qué dirección"),
        "the change was no address: {summary:?}"
    );
}

/// «listo, eso es todo, para domicilio en Obrajes»: the way and the summary in
/// one turn — the summary shown once, with the zone's fee, asking the address
/// or a yes; a yes places the order and asks the address after.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_way_said_with_the_close_shows_the_summary_once(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let s = "ines";
    app.say(s, "2 capuchinos y 2 brownies").await;
    let summary = app
        .say(s, "listo eso es todo es para domicilio en Obrajes")
        .await;
    assert_eq!(app.state(s).await, "CHECKOUT");
    let text = summary.join("\n");
    assert_eq!(text.matches("Resumen de tu pedido").count(), 1, "{text}");
    assert_eq!(text.matches("¿A qué dirección").count(), 1, "{text}");
    assert!(
        text.contains("Bs 12") && text.contains("responde «sí»"),
        "{text}"
    );
    let placed = app.say(s, "sí").await.join("\n");
    assert_eq!(app.state(s).await, "AWAITING_PAYMENT");
    assert!(placed.contains("¿A qué dirección"), "{placed}");
    // A pickup said with the close: chosen, and the summary shown once.
    let t = "jose";
    app.say(t, "1 capuchino").await;
    let summary = app
        .say(t, "eso sería todo, paso a recogerlo yo")
        .await
        .join("\n");
    assert_eq!(app.state(t).await, "CHECKOUT");
    assert_eq!(
        summary.matches("Resumen de tu pedido").count(),
        1,
        "{summary}"
    );
    assert!(summary.contains("Recoges en la tienda"), "{summary}");
}

/// At the summary, a product's price asked, then «entonces dame 2»: two of
/// that product, and the cart open again for a new summary.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_price_asked_at_the_summary_is_what_dame_2_means(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let s = "kari";
    app.say(s, "2 limonadas").await;
    app.say(s, "cuánto es?").await;
    assert_eq!(app.state(s).await, "CHECKOUT");
    let price = app
        .say(s, "y el cafe de los yungas a cuanto")
        .await
        .join("\n");
    assert!(price.contains("Bs 15"), "{price}");
    app.say(s, "entonces dame 2").await;
    let mut cart = app.cart(s).await;
    cart.sort();
    assert_eq!(cart, vec![("americano".into(), 2), ("limonada".into(), 2)]);
    assert_eq!(app.state(s).await, "CART_OPEN");
}
