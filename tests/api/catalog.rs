//! The catalog API: products created, edited and deactivated by the merchant reach
//! the very next turn; CSV export and import round-trip, and a bad file changes
//! nothing.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

async fn products(app: &TestApp) -> Vec<Value> {
    app.get_json("/bots/demo-shop/products").await["products"]
        .as_array()
        .unwrap()
        .clone()
}

async fn csv(app: &TestApp, key: &str) -> (StatusCode, String) {
    let response = app
        .client
        .get(format!("{}/api/v1/bots/demo-shop/products.csv", app.base))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

pub async fn import(app: &TestApp, body: String) -> (StatusCode, Value) {
    let response = app
        .client
        .post(format!("{}/api/v1/bots/demo-shop/products.csv", app.base))
        .bearer_auth(&app.key)
        .header("content-type", "text/csv")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn products_created_edited_and_deactivated_reach_the_next_turn(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let listed = products(&app).await;
    assert_eq!(listed.len(), 10);
    assert_eq!(listed[0]["price"], "Bs 30");

    let (status, created) = app
        .post_api(
            "/bots/demo-shop/products",
            Some(json!({"sku": "alfajor", "name": "Alfajor", "description": "De maicena.", "price_minor": 800})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["price"], "Bs 8");
    let reply = app.say("ada", "quiero 2 alfajores").await;
    assert!(reply[0].contains("Total: Bs 16"), "{reply:?}");

    let maracuya = listed.iter().find(|p| p["sku"] == "maracuya").unwrap()["id"].clone();
    let (status, edited) = app
        .api(
            Method::PATCH,
            &format!("/bots/demo-shop/products/{maracuya}"),
            &app.key,
            Some(json!({"price_minor": 3500})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{edited}");
    assert_eq!(edited["name"], "Maracuya", "untouched fields stay");
    let reply = app.say("ada", "y 1 maracuyá").await;
    assert!(
        reply[0].contains("Total: Bs 51"),
        "the new price, at once: {reply:?}"
    );

    let alfajor = created["id"].clone();
    let (status, _) = app
        .api(
            Method::PATCH,
            &format!("/bots/demo-shop/products/{alfajor}"),
            &app.key,
            Some(json!({"active": false})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let catalog = app.say("bea", "hola").await;
    assert!(!catalog[0].contains("Alfajor"), "{catalog:?}");
    app.say("bea", "quiero 1 alfajor").await;
    assert_eq!(
        app.cart("bea").await,
        vec![],
        "an inactive product cannot be sold"
    );
    assert_eq!(products(&app).await.len(), 11, "the merchant still sees it");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn bad_product_requests_are_refused_and_change_nothing(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    tendero::demo::load_shop(&app.pool, tendero::demo::DEMO_FINANCE)
        .await
        .unwrap();
    let create = |body: Value| {
        let app = &app;
        async move { app.post_api("/bots/demo-shop/products", Some(body)).await.0 }
    };
    for (body, status) in [
        (
            json!({"sku": "maracuya", "name": "Otra", "price_minor": 1}),
            StatusCode::CONFLICT,
        ),
        (
            json!({"sku": "x", "name": " ", "price_minor": 1}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"sku": "x", "name": "X", "price_minor": -1}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"sku": "con espacio", "name": "X", "price_minor": 1}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"sku": "x", "name": "X", "price_minor": 1, "discount": 50}),
            StatusCode::BAD_REQUEST,
        ),
        (json!({"sku": "x", "name": "X"}), StatusCode::BAD_REQUEST),
    ] {
        assert_eq!(create(body.clone()).await, status, "{body}");
    }
    let (status, _) = app
        .api(
            Method::PATCH,
            "/bots/demo-shop/products/999999",
            &app.key,
            Some(json!({"active": false})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app
        .api(
            Method::PATCH,
            "/bots/demo-shop/products/abc",
            &app.key,
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = app
        .api(Method::GET, "/bots/demo-finanzas/products", &app.key, None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");

    let other = tendero::merchants::create(&app.pool, "otra", "Otra")
        .await
        .unwrap();
    let key_b = tendero::api_keys::create(&app.pool, other).await.unwrap();
    let maracuya = products(&app).await[0]["id"].clone();
    for (method, path, body) in [
        (Method::GET, "/bots/demo-shop/products".to_string(), None),
        (
            Method::POST,
            "/bots/demo-shop/products".to_string(),
            Some(json!({"sku": "y", "name": "Y", "price_minor": 1})),
        ),
        (
            Method::PATCH,
            format!("/bots/demo-shop/products/{maracuya}"),
            Some(json!({"price_minor": 1})),
        ),
    ] {
        let (status, _) = app.api(method, &path, &key_b, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(csv(&app, &key_b).await.0, StatusCode::NOT_FOUND);
    assert_eq!(products(&app).await.len(), 10, "nothing was created");
    assert_eq!(
        products(&app).await[0]["price_minor"],
        3000,
        "nothing was changed"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_catalog_exported_edited_and_imported_updates_and_adds_all_or_nothing(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    let (status, exported) = csv(&app, &app.key).await;
    assert_eq!(status, StatusCode::OK);
    let lines: Vec<&str> = exported.lines().collect();
    assert_eq!(
        lines[0], "\u{feff}código,nombre,descripción,precio,activo,etiquetas,alérgenos,existencias",
        "Spanish headers, after a byte-order mark for spreadsheets"
    );
    assert_eq!(lines.len(), 11);
    assert!(lines[1].starts_with("maracuya,Maracuya,"), "{}", lines[1]);

    let edited = exported.replacen(",30,sí", ",32.50,sí", 1)
        + "alfajor,Alfajor de maicena,\"Dulce, con coco\",\"8,50\",sí\n";
    let (status, result) = import(&app, edited).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result, json!({"created": 1, "updated": 10}));
    let listed = products(&app).await;
    assert_eq!(listed[0]["price"], "Bs 32.50");
    assert_eq!(listed[10]["description"], "Dulce, con coco");
    assert_eq!(listed[10]["price_minor"], 850);

    // One bad line refuses the whole file, with every problem and its line.
    let bad = "sku,name,price\nmaracuya,Maracuya,1\nnuevo,,5\nchai,Té chai,gratis\n";
    let (status, refused) = import(&app, bad.into()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    let reported: Vec<u64> = refused["details"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["line"].as_u64().unwrap())
        .collect();
    assert_eq!(reported, [3, 4]);
    assert_eq!(
        products(&app).await[0]["price_minor"],
        3250,
        "nothing imported"
    );
    assert_eq!(products(&app).await.len(), 11);

    for (body, status) in [
        (String::new(), StatusCode::UNPROCESSABLE_ENTITY),
        ("sku,name,price\n".into(), StatusCode::BAD_REQUEST),
        ("\u{0}\u{1}garbage".into(), StatusCode::BAD_REQUEST),
    ] {
        assert_eq!(import(&app, body.clone()).await.0, status, "{body:?}");
    }
    let not_utf8 = app
        .client
        .post(format!("{}/api/v1/bots/demo-shop/products.csv", app.base))
        .bearer_auth(&app.key)
        .body(vec![0xff, 0xfe, 0x00])
        .send()
        .await
        .unwrap();
    assert_eq!(not_utf8.status(), StatusCode::BAD_REQUEST);

    // A big catalog fits (past the 64 KiB of other API bodies); past 2 MiB, 413.
    let mut big = String::from("sku,name,description,price\n");
    for i in 0..3000 {
        big.push_str(&format!(
            "p{i},Producto {i},Una descripción de prueba para el producto {i},{i}\n"
        ));
    }
    assert!(big.len() > 64 * 1024);
    let (status, result) = import(&app, big).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["created"], 3000);
    let huge = "x".repeat(3 * 1024 * 1024);
    assert_eq!(import(&app, huge).await.0, StatusCode::PAYLOAD_TOO_LARGE);
}
