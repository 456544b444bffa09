//! What a shop knows beyond its catalog (issue 21), over the merchant API and web
//! chat: entries kept and edited, answers that name their source, the gray zone,
//! the day's cache, a question that never disturbs an order, a model's answer
//! held by the check, and embeddings that are optional.

use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tendero::llm::Client as LlmClient;
use tendero::shop::messages::GRAY_ZONE;
use tendero::startup::Proposers;

use crate::fake_llm::{FakeLlm, Reply};
use crate::helpers::{TestApp, spawn_app, spawn_app_with};
use crate::llm::config;

const HOURS: &str = "Abrimos de lunes a viernes de 7:30 a 21:00.\n\nLos sábados abrimos de 9:00 a 14:00 y los domingos cerramos.";
const DELIVERY: &str = "Hacemos envíos a Sopocachi por Bs 10 y a Miraflores por Bs 12. El pedido llega en unos 40 minutos.";

/// The demo shop ships with knowledge of its own; these tests write their own.
async fn without_demo_knowledge(app: &TestApp) {
    sqlx::query("DELETE FROM knowledge_entries")
        .execute(&app.pool)
        .await
        .unwrap();
}

async fn add_entry(app: &TestApp, title: &str, body: &str) -> i64 {
    let (status, entry) = app
        .post_api(
            "/bots/demo-shop/knowledge",
            Some(json!({"title": title, "body": body})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    assert_eq!(entry["title"], title);
    entry["id"].as_i64().expect("an id")
}

async fn entries(app: &TestApp) -> Vec<Value> {
    app.get_json("/bots/demo-shop/knowledge").await["entries"]
        .as_array()
        .unwrap()
        .clone()
}

async fn answered(app: &TestApp, session: &str) -> Vec<Value> {
    let conversation = app.conversation_id(session).await;
    sqlx::query_scalar(
        "SELECT detail FROM audit_log WHERE conversation_id = $1 AND kind = 'knowledge_answered' ORDER BY id",
    )
    .bind(conversation)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn entries_are_kept_through_the_api_and_bad_input_changes_nothing(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    let before = entries(&app).await.len();
    let id = add_entry(&app, "Horario", HOURS).await;
    let listed = entries(&app).await;
    assert_eq!(listed.len(), before + 1);
    assert!(listed.iter().any(|e| e["id"] == id && e["body"] == HOURS));

    let path = format!("/bots/demo-shop/knowledge/{id}");
    assert_eq!(app.get_json(&path).await["title"], "Horario");
    let (status, patched) = app
        .api(
            Method::PATCH,
            &path,
            &app.key,
            Some(json!({"title": "Horarios"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    assert_eq!(patched["title"], "Horarios");
    assert_eq!(patched["body"], HOURS, "an absent field keeps its value");

    // Bad input: a clear error, and nothing changes.
    let create = "/bots/demo-shop/knowledge";
    for (body, expected) in [
        (json!({"title": "", "body": "x"}), StatusCode::BAD_REQUEST),
        (
            json!({"title": "Largo", "body": "x".repeat(20_001)}),
            StatusCode::BAD_REQUEST,
        ),
        (json!({"title": "Sin cuerpo"}), StatusCode::BAD_REQUEST),
        (
            json!({"title": "t", "body": "b", "price": 1}),
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let (status, error) = app.post_api(create, Some(body.clone())).await;
        assert_eq!(status, expected, "{body}: {error}");
        assert!(
            error["error"].is_string() || error["message"].is_string(),
            "{error}"
        );
    }
    let malformed = app
        .client
        .post(format!("{}/api/v1{create}", app.base))
        .bearer_auth(&app.key)
        .header("content-type", "application/json")
        .body("{\"title\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), StatusCode::BAD_REQUEST);
    for unknown in [
        "/bots/demo-shop/knowledge/999999",
        "/bots/demo-shop/knowledge/abc",
    ] {
        let (status, _) = app.api(Method::GET, unknown, &app.key, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{unknown}");
    }
    let (status, _) = app
        .api(Method::GET, "/bots/demo-finanzas/knowledge", &app.key, None)
        .await;
    assert!(
        status.is_client_error(),
        "a finance bot has no shop knowledge"
    );
    // Another merchant sees none of it and can change none of it.
    let other = tendero::merchants::create(&app.pool, "otra", "Otra")
        .await
        .unwrap();
    let other_key = tendero::api_keys::create(&app.pool, other).await.unwrap();
    for (method, body) in [
        (Method::GET, None),
        (Method::PATCH, Some(json!({"body": "robado"}))),
        (Method::DELETE, None),
    ] {
        let (status, _) = app.api(method.clone(), &path, &other_key, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method}");
    }
    assert_eq!(entries(&app).await.len(), before + 1);
    assert_eq!(app.get_json(&path).await["body"], HOURS);

    // An import is all or nothing, and bounded.
    let import = "/bots/demo-shop/knowledge/import";
    let (status, refused) = app
        .post_api(
            import,
            Some(json!({"entries": [
                {"title": "Envíos", "body": DELIVERY},
                {"title": "", "body": "sin título"}
            ]})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert_eq!(entries(&app).await.len(), before + 1, "nothing imported");
    let too_many: Vec<Value> = (0..201)
        .map(|i| json!({"title": format!("t{i}"), "body": "b"}))
        .collect();
    let (status, _) = app
        .post_api(import, Some(json!({ "entries": too_many })))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, created) = app
        .post_api(
            import,
            Some(json!({"entries": [
                {"title": "Envíos", "body": DELIVERY},
                {"title": "Pagos", "body": "Aceptamos QR Simple, transferencia al Banco Unión y efectivo."}
            ]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["created"], 2);

    // Trying a question shows the answer and the entry it came from.
    let (status, tried) = app
        .post_api(
            "/bots/demo-shop/knowledge/try",
            Some(json!({"question": "¿a qué hora abren los sábados?"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tried}");
    assert_eq!(tried["gray"], false, "{tried}");
    assert_eq!(tried["sources"][0]["title"], "Horarios", "{tried}");
    assert!(tried["text"].as_str().unwrap().contains("9:00"), "{tried}");
    let (_, tried) = app
        .post_api(
            "/bots/demo-shop/knowledge/try",
            Some(json!({"question": "¿aceptan bitcoin?"})),
        )
        .await;
    // A way to pay that is not written is answered with the ways that are,
    // saying so first.
    assert_eq!(tried["gray"], false, "{tried}");
    assert_eq!(tried["sources"][0]["title"], "Pagos", "{tried}");
    let text = tried["text"].as_str().unwrap();
    assert!(
        text.starts_with("«bitcoin» no está entre las formas de pago"),
        "{tried}"
    );
    let (_, tried) = app
        .post_api(
            "/bots/demo-shop/knowledge/try",
            Some(json!({"question": "¿tienen estacionamiento?"})),
        )
        .await;
    assert_eq!(tried["gray"], true, "{tried}");

    let (status, _) = app.api(Method::DELETE, &path, &app.key, None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app.api(Method::GET, &path, &app.key, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let chunks = app
        .count(&format!(
            "SELECT count(*) FROM knowledge_chunks WHERE entry_id = {id}"
        ))
        .await;
    assert_eq!(chunks, 0, "an entry's chunks go with it");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn an_answer_names_its_source_and_an_edit_reaches_the_next_turn(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    let id = add_entry(&app, "Horario", HOURS).await;
    let reply = app.say("ana", "hola, a que hora abren los sabados").await;
    assert!(
        reply.iter().any(|r| r.contains("9:00 a 14:00")),
        "{reply:?}"
    );
    assert!(reply.iter().any(|r| r.contains("Horario")), "{reply:?}");
    assert!(app.cart("ana").await.is_empty());
    let audit = answered(&app, "ana").await;
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert!(
        audit[0]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["step"] == "searched"),
        "{audit:?}"
    );
    assert_eq!(audit[0]["gray"], false);
    assert_eq!(audit[0]["sources"][0]["title"], "Horario");

    // A misspelt word is found by its trigrams.
    let reply = app.say("ana", "y el orario de los sabados cual es").await;
    assert!(
        reply.iter().any(|r| r.contains("9:00 a 14:00")),
        "{reply:?}"
    );

    let path = format!("/bots/demo-shop/knowledge/{id}");
    let (status, _) = app
        .api(
            Method::PATCH,
            &path,
            &app.key,
            Some(json!({"body": "Los sábados abrimos de 10:00 a 13:00."})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    // The same question the same day: the edit, not yesterday's answer.
    let reply = app.say("beto", "hola, a que hora abren los sabados").await;
    assert!(
        reply.iter().any(|r| r.contains("10:00 a 13:00")),
        "{reply:?}"
    );
    assert!(!reply.iter().any(|r| r.contains("9:00")), "{reply:?}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_question_that_goes_on_from_the_last_one_is_read_with_it(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    add_entry(&app, "Horario", HOURS).await;
    add_entry(
        &app,
        "Envíos",
        "Hacemos envíos a Sopocachi por Bs 10. Los domingos no hacemos envíos, solo recojo en tienda.",
    )
    .await;
    add_entry(
        &app,
        "Factura",
        "Para la factura danos tu NIT y la razón social antes de pagar.",
    )
    .await;
    app.say("gabi", "quiero 2 capuchinos").await;
    let reply = app.say("gabi", "¿hacen envíos a Sopocachi?").await;
    assert!(reply.iter().any(|r| r.contains("Bs 10")), "{reply:?}");
    // After the delivery, «¿y los domingos?» asks about delivery on Sundays…
    let reply = app.say("gabi", "¿y los domingos?").await;
    assert!(
        reply.iter().any(|r| r.contains("no hacemos envíos")),
        "{reply:?}"
    );
    // …and asked first, about the shop's Sundays.
    let reply = app.say("hugo", "¿y los domingos?").await;
    assert!(
        reply.iter().any(|r| r.contains("domingos cerramos")),
        "{reply:?}"
    );
    // A question whole in itself is its own, whatever came before.
    let reply = app.say("gabi", "¿y a qué hora abren los sábados?").await;
    assert!(
        reply.iter().any(|r| r.contains("9:00 a 14:00")),
        "{reply:?}"
    );
    // Without its mark and unread as an order, a question still reaches the
    // knowledge.
    let reply = app
        .say(
            "gabi",
            "necesito factura a nombre de mi empresa, que datos les paso",
        )
        .await;
    assert!(reply.iter().any(|r| r.contains("NIT")), "{reply:?}");
    assert_eq!(app.cart("gabi").await, vec![("capuchino".into(), 2)]);
    assert_eq!(app.state("gabi").await, "CART_OPEN");
    // A request with no question ends what a follow-up goes on from: «¿y los
    // domingos?» after it is about the shop's Sundays again.
    app.say("gabi", "agrega un brownie").await;
    let reply = app.say("gabi", "¿y los domingos?").await;
    assert!(
        reply.iter().any(|r| r.contains("domingos cerramos")),
        "{reply:?}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn what_the_knowledge_does_not_say_is_the_gray_zone(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    add_entry(&app, "Envíos", DELIVERY).await;
    for question in [
        "¿aceptan pagos con bitcoin?",
        "hacen envios a El Alto?",
        "¿tienen estacionamiento para bicicletas?",
    ] {
        let reply = app.say("carla", question).await;
        assert_eq!(reply, [GRAY_ZONE], "{question}");
    }
    let audit = answered(&app, "carla").await;
    assert_eq!(audit.len(), 3);
    assert!(audit.iter().all(|a| a["gray"] == true), "{audit:?}");
    assert!(app.cart("carla").await.is_empty());
    // The offer is real: asking for a person hands the conversation over.
    app.say("carla", "quiero hablar con una persona").await;
    assert_eq!(app.state("carla").await, "HUMAN_TAKEOVER");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_question_at_checkout_keeps_the_cart_the_state_and_the_confirmation(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    add_entry(&app, "Envíos", DELIVERY).await;
    app.say("dani", "quiero 2 capuchinos").await;
    app.say("dani", "eso es todo").await;
    assert_eq!(app.state("dani").await, "CHECKOUT");
    let reply = app.say("dani", "¿hacen envíos a Sopocachi?").await;
    assert!(reply.iter().any(|r| r.contains("Bs 10")), "{reply:?}");
    assert_eq!(app.state("dani").await, "CHECKOUT");
    assert_eq!(app.cart("dani").await, vec![("capuchino".into(), 2)]);
    // The summary still stands: «sí» confirms it.
    app.say("dani", "sí").await;
    assert_eq!(app.state("dani").await, "AWAITING_PAYMENT");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_question_and_an_order_in_one_message_get_both(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    add_entry(&app, "Envíos", DELIVERY).await;
    let reply = app
        .say(
            "eva",
            "¿hacen envíos a Miraflores? si sí, mándame 2 brownies",
        )
        .await;
    assert!(reply.iter().any(|r| r.contains("Bs 12")), "{reply:?}");
    assert_eq!(app.cart("eva").await, vec![("brownie".into(), 2)]);
    assert_eq!(app.state("eva").await, "CART_OPEN");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_request_put_on_an_answer_stands_only_on_that_answer(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    // The chai holds dairy: «si no, dame dos» adds nothing, and says why.
    let reply = app
        .say("fer", "¿el chai lleva leche? si no, dame dos")
        .await;
    assert!(
        reply
            .iter()
            .any(|r| r.contains("Sí, el Té chai lleva lácteos")),
        "{reply:?}"
    );
    assert!(app.cart("fer").await.is_empty());
    // The americano is vegan: no dairy, so the request stands.
    let reply = app
        .say(
            "fer",
            "¿y el americano tiene lácteos? si no tiene, dame uno para mí",
        )
        .await;
    assert!(
        reply
            .iter()
            .any(|r| r.contains("no lleva lácteos (es vegano)")),
        "{reply:?}"
    );
    assert_eq!(app.cart("fer").await, vec![("americano".into(), 1)]);
    // A request on a yes to what nobody wrote waits for the customer.
    app.say("fer", "¿hacen envíos a Mallasa? si sí, mándame 2 brownies")
        .await;
    assert_eq!(app.cart("fer").await, vec![("americano".into(), 1)]);
}

fn written(answer: &str, sources: &[usize]) -> String {
    json!({"answer": answer, "sources": sources, "unknown": false}).to_string()
}

async fn with_model(pool: sqlx::PgPool, fake: &FakeLlm, embeddings: bool) -> TestApp {
    let mut config = config(fake, tendero::config::ResponseMode::JsonSchema);
    config.rules_first = true;
    if embeddings {
        config.embeddings_model = Some("fake-embed".into());
    }
    let client = LlmClient::new(config).unwrap();
    spawn_app_with(pool, Proposers::llm(Arc::new(client))).await
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_same_question_the_same_day_is_answered_once_and_metrics_count_it(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = with_model(pool, &fake, false).await;
    without_demo_knowledge(&app).await;
    add_entry(&app, "Horario", HOURS).await;
    fake.push(Reply::Content(written(
        "Los sábados atendemos de 9:00 a 14:00.",
        &[0],
    )));
    let reply = app.say("fer", "¿a qué hora abren los sábados?").await;
    assert_eq!(fake.requests().len(), 1);
    assert!(
        reply[0].contains("Los sábados atendemos de 9:00 a 14:00.")
            && reply[0].contains("«Horario»"),
        "{reply:?}"
    );
    // Another customer, another spelling: the same normalized question.
    let again = app.say("gabi", "A QUE HORA ABREN LOS SABADOS").await;
    assert_eq!(fake.requests().len(), 1, "answered from the cache, no call");
    assert_eq!(again, reply);
    let metrics = app
        .client
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("tendero_knowledge_answers_today{outcome=\"cache_hit\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("tendero_knowledge_answers_today{outcome=\"worked_out\"} 1"));

    // A catalog edit leaves the cached answer behind.
    let brownie: i64 = sqlx::query_scalar("SELECT id FROM products WHERE sku = 'brownie'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let (status, _) = app
        .api(
            Method::PATCH,
            &format!("/bots/demo-shop/products/{brownie}"),
            &app.key,
            Some(json!({"price_minor": 1700})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    fake.push(Reply::Content(written(
        "Abrimos los sábados de 9:00 a 14:00.",
        &[0],
    )));
    let after = app.say("hugo", "¿a qué hora abren los sábados?").await;
    assert_eq!(fake.requests().len(), 2, "worked out again after the edit");
    assert!(after[0].contains("Abrimos los sábados"), "{after:?}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_model_answer_that_invents_is_healed_and_never_reaches_the_customer(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    let app = with_model(pool, &fake, false).await;
    without_demo_knowledge(&app).await;
    add_entry(&app, "Horario", HOURS).await;
    // An invented closing hour, a citation of nothing, then the invention again.
    fake.push(Reply::Content(written(
        "Los sábados abrimos de 9:00 a 18:00.",
        &[0],
    )));
    fake.push(Reply::Content(written(
        "Los sábados abrimos de 9:00 a 14:00.",
        &[7],
    )));
    fake.push(Reply::Content(written("Abrimos hasta las 18:00.", &[0])));
    let reply = app.say("ines", "¿a qué hora abren los sábados?").await;
    let requests = fake.requests();
    assert_eq!(requests.len(), 3, "one answer and two heals at most");
    let healing = requests[1]["messages"][1]["content"].as_str().unwrap();
    assert!(healing.contains("18:00"), "the problem is named: {healing}");
    assert!(!reply.iter().any(|r| r.contains("18:00")), "{reply:?}");
    assert!(
        reply
            .iter()
            .any(|r| r.contains("9:00 a 14:00") && r.contains("Horario")),
        "the passage itself, quoted: {reply:?}"
    );
    let audit = answered(&app, "ines").await;
    let steps = audit[0]["steps"].as_array().unwrap();
    let failed = steps
        .iter()
        .filter(|s| s["step"] == "checked" && s["ok"] == false)
        .count();
    assert_eq!(failed, 3, "{steps:?}");

    // The model says the passages do not answer: the gray zone, not a guess.
    fake.push(Reply::Content(
        json!({"answer": "", "sources": [], "unknown": true}).to_string(),
    ));
    let reply = app.say("ines", "¿abren los domingos en la tarde?").await;
    assert!(
        reply == [GRAY_ZONE] || reply.iter().any(|r| r.contains("cerramos")),
        "{reply:?}"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn embeddings_are_stored_beside_chunks_recomputed_on_edit_and_optional(pool: sqlx::PgPool) {
    let fake = FakeLlm::start().await;
    fake.offer_embeddings(true);
    let app = with_model(pool, &fake, true).await;
    without_demo_knowledge(&app).await;
    let id = add_entry(&app, "Envíos", DELIVERY).await;
    let waiting = "SELECT count(*) FROM knowledge_chunks WHERE embedding IS NULL";
    assert!(app.count(waiting).await > 0);
    app.engine.sweep().await.unwrap();
    assert_eq!(app.count(waiting).await, 0, "every chunk embedded");
    let dims = app
        .count(&format!(
            "SELECT max(cardinality(embedding))::bigint FROM knowledge_chunks WHERE entry_id = {id}"
        ))
        .await;
    assert_eq!(dims, 64);
    assert!(fake.embedded().iter().any(|t| t.contains("Sopocachi")));

    // A question is embedded too, and found.
    fake.push(Reply::Content(written(
        "A Sopocachi el envío cuesta Bs 10.",
        &[0],
    )));
    let reply = app.say("juan", "cuanto cuesta el envio a sopocachi?").await;
    assert!(reply[0].contains("Bs 10"), "{reply:?}");
    assert!(fake.embedded().iter().any(|t| t.contains("sopocachi")));

    // An edit rewrites the chunks; the sweep embeds them again.
    let (status, _) = app
        .api(
            Method::PATCH,
            &format!("/bots/demo-shop/knowledge/{id}"),
            &app.key,
            Some(json!({"body": "Hacemos envíos a Sopocachi por Bs 11."})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(app.count(waiting).await > 0);
    app.engine.sweep().await.unwrap();
    assert_eq!(app.count(waiting).await, 0);

    // A server without embeddings: the chunks wait, and answers still come.
    fake.offer_embeddings(false);
    add_entry(&app, "Pagos", "Aceptamos QR Simple y efectivo.").await;
    app.engine.sweep().await.unwrap();
    assert!(app.count(waiting).await > 0, "nothing to embed with");
    fake.push(Reply::Content(written(
        "Aceptamos QR Simple y efectivo.",
        &[0],
    )));
    let reply = app.say("kati", "¿aceptan pago con QR?").await;
    assert!(reply[0].contains("QR Simple"), "{reply:?}");
}

/// A place the question names, written in one passage only, picks that
/// passage over one that shares more common words; and an abbreviation's
/// period («Av.») does not cut the sentence quoted.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_passage_that_names_the_place_asked_about_answers(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    add_entry(
        &app,
        "Recojo",
        "Tu pedido está listo en 15 minutos. Si vas a tardar en recoger tu pedido, avísanos.",
    )
    .await;
    add_entry(
        &app,
        "Envíos",
        "- Sopocachi: Bs 8, de 30 a 45 minutos.\n- Miraflores y Obrajes: Bs 12, de 45 a 60 minutos.",
    )
    .await;
    add_entry(
        &app,
        "Dirección",
        "Estamos en la Av. 6 de Agosto 512, al lado de una farmacia.",
    )
    .await;
    let reply = app.say("dora", "cuanto tarda el pedido a miraflores").await;
    assert!(
        reply.iter().any(|r| r.contains("45 a 60 minutos")),
        "{reply:?}"
    );
    let audit = answered(&app, "dora").await;
    assert_eq!(audit[0]["sources"][0]["title"], "Envíos", "{audit:?}");
    let reply = app.say("eli", "donde estan ubicados").await;
    assert!(
        reply.iter().any(|r| r.contains("Av. 6 de Agosto 512")),
        "{reply:?}"
    );
    // The shop's own branch is where the shop is; another one is not written.
    let reply = app.say("fede", "¿dónde queda su sucursal?").await;
    assert!(
        reply.iter().any(|r| r.contains("Av. 6 de Agosto 512")),
        "{reply:?}"
    );
    let reply = app.say("fede", "¿tienen otra sucursal en El Alto?").await;
    assert_eq!(reply, [GRAY_ZONE]);
}

/// The cache keeps apart what a question is about: «¿lleva gluten?» asked
/// after the brownie is not answered with what was said of the limonada.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_cached_answer_is_about_the_product_the_question_was_about(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("ines", "¿cuánto cuesta el brownie?").await;
    let brownie = app.say("ines", "¿lleva gluten?").await;
    assert!(brownie.iter().any(|r| r.contains("Brownie")), "{brownie:?}");
    app.say("juan", "¿cuánto cuesta la limonada?").await;
    let limonada = app.say("juan", "¿lleva gluten?").await;
    assert!(
        limonada.iter().any(|r| r.contains("Limonada")) && limonada != brownie,
        "{limonada:?}"
    );
    assert!(app.cart("ines").await.is_empty() && app.cart("juan").await.is_empty());
}

/// What the knowledge could quote is not taken for a question when the
/// customer is answering the summary: a yes with how the order goes confirms,
/// and calling the order off with a reason calls it off.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_yes_or_a_cancel_at_the_summary_is_not_taken_for_a_question(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("eva", "quiero 2 capuchinos").await;
    app.say("eva", "eso es todo").await;
    let reply = app
        .say("eva", "Sí, está correcto. Pasaré a recogerlo yo misma.")
        .await;
    assert_eq!(app.state("eva").await, "AWAITING_PAYMENT", "{reply:?}");
    assert!(!reply.iter().any(|r| r.contains("Según")), "{reply:?}");

    app.say("fer", "un chai y un brownie").await;
    app.say("fer", "cuánto es").await;
    app.say(
        "fer",
        "ah no, entonces mejor cancelo todo, no llego a tiempo. disculpá",
    )
    .await;
    assert_eq!(app.state("fer").await, "IDLE");
    assert!(app.cart("fer").await.is_empty());
    // Thanks all the same orders nothing more.
    app.say("gil", "quiero 2 capuchinos").await;
    app.say("gil", "gracias igual!").await;
    assert_eq!(app.cart("gil").await, vec![("capuchino".into(), 2)]);
}

/// Words around a question that name nothing the shop sells or knows: a
/// mistyped greeting, English around a topic, «vino» as «came», and a short
/// question about the thing named just before it.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn words_around_a_question_do_not_send_it_to_the_gray_zone(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    for (who, question, source) in [
        ("g1", "hla a q hora abren mñn sabado", "Horario"),
        (
            "g2",
            "Can I bring my dog inside with me?",
            "Wifi, mesas y mascotas",
        ),
        (
            "g3",
            "me llegó el pedido y el matcha vino todo derramado en la bolsa, qué hago",
            "Cambios y reclamos",
        ),
        (
            "g4",
            "Joven, el QR que me mandan ¿hasta cuándo vale pues?",
            "Formas de pago",
        ),
        // The reason after a question is no part of it; a complaint told in
        // its own words is a claim; English word order; a sound of thinking.
        (
            "g6",
            "oye y el chocolate caliente lleva café o no porque es para mi hija que tiene 8 años",
            "Leches y bebidas",
        ),
        (
            "g7",
            "buenas, el pedido que me trajeron hace media hora vino sin uno de los brownies, pagué por dos y llegó uno",
            "Cambios y reclamos",
        ),
        (
            "g8",
            "Hmm do you have oat milk or almond milk?",
            "Leches y bebidas",
        ),
        (
            "g9",
            "¿les puedo pagar en efectivo cuando llegue el muchacho?",
            "Formas de pago",
        ),
        // A name said after who the person is.
        (
            "g10",
            "Mi sobrino Marcelo pasará a recogerlo, ¿él lo puede recoger?",
            "Recojo en tienda",
        ),
    ] {
        let reply = app.say(who, question).await;
        let audit = answered(&app, who).await;
        assert!(
            audit
                .iter()
                .any(|a| a["gray"] == false && a["sources"][0]["title"] == source),
            "{question}: {audit:?} {reply:?}"
        );
        assert!(app.cart(who).await.is_empty());
    }
    // A thing nobody wrote stays unwritten.
    let reply = app.say("g5", "¿venden vino?").await;
    let audit = answered(&app, "g5").await;
    assert!(
        !audit.is_empty() && audit.iter().all(|a| a["gray"] == true),
        "{audit:?} {reply:?}"
    );
}

/// A product's description says an attribute only with every word of it:
/// «frutos rojos» is no «frutos secos», «con leche» no «con cafeína»; a
/// kind of the catalog is never a typo of a topic («salado», «sábado»).
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_description_never_says_an_attribute_by_one_of_its_words(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let reply = app
        .say("h1", "¿el cheesecake tiene frutos secos?")
        .await
        .join(" ");
    assert!(!reply.contains("Sí,"), "{reply}");
    assert!(reply.contains("no lleva frutos secos"), "{reply}");
    let reply = app
        .say("h2", "el croissant es dulce o salado?")
        .await
        .join(" ");
    assert!(reply.contains("Sí, el Croissant es salado"), "{reply}");
    let audit = answered(&app, "h2").await;
    assert!(
        audit
            .iter()
            .all(|a| a["sources"][0]["title"] != "Formas de pago"),
        "{audit:?}"
    );
    let reply = app
        .say("h3", "¿el chocolate caliente tiene cafeína?")
        .await
        .join(" ");
    assert!(
        !reply.contains("Sí, el Chocolate caliente tiene cafeína"),
        "{reply}"
    );
    // A feminine name takes its article and its adjective.
    let reply = app.say("h4", "¿la limonada es fría?").await.join(" ");
    assert!(reply.contains("Sí, la Limonada es fría"), "{reply}");
    // «que no tenga gluten» asks what is without it: never the ones with it.
    let reply = app
        .say(
            "h5",
            "Una de las niñas es celíaca, ¿qué le puedo dar que no tenga gluten?",
        )
        .await
        .join(" ");
    assert!(!reply.contains("Croissant"), "{reply}");
    assert!(!reply.contains("Brownie"), "{reply}");
}

/// A yes at the summary beside a question confirms and answers; a question
/// about one product, then «si no, dame dos», means that product even after
/// another was talked about.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_yes_beside_a_question_confirms_and_the_product_asked_is_the_one_meant(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    app.say("eva", "un brownie").await;
    app.say("eva", "eso es todo").await;
    let both = app.say("eva", "sí. a qué hora cierran hoy?").await;
    let all = both.join("\n");
    assert!(
        all.contains("Horario") && all.contains("quedó registrado"),
        "{both:?}"
    );
    assert_eq!(app.count("SELECT count(*) FROM orders").await, 1);

    app.say("gus", "¿tienen medialunas?").await;
    let added = app
        .say("gus", "la limonada tiene cafeína? si no tiene dame dos")
        .await;
    assert!(added.join("\n").contains("no tiene cafeína"), "{added:?}");
    assert_eq!(app.cart("gus").await, vec![("limonada".into(), 2)]);
}

/// A question answered from the catalog with one product («¿qué me
/// recomendás calentito y que no tenga cafeína?» → the hot chocolate) makes
/// that product the one «poneme uno de ese» means next.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_one_product_an_answer_named_is_what_that_one_means_next(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("hugo", "un americano").await;
    let answer = app
        .say(
            "hugo",
            "che, para el niño qué me recomendás que sea calentito y que no tenga cafeína?",
        )
        .await
        .join("\n");
    assert!(answer.contains("Chocolate caliente"), "{answer}");
    app.say("hugo", "dale, poneme uno de ese entonces").await;
    let cart = app.cart("hugo").await;
    assert!(cart.contains(&("chocolate".into(), 1)), "{cart:?}");
    assert!(cart.contains(&("americano".into(), 1)), "{cart:?}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_payment_told_beside_a_question_is_kept_and_the_question_answered(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    add_entry(
        &app,
        "Factura",
        "Para la factura danos tu NIT y la razón social antes de pagar.",
    )
    .await;
    app.say("lia", "quiero 2 capuchinos").await;
    app.say("lia", "cuánto es").await;
    app.say("lia", "sí").await;
    assert_eq!(app.state("lia").await, "AWAITING_PAYMENT");
    let proofs = "SELECT count(*) FROM payment_proofs";
    // A payment inside a question is asked about, not told: no proof.
    let reply = app.say("lia", "¿y si ya pagué y me arrepiento?").await;
    assert!(
        !reply.iter().any(|r| r.contains("Recibimos tu comprobante")),
        "{reply:?}"
    );
    assert_eq!(app.count(proofs).await, 0);
    // Told, then asked: the proof is kept and the question answered too.
    let reply = app
        .say("lia", "ya pagué, ¿me pueden dar factura con mi NIT?")
        .await;
    let text = reply.join("\n");
    assert!(
        text.contains("Recibimos tu comprobante del pedido #1"),
        "{text}"
    );
    assert!(text.contains("razón social"), "{text}");
    assert_eq!(app.count(proofs).await, 1);
    assert_eq!(app.state("lia").await, "AWAITING_PAYMENT");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_count_asked_about_is_answered_and_never_put_in_the_cart(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    without_demo_knowledge(&app).await;
    add_entry(
        &app,
        "Pedidos para eventos",
        "Descuento: 10% en pedidos de Bs 800 o más, sin contar el envío.",
    )
    .await;
    let reply = app
        .say(
            "rai",
            "Serían 25 matchas y 25 brownies, ¿eso tiene descuento?",
        )
        .await;
    assert!(reply.iter().any(|r| r.contains("10%")), "{reply:?}");
    assert!(app.cart("rai").await.is_empty());
}

/// «¿el matcha de cuántos ml es?» and «¿tienen descafeinado?» are the
/// knowledge's (a measure the description lacks, a word the shop wrote only
/// there), never the product's card or the catalog; «cuánto cuesta el
/// cheesecake y de qué es» gives the price beside what it is made of; a spill
/// told is a claim.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_measure_a_word_written_apart_and_a_price_beside_a_description_are_answered(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    let reply = app
        .say("mara", "el matcha de cuantos ml es?")
        .await
        .join("\n");
    assert!(reply.contains("Leches y bebidas"), "{reply}");
    assert!(reply.contains("400 ml"), "{reply}");
    let reply = app.say("mara", "tienen descafeinado?").await.join("\n");
    assert!(reply.contains("No tenemos café descafeinado"), "{reply}");
    let reply = app
        .say("mara", "cuanto cuesta el cheesecake y de que es")
        .await
        .join("\n");
    assert!(reply.contains("frutos rojos"), "{reply}");
    assert!(reply.contains("Bs 28"), "{reply}");
    let audit = answered(&app, "mara").await;
    assert_eq!(audit.len(), 3, "{audit:?}");
    assert!(audit.iter().all(|a| a["gray"] == false), "{audit:?}");
    assert!(app.cart("mara").await.is_empty());
}
