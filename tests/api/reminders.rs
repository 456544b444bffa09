//! Reminders a finance bot sends on its own: asked for, the day before a debt's
//! payment day, a budget crossing 80 % and 100 %; listed and cancelled in words;
//! sent once whatever sweeps beside it; on WhatsApp outside the 24-hour window
//! only as the bot's approved template.

use serde_json::json;
use sqlx::PgPool;

use crate::channels::{channel_app, post_whatsapp, settle, wa_text};
use crate::finance::{finance_app, joined};
use crate::helpers::TestApp;

/// The reminders of `session`: (kind, what, due_on, status).
async fn reminders(app: &TestApp, session: &str) -> Vec<(String, String, String, String)> {
    sqlx::query_as(
        "SELECT r.kind, r.what, r.due_on::text, r.status FROM fin_reminders r
         JOIN contacts c ON c.id = r.contact_id WHERE c.external_id = ANY($1) ORDER BY r.id",
    )
    .bind(app.session_ids(session))
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

/// Makes every pending reminder due now.
async fn due_now(app: &TestApp) {
    sqlx::query(
        "UPDATE fin_reminders SET send_at = now() - interval '1 second' WHERE status = 'pending'",
    )
    .execute(&app.pool)
    .await
    .unwrap();
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_reminder_asked_for_is_sent_once_the_day_before_and_can_be_cancelled(pool: PgPool) {
    let app = finance_app(pool).await;
    let reply = joined(
        &app.say_to("finanzas", "ana", "recuérdame pagar la tarjeta el 20")
            .await,
    );
    assert!(
        reply.starts_with("Listo: te recordaré «pagar la tarjeta»"),
        "{reply}"
    );
    let rows = reminders(&app, "ana").await;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].0.as_str(), rows[0].1.as_str(), rows[0].3.as_str()),
        ("custom", "pagar la tarjeta", "pending")
    );
    // Due at 09:00 local time the day before (or at once, if that has passed).
    let hour: Option<f64> = sqlx::query_scalar(
        "SELECT extract(hour FROM send_at AT TIME ZONE 'America/Mexico_City')::float8 FROM fin_reminders
         WHERE send_at > now() + interval '1 minute'",
    )
    .fetch_optional(&app.pool)
    .await
    .unwrap();
    if let Some(hour) = hour {
        assert_eq!(hour, 9.0);
    }
    // Asked twice, kept once.
    let again = joined(
        &app.say_to("finanzas", "ana", "recuérdame pagar la tarjeta el 20")
            .await,
    );
    assert!(again.contains("no lo dupliqué"), "{again}");
    assert_eq!(reminders(&app, "ana").await.len(), 1);
    // No day said: asked, nothing stored.
    let when = joined(
        &app.say_to("finanzas", "ana", "recuérdame llamar al banco")
            .await,
    );
    assert!(
        when.starts_with("¿Qué día te recuerdo «llamar al banco»?"),
        "{when}"
    );
    app.say_to(
        "finanzas",
        "ana",
        "avísame el 28 de diciembre que pague el predial",
    )
    .await;
    let listed = joined(&app.say_to("finanzas", "ana", "mis recordatorios").await);
    assert!(
        listed.contains("pagar la tarjeta") && listed.contains("pague el predial"),
        "{listed}"
    );

    // Two replicas sweep at once: each due reminder goes out exactly once.
    due_now(&app).await;
    let before = app.replies("ana").await.len();
    let (a, b) = tokio::join!(app.engine.sweep(), app.engine.sweep());
    a.unwrap();
    b.unwrap();
    app.engine.sweep().await.unwrap();
    app.drain().await;
    let sent = app.replies("ana").await.split_off(before);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(
        sent.iter()
            .any(|t| t.starts_with("⏰ Recordatorio: pagar la tarjeta")),
        "{sent:?}"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM fin_reminders WHERE status = 'sent'")
            .await,
        2
    );

    // Cancelled in words: only what is still pending.
    app.say_to(
        "finanzas",
        "ana",
        "recuérdame pagar la luz el 25 de diciembre",
    )
    .await;
    app.say_to(
        "finanzas",
        "ana",
        "recuérdame pagar el agua el 26 de diciembre",
    )
    .await;
    let one = joined(
        &app.say_to("finanzas", "ana", "ya no me recuerdes lo de la luz")
            .await,
    );
    assert_eq!(one, "Listo, cancelé tu recordatorio.");
    let rest = joined(&app.say_to("finanzas", "ana", "ya no me recuerdes").await);
    assert_eq!(rest, "Listo, cancelé tu recordatorio.");
    due_now(&app).await;
    app.engine.sweep().await.unwrap();
    assert_eq!(
        app.count("SELECT count(*) FROM fin_reminders WHERE status = 'cancelled'")
            .await,
        2
    );
    assert_eq!(
        app.count("SELECT count(*) FROM fin_reminders WHERE status = 'sent'")
            .await,
        2,
        "a cancelled reminder is never sent"
    );
    // Asked again after cancelling, it is scheduled again.
    let again = joined(
        &app.say_to(
            "finanzas",
            "ana",
            "recuérdame pagar la luz el 25 de diciembre",
        )
        .await,
    );
    assert!(
        again.starts_with("Listo: te recordaré «pagar la luz»"),
        "{again}"
    );
    assert_eq!(
        app.count(
            "SELECT count(*) FROM fin_reminders WHERE what = 'pagar la luz' AND status = 'pending'"
        )
        .await,
        1
    );
    // Nothing of their money was written.
    assert_eq!(app.count("SELECT count(*) FROM fin_transactions").await, 0);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_debts_payment_day_and_a_budgets_thresholds_are_told_once(pool: PgPool) {
    let app = finance_app(pool).await;
    for text in [
        "le debo 3000 a Juan, pago mínimo 500 el día 15",
        "sí",
        "pon mi presupuesto en 1000",
        "sí",
        "gasté 850 en el súper",
        "sí",
    ] {
        app.say_to("finanzas", "beto", text).await;
    }
    // The debt's next payment day is scheduled, once however often it sweeps.
    app.engine.sweep().await.unwrap();
    app.engine.sweep().await.unwrap();
    let rows = reminders(&app, "beto").await;
    let debt: Vec<_> = rows.iter().filter(|r| r.0 == "debt").collect();
    assert_eq!(debt.len(), 1, "{rows:?}");
    assert!(debt[0].2.ends_with("-15"), "{rows:?}");
    // «Ya no me recuerdes lo de Juan» stops the debt's reminders for good.
    let stopped = joined(
        &app.say_to("finanzas", "beto", "ya no me recuerdes lo de juan")
            .await,
    );
    assert_eq!(stopped, "Listo, cancelé tu recordatorio.");
    sqlx::query("DELETE FROM fin_reminders WHERE kind = 'debt'")
        .execute(&app.pool)
        .await
        .unwrap();
    app.engine.sweep().await.unwrap();
    assert_eq!(
        app.count("SELECT count(*) FROM fin_reminders WHERE kind = 'debt'")
            .await,
        0,
        "not scheduled again"
    );
    // 850 of 1000: the 80 % notice, already sent by the sweep.
    let budget: Vec<_> = rows.iter().filter(|r| r.0 == "budget").collect();
    assert_eq!(budget.len(), 1, "{rows:?}");
    assert!(
        budget[0]
            .1
            .starts_with("llevas el 80 % de tu presupuesto de gastos variables"),
        "{rows:?}"
    );
    assert_eq!(budget[0].3, "sent");
    app.drain().await;
    assert!(
        app.replies("beto")
            .await
            .iter()
            .any(|t| t.starts_with("Aviso: llevas el 80 %") && t.contains("$850.00 de $1,000.00")),
        "{:?}",
        app.replies("beto").await
    );
    // Another expense under 100 %: no second 80 % notice; over it, the 100 % one.
    for text in ["gasté 50 en tacos", "sí", "gasté 200 en el cine", "sí"] {
        app.say_to("finanzas", "beto", text).await;
    }
    app.engine.sweep().await.unwrap();
    let budget: Vec<_> = reminders(&app, "beto")
        .await
        .into_iter()
        .filter(|r| r.0 == "budget")
        .collect();
    assert_eq!(budget.len(), 2, "{budget:?}");
    assert!(budget[1].1.starts_with("llevas el 100 %"), "{budget:?}");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn outside_whatsapps_window_a_reminder_goes_only_as_the_template(pool: PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    sqlx::query("UPDATE bots SET profile = 'finance' WHERE slug = 'demo-shop'")
        .execute(&app.pool)
        .await
        .unwrap();
    // The merchant names the approved template through the API; a name Meta
    // would not accept changes nothing.
    let (status, body) = app
        .patch_bot(
            "demo-shop",
            json!({"whatsapp_reminder_template": "Recordatorio!", "whatsapp_template_language": "es_MX"}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("whatsapp_reminder_template"),
        "{body}"
    );
    let unchanged: Option<String> =
        sqlx::query_scalar("SELECT whatsapp_reminder_template FROM bots WHERE slug = 'demo-shop'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(unchanged, None);
    let (status, body) = app
        .patch_bot(
            "demo-shop",
            json!({"whatsapp_reminder_template": "recordatorio_pago", "whatsapp_template_language": "es_MX"}),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    assert_eq!(body["whatsapp_reminder_template"], "recordatorio_pago");
    post_whatsapp(
        &app,
        &wa_text("wamid.R1", "recuérdame pagar la tarjeta el 20"),
    )
    .await;
    settle(&app).await;
    // The person last wrote two days ago: the window is closed.
    sqlx::query("UPDATE conversations SET last_customer_at = now() - interval '2 days'")
        .execute(&app.pool)
        .await
        .unwrap();
    due_now(&app).await;
    app.engine.sweep().await.unwrap();
    settle(&app).await;
    let templates: Vec<_> = fake
        .calls("messages")
        .into_iter()
        .filter(|c| c.body["type"] == "template")
        .collect();
    assert_eq!(templates.len(), 1, "{:?}", fake.calls("messages"));
    assert_eq!(templates[0].body["template"]["name"], "recordatorio_pago");
    assert_eq!(templates[0].body["template"]["language"]["code"], "es_MX");
    let parameters = templates[0].body["template"]["components"][0]["parameters"].to_string();
    assert!(parameters.contains("pagar la tarjeta"), "{parameters}");
    // Without a template it is never sent as free text there.
    sqlx::query("UPDATE bots SET whatsapp_reminder_template = NULL WHERE slug = 'demo-shop'")
        .execute(&app.pool)
        .await
        .unwrap();
    post_whatsapp(&app, &wa_text("wamid.R2", "recuérdame pagar el gas el 21")).await;
    settle(&app).await;
    let texts_before = fake.texts("messages").len();
    sqlx::query("UPDATE conversations SET last_customer_at = now() - interval '2 days'")
        .execute(&app.pool)
        .await
        .unwrap();
    due_now(&app).await;
    app.engine.sweep().await.unwrap();
    settle(&app).await;
    assert_eq!(
        fake.texts("messages").len(),
        texts_before,
        "no free text outside the window"
    );
    // It waits, pending, for the person to write again (or for a template).
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE payload->>'text' LIKE '⏰%pagar el gas%'")
            .await,
        0
    );
    assert_eq!(
        app.count(
            "SELECT count(*) FROM fin_reminders WHERE what = 'pagar el gas' AND status = 'pending'"
        )
        .await,
        1
    );
}
