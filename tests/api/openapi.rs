//! The merchant API as its OpenAPI document describes it: every documented
//! operation is fuzzed (no server error, whatever comes in), and every one is
//! called with another merchant's key (404 or 403, never their data).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

async fn document(app: &TestApp) -> Value {
    let response = app
        .client
        .get(format!("{}/api/v1/openapi.json", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

/// Every (method, path template, operation) in the document.
fn operations(doc: &Value) -> Vec<(Method, String, Value)> {
    let mut all = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let method: Method = method.to_uppercase().parse().unwrap();
            all.push((method, path.clone(), operation.clone()));
        }
    }
    all
}

/// A merchant's data, as ids to put in paths.
struct Seeded {
    conversation: String,
    order: String,
    product: String,
    key: String,
    dead_letter: String,
    knowledge: String,
}

/// A purchase with a proof waiting, a product, a second key and an undelivered message.
async fn seed(app: &TestApp) -> Seeded {
    for text in [
        "hola",
        "quiero 2 maracuyá",
        "cuánto es",
        "sí",
        "ya pagué, te envié el comprobante",
    ] {
        app.say("semilla", text).await;
    }
    let conversation = app.conversation_id("semilla").await.to_string();
    let order: uuid::Uuid = sqlx::query_scalar("SELECT id FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let product: i64 = sqlx::query_scalar("SELECT min(id) FROM products")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let (status, key) = app
        .post_api("/keys", Some(json!({"label": "segunda"})))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let dead: i64 = sqlx::query_scalar(
        "UPDATE outbox SET status = 'dead', last_error = 'seeded'
         WHERE id = (SELECT min(id) FROM outbox) RETURNING id",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let (status, entry) = app
        .post_api(
            "/bots/demo-shop/knowledge",
            Some(json!({"title": "Horario", "body": "Abrimos de 8 a 20."})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    Seeded {
        knowledge: entry["id"].to_string().trim_matches('"').to_owned(),
        conversation,
        order: order.to_string(),
        product: product.to_string(),
        key: key["id"].as_str().unwrap().to_owned(),
        dead_letter: dead.to_string(),
    }
}

/// The path with each `{param}` filled from the seeded data.
fn concrete(path: &str, seeded: &Seeded) -> String {
    let id = if path.starts_with("/conversations") {
        &seeded.conversation
    } else if path.starts_with("/orders") {
        &seeded.order
    } else if path.starts_with("/keys") {
        &seeded.key
    } else if path.starts_with("/dead-letters") {
        &seeded.dead_letter
    } else if path.contains("/knowledge/") {
        &seeded.knowledge
    } else {
        &seeded.product
    };
    path.replace("{slug}", "demo-shop")
        .replace("{channel}", "telegram")
        .replace("{id}", id)
}

/// A body that this operation would accept, as far as its schema tells.
fn plausible_body(doc: &Value, operation: &Value, rng: &mut StdRng) -> Option<Value> {
    let content = operation["requestBody"]["content"].as_object()?;
    let schema = content.get("application/json")?.get("schema")?;
    Some(value_for(doc, schema, rng, 0))
}

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap();
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

fn value_for(doc: &Value, schema: &Value, rng: &mut StdRng, depth: usize) -> Value {
    let schema = resolve(doc, schema);
    if let Some(options) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
        let pick = &options[rng.random_range(0..options.len())];
        return value_for(doc, pick, rng, depth + 1);
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds[rng.random_range(0..kinds.len())].clone(),
        other => other.clone(),
    };
    match kind.as_str().unwrap_or("object") {
        "null" => Value::Null,
        "boolean" => json!(rng.random_bool(0.5)),
        "integer" => json!([0, 1, 60, 3000, -1, i64::MAX, 86_400][rng.random_range(0..7)]),
        "number" => json!(rng.random_range(-1e6..1e6)),
        "string" => json!(hostile_string(rng)),
        "array" if depth < 3 => {
            let items = &schema["items"];
            json!(
                (0..rng.random_range(0..3))
                    .map(|_| value_for(doc, items, rng, depth + 1))
                    .collect::<Vec<_>>()
            )
        }
        _ if depth < 3 => {
            let mut object = serde_json::Map::new();
            if let Some(properties) = schema["properties"].as_object() {
                for (name, property) in properties {
                    if rng.random_bool(0.85) {
                        object.insert(name.clone(), value_for(doc, property, rng, depth + 1));
                    }
                }
            }
            Value::Object(object)
        }
        _ => json!({}),
    }
}

fn hostile_string(rng: &mut StdRng) -> String {
    const SAMPLES: &[&str] = &[
        "",
        " ",
        "hola",
        "IDLE",
        "telegram",
        "maracuya",
        "BOB",
        "ñandú ☕",
        "'; DROP TABLE orders; --",
        "%00",
        "../../etc/passwd",
        "\u{0}",
        "-1",
        "99999999999999999999999",
        "{\"x\":1}",
    ];
    match rng.random_range(0..4) {
        0 => "x".repeat(rng.random_range(100..5000)),
        _ => SAMPLES[rng.random_range(0..SAMPLES.len())].to_owned(),
    }
}

fn random_path(path: &str, seeded: &Seeded, rng: &mut StdRng) -> String {
    if rng.random_bool(0.4) {
        return concrete(path, seeded);
    }
    let mut out = String::new();
    for segment in path.split('/').skip(1) {
        out.push('/');
        if segment.starts_with('{') {
            let value = match rng.random_range(0..5) {
                0 => uuid::Uuid::new_v4().to_string(),
                1 => rng.random_range(-5..100_000i64).to_string(),
                2 => "99999999999999999999999".into(),
                3 => "%C3%B1%00".into(),
                _ => "x".repeat(rng.random_range(1..300)),
            };
            out.push_str(&value);
        } else {
            out.push_str(segment);
        }
    }
    out
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_document_is_openapi_3_1_and_covers_the_merchant_api(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let doc = document(&app).await;
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.1"),
        "{}",
        doc["openapi"]
    );
    let ops = operations(&doc);
    assert_eq!(ops.len(), 41, "every merchant operation");
    for (method, path) in [
        (Method::POST, "/conversations/{id}/reply"),
        (Method::POST, "/bots/{slug}/products.csv"),
        (Method::DELETE, "/keys/{id}"),
        (Method::POST, "/dead-letters/{id}/retry"),
        (Method::POST, "/orders/{id}/approve-payment"),
        (Method::POST, "/bots/{slug}/knowledge"),
        (Method::POST, "/bots/{slug}/knowledge/import"),
        (Method::POST, "/bots/{slug}/knowledge/try"),
        (Method::POST, "/bots/{slug}/webchat/identity-secret"),
        (Method::DELETE, "/bots/{slug}/webchat/identity-secret"),
        (Method::PATCH, "/bots/{slug}/knowledge/{id}"),
    ] {
        assert!(
            ops.iter().any(|(m, p, _)| *m == method && p == path),
            "{method} {path} documented"
        );
    }
    assert_eq!(doc["security"], json!([{"api_key": []}]));
    assert_eq!(
        doc["components"]["securitySchemes"]["api_key"]["scheme"],
        "bearer"
    );
    let reply = &doc["paths"]["/conversations/{id}/reply"]["post"];
    assert!(
        reply["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "Idempotency-Key" && p["in"] == "header")
    );
    // Every documented operation is served: none answers "route not found".
    let seeded = seed(&app).await;
    for (method, path, _) in &ops {
        let response = app
            .client
            .request(
                method.clone(),
                format!("{}/api/v1{}", app.base, concrete(path, &seeded)),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            StatusCode::UNAUTHORIZED,
            "{method} {path} is routed and guarded"
        );
    }
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn every_documented_operation_survives_random_input_without_a_server_error(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    let seeded = seed(&app).await;
    let doc = document(&app).await;
    let seed_value = std::env::var("TENDERO_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261123u64);
    let mut rng = StdRng::seed_from_u64(seed_value);
    let mut calls = 0;
    for (method, path, operation) in operations(&doc) {
        for _ in 0..25 {
            let url = format!(
                "{}/api/v1{}",
                app.base,
                random_path(&path, &seeded, &mut rng)
            );
            let mut query: Vec<(String, String)> = Vec::new();
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                if parameter["in"] == "query" && rng.random_bool(0.6) {
                    let value = match rng.random_range(0..3) {
                        0 => rng.random_range(-10..1000i64).to_string(),
                        _ => hostile_string(&mut rng),
                    };
                    query.push((parameter["name"].as_str().unwrap().to_owned(), value));
                }
            }
            let mut request = app.client.request(method.clone(), &url).query(&query);
            request = match rng.random_range(0..10) {
                0 => request,
                1 => request.bearer_auth("tdr_not-a-real-key"),
                _ => request.bearer_auth(&app.key),
            };
            if rng.random_bool(0.2) {
                request = request.header(
                    "Idempotency-Key",
                    // What a header can carry: visible ASCII and spaces.
                    hostile_string(&mut rng)
                        .chars()
                        .filter(|c| c.is_ascii() && !c.is_ascii_control())
                        .take(300)
                        .collect::<String>(),
                );
            }
            request = match (
                rng.random_range(0..4),
                plausible_body(&doc, &operation, &mut rng),
            ) {
                (0, _) => request.body(hostile_string(&mut rng)),
                (1, _) => request.body(
                    (0..rng.random_range(0..64))
                        .map(|_| rng.random::<u8>())
                        .collect::<Vec<u8>>(),
                ),
                (_, Some(body)) => request.json(&body),
                (_, None) => request.body(hostile_string(&mut rng)),
            };
            let response = request.send().await.unwrap();
            let status = response.status();
            let text = response.text().await.unwrap_or_default();
            assert!(
                !status.is_server_error(),
                "{method} {url} {query:?} answered {status}: {text}"
            );
            calls += 1;
        }
    }
    assert!(calls >= 28 * 25);
    // The server still serves: the merchant reads their conversation.
    let (status, _) = app
        .api(
            Method::GET,
            &format!("/conversations/{}", seeded.conversation),
            &app.key,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn another_merchants_key_reaches_nothing_on_any_documented_operation(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let seeded = seed(&app).await;
    let doc = document(&app).await;
    let other = tendero::merchants::create(&app.pool, "intrusa", "Intrusa")
        .await
        .unwrap();
    let intruder = tendero::api_keys::create(&app.pool, other).await.unwrap();
    let before = snapshot(&app).await;
    let secrets = [
        seeded.conversation.as_str(),
        seeded.order.as_str(),
        seeded.key.as_str(),
        "demo-shop",
        "Maracuya",
        "semilla",
    ];
    for (method, path, _) in operations(&doc) {
        let url = concrete(&path, &seeded);
        let body = valid_body(&method, &path);
        let (status, answer) = app.api(method.clone(), &url, &intruder, body).await;
        if path.contains('{') {
            assert!(
                status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
                "{method} {url} with another merchant's key: {status} {answer}"
            );
        } else {
            let text = answer.to_string();
            for secret in secrets {
                assert!(
                    !text.contains(secret),
                    "{method} {path} leaked {secret}: {text}"
                );
            }
        }
    }
    assert_eq!(
        snapshot(&app).await,
        before,
        "nothing of the merchant's changed"
    );
}

/// A body the operation accepts from its owner, so only ownership can refuse it.
fn valid_body(method: &Method, path: &str) -> Option<Value> {
    let body = match (method.as_str(), path) {
        ("POST", "/conversations/{id}/reply") => json!({"text": "hola"}),
        ("POST", "/orders/{id}/reject-payment") => json!({"reason": "no se lee"}),
        ("POST", "/orders/{id}/cancel") => json!({"reason": "sin motorista"}),
        ("POST", "/orders/{id}/status") => json!({"status": "delivered"}),
        ("PATCH", "/bots/{slug}") => json!({"agent_enabled": false}),
        ("PUT", "/bots/{slug}/channels/{channel}") => json!({"token": "1:x", "secret_token": "s"}),
        ("POST", "/bots/{slug}/products") => json!({"sku": "z", "name": "Z", "price_minor": 1}),
        ("PATCH", "/bots/{slug}/products/{id}") => json!({"price_minor": 1}),
        ("POST", "/bots") => json!({"slug": "intrusa-bot", "name": "Intrusa", "currency": "BOB"}),
        ("POST", _) | ("PUT", _) | ("PATCH", _) => json!({}),
        _ => return None,
    };
    Some(body)
}

/// What the intruder must not change: states, overrides, orders, prices, keys,
/// messages sent.
pub async fn snapshot(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT 'c ' || id || fsm_state || human_override FROM conversations
         UNION ALL SELECT 'o ' || id || status FROM orders
         UNION ALL SELECT 'p ' || id || price_minor || active || coalesce(stock, -1) || reserved FROM products
         UNION ALL SELECT 'k ' || id || coalesce(revoked_at::text, '') FROM api_keys
             WHERE merchant_id = (SELECT id FROM merchants WHERE slug = 'demo')
         UNION ALL SELECT 'm ' || id || status FROM outbox
         UNION ALL SELECT 'b ' || id || agent_enabled || session_timeout_secs || payment_instructions || config_version FROM bots
             WHERE merchant_id = (SELECT id FROM merchants WHERE slug = 'demo')
         UNION ALL SELECT 'ch ' || bot_id || channel FROM bot_channels
         UNION ALL SELECT 'e ' || id || md5(title || body) FROM knowledge_entries
         UNION ALL SELECT 'pa ' || id || array_to_string(tags, ',') || array_to_string(allergens, ',') FROM products
         ORDER BY 1",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap()
}
