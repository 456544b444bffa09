//! Bots and their channel credentials, through the merchant API and the CLI.

use std::process::Command;

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::spawn_app;

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_merchant_creates_a_bot_with_channels_and_never_sees_a_secret_again(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let new_bot = json!({
        "slug": "heladeria", "name": "Heladería Sur", "currency": "BOB",
        "telegram": {"token": "999:SECRET-TG-TOKEN", "secret_token": "webhook_secret-1"},
        "whatsapp": {"phone_number_id": "1234567890", "access_token": "SECRET-WA-TOKEN",
                     "app_secret": "SECRET-APP", "verify_token": "SECRET-VERIFY"},
    });
    let (status, body) = app
        .api(Method::POST, "/bots", &app.key, Some(new_bot.clone()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (_, listed) = app.api(Method::GET, "/bots", &app.key, None).await;
    for shown in [body.to_string(), listed.to_string()] {
        for secret in [
            "SECRET-TG-TOKEN",
            "webhook_secret-1",
            "SECRET-WA-TOKEN",
            "SECRET-APP",
            "SECRET-VERIFY",
        ] {
            assert!(!shown.contains(secret), "{secret} returned: {shown}");
        }
    }
    assert_eq!(body["channels"].as_array().unwrap().len(), 2);
    assert_eq!(body["webhooks"]["telegram"], "/webhooks/telegram/heladeria");

    let (status, _) = app
        .api(Method::POST, "/bots", &app.key, Some(new_bot))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "slugs are unique");
    let bad = json!({"slug": "Mal Slug", "name": "x", "currency": "BOB"});
    assert_eq!(
        app.api(Method::POST, "/bots", &app.key, Some(bad)).await.0,
        StatusCode::BAD_REQUEST
    );
    let bad_secret = json!({"slug": "otro", "name": "x", "currency": "BOB",
                            "telegram": {"token": "1:a", "secret_token": "has spaces!"}});
    assert_eq!(
        app.api(Method::POST, "/bots", &app.key, Some(bad_secret))
            .await
            .0,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        app.count("SELECT count(*) FROM bots WHERE slug = 'otro'")
            .await,
        0,
        "nothing half-created"
    );

    // A webhook with the current secret (this also warms the bot cache).
    let update = json!({"update_id": 1, "message": {"message_id": 1, "date": 1, "text": "hola",
        "chat": {"id": 7, "type": "private", "first_name": "A"}, "from": {"id": 7, "is_bot": false, "first_name": "A"}}});
    let post = |secret: &'static str| {
        app.client
            .post(format!("{}/webhooks/telegram/heladeria", app.base))
            .header("X-Telegram-Bot-Api-Secret-Token", secret)
            .json(&update)
            .send()
    };
    assert_eq!(
        post("webhook_secret-1").await.unwrap().status(),
        StatusCode::OK
    );
    let (status, _) = app
        .api(
            Method::PUT,
            "/bots/heladeria/channels/telegram",
            &app.key,
            Some(json!({"token": "999:NEW", "secret_token": "rotated"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let bot = tendero::bots::by_slug(&app.pool, "heladeria")
        .await
        .unwrap()
        .unwrap();
    let stored = tendero::channels::credentials::telegram(&app.pool, bot.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.secret_token.expose(), "rotated");
    // The rotation applies at once: the old secret is refused, the new one accepted.
    assert_eq!(
        post("webhook_secret-1").await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(post("rotated").await.unwrap().status(), StatusCode::OK);

    let other = tendero::merchants::create(&app.pool, "otra", "Otra")
        .await
        .unwrap();
    let key_b = tendero::api_keys::create(&app.pool, other).await.unwrap();
    let (status, _) = app
        .api(
            Method::PUT,
            "/bots/heladeria/channels/telegram",
            &key_b,
            Some(json!({"token": "1:x", "secret_token": "y"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn tendero_bot_add_connects_channels_from_the_environment(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let url = app.database_url();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_tendero"))
            .env("TENDERO_SECRET_KEY", tendero::config::TEST_SECRET_KEY)
            .args([
                "bot",
                "add",
                "panaderia",
                "--merchant",
                "demo",
                "--name",
                "Panadería",
                "--currency",
                "BOB",
            ])
            .env("DATABASE_URL", &url)
            .env("TENDERO_TELEGRAM_TOKEN", "42:CLI-SECRET")
            .env("TENDERO_TELEGRAM_SECRET_TOKEN", "cli_secret")
            .env("RUST_LOG", "info")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("/webhooks/telegram/panaderia"));
    assert!(
        !stderr.contains("CLI-SECRET")
            && !String::from_utf8_lossy(&output.stdout).contains("CLI-SECRET")
    );
    assert_eq!(
        app.count("SELECT count(*) FROM bot_channels WHERE channel = 'telegram'")
            .await,
        1
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_database_dump_alone_reveals_no_channel_secret(pool: sqlx::PgPool) {
    let app = crate::helpers::spawn_app(pool).await;
    let (status, body) = app
        .post_api(
            "/bots",
            Some(serde_json::json!({
                "slug": "sealed", "name": "Sealed", "currency": "BOB",
                "telegram": {"token": "999:TG-TOKEN-PLAIN", "secret_token": "tg_secret_PLAIN"},
                "whatsapp": {"phone_number_id": "5550001", "access_token": "WA-ACCESS-PLAIN",
                             "app_secret": "WA-APP-PLAIN", "verify_token": "WA-VERIFY-PLAIN"}
            })),
        )
        .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{body}");
    let dump: Vec<String> = sqlx::query_scalar("SELECT row_to_json(bc)::text FROM bot_channels bc")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(dump.len(), 2);
    for row in &dump {
        assert!(!row.contains("PLAIN"), "a secret in the clear: {row}");
        assert!(row.contains("enc:v1:test:"), "{row}");
    }
    // Sealed, they still do their job: the webhook secret is checked against it.
    let update = serde_json::json!({"update_id": 1, "message": {"message_id": 1, "date": 1,
        "text": "hola", "chat": {"id": 7, "type": "private"}, "from": {"id": 7, "is_bot": false, "first_name": "A"}}});
    let post = |secret: &'static str| {
        app.client
            .post(format!("{}/webhooks/telegram/sealed", app.base))
            .header("X-Telegram-Bot-Api-Secret-Token", secret)
            .json(&update)
            .send()
    };
    assert_eq!(post("tg_secret_PLAIN").await.unwrap().status(), 200);
    assert_eq!(post("tg_secret_WRONG").await.unwrap().status(), 401);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn rotation_seals_secrets_stored_in_the_clear_and_is_idempotent(pool: sqlx::PgPool) {
    let app = crate::helpers::spawn_app(pool).await;
    let bot = tendero::bots::by_slug(&app.pool, "demo-shop")
        .await
        .unwrap()
        .unwrap();
    // A row as a version before encryption wrote it.
    sqlx::query(
        "INSERT INTO bot_channels (bot_id, channel, telegram_token, telegram_secret_token)
         VALUES ($1, 'telegram', '1:OLD-TOKEN', 'old_secret')",
    )
    .bind(bot.id)
    .execute(&app.pool)
    .await
    .unwrap();
    let read = tendero::channels::credentials::telegram(&app.pool, bot.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read.token.expose(),
        "1:OLD-TOKEN",
        "readable before rotation"
    );
    assert_eq!(
        tendero::channels::credentials::rotate(&app.pool)
            .await
            .unwrap(),
        1
    );
    let stored: String = sqlx::query_scalar("SELECT telegram_token FROM bot_channels")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(stored.starts_with("enc:v1:test:") && !stored.contains("OLD-TOKEN"));
    let read = tendero::channels::credentials::telegram(&app.pool, bot.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.token.expose(), "1:OLD-TOKEN");
    assert_eq!(read.secret_token.expose(), "old_secret");
    assert_eq!(
        tendero::channels::credentials::rotate(&app.pool)
            .await
            .unwrap(),
        0,
        "nothing left to re-seal"
    );
    // A sealed value copied onto another field does not open.
    sqlx::query("UPDATE bot_channels SET telegram_secret_token = telegram_token")
        .execute(&app.pool)
        .await
        .unwrap();
    assert!(
        tendero::channels::credentials::telegram(&app.pool, bot.id)
            .await
            .is_err()
    );
}

/// Issue 22 point 3: a merchant makes finance bots for real — through the API,
/// the command line and the console — in their own zone and currency, with no
/// sample history; a bad profile or zone is refused and creates nothing.
#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_merchant_creates_a_finance_bot_that_starts_empty(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let (status, body) = app
        .api(
            Method::POST,
            "/bots",
            &app.key,
            Some(
                json!({"slug": "mis-cuentas", "name": "Mis cuentas", "currency": "MXN",
                        "profile": "finance", "timezone": "America/Mexico_City"}),
            ),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["profile"], "finance");
    assert_eq!(body["timezone"], "America/Mexico_City");
    let reply = app
        .say_to("mis-cuentas", "lu", "gasté 250 en el súper")
        .await
        .join("\n");
    assert!(reply.contains("¿Registro este gasto?"), "{reply}");
    assert!(reply.contains("$250.00"), "pesos, not bolivianos: {reply}");
    app.say_to("mis-cuentas", "lu", "sí").await;
    assert_eq!(
        app.count(
            "SELECT count(*) FROM fin_transactions t JOIN bots b ON b.id = t.bot_id
             WHERE b.slug = 'mis-cuentas'"
        )
        .await,
        1,
        "only what the person wrote: no sample history"
    );

    for (bad, why) in [
        (
            json!({"slug": "a1", "name": "x", "currency": "MXN", "profile": "crypto"}),
            "`shop` or `finance`",
        ),
        (
            json!({"slug": "a2", "name": "x", "currency": "MXN", "timezone": "Mars/Olympus"}),
            "timezone",
        ),
        (
            json!({"slug": "a3", "name": "x", "currency": "MXN", "timezone": ""}),
            "timezone",
        ),
    ] {
        let (status, body) = app.api(Method::POST, "/bots", &app.key, Some(bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{why}: {body}");
        assert!(body["error"].as_str().unwrap().contains(why), "{body}");
    }
    assert_eq!(
        app.count("SELECT count(*) FROM bots WHERE slug IN ('a1', 'a2', 'a3')")
            .await,
        0
    );

    // The command line.
    let url = app.database_url();
    let run = move |profile: &str, zone: &str, slug: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tendero"))
            .env("TENDERO_SECRET_KEY", tendero::config::TEST_SECRET_KEY)
            .args([
                "bot",
                "add",
                slug,
                "--merchant",
                "demo",
                "--name",
                "Gastos",
                "--currency",
                "BOB",
                "--profile",
                profile,
                "--timezone",
                zone,
            ])
            .env("DATABASE_URL", &url)
            .env("RUST_LOG", "error")
            .output()
            .unwrap()
    };
    let (ok, bad_zone, bad_profile) = tokio::task::spawn_blocking(move || {
        (
            run("finance", "America/La_Paz", "gastos-cli"),
            run("finance", "La_Paz", "gastos-mal"),
            run("bank", "America/La_Paz", "gastos-peor"),
        )
    })
    .await
    .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let (profile, zone, sample): (String, String, bool) = sqlx::query_as(
        "SELECT profile, timezone, sample_history FROM bots WHERE slug = 'gastos-cli'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        (profile.as_str(), zone.as_str(), sample),
        ("finance", "America/La_Paz", false)
    );
    assert!(!bad_zone.status.success());
    assert!(String::from_utf8_lossy(&bad_zone.stderr).contains("timezone"));
    assert!(!bad_profile.status.success());
    assert!(String::from_utf8_lossy(&bad_profile.stderr).contains("--profile"));

    // The console.
    let browser = crate::dashboard::Browser::sign_in(&app, &app.key).await;
    let page = browser.page("/dashboard/bots").await;
    assert!(page.contains("Crear un bot") && page.contains("Finanzas personales"));
    let csrf = browser.csrf().await;
    let made = browser
        .post(
            "/dashboard/bots/nuevo",
            &[
                ("csrf", csrf.as_str()),
                ("tipo", "finanzas"),
                ("codigo", "gastos-web"),
                ("nombre", "Gastos de casa"),
                ("moneda", "bob"),
                ("zona", "America/La_Paz"),
            ],
        )
        .await;
    assert_eq!(made.status(), StatusCode::SEE_OTHER);
    let (profile, currency): (String, String) =
        sqlx::query_as("SELECT profile, currency FROM bots WHERE slug = 'gastos-web'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!((profile.as_str(), currency.as_str()), ("finance", "BOB"));
    let refused = browser
        .post(
            "/dashboard/bots/nuevo",
            &[
                ("csrf", csrf.as_str()),
                ("tipo", "finanzas"),
                ("codigo", "gastos-luna"),
                ("nombre", "Luna"),
                ("moneda", "BOB"),
                ("zona", "Luna/Mar_de_la_Tranquilidad"),
            ],
        )
        .await;
    let to = refused.headers()["location"].to_str().unwrap().to_owned();
    let page = browser.page(&to).await;
    assert!(page.contains("La zona horaria debe ser"), "{page}");
    assert_eq!(
        app.count("SELECT count(*) FROM bots WHERE slug = 'gastos-luna'")
            .await,
        0
    );
}
