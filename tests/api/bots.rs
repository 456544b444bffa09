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
    let rotated: String = sqlx::query_scalar(
        "SELECT telegram_secret_token FROM bot_channels WHERE channel = 'telegram'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(rotated, "rotated");
    // The rotation applies at once: the old secret is refused, the new one accepted.
    assert_eq!(
        post("webhook_secret-1").await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(post("rotated").await.unwrap().status(), StatusCode::OK);

    let other = tendero::merchant::create_merchant(&app.pool, "otra", "Otra")
        .await
        .unwrap();
    let key_b = tendero::merchant::create_api_key(&app.pool, other)
        .await
        .unwrap();
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
