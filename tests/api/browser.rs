//! The console in a real browser: headless Chromium driven through WebDriver
//! (Debian's `chromium` and `chromium-driver`, installed here when missing). A
//! merchant signs in, watches a web-chat conversation arrive live, takes it over
//! (the customer gets no bot reply), replies, hands it back and approves a
//! payment. Screenshots go to `target/screenshots/`; every page is checked for
//! labelled fields, keyboard focus and text contrast.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::helpers::{TestApp, free_port, spawn_app};

/// Installs Chromium and its driver from Debian when they are missing (once).
fn ensure_chromium() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let present = |bin: &str| {
            Command::new("sh")
                .args(["-c", &format!("command -v {bin}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if present("chromedriver") && present("chromium") {
            return;
        }
        let status = Command::new("sh")
            .args([
                "-c",
                "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver",
            ])
            .status()
            .expect("apt-get runs");
        assert!(
            status.success() && present("chromedriver"),
            "the browser test needs Debian's chromium and chromium-driver; install them with \
             `apt-get install chromium chromium-driver`"
        );
    });
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn browser() -> (Driver, Client) {
    ensure_chromium();
    let port = free_port();
    let driver = Driver(
        Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
    );
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while reqwest::get(format!("{url}/status")).await.is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not answer");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({"args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--window-size=412,915", "--lang=es"]}),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = ClientBuilder::new(connector)
        .capabilities(capabilities)
        .connect(&url)
        .await
        .expect("a browser session");
    (driver, client)
}

async fn screenshot(client: &Client, name: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = client.screenshot().await.unwrap();
    assert!(png.starts_with(&[0x89, b'P', b'N', b'G']), "a PNG");
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}

/// Waits (bounded) until `css` matches an element whose text contains `text`.
async fn wait_for_text(client: &Client, css: &str, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Ok(elements) = client.find_all(Locator::Css(css)).await {
            for element in elements {
                if element.text().await.unwrap_or_default().contains(text) {
                    return;
                }
            }
        }
        assert!(Instant::now() < deadline, "no `{css}` with «{text}»");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn click_button(client: &Client, label: &str) {
    let xpath = format!("//button[normalize-space(.)='{label}']");
    client
        .find(Locator::XPath(&xpath))
        .await
        .unwrap_or_else(|_| panic!("a «{label}» button"))
        .click()
        .await
        .unwrap();
}

/// Accessibility basics on the current page: every field has a label, the first
/// Tab reaches a link or button, and text contrast is at least 4.5:1.
async fn check_accessibility(client: &Client, page: &str) {
    let report: Value = client
        .execute(
            r#"
            const unlabelled = Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea'))
              .filter(e => !e.labels || e.labels.length === 0).map(e => e.name || e.id);
            const channel = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
            const lum = rgb => { const [r, g, b] = rgb.match(/\d+/g).map(Number); return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b); };
            const bg = e => { while (e) { const c = getComputedStyle(e).backgroundColor; if (c && !c.startsWith('rgba(0, 0, 0, 0)') && c !== 'transparent') return c; e = e.parentElement; } return 'rgb(255, 255, 255)'; };
            const low = Array.from(document.querySelectorAll('h1, p, a, button, label, li, td, span'))
              .filter(e => e.offsetParent !== null && e.textContent.trim())
              .map(e => { const a = lum(getComputedStyle(e).color), b = lum(bg(e)); return [e.tagName + ' ' + e.textContent.trim().slice(0, 30), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]; })
              .filter(([, ratio]) => ratio < 4.5);
            return {unlabelled, low, lang: document.documentElement.lang};
            "#,
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        report["unlabelled"],
        json!([]),
        "{page}: fields without a label"
    );
    assert_eq!(
        report["low"],
        json!([]),
        "{page}: text below 4.5:1 contrast"
    );
    assert_eq!(report["lang"], "es", "{page}");
    client
        .find(Locator::Css("body"))
        .await
        .unwrap()
        .send_keys("\u{E004}")
        .await
        .unwrap();
    let focused: Value = client
        .execute("return document.activeElement.tagName;", vec![])
        .await
        .unwrap();
    assert!(
        matches!(focused.as_str(), Some("A" | "BUTTON" | "INPUT" | "SELECT")),
        "{page}: Tab reaches a control, not {focused}"
    );
}

/// Signs in on the page the browser is at (the sign-in page) and waits for the inbox.
async fn sign_in(client: &Client, key: &str) {
    client
        .find(Locator::Id("key"))
        .await
        .unwrap()
        .send_keys(key)
        .await
        .unwrap();
    click_button(client, "Entrar").await;
    wait_for_text(client, "h1", "Bandeja").await;
}

async fn say(app: &TestApp, session: &str, text: &str) -> Vec<String> {
    app.say(session, text).await
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_merchant_works_a_conversation_from_the_console_in_a_real_browser(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let (_driver, client) = browser().await;

    sqlx::query(
        "INSERT INTO canned_replies (bot_id, shortcut, text)
         SELECT id, 'saludo', '¡Hola! Gracias por escribirnos.' FROM bots WHERE slug = 'demo-shop'",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    // Sign in.
    client
        .goto(&format!("{}/dashboard", app.base))
        .await
        .unwrap();
    assert!(
        client
            .current_url()
            .await
            .unwrap()
            .path()
            .ends_with("/dashboard/login")
    );
    check_accessibility(&client, "sign-in").await;
    screenshot(&client, "01-sign-in").await;
    sign_in(&client, &app.key).await;
    check_accessibility(&client, "inbox").await;

    // A customer writes on web chat: the inbox shows it without a reload.
    let marker: Value = client
        .execute("window.__stay = 1; return 1;", vec![])
        .await
        .unwrap();
    assert_eq!(marker, 1);
    tokio::time::sleep(Duration::from_millis(500)).await;
    say(&app, "ana-web", "hola").await;
    wait_for_text(&client, "#inbox li", "Mirando el catálogo").await;
    let stayed: Value = client
        .execute("return window.__stay || 0;", vec![])
        .await
        .unwrap();
    assert_eq!(stayed, 1, "the list changed in place (no reload)");
    // A customer who asks for a person shows in the tab's title at once.
    say(&app, "eva-web", "quiero hablar con una persona").await;
    let mut title = String::new();
    for _ in 0..100 {
        title = client.title().await.unwrap();
        if title.starts_with("(1) ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(title, "(1) Bandeja · Tendero");
    screenshot(&client, "02-inbox-live").await;

    // Open it and take it over: the bot goes silent. Reply.
    // Ana's row, under the pinned one that waits for a person.
    client
        .find(Locator::Css("#inbox li:nth-child(2) a"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for_text(&client, "h2", "Ahora").await;
    check_accessibility(&client, "conversation").await;
    click_button(&client, "Tomar la conversación").await;
    wait_for_text(&client, "p.flash", "Tomaste la conversación").await;
    let before = app.replies("ana-web").await.len();
    assert!(
        say(&app, "ana-web", "¿hola?").await.is_empty(),
        "no bot reply while a person has it"
    );
    // The transcript shows it in place, without touching the reply box.
    wait_for_text(&client, ".transcript", "¿hola?").await;
    // A canned reply comes in by its shortcut; then the message is typed over it.
    let reply_box = client.find(Locator::Id("text")).await.unwrap();
    reply_box.send_keys("/saludo ").await.unwrap();
    let typed: Value = client
        .execute("return document.getElementById('text').value;", vec![])
        .await
        .unwrap();
    assert_eq!(typed, "¡Hola! Gracias por escribirnos.");
    reply_box.clear().await.unwrap();
    reply_box
        .send_keys("¡Hola Ana! Soy Carla, de la tienda. ¿En qué te ayudo?")
        .await
        .unwrap();
    click_button(&client, "Enviar").await;
    wait_for_text(&client, "p.flash", "Mensaje enviado").await;
    let replies = app.replies("ana-web").await;
    assert_eq!(replies.len(), before + 1);
    assert_eq!(
        replies.last().unwrap(),
        "¡Hola Ana! Soy Carla, de la tienda. ¿En qué te ayudo?"
    );
    screenshot(&client, "03-replied").await;

    // Hand it back: the bot answers again and the customer buys.
    click_button(&client, "Devolver al bot").await;
    wait_for_text(&client, "p.flash", "El bot vuelve a atender").await;
    for text in [
        "quiero 2 maracuyá",
        "cuánto es",
        "sí",
        "ya pagué, te envié el comprobante",
    ] {
        assert!(
            !say(&app, "ana-web", text).await.is_empty(),
            "the bot answers «{text}»"
        );
    }
    assert_eq!(app.state("ana-web").await, "AWAITING_PAYMENT");

    // The page learns of the order and the proof live, without a reload; approve it.
    wait_for_text(&client, "[data-fragment$='/estado']", "Esperando el pago").await;
    wait_for_text(&client, "#order", "Pedido #1").await;
    wait_for_text(&client, "section.card", "Comprobante por revisar").await;
    screenshot(&client, "04-proof").await;
    click_button(&client, "Aprobar el pago").await;
    wait_for_text(&client, "p.flash", "Pago aprobado").await;
    assert_eq!(app.state("ana-web").await, "COMPLETED");
    assert!(
        app.replies("ana-web")
            .await
            .last()
            .unwrap()
            .starts_with("¡Pago confirmado!")
    );
    screenshot(&client, "05-approved").await;

    // The other pages hold the same basics; then sign out.
    for (path, name) in [
        ("/dashboard/catalog", "catalog"),
        (
            "/dashboard/conocimiento?pregunta=%C2%BFa+qu%C3%A9+hora+abren%3F",
            "knowledge",
        ),
        ("/dashboard/bots", "bots"),
        ("/dashboard/keys", "keys"),
    ] {
        client.goto(&format!("{}{path}", app.base)).await.unwrap();
        check_accessibility(&client, name).await;
        screenshot(&client, &format!("06-{name}")).await;
    }
    // Every page, on a phone and on a desktop: labels, focus, contrast, and a
    // screenshot of each (target/screenshots/, linked from the README).
    let conversation = app.conversation_id("ana-web").await;
    let key: uuid::Uuid = sqlx::query_scalar("SELECT id FROM api_keys LIMIT 1")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    for (width, height) in [(390, 844), (1280, 900)] {
        client.set_window_size(width, height).await.unwrap();
        for (path, name) in [
            ("/dashboard".to_owned(), "inbox"),
            (
                format!("/dashboard/conversations/{conversation}"),
                "conversation",
            ),
            ("/dashboard/catalog".to_owned(), "catalog"),
            ("/dashboard/conocimiento".to_owned(), "knowledge"),
            ("/dashboard/bots".to_owned(), "bots"),
            ("/dashboard/keys".to_owned(), "keys"),
            (format!("/dashboard/keys/{key}/revocar"), "revoke"),
            ("/dashboard/no-existe".to_owned(), "not-found"),
        ] {
            client.goto(&format!("{}{path}", app.base)).await.unwrap();
            check_accessibility(&client, &format!("{name} at {width} px")).await;
            screenshot(&client, &format!("w{width}-{name}")).await;
        }
        // A catalog error, as the merchant sees it: in Spanish, the form as typed.
        client
            .goto(&format!("{}/dashboard/catalog", app.base))
            .await
            .unwrap();
        for (field, value) in [
            ("sku", "torta"),
            ("name", "Torta de chocolate"),
            ("price", "doce"),
        ] {
            client
                .find(Locator::Id(field))
                .await
                .unwrap()
                .send_keys(value)
                .await
                .unwrap();
        }
        click_button(&client, "Agregar").await;
        wait_for_text(&client, "p.flash", "El precio «doce» no es un monto").await;
        check_accessibility(&client, &format!("catalog error at {width} px")).await;
        screenshot(&client, &format!("w{width}-catalog-error")).await;
    }
    client.set_window_size(412, 915).await.unwrap();
    // The product code's pattern is one the browser can use: it checks before sending.
    client
        .goto(&format!("{}/dashboard/catalog", app.base))
        .await
        .unwrap();
    let validity: Value = client
        .execute(
            "var sku = document.getElementById('sku'); sku.value = 'con espacio'; var bad = sku.checkValidity();
             sku.value = 'torta-chocolate'; return [bad, sku.checkValidity()];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(validity, serde_json::json!([false, true]));
    click_button(&client, "Salir").await;
    wait_for_text(&client, "h1", "Entrar a la consola").await;
    client
        .goto(&format!("{}/dashboard", app.base))
        .await
        .unwrap();
    assert!(
        client
            .current_url()
            .await
            .unwrap()
            .path()
            .ends_with("/dashboard/login")
    );

    // A session that ends while the inbox is open: the next live update shows
    // the sign-in page whole, not pasted inside the list.
    sign_in(&client, &app.key).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    sqlx::query("DELETE FROM dashboard_sessions")
        .execute(&app.pool)
        .await
        .unwrap();
    say(&app, "beto-web", "hola").await;
    wait_for_text(&client, "h1", "Entrar a la consola").await;
    let pasted: Value = client
        .execute("return document.querySelectorAll('#inbox').length;", vec![])
        .await
        .unwrap();
    assert_eq!(pasted, 0, "the sign-in page alone");
    client.close().await.unwrap();
}

/// A 1×1 PNG: what a customer's photo of a transfer is, as far as the type check sees.
const PROOF_PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x60, 0xF8, 0xCF,
    0x00, 0x00, 0x03, 0x03, 0x01, 0x00, 0x18, 0xDD, 0x8D, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// A merchant's site on another origin: one page that embeds the widget.
async fn merchant_site(widget_base: &str) -> (String, tokio::task::JoinHandle<()>) {
    let page = format!(
        "<!doctype html><html lang=\"es\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Café de la esquina</title></head><body><h1>Café de la esquina</h1>\
         <script src=\"{widget_base}/webchat/demo-shop/widget.js\" defer></script>\
         </body></html>"
    );
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(move || {
            let page = page.clone();
            async move { axum::response::Html(page) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (origin, server)
}

/// Opens the chat from its bubble, once the page has loaded the widget.
async fn open_widget(client: &Client) {
    client
        .wait()
        .for_element(Locator::Id("tendero-bubble"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// Everything the widget shows.
async fn widget_log(client: &Client) -> String {
    client
        .find(Locator::Id("tendero-log"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

async fn type_in_widget(client: &Client, text: &str) {
    let input = client.find(Locator::Id("tendero-text")).await.unwrap();
    input.send_keys(text).await.unwrap();
    client
        .find(Locator::Css("#tendero-form button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_customer_buys_through_the_widget_on_the_merchants_own_site(pool: sqlx::PgPool) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let fake = crate::fake_llm::FakeLlm::start().await;
    // Unscripted answers take a while: long enough to see the bot typing.
    fake.set_delay(Duration::from_millis(1500));
    let mut llm = crate::llm::config(&fake, tendero::config::ResponseMode::JsonSchema);
    llm.rules_first = true;
    let settings = tendero::config::Settings::for_tests("postgres://unused");
    let proposers = tendero::startup::Proposers::llm(std::sync::Arc::new(
        tendero::llm::Client::new(llm)
            .unwrap()
            .with_progress(tendero::startup::progress(&settings, &pool)),
    ));
    let app = crate::helpers::spawn_app_with(pool, proposers).await;
    let (origin, _site) = merchant_site(&app.base).await;
    let (status, body) = app
        .patch_bot("demo-shop", json!({"webchat_origins": [origin]}))
        .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    let (_driver, client) = browser().await;
    let stop = AtomicBool::new(false);
    // The worker, as `tendero serve` runs it, while the customer clicks.
    let worker = async {
        while !stop.load(Ordering::Relaxed) {
            app.drain().await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let customer = async {
        client.goto(&format!("{origin}/")).await.unwrap();
        open_widget(&client).await;
        // The customer gives a name: the merchant's inbox calls them by it.
        client
            .execute(
                "var n = document.getElementById('tendero-name'); n.value = 'Ana Web'; n.dispatchEvent(new Event('change'));",
                vec![],
            )
            .await
            .unwrap();
        type_in_widget(&client, "quiero 2 matcha").await;
        wait_for_text(&client, ".tendero-me", "quiero 2 matcha").await;
        wait_for_text(&client, ".tendero-them", "2 × Matcha").await;
        // Only the model can answer this one: the bot is seen typing meanwhile.
        type_in_widget(&client, "mira").await;
        wait_for_text(&client, "#tendero-typing", "Escribiendo").await;
        wait_for_text(&client, ".tendero-them", "¿Me repites?").await;
        type_in_widget(&client, "cuánto es").await;
        wait_for_text(&client, ".tendero-choices button", "Sí").await;
        screenshot(&client, "20-widget-summary").await;
        click_button(&client, "Sí").await;
        wait_for_text(&client, ".tendero-them", "quedó registrado").await;
        // The payment proof: a photo picked with the clip, shown in the chat.
        let proof = std::env::temp_dir().join(format!("comprobante-{}.png", std::process::id()));
        std::fs::write(&proof, PROOF_PNG).unwrap();
        client
            .find(Locator::Id("tendero-file"))
            .await
            .unwrap()
            .send_keys(proof.to_str().unwrap())
            .await
            .unwrap();
        wait_for_text(&client, ".tendero-me", "Archivo enviado: comprobante").await;
        wait_for_text(&client, ".tendero-them", "Recibimos tu comprobante").await;
        let pictures = client
            .find_all(Locator::Css(".tendero-me img"))
            .await
            .unwrap();
        assert_eq!(pictures.len(), 1, "the photo is shown as sent");
        screenshot(&client, "22-widget-proof").await;
        let stored: Vec<u8> = sqlx::query_scalar("SELECT bytes FROM webchat_uploads")
            .fetch_one(&app.pool)
            .await
            .unwrap();
        assert_eq!(
            stored, PROOF_PNG,
            "the file the customer picked, byte for byte"
        );
        // A reload (or another page of the site) keeps the conversation.
        client.refresh().await.unwrap();
        open_widget(&client).await;
        wait_for_text(&client, ".tendero-them", "quedó registrado").await;
        wait_for_text(&client, ".tendero-me", "quiero 2 matcha").await;
        screenshot(&client, "21-widget-after-reload").await;
        let named: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM contacts WHERE channel = 'webchat' AND display_name = 'Ana Web'",
        )
        .fetch_one(&app.pool)
        .await
        .unwrap();
        assert_eq!(named, 1, "the name the widget asked for");
        // Another browser (its own storage) gets its own, empty chat.
        let (_other_driver, other) = browser().await;
        other.goto(&format!("{origin}/")).await.unwrap();
        open_widget(&other).await;
        let seen = widget_log(&other).await;
        assert!(!seen.contains("Matcha"), "another browser read: {seen}");
        type_in_widget(&other, "hola").await;
        wait_for_text(&other, ".tendero-them", "Bienvenido").await;
        let seen = widget_log(&other).await;
        assert!(
            !seen.contains("quedó registrado"),
            "only its own chat: {seen}"
        );
        other.close().await.unwrap();
        client.close().await.unwrap();
        stop.store(true, Ordering::Relaxed);
    };
    tokio::join!(worker, customer);
    assert_eq!(
        app.count("SELECT count(*) FROM orders").await,
        1,
        "the order the customer confirmed in the widget"
    );
}
