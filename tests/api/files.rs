//! Files the bot sends: «mándame mis datos» gives a finance user their rows as CSV
//! — a link in web chat under an unguessable, expiring address; an upload on
//! Telegram (`sendDocument`) and WhatsApp (media, then a document message), each
//! in one delivery so a retry never sends half of it twice.

use reqwest::StatusCode;
use serde_json::Value;

use crate::channels::{TG_SECRET, channel_app, post_telegram, settle, tg_text};
use crate::finance::finance_app;
use crate::helpers::sse;

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
    let fetched = app
        .client
        .get(format!("{}{url}", app.base))
        .send()
        .await
        .unwrap();
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
        let response = app
            .client
            .get(format!("{}{wrong}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{wrong}");
    }
    // Expired, it is gone.
    sqlx::query("UPDATE chat_files SET expires_at = now() - interval '1 second'")
        .execute(&app.pool)
        .await
        .unwrap();
    let response = app
        .client
        .get(format!("{}{url}", app.base))
        .send()
        .await
        .unwrap();
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
