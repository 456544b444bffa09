//! Files the bot sends: «mándame mis datos» gives a finance user their rows as CSV
//! — a link in web chat under an unguessable, expiring address; an upload on
//! Telegram (`sendDocument`) and WhatsApp (media, then a document message), each
//! in one delivery so a retry never sends half of it twice. A chart the bot
//! draws goes the same way as a picture: `sendPhoto`, a WhatsApp image, a web-chat
//! event whose address ends in `.png`, its figures in words as the caption.

use reqwest::StatusCode;
use serde_json::Value;

use crate::channels::{TG_SECRET, channel_app, post_telegram, settle, tg_text};
use crate::finance::finance_app;
use crate::helpers::sse;

/// `path` fetched from the app, as a web-chat client would.
async fn fetch(app: &crate::helpers::TestApp, path: &str) -> reqwest::Response {
    app.client
        .get(format!("{}{path}", app.base))
        .send()
        .await
        .unwrap()
}

/// The events of `who` at the finance bot, up to `count`.
async fn events(app: &crate::helpers::TestApp, who: &str, count: usize) -> Vec<Value> {
    let url = app.events_url("finanzas", who).await;
    sse(app.client.clone(), url, None, count)
        .await
        .into_iter()
        .map(|(_, data)| data)
        .collect()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_person_gets_their_rows_as_csv_behind_an_expiring_address(pool: sqlx::PgPool) {
    let app = finance_app(pool).await;
    for text in [
        "gasté 250 en el súper",
        "sí",
        "gasté 80 en taxi, con el chofer",
        "sí",
    ] {
        app.say_to("finanzas", "rita", text).await;
    }
    let reply = app.say_to("finanzas", "rita", "mándame mis datos").await;
    assert!(
        reply[0].starts_with("Aquí tienes tus 2 movimientos"),
        "{reply:?}"
    );
    let all = events(&app, "rita", 5).await;
    let last = all.last().unwrap();
    let url = last["file"]["url"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with("/webchat/finanzas/files/") && url.ends_with(".csv"),
        "{url}"
    );
    let fetched = fetch(&app, &url).await;
    assert_eq!(fetched.status(), StatusCode::OK);
    assert!(
        fetched.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    assert_eq!(fetched.headers()["x-content-type-options"], "nosniff");
    let csv = fetched.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("fecha,tipo,monto"));
    assert!(
        lines[1].contains(",gasto,250.00,MXN,supermercado,"),
        "{csv}"
    );
    assert!(lines[2].contains(",gasto,80.00,MXN,"), "{csv}");
    // Only that address: another id, another bot, a malformed id — a bare 404.
    let id = url.split('/').nth(4).unwrap().to_owned();
    for wrong in [
        url.replace(&id, &uuid::Uuid::new_v4().to_string()),
        url.replace("/finanzas/", "/demo-shop/"),
        url.replace(&id, "not-a-uuid"),
    ] {
        let response = fetch(&app, &wrong).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{wrong}");
    }
    // Expired, it is gone.
    sqlx::query("UPDATE chat_files SET expires_at = now() - interval '1 second'")
        .execute(&app.pool)
        .await
        .unwrap();
    let response = fetch(&app, &url).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(tendero::channels::files::prune(&app.pool).await.unwrap(), 1);
    // Someone with nothing recorded is told so, with no file.
    let empty = app.say_to("finanzas", "nuevo", "mándame mis datos").await;
    assert!(empty[0].contains("no hay datos"), "{empty:?}");
    assert_eq!(app.count("SELECT count(*) FROM chat_files").await, 0);
}

/// The file goes over the platforms as an upload, alone, its words as the caption.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn telegram_and_whatsapp_receive_the_file_as_an_upload(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    post_telegram(&app, &tg_text(1, "hola"), Some(TG_SECRET)).await;
    crate::channels::post_whatsapp(&app, &crate::channels::wa_text("wamid.F1", "hola")).await;
    settle(&app).await;
    let bot = app.bot_id("demo-shop").await;
    let conversations: Vec<(uuid::Uuid, String)> = sqlx::query_as(
        "SELECT c.id, ct.channel FROM conversations c JOIN contacts ct ON ct.id = c.contact_id
         WHERE c.bot_id = $1 ORDER BY ct.channel",
    )
    .bind(bot)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(conversations.len(), 2);
    for (conversation, _) in &conversations {
        let mut tx = app.pool.begin().await.unwrap();
        let file = tendero::channels::files::store(
            &mut tx,
            bot,
            *conversation,
            "datos.csv",
            "text/csv; charset=utf-8",
            b"fecha,monto\n2026-11-25,10.00\n",
        )
        .await
        .unwrap();
        tendero::outbox::enqueue(
            &mut tx,
            *conversation,
            tendero::outbox::Author::Bot,
            &tendero::channels::OutPayload {
                text: "Aquí tienes tus datos.".into(),
                file: Some(file),
                ..Default::default()
            },
            None,
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }
    settle(&app).await;
    let sent = fake.calls("sendDocument");
    assert_eq!(sent.len(), 1, "one upload");
    assert_eq!(sent[0].body["caption"], "Aquí tienes tus datos.");
    assert_eq!(sent[0].body["document"]["filename"], "datos.csv");
    assert_eq!(
        sent[0].body["document"]["text"],
        "fecha,monto\n2026-11-25,10.00\n"
    );
    let uploads = fake.calls("upload");
    assert_eq!(uploads.len(), 1);
    assert_eq!(uploads[0].body["messaging_product"], "whatsapp");
    assert_eq!(
        uploads[0].body["file"]["text"],
        "fecha,monto\n2026-11-25,10.00\n"
    );
    let documents: Vec<_> = fake
        .calls("messages")
        .into_iter()
        .filter(|c| c.body["type"] == "document")
        .collect();
    assert_eq!(documents.len(), 1);
    assert_eq!(documents[0].body["document"]["filename"], "datos.csv");
    assert_eq!(
        documents[0].body["document"]["caption"],
        "Aquí tienes tus datos."
    );
    assert!(
        documents[0].body["document"]["id"]
            .as_str()
            .unwrap()
            .starts_with("media-")
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE status = 'sent' AND payload ? 'file'")
            .await,
        2
    );
}

/// Whether a caption's figures are exactly those of the chart the audit says was
/// drawn: every amount in it is one of the tool's results.
async fn caption_of(app: &crate::helpers::TestApp) -> String {
    sqlx::query_scalar(
        "SELECT detail->>'caption' FROM audit_log WHERE kind = 'chart_drawn' ORDER BY id DESC LIMIT 1",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_chart_reaches_every_channel_as_a_picture_with_its_figures(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    // The channels' bot becomes a finance bot with sample history.
    sqlx::query(
        "UPDATE bots SET profile = 'finance', sample_history = true WHERE slug = 'demo-shop'",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    let question = "¿qué día de la semana gasto más?";
    post_telegram(&app, &tg_text(1, question), Some(TG_SECRET)).await;
    crate::channels::post_whatsapp(&app, &crate::channels::wa_text("wamid.C1", question)).await;
    settle(&app).await;

    let photos = fake.calls("sendPhoto");
    assert_eq!(photos.len(), 1, "one picture on Telegram");
    let png = &photos[0].body["photo"]["png"];
    assert!(
        png["width"].as_u64().unwrap() >= 800 && png["height"].as_u64().unwrap() >= 450,
        "{png}"
    );
    assert_eq!(photos[0].body["photo"]["content_type"], "image/png");
    let caption = photos[0].body["caption"].as_str().unwrap().to_owned();
    assert!(
        caption.contains("Por día de la semana") || caption.contains("sábado"),
        "{caption}"
    );
    // The figures in the caption are the tool's own.
    let result: Value = sqlx::query_scalar(
        "SELECT detail->'result'->'result' FROM audit_log WHERE kind = 'tool_executed'
         AND action = 'queryTransactions' ORDER BY id LIMIT 1",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let mut drawn: Vec<i64> = caption
        .split('$')
        .skip(1)
        .filter_map(|t| {
            tendero::text::numbers_in_hundredths(t.split([' ', ';']).next()?)
                .first()
                .copied()
        })
        .collect();
    drawn.sort();
    let mut groups: Vec<i64> = result["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["total_cents"].as_i64().unwrap())
        .collect();
    groups.sort();
    assert_eq!(drawn, groups, "{caption}");
    // The figures also came as text first, before the picture.
    let texts: Vec<String> = fake.texts("sendMessage");
    assert!(texts.iter().any(|t| t.contains("Donde más:")), "{texts:?}");

    let images: Vec<_> = fake
        .calls("messages")
        .into_iter()
        .filter(|c| c.body["type"] == "image")
        .collect();
    assert_eq!(images.len(), 1, "one picture on WhatsApp");
    assert!(
        images[0].body["image"]["id"]
            .as_str()
            .unwrap()
            .starts_with("media-")
    );
    assert_eq!(images[0].body["image"]["caption"], caption.as_str());
    let uploads = fake.calls("upload");
    assert_eq!(uploads.len(), 1);
    assert_eq!(uploads[0].body["file"]["content_type"], "image/png");
    assert!(uploads[0].body["file"]["png"]["width"].as_u64().unwrap() >= 800);
    assert_eq!(caption_of(&app).await, caption);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn web_chat_shows_a_chart_under_an_expiring_png_address(pool: sqlx::PgPool) {
    let app = finance_app(pool).await;
    sqlx::query("UPDATE bots SET sample_history = true WHERE slug = 'finanzas'")
        .execute(&app.pool)
        .await
        .unwrap();
    let reply = app
        .say_to("finanzas", "lola", "¿en qué tienda gasto más?")
        .await;
    assert_eq!(reply.len(), 2, "the figures, then the chart: {reply:?}");
    assert!(reply[0].contains("Por comercio:"), "{reply:?}");
    assert!(reply[1].starts_with("📊"), "{reply:?}");
    let all = events(&app, "lola", 3).await;
    let chart = all
        .iter()
        .find(|e| e["file"].is_object())
        .expect("a chart event");
    let url = chart["file"]["url"].as_str().unwrap();
    assert!(
        url.starts_with("/webchat/finanzas/files/") && url.ends_with(".png"),
        "{url}"
    );
    assert_eq!(chart["file"]["content_type"], "image/png");
    let fetched = fetch(&app, url).await;
    assert_eq!(fetched.status(), StatusCode::OK);
    assert_eq!(fetched.headers()["content-type"], "image/png");
    assert!(
        fetched.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("inline"),
        "shown, not downloaded"
    );
    let bytes = fetched.bytes().await.unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes.to_vec()));
    let reader = decoder.read_info().unwrap();
    let (width, height) = (reader.info().width, reader.info().height);
    assert!(width >= 800 && height >= 450, "{width}x{height}");
    // No data, no chart: a question about nothing draws nothing.
    let reply = app
        .say_to(
            "finanzas",
            "lola",
            "¿qué día de la semana gasto más en Amazon?",
        )
        .await;
    assert_eq!(reply.len(), 1, "{reply:?}");
    assert!(reply[0].contains("No encontré"), "{reply:?}");
    // Expired, the address is gone.
    sqlx::query("UPDATE chat_files SET expires_at = now() - interval '1 second'")
        .execute(&app.pool)
        .await
        .unwrap();
    let gone = fetch(&app, url).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}
