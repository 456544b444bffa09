//! Stock: counted by the merchant, held by orders waiting for payment, consumed
//! by a payment and given back by every end; never sold twice, whichever
//! process confirms.

use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::postgres::PgPoolOptions;
use tendero::startup::{self, Proposers};

use crate::catalog::import;
use crate::helpers::{TestApp, spawn_app};

async fn product(app: &TestApp, sku: &str) -> Value {
    app.get_json("/bots/demo-shop/products").await["products"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["sku"] == sku)
        .unwrap_or_else(|| panic!("no product {sku}"))
        .clone()
}

async fn set_stock(app: &TestApp, sku: &str, stock: Value) -> (StatusCode, Value) {
    let id = product(app, sku).await["id"].clone();
    app.api(
        Method::PATCH,
        &format!("/bots/demo-shop/products/{id}"),
        &app.key,
        Some(json!({ "stock": stock })),
    )
    .await
}

/// (stock, reserved) of a product.
async fn units(app: &TestApp, sku: &str) -> (Option<i32>, i32) {
    sqlx::query_as("SELECT stock, reserved FROM products WHERE sku = $1")
        .bind(sku)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn buy(app: &TestApp, session: &str, what: &str) -> Vec<String> {
    app.say(session, what).await;
    app.say(session, "cuánto es").await;
    app.say(session, "sí").await
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_merchant_counts_stock_through_the_api_and_the_csv(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let untracked = product(&app, "maracuya").await;
    assert_eq!(untracked["stock"], Value::Null);
    assert_eq!(
        untracked["available"],
        Value::Null,
        "not tracked by default"
    );

    let (status, body) = set_stock(&app, "maracuya", json!(5)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (body["stock"].clone(), body["available"].clone()),
        (json!(5), json!(5))
    );
    for bad in [json!(-1), json!("cinco"), json!(2.5), json!(2_000_000)] {
        let (status, body) = set_stock(&app, "maracuya", bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains("stock") || error.contains("i32"), "{body}");
    }
    assert_eq!(
        units(&app, "maracuya").await,
        (Some(5), 0),
        "a refusal changes nothing"
    );

    let (status, created) = app
        .post_api(
            "/bots/demo-shop/products",
            Some(json!({"sku": "torta", "name": "Torta", "price_minor": 9000, "stock": 0})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["sold_out"], true);

    let (status, body) = set_stock(&app, "maracuya", Value::Null).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["stock"], Value::Null, "null stops counting");

    let (status, _) = import(
        &app,
        "sku,name,price,stock\nmaracuya,Maracuya,30,7\nmatcha,Matcha,29,\n".into(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(units(&app, "maracuya").await.0, Some(7));
    assert_eq!(
        units(&app, "matcha").await.0,
        None,
        "an empty cell: not counted"
    );
    let (status, _) = import(
        &app,
        "sku,name,price,stock\nmaracuya,Maracuya,30,-2\n".into(),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        units(&app, "maracuya").await.0,
        Some(7),
        "a bad file changes nothing"
    );
    let exported = app
        .client
        .get(format!("{}/api/v1/bots/demo-shop/products.csv", app.base))
        .bearer_auth(&app.key)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        exported.lines().next().unwrap().ends_with(",existencias"),
        "{exported}"
    );
    assert!(exported.contains("Maracuya,"), "{exported}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_customer_cannot_take_more_than_is_left_and_a_yes_takes_what_is_left(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    set_stock(&app, "cheesecake", json!(3)).await;
    set_stock(&app, "brownie", json!(0)).await;

    let asked = app.say("ines", "quiero 5 cheesecakes").await;
    assert!(
        asked[0].contains("solo nos quedan 3; ¿te pongo 3?"),
        "{asked:?}"
    );
    assert!(
        app.cart("ines").await.is_empty(),
        "nothing past what is left"
    );

    let took = app.say("ines", "sí").await;
    assert!(took[0].contains("Agregué 3 × Cheesecake"), "{took:?}");
    assert_eq!(app.cart("ines").await, vec![("cheesecake".into(), 3)]);

    let more = app.say("ines", "uno más de cheesecake").await;
    assert!(more[0].contains("solo nos quedan 3"), "{more:?}");
    assert_eq!(app.cart("ines").await, vec![("cheesecake".into(), 3)]);

    let sold_out = app.say("ines", "y un brownie").await;
    assert!(sold_out[0].contains("Se nos agotó Brownie"), "{sold_out:?}");

    let listing = app.say("juan", "catálogo").await;
    let brownie_line = listing[0]
        .lines()
        .find(|l| l.contains("Brownie"))
        .unwrap()
        .to_owned();
    assert!(brownie_line.contains("(agotado)"), "{listing:?}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_order_holds_its_units_until_paid_and_every_end_gives_them_back(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    set_stock(&app, "cheesecake", json!(10)).await;

    // Confirmed: held. Cancelled by the customer: back.
    let confirmed = buy(&app, "a", "quiero 2 cheesecakes").await;
    assert!(confirmed[0].contains("quedó registrado"), "{confirmed:?}");
    assert_eq!(units(&app, "cheesecake").await, (Some(10), 2));
    assert_eq!(product(&app, "cheesecake").await["available"], 8);
    app.say("a", "cancelar").await;
    assert_eq!(units(&app, "cheesecake").await, (Some(10), 0));

    // Expired: back.
    buy(&app, "b", "quiero 3 cheesecakes").await;
    assert_eq!(units(&app, "cheesecake").await, (Some(10), 3));
    sqlx::query("UPDATE orders SET payment_due_at = now() - interval '1 minute' WHERE status = 'awaiting_payment'")
        .execute(&app.pool)
        .await
        .unwrap();
    app.engine.sweep().await.unwrap();
    app.drain().await;
    assert_eq!(units(&app, "cheesecake").await, (Some(10), 0));

    // A rejected proof keeps them (the order still waits for a good one); the
    // approval consumes them.
    buy(&app, "c", "quiero 4 cheesecakes").await;
    app.say("c", "ya pagué").await;
    let order = app.order_of("c").await;
    let (status, _) = app
        .post_api(
            &format!("/orders/{order}/reject-payment"),
            Some(json!({"reason": "no se ve el monto"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(units(&app, "cheesecake").await, (Some(10), 4));
    app.say("c", "ya pagué, te reenvío el comprobante").await;
    let (status, _) = app
        .post_api(&format!("/orders/{order}/approve-payment"), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        units(&app, "cheesecake").await,
        (Some(6), 0),
        "sold: off the shelf"
    );

    // A paid order the merchant cancels puts its units back on sale.
    let (status, body) = app
        .post_api(
            &format!("/orders/{order}/cancel"),
            Some(json!({"reason": "se nos quemó el horno"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(units(&app, "cheesecake").await, (Some(10), 0));
    // ...once: cancelling again is refused and moves nothing.
    let (status, _) = app
        .post_api(
            &format!("/orders/{order}/cancel"),
            Some(json!({"reason": "otra vez"})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(units(&app, "cheesecake").await, (Some(10), 0));
    let states: Vec<String> = sqlx::query_scalar("SELECT stock_state FROM orders ORDER BY number")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(states, ["returned", "returned", "returned"]);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_merchant_hears_when_a_product_runs_low_and_when_it_sells_out(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    sqlx::query("UPDATE bots SET merchant_chat_id = '777' WHERE slug = 'demo-shop'")
        .execute(&app.pool)
        .await
        .unwrap();
    let (status, body) = app
        .patch_bot("demo-shop", json!({"low_stock_threshold": 2}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["low_stock_threshold"], 2);
    let (status, _) = app
        .patch_bot("demo-shop", json!({"low_stock_threshold": -1}))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    set_stock(&app, "cheesecake", json!(5)).await;

    let told = || async {
        sqlx::query_scalar::<_, String>(
            "SELECT payload->>'text' FROM outbox WHERE audience = 'merchant' ORDER BY id",
        )
        .fetch_all(&app.pool)
        .await
        .unwrap()
    };
    buy(&app, "a", "quiero 2 cheesecakes").await;
    assert!(told().await.is_empty(), "3 left: above the threshold");
    buy(&app, "b", "quiero 1 cheesecake").await;
    let notices = told().await;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("Quedan 2 de Cheesecake"), "{notices:?}");
    buy(&app, "c", "quiero 2 cheesecakes").await;
    let notices = told().await;
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[1].contains("Se agotó Cheesecake"), "{notices:?}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn forty_customers_confirming_at_once_over_two_processes_never_buy_the_same_unit(
    pool: sqlx::PgPool,
) {
    let app = Arc::new(spawn_app(pool).await);
    set_stock(&app, "cheesecake", json!(10)).await;
    let customers: Vec<String> = (0..40).map(|i| format!("c{i}")).collect();
    for (text, id) in [("quiero 1 cheesecake", "m1"), ("cuánto es", "m2")] {
        for name in &customers {
            app.post_message(name, text, id).await;
        }
        app.drain().await;
    }
    for name in &customers {
        assert_eq!(app.state(name).await, "CHECKOUT", "{name}");
    }
    // Every "sí" at once, and two engines as two processes would have them:
    // separate pools, separate leases.
    futures::future::join_all(
        customers
            .iter()
            .map(|name| app.post_message(name, "sí", "m3")),
    )
    .await;
    let mut workers = Vec::new();
    for _ in 0..2 {
        let own = PgPoolOptions::new()
            .max_connections(8)
            .connect(&app.database_url())
            .await
            .unwrap();
        let engine = startup::engine(&own, &app.settings, &Proposers::rules());
        workers.push(tokio::spawn(async move {
            engine.run_until_idle().await.unwrap();
        }));
    }
    for worker in workers {
        worker.await.unwrap();
    }
    app.drain().await;

    let sold: i64 = app
        .count(
            "SELECT coalesce(sum(i.quantity), 0) FROM orders o JOIN order_items i ON i.order_id = o.id
             WHERE o.status = 'awaiting_payment'",
        )
        .await;
    assert_eq!(sold, 10, "exactly the ten units are in live orders");
    assert_eq!(units(&app, "cheesecake").await, (Some(10), 10));
    let mut refused = 0;
    for name in &customers {
        match app.state(name).await.as_str() {
            "AWAITING_PAYMENT" => {}
            _ => {
                refused += 1;
                let last = app.replies(name).await.pop().unwrap();
                assert!(
                    last.contains("Cheesecake")
                        && (last.contains("agot") || last.contains("quedan")),
                    "{name}: {last}"
                );
            }
        }
    }
    assert_eq!(refused, 30, "the other thirty were told it ran out");
}

/// A unit taken by another process between the turn's reading and its commit:
/// the order is not written, the cart stays, and the customer is told.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn units_taken_while_the_turn_thought_leave_no_order_and_the_cart_as_it_was(
    pool: sqlx::PgPool,
) {
    use async_trait::async_trait;
    use tendero::proposal::ProposerError;
    use tendero::shop::contract::{Proposal, ProposalInput};
    use tendero::shop::proposer::{Proposer, RulesProposer, ShopContract};

    /// The rules, and another customer's order landing while they read.
    struct Rival(sqlx::PgPool);

    #[async_trait]
    impl Proposer<ShopContract> for Rival {
        fn name(&self) -> &'static str {
            "rules-with-a-rival"
        }

        async fn propose(&self, input: &ProposalInput) -> Result<Proposal, ProposerError> {
            if input.customer_message.starts_with("sí") {
                sqlx::query("UPDATE products SET reserved = stock - 1 WHERE sku = 'cheesecake'")
                    .execute(&self.0)
                    .await
                    .unwrap();
            }
            Proposer::<ShopContract>::propose(&RulesProposer, input).await
        }
    }

    let rival = Arc::new(Rival(pool.clone()));
    let app = crate::helpers::spawn_app_with(pool, Proposers::shop(rival)).await;
    set_stock(&app, "cheesecake", json!(5)).await;
    app.say("eva", "quiero 2 cheesecakes").await;
    app.say("eva", "cuánto es").await;
    let told = app.say("eva", "sí, confirmo").await;
    assert!(
        told[0].contains("no pude registrar tu pedido")
            && told[0].contains("solo nos queda 1 (pediste 2)"),
        "{told:?}"
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 0);
    assert_eq!(app.state("eva").await, "CART_OPEN");
    assert_eq!(app.cart("eva").await, vec![("cheesecake".into(), 2)]);
    assert_eq!(
        units(&app, "cheesecake").await,
        (Some(5), 4),
        "nothing more held"
    );
    let conversation_id = app.conversation_id("eva").await;
    let audit = app.audit(conversation_id).await;
    assert!(
        audit
            .iter()
            .any(|(kind, action, reason)| kind == "action_rejected"
                && action.as_deref() == Some("CONFIRM_ORDER")
                && reason
                    .as_deref()
                    .is_some_and(|r| r.contains("out of stock"))),
        "{audit:?}"
    );
}
