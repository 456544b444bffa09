//! The merchant console over HTTP: sign-in and sessions, CSRF on every write, the
//! live inbox, a conversation's actions, the payment-proof proxy and tenant
//! isolation. (The browser test drives the same pages in Chromium.)

use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use serde_json::json;

use crate::channels::{TG_SECRET, channel_app, fixture, post_telegram, settle, tg_text};
use crate::fake_platforms::fake_file;
use crate::helpers::{TestApp, spawn_app};

/// A browser without a cookie jar: we carry the session cookie ourselves.
pub struct Browser<'a> {
    app: &'a TestApp,
    http: reqwest::Client,
    pub cookie: String,
}

impl<'a> Browser<'a> {
    fn new(app: &'a TestApp) -> Self {
        Browser {
            app,
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookie: String::new(),
        }
    }

    pub async fn sign_in(app: &'a TestApp, key: &str) -> Browser<'a> {
        let mut browser = Browser::new(app);
        let response = browser.post("/dashboard/login", &[("key", key)]).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
        let set = response.headers()[SET_COOKIE].to_str().unwrap().to_owned();
        browser.cookie = set.split(';').next().unwrap().to_owned();
        browser
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.app.base))
            .header(COOKIE, &self.cookie)
            .send()
            .await
            .unwrap()
    }

    pub async fn page(&self, path: &str) -> String {
        let response = self.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        response.text().await.unwrap()
    }

    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.app.base))
            .header(COOKIE, &self.cookie)
            .form(form)
            .send()
            .await
            .unwrap()
    }

    /// The CSRF token the pages carry.
    pub async fn csrf(&self) -> String {
        let page = self.page("/dashboard").await;
        let at = page.find("name=\"csrf\" value=\"").unwrap() + 19;
        page[at..at + 48].to_owned()
    }

    /// The conversation's page, which must show a proof to review, and the
    /// proof's image as the console serves it (with its address).
    pub async fn proof_image(&self, conversation: uuid::Uuid) -> (String, reqwest::Response) {
        let page = self
            .page(&format!("/dashboard/conversations/{conversation}"))
            .await;
        assert!(page.contains("Comprobante por revisar"), "{page}");
        let at = page.find("/dashboard/media/").unwrap();
        let src: String = page[at..].chars().take_while(|c| *c != '"').collect();
        let image = self.get(&src).await;
        (src, image)
    }
}

fn location(response: &reqwest::Response) -> String {
    response.headers()[LOCATION].to_str().unwrap().to_owned()
}

async fn override_on(app: &TestApp, session: &str) -> bool {
    sqlx::query_scalar(
        "SELECT c.human_override FROM conversations c JOIN contacts ct ON ct.id = c.contact_id
         WHERE ct.external_id = ANY($1)",
    )
    .bind(app.session_ids(session))
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn signing_in_opens_a_server_side_session_and_signing_out_or_revoking_ends_it(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    let anonymous = Browser::new(&app);
    let to_login = anonymous.get("/dashboard").await;
    assert_eq!(to_login.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&to_login), "/dashboard/login");
    let form = anonymous.get("/dashboard/login").await;
    assert_eq!(form.status(), StatusCode::OK);
    let html = form.text().await.unwrap();
    assert!(
        html.contains("<label for=\"key\">Llave de API</label>"),
        "{html}"
    );

    let wrong = anonymous
        .post("/dashboard/login", &[("key", "tdr_wrong")])
        .await;
    assert!(location(&wrong).starts_with("/dashboard/login?error="));
    assert!(wrong.headers().get(SET_COOKIE).is_none());

    let secure = anonymous
        .http
        .post(format!("{}/dashboard/login", app.base))
        .header("X-Forwarded-Proto", "https")
        .form(&[("key", app.key.as_str())])
        .send()
        .await
        .unwrap();
    let cookie = secure.headers()[SET_COOKIE].to_str().unwrap();
    for part in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/dashboard",
        "Secure",
        "Max-Age=43200",
    ] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let stored: i64 = app.count("SELECT count(*) FROM dashboard_sessions").await;
    assert_eq!(stored, 1);
    let token = cookie.split(';').next().unwrap().split('=').nth(1).unwrap();
    let plain: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM dashboard_sessions WHERE encode(token_hash, 'hex') = $1",
    )
    .bind(token)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(plain, 0, "only a hash of the token is stored");

    let browser = Browser::sign_in(&app, &app.key).await;
    let inbox = browser.get("/dashboard").await;
    assert_eq!(inbox.status(), StatusCode::OK);
    let headers = inbox.headers().clone();
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    assert_eq!(headers["x-frame-options"], "DENY");
    let csrf = browser.csrf().await;

    // Sign-out needs the CSRF token, then the cookie is worth nothing.
    let forged = browser.post("/dashboard/logout", &[("csrf", "0")]).await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let out = browser.post("/dashboard/logout", &[("csrf", &csrf)]).await;
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    assert!(
        out.headers()[SET_COOKIE]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    assert_eq!(
        browser.get("/dashboard").await.status(),
        StatusCode::SEE_OTHER
    );

    // Revoking the key ends the sessions it opened.
    let (_, created) = app
        .post_api("/keys", Some(json!({"label": "teléfono"})))
        .await;
    let phone = Browser::sign_in(&app, created["key"].as_str().unwrap()).await;
    assert_eq!(phone.get("/dashboard").await.status(), StatusCode::OK);
    let id = created["id"].as_str().unwrap();
    app.api(
        reqwest::Method::DELETE,
        &format!("/keys/{id}"),
        &app.key,
        None,
    )
    .await;
    assert_eq!(
        phone.get("/dashboard").await.status(),
        StatusCode::SEE_OTHER
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_inbox_flags_what_needs_the_merchant_and_every_write_needs_the_csrf_token(
    pool: sqlx::PgPool,
) {
    let app = spawn_app(pool).await;
    app.say("lola", "quiero hablar con una persona").await;
    app.say("tomas", "quiero 1 brownie").await;
    let browser = Browser::sign_in(&app, &app.key).await;
    let inbox = browser.page("/dashboard").await;
    assert!(inbox.contains("Pidió una persona"), "{inbox}");
    let needs = browser.page("/dashboard/inbox?needs=me").await;
    assert_eq!(needs.matches("<li class=\"card\">").count(), 1, "{needs}");
    // The chat waiting for a person is pinned above a newer one; rows show the
    // last message and the time in the shop's zone (La Paz, not UTC).
    let (lola, tomas) = (
        inbox.find("Pidió una persona").unwrap(),
        inbox.find("quiero 1 brownie").unwrap_or(usize::MAX),
    );
    assert!(lola < tomas, "pinned first: {inbox}");
    assert!(
        inbox.contains("Agregué 1 × Brownie"),
        "the last message: {inbox}"
    );
    let local: String = sqlx::query_scalar(
        "SELECT to_char(c.updated_at AT TIME ZONE 'America/La_Paz', 'DD/MM HH24:MI')
         FROM conversations c JOIN contacts ct ON ct.id = c.contact_id WHERE ct.external_id = ANY($1)",
    )
    .bind(app.session_ids("tomas"))
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(
        inbox.contains(&local) && !inbox.contains(" UTC"),
        "{local}: {inbox}"
    );
    assert!(!inbox.contains("Cliente sin nombre"), "{inbox}");
    // Unread: each customer wrote once; opening a conversation reads it.
    assert_eq!(inbox.matches("1 sin leer").count(), 2, "{inbox}");
    let tomas_id = app.conversation_id("tomas").await;
    browser
        .page(&format!("/dashboard/conversations/{tomas_id}"))
        .await;
    let read = browser.page("/dashboard").await;
    assert_eq!(read.matches("sin leer").count(), 1, "{read}");
    let found = browser.page("/dashboard?q=brownie").await;
    assert_eq!(found.matches("<li class=\"card\">").count(), 1, "{found}");
    // Paging: fifty to a page.
    for n in 0..55 {
        app.post_message(&format!("cliente-{n}"), "hola", "m1")
            .await;
    }
    let first = browser.page("/dashboard").await;
    assert_eq!(first.matches("<li class=\"card\">").count(), 50);
    assert!(first.contains("pagina=2"), "a link to the next page");
    let second = browser.page("/dashboard?pagina=2").await;
    assert_eq!(
        second.matches("<li class=\"card\">").count(),
        7,
        "57 in all"
    );
    assert!(second.contains("pagina=1") && !second.contains("pagina=3"));

    let id = app.conversation_id("tomas").await;
    let csrf = browser.csrf().await;
    let take = format!("/dashboard/conversations/{id}/tomar");
    for form in [vec![], vec![("csrf", "bad")]] {
        let refused = browser.post(&take, &form).await;
        assert!(refused.status().is_client_error(), "{:?}", refused.status());
    }
    let cross_site = browser
        .http
        .post(format!("{}{take}", app.base))
        .header(COOKIE, &browser.cookie)
        .header("Origin", "https://evil.example")
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(cross_site.status(), StatusCode::FORBIDDEN);
    assert!(!override_on(&app, "tomas").await, "nothing changed");

    let taken = browser.post(&take, &[("csrf", &csrf)]).await;
    assert_eq!(taken.status(), StatusCode::SEE_OTHER);
    assert!(location(&taken).contains("aviso="));
    assert!(override_on(&app, "tomas").await);
    let quiet = app.say("tomas", "hola?").await;
    assert!(quiet.is_empty(), "the bot is silent: {quiet:?}");

    let replied = browser
        .post(
            &format!("/dashboard/conversations/{id}/responder"),
            &[("csrf", &csrf), ("text", "¡Hola Tomás! Aquí estoy.")],
        )
        .await;
    assert_eq!(replied.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        app.replies("tomas").await.last().unwrap(),
        "¡Hola Tomás! Aquí estoy."
    );
    let empty = browser
        .post(
            &format!("/dashboard/conversations/{id}/responder"),
            &[("csrf", &csrf), ("text", " ")],
        )
        .await;
    assert!(
        location(&empty).contains("error="),
        "an empty reply is explained"
    );

    // Private notes stay with the team; canned replies come from the bot's page.
    let noted = browser
        .post(
            &format!("/dashboard/conversations/{id}/nota"),
            &[
                ("csrf", &csrf),
                ("text", "Cliente frecuente: paga en efectivo."),
            ],
        )
        .await;
    assert!(location(&noted).contains("aviso="), "{}", location(&noted));
    let bad = browser
        .post(
            "/dashboard/bots/demo-shop/respuestas",
            &[("csrf", &csrf), ("shortcut", "con espacio"), ("text", "x")],
        )
        .await;
    assert!(location(&bad).contains("error="));
    let canned = browser
        .post(
            "/dashboard/bots/demo-shop/respuestas",
            &[
                ("csrf", &csrf),
                ("shortcut", "/Horario"),
                ("text", "Abrimos de 8:00 a 20:00."),
            ],
        )
        .await;
    assert!(
        location(&canned).contains("aviso="),
        "{}",
        location(&canned)
    );
    assert!(
        !app.replies("tomas")
            .await
            .iter()
            .any(|r| r.contains("efectivo")),
        "a note never reaches the customer"
    );
    let page = browser
        .page(&format!("/dashboard/conversations/{id}"))
        .await;
    assert!(
        page.contains("Cliente frecuente: paga en efectivo."),
        "{page}"
    );
    assert!(
        page.contains("data-shortcut=\"horario\"") && page.contains("Abrimos de 8:00 a 20:00."),
        "{page}"
    );
    let canned_id: i64 = sqlx::query_scalar("SELECT id FROM canned_replies")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let deleted = browser
        .post(
            &format!("/dashboard/bots/demo-shop/respuestas/{canned_id}/borrar"),
            &[("csrf", &csrf)],
        )
        .await;
    assert!(location(&deleted).contains("aviso="));
    assert_eq!(app.count("SELECT count(*) FROM canned_replies").await, 0);
    let page = browser
        .page(&format!("/dashboard/conversations/{id}"))
        .await;
    assert!(page.contains("¡Hola Tomás! Aquí estoy."));
    assert!(page.contains("Entregado"));
    // The reply box sits under the transcript, whose newest line is last; the
    // history reads as Spanish sentences, no kind or action names.
    let (newest, reply_box) = (
        page.find("¡Hola Tomás! Aquí estoy.").unwrap(),
        page.find("Responder al cliente").unwrap(),
    );
    assert!(newest < reply_box, "newest message above the reply box");
    assert!(page.contains("Detalles: qué hizo el bot y por qué"));
    assert!(page.contains("Le escribiste al cliente."), "{page}");
    for raw in [
        "action_executed",
        "state_changed",
        "CART_OPEN",
        "ADD_TO_CART",
        "backend",
    ] {
        assert!(!page.contains(raw), "«{raw}» shown to the merchant");
    }
    let released = browser
        .post(
            &format!("/dashboard/conversations/{id}/soltar"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(released.status(), StatusCode::SEE_OTHER);
    assert!(!override_on(&app, "tomas").await);
    let answered = app.say("tomas", "quiero 1 limonada").await;
    assert!(!answered.is_empty(), "the bot answers again");
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn a_payment_proof_is_shown_through_the_server_and_approved_in_two_taps(pool: sqlx::PgPool) {
    let (app, fake) = channel_app(pool, |_| {}).await;
    for (n, text) in ["hola", "quiero 2 maracuyá", "cuánto es", "sí"]
        .iter()
        .enumerate()
    {
        post_telegram(&app, &tg_text(n as u64 + 1, text), Some(TG_SECRET)).await;
        settle(&app).await;
    }
    let mut photo = fixture("telegram/photo.json");
    photo["update_id"] = json!(9);
    post_telegram(&app, &photo, Some(TG_SECRET)).await;
    settle(&app).await;

    let browser = Browser::sign_in(&app, &app.key).await;
    let id = app.conversation_id("555000111").await;
    let page = browser
        .page(&format!("/dashboard/conversations/{id}"))
        .await;
    assert!(!page.contains("123456:ABC-test"), "no token in the page");
    let (src, image) = browser.proof_image(id).await;
    assert_eq!(image.status(), StatusCode::OK);
    assert_eq!(image.headers()["content-type"], "image/jpeg");
    let file_id = fake.calls("getFile")[0].body["file_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(image.bytes().await.unwrap().to_vec(), fake_file(&file_id));

    let csrf = browser.csrf().await;
    let order: uuid::Uuid = sqlx::query_scalar("SELECT id FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let approved = browser
        .post(
            &format!("/dashboard/orders/{order}/aprobar"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(approved.status(), StatusCode::SEE_OTHER);
    settle(&app).await;
    assert_eq!(app.state("555000111").await, "COMPLETED");
    assert!(
        fake.texts("sendMessage")
            .last()
            .unwrap()
            .starts_with("¡Pago confirmado!")
    );
    let again = browser
        .post(
            &format!("/dashboard/orders/{order}/aprobar"),
            &[("csrf", &csrf)],
        )
        .await;
    assert!(
        location(&again).contains("error="),
        "approving twice is explained, not done"
    );

    // The paid order shows its next steps, and one tap tells the customer.
    let page = browser
        .page(&format!("/dashboard/conversations/{id}"))
        .await;
    assert!(
        page.contains("En preparación") && page.contains("Cancelar el pedido"),
        "{page}"
    );
    let sent = browser
        .post(
            &format!("/dashboard/orders/{order}/en-camino"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(sent.status(), StatusCode::SEE_OTHER);
    assert!(location(&sent).contains("aviso="), "{}", location(&sent));
    settle(&app).await;
    assert!(
        fake.texts("sendMessage")
            .last()
            .unwrap()
            .contains("está en camino")
    );
    let page = browser
        .page(&format!("/dashboard/conversations/{id}"))
        .await;
    assert!(
        page.contains("En camino") && !page.contains(">En preparación<"),
        "{page}"
    );
    let unknown = browser
        .post(
            &format!("/dashboard/orders/{order}/volando"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let cancelled = browser
        .post(
            &format!("/dashboard/orders/{order}/cancelar"),
            &[("csrf", &csrf), ("reason", "se cayó en el camino")],
        )
        .await;
    assert!(
        location(&cancelled).contains("aviso="),
        "{}",
        location(&cancelled)
    );
    settle(&app).await;
    assert!(
        fake.texts("sendMessage")
            .iter()
            .any(|t| t.contains("Motivo: se cayó en el camino.")
                && t.contains("devolverte el dinero"))
    );

    // Another merchant's session sees none of it.
    let other = tendero::merchants::create(&app.pool, "otra", "Otra")
        .await
        .unwrap();
    let key = tendero::api_keys::create(&app.pool, other).await.unwrap();
    let intruder = Browser::sign_in(&app, &key).await;
    let their_csrf = intruder.csrf().await;
    assert_eq!(
        intruder
            .get(&format!("/dashboard/conversations/{id}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(intruder.get(&src).await.status(), StatusCode::NOT_FOUND);
    for path in [
        format!("/dashboard/conversations/{id}/tomar"),
        format!("/dashboard/conversations/{id}/responder"),
        format!("/dashboard/orders/{order}/rechazar"),
    ] {
        let response = intruder
            .post(
                &path,
                &[("csrf", &their_csrf), ("text", "hola"), ("reason", "x")],
            )
            .await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let inbox = intruder.page("/dashboard").await;
    assert!(!inbox.contains(&id.to_string()));
}

/// The first `changed` events on the console's stream within `wait`.
async fn changes(
    browser: &Browser<'_>,
    count: usize,
    wait: std::time::Duration,
) -> Vec<serde_json::Value> {
    use futures::StreamExt;
    let response = browser.get("/dashboard/events").await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.bytes_stream();
    let mut buffer = String::new();
    let mut events = Vec::new();
    let read = async {
        while events.len() < count {
            let Some(Ok(chunk)) = stream.next().await else {
                break;
            };
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buffer.find("\n\n") {
                let block: String = buffer.drain(..end + 2).collect();
                if block.contains("event: changed") {
                    let data = block
                        .lines()
                        .find_map(|l| l.strip_prefix("data: "))
                        .unwrap_or("{}");
                    events.push(serde_json::from_str(data).unwrap());
                }
            }
        }
    };
    let _ = tokio::time::timeout(wait, read).await;
    events
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_live_feed_tells_each_merchant_only_of_their_own_conversations(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    app.say("vivo", "hola").await;
    let id = app.conversation_id("vivo").await;
    let browser = Browser::sign_in(&app, &app.key).await;
    let other = tendero::merchants::create(&app.pool, "otra", "Otra")
        .await
        .unwrap();
    let key = tendero::api_keys::create(&app.pool, other).await.unwrap();
    let intruder = Browser::sign_in(&app, &key).await;
    let wait = std::time::Duration::from_secs(5);
    let (mine, theirs, _) = tokio::join!(
        changes(&browser, 1, wait),
        changes(&intruder, 1, std::time::Duration::from_secs(3)),
        async {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            app.say("vivo", "quiero 1 brownie").await;
        }
    );
    assert_eq!(mine, [json!({"conversation_id": id})]);
    assert!(
        theirs.is_empty(),
        "another merchant hears nothing: {theirs:?}"
    );
    assert_eq!(
        Browser::new(&app).get("/dashboard/events").await.status(),
        StatusCode::SEE_OTHER
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_catalog_bots_and_keys_pages_do_what_the_api_does(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    let browser = Browser::sign_in(&app, &app.key).await;
    let csrf = browser.csrf().await;

    // Catalog: add, edit with a comma price, hide, export, import.
    let page = browser.page("/dashboard/catalog").await;
    assert!(
        page.contains("Maracuya") && page.contains("<label for=\"price\">"),
        "{page}"
    );
    // An address the console does not have: a Spanish page, not the API's JSON.
    let missing = browser.get("/dashboard/no-existe").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let missing = missing.text().await.unwrap();
    assert!(
        missing.contains("No encontramos esa página") && !missing.contains("{\"error\""),
        "{missing}"
    );
    // A refused product comes back as typed, with what to fix in Spanish.
    for (field, value, why) in [
        ("price", "doce", "El precio «doce» no es un monto"),
        ("sku", "con espacio", "El código lleva"),
    ] {
        let mut form = vec![
            ("csrf", csrf.as_str()),
            ("sku", "alfajor"),
            ("name", "Alfajor de maicena"),
            ("price", "8,50"),
            ("tags", "dulce, con coco"),
        ];
        form.retain(|(k, _)| *k != field);
        form.push((field, value));
        let refused = browser
            .post("/dashboard/catalog/demo-shop/productos", &form)
            .await;
        assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let html = refused.text().await.unwrap();
        assert!(html.contains(why), "{html}");
        assert!(
            html.contains("value=\"Alfajor de maicena\"")
                && html.contains("value=\"dulce, con coco\""),
            "{html}"
        );
        assert!(
            !html.contains("price `") && !html.contains("sku must"),
            "no English: {html}"
        );
    }
    assert_eq!(
        app.count("SELECT count(*) FROM products WHERE sku = 'alfajor'")
            .await,
        0
    );
    let added = browser
        .post(
            "/dashboard/catalog/demo-shop/productos",
            &[
                ("csrf", &csrf),
                ("sku", "alfajor"),
                ("name", "Alfajor"),
                ("price", "8,50"),
            ],
        )
        .await;
    assert!(location(&added).contains("aviso="), "{}", location(&added));
    // The server's own banner shows; the same words in a crafted link, or a
    // signed banner whose text was changed, do not.
    let shown = browser.page(&location(&added)).await;
    assert!(shown.contains("Agregaste Alfajor."), "{shown}");
    let crafted = browser
        .page("/dashboard/catalog?bot=demo-shop&aviso=Tu+cuenta+fue+suspendida")
        .await;
    assert!(!crafted.contains("suspendida"), "{crafted}");
    let tampered = location(&added).replace("Agregaste", "Borraste");
    let tampered = browser.page(&tampered).await;
    assert!(!tampered.contains("Borraste"), "{tampered}");
    let id: i64 = sqlx::query_scalar("SELECT id FROM products WHERE sku = 'alfajor'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let refused = browser
        .post(
            &format!("/dashboard/catalog/demo-shop/productos/{id}"),
            &[
                ("csrf", &csrf),
                ("name", "Alfajor grande"),
                ("price", "nueve"),
            ],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = refused.text().await.unwrap();
    assert!(
        html.contains("value=\"Alfajor grande\"") && html.contains("El precio «nueve»"),
        "an edit refused comes back as typed: {html}"
    );
    let edited = browser
        .post(
            &format!("/dashboard/catalog/demo-shop/productos/{id}"),
            &[
                ("csrf", &csrf),
                ("name", "Alfajor de maicena"),
                ("price", "9"),
            ],
        )
        .await;
    assert!(location(&edited).contains("aviso="));
    let (price, active): (i64, bool) =
        sqlx::query_as("SELECT price_minor, active FROM products WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!((price, active), (900, false), "an unticked box hides it");
    let bad = browser
        .post(
            "/dashboard/catalog/demo-shop/productos",
            &[
                ("csrf", &csrf),
                ("sku", "x"),
                ("name", "X"),
                ("price", "diez"),
            ],
        )
        .await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let csv = browser
        .get("/dashboard/catalog/demo-shop/productos.csv")
        .await;
    assert_eq!(csv.headers()["content-type"], "text/csv; charset=utf-8");
    let csv = csv.text().await.unwrap();
    assert!(csv.contains("alfajor,Alfajor de maicena,,9,no"), "{csv}");
    let upload = |text: &'static str, token: String| {
        let form = reqwest::multipart::Form::new().text("csrf", token).part(
            "file",
            reqwest::multipart::Part::bytes(text.as_bytes()).file_name("productos.csv"),
        );
        browser
            .http
            .post(format!("{}/dashboard/catalog/demo-shop/importar", app.base))
            .header(COOKIE, &browser.cookie)
            .multipart(form)
            .send()
    };
    let imported = upload("sku,name,price\ntorta,Torta,25\n", csrf.clone())
        .await
        .unwrap();
    assert!(
        location(&imported).contains("aviso="),
        "{}",
        location(&imported)
    );
    let refused = upload("sku,name,price\nflan,Flan,gratis\n", csrf.clone())
        .await
        .unwrap();
    assert!(location(&refused).contains("error="));
    let explained = browser.page(&location(&refused)).await;
    assert!(
        explained.contains("línea 2: El precio «gratis» no es un monto"),
        "Spanish, with the line: {explained}"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM products WHERE sku = 'flan'")
            .await,
        0
    );
    let forged = upload("sku,name,price\nflan,Flan,5\n", "0".repeat(48))
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);

    // Bots: plain words, the full webhook addresses, and the settings that
    // apply; with no model configured there is no AI switch (and none is turned).
    let bots_page = browser.page("/dashboard/bots").await;
    assert!(
        bots_page.contains("(tienda · código demo-shop)"),
        "{bots_page}"
    );
    assert!(
        bots_page.contains("/webhooks/whatsapp/demo-shop</code>") && bots_page.contains("http"),
        "{bots_page}"
    );
    assert!(
        bots_page.contains("no tiene un modelo de inteligencia artificial configurado"),
        "{bots_page}"
    );
    for raw in [
        "US$ 0.0000",
        "Phone number ID",
        "Access token",
        "App secret",
        "Verify token",
        ", shop)",
    ] {
        assert!(!bots_page.contains(raw), "«{raw}» on the bots page");
    }
    // Delivery from the console: a line that is not «zona; costo» comes back as
    // typed with what to fix; a good one is stored.
    let refused = browser
        .post(
            "/dashboard/bots/demo-shop/entrega",
            &[
                ("csrf", &csrf),
                ("pickup", "si"),
                ("delivery", "si"),
                ("zones", "Sopocachi; 10\nMiraflores doce"),
            ],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = refused.text().await.unwrap();
    assert!(
        html.contains("Línea 2 de las zonas") && html.contains("Miraflores doce"),
        "{html}"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM delivery_zones WHERE name LIKE 'Zona %'")
            .await,
        3,
        "nothing changed: the demo's zones stay"
    );
    let stored = browser
        .post(
            "/dashboard/bots/demo-shop/entrega",
            &[
                ("csrf", &csrf),
                ("pickup", "si"),
                ("delivery", "si"),
                (
                    "zones",
                    "Sopocachi; 10; 50\nMiraflores; 12\nObrajes; 12; ; 150",
                ),
            ],
        )
        .await;
    assert!(
        location(&stored).contains("aviso="),
        "{}",
        location(&stored)
    );
    let delivery = app.get_json("/bots/demo-shop/delivery").await;
    assert_eq!(delivery["zones"].as_array().map(Vec::len), Some(3));
    assert_eq!(delivery["zones"][0]["min_order_minor"], 5000);
    assert_eq!(delivery["zones"][1]["fee_minor"], 1200);
    assert_eq!(delivery["zones"][2]["free_from_minor"], 15000);
    assert!(delivery["zones"][2]["min_order_minor"].is_null());
    let refused = browser
        .post(
            "/dashboard/bots/demo-shop/ajustes",
            &[
                ("csrf", &csrf),
                ("session_minutes", "cuarenta"),
                ("payment_hours", "12"),
                ("payment_instructions", "QR en caja, sin cambio"),
            ],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = refused.text().await.unwrap();
    assert!(
        html.contains("value=\"cuarenta\"") && html.contains("QR en caja, sin cambio"),
        "settings refused come back as typed: {html}"
    );
    let saved = browser
        .post(
            "/dashboard/bots/demo-shop/ajustes",
            &[
                ("csrf", &csrf),
                ("session_minutes", "45"),
                ("payment_hours", "12"),
                ("payment_instructions", "QR en caja"),
            ],
        )
        .await;
    assert!(location(&saved).contains("aviso="), "{}", location(&saved));
    let bot = tendero::bots::by_slug(&app.pool, "demo-shop")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            bot.session_timeout_secs,
            bot.payment_timeout_secs,
            bot.agent_enabled
        ),
        (2700, 43200, true),
        "the AI switch was not on the page: it stayed as it was"
    );
    assert_eq!(bot.payment_instructions, "QR en caja");
    let connected = browser
        .post(
            "/dashboard/bots/demo-shop/telegram",
            &[
                ("csrf", &csrf),
                ("token", "123:SECRET-TOKEN"),
                ("secret_token", "hook-secret"),
            ],
        )
        .await;
    assert!(
        location(&connected).contains("aviso="),
        "{}",
        location(&connected)
    );
    let page = browser.page("/dashboard/bots").await;
    assert!(page.contains("telegram"));
    assert!(!page.contains("SECRET-TOKEN") && !page.contains("hook-secret"));

    // Keys: a new one is shown once, after a redirect (a reload creates none);
    // revoking asks first, marks the key in use, and works at once.
    let keys_before = app.count("SELECT count(*) FROM api_keys").await;
    let created = browser
        .post("/dashboard/keys", &[("csrf", &csrf), ("label", "tablet")])
        .await;
    assert_eq!(created.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&created), "/dashboard/keys", "no key in the URL");
    let html = browser.page("/dashboard/keys").await;
    let at = html.find("id=\"key-value\">").unwrap() + 15;
    let key = html[at..at + 52].to_owned();
    let key = key.as_str();
    assert!(key.starts_with("tdr_"), "{key}");
    let reloaded = browser.page("/dashboard/keys").await;
    assert!(!reloaded.contains(key), "shown once");
    assert!(reloaded.contains("Con esta entraste"), "{reloaded}");
    assert_eq!(
        app.count("SELECT count(*) FROM api_keys").await,
        keys_before + 1,
        "reloading created nothing"
    );
    let (status, _) = app.api(reqwest::Method::GET, "/keys", key, None).await;
    assert_eq!(status, StatusCode::OK);
    let id: uuid::Uuid = sqlx::query_scalar("SELECT id FROM api_keys WHERE label = 'tablet'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let asked = browser.page(&format!("/dashboard/keys/{id}/revocar")).await;
    assert!(
        asked.contains("dejará de funcionar") && asked.contains("Sí, revocar"),
        "{asked}"
    );
    assert!(
        !asked.contains("Es la llave con la que entraste"),
        "not the one in use"
    );
    let revoked = browser
        .post(&format!("/dashboard/keys/{id}/revocar"), &[("csrf", &csrf)])
        .await;
    assert!(location(&revoked).contains("aviso="));
    let (status, _) = app.api(reqwest::Method::GET, "/keys", key, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn another_merchants_session_reaches_nothing_on_any_console_route(pool: sqlx::PgPool) {
    let (app, _fake) = channel_app(pool, |_| {}).await;
    for (n, text) in ["hola", "quiero 2 maracuyá", "cuánto es", "sí"]
        .iter()
        .enumerate()
    {
        post_telegram(&app, &tg_text(n as u64 + 1, text), Some(TG_SECRET)).await;
        settle(&app).await;
    }
    let mut photo = fixture("telegram/photo.json");
    photo["update_id"] = json!(9);
    post_telegram(&app, &photo, Some(TG_SECRET)).await;
    settle(&app).await;
    let conversation = app.conversation_id("555000111").await.to_string();
    let order: uuid::Uuid = sqlx::query_scalar("SELECT id FROM orders")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let proof: i64 = sqlx::query_scalar("SELECT id FROM payment_proofs")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let product: i64 = sqlx::query_scalar("SELECT min(id) FROM products")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let (_, key) = app
        .post_api("/keys", Some(json!({"label": "segunda"})))
        .await;
    let key = key["id"].as_str().unwrap().to_owned();
    let (_, entry) = app
        .post_api(
            "/bots/demo-shop/knowledge",
            Some(json!({"title": "Horario", "body": "Abrimos a las 8."})),
        )
        .await;
    let entry = entry["id"].to_string();

    let other = tendero::merchants::create(&app.pool, "intrusa", "Intrusa")
        .await
        .unwrap();
    let their_key = tendero::api_keys::create(&app.pool, other).await.unwrap();
    let intruder = Browser::sign_in(&app, &their_key).await;
    let csrf = intruder.csrf().await;
    let before = crate::openapi::snapshot(&app).await;
    let mut called = 0;
    for (method, template) in tendero::dashboard::ROUTES {
        // Public or session-ending routes, and the live feed (its own test).
        if matches!(
            *template,
            "/dashboard/login" | "/dashboard/logout" | "/dashboard/events"
        ) || template.ends_with(".css")
            || template.ends_with(".js")
        {
            continue;
        }
        let id = if template.starts_with("/dashboard/conversations") {
            conversation.clone()
        } else if template.starts_with("/dashboard/orders") {
            order.to_string()
        } else if template.starts_with("/dashboard/keys") {
            key.clone()
        } else if template.starts_with("/dashboard/conocimiento") {
            entry.clone()
        } else {
            product.to_string()
        };
        let path = template
            .replace("{id}", &id)
            .replace("{slug}", "demo-shop")
            .replace("{action}", "responder")
            .replace("{decision}", "aprobar")
            .replace("{proof}", &proof.to_string())
            .replace("{channel}", "telegram");
        let form = [
            ("csrf", csrf.as_str()),
            ("text", "hola"),
            ("reason", "x"),
            ("name", "Robado"),
            ("price", "1"),
            ("sku", "robado"),
            ("label", "x"),
            ("token", "1:x"),
            ("secret_token", "s"),
            ("session_minutes", "1"),
            ("payment_hours", "1"),
            ("accion", "vincular"),
            ("title", "Robado"),
            ("body", "robado"),
        ];
        let response = if *method == "get" {
            intruder.get(&path).await
        } else if path.ends_with("/importar") {
            let form = reqwest::multipart::Form::new()
                .text("csrf", csrf.clone())
                .part(
                    "file",
                    reqwest::multipart::Part::bytes(
                        b"sku,name,price\nmaracuya,Robado,1\n".to_vec(),
                    ),
                );
            intruder
                .http
                .post(format!("{}{path}", app.base))
                .header(COOKIE, &intruder.cookie)
                .multipart(form)
                .send()
                .await
                .unwrap()
        } else {
            intruder.post(&path, &form).await
        };
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        if template.contains('{') {
            assert!(
                status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
                "{method} {path}: {status}"
            );
        } else {
            for secret in [conversation.as_str(), "555000111", "Maracuya", "demo-shop"] {
                assert!(!text.contains(secret), "{method} {path} shows {secret}");
            }
        }
        called += 1;
    }
    assert!(called >= 15, "{called} routes called");
    assert_eq!(
        crate::openapi::snapshot(&app).await,
        before,
        "nothing of the merchant's changed"
    );
}

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn the_knowledge_page_adds_edits_deletes_and_tries_a_question(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    sqlx::query("DELETE FROM knowledge_entries")
        .execute(&app.pool)
        .await
        .unwrap();
    let browser = Browser::sign_in(&app, &app.key).await;
    let csrf = browser.csrf().await;
    let page = browser.page("/dashboard/conocimiento").await;
    assert!(page.contains("Aún no hay entradas"), "{page}");

    let added = browser
        .post(
            "/dashboard/conocimiento/demo-shop/entradas",
            &[
                ("csrf", &csrf),
                ("title", "Envíos"),
                ("body", "Hacemos envíos a Sopocachi por Bs 10."),
            ],
        )
        .await;
    assert!(location(&added).contains("aviso="), "{}", location(&added));
    let id: i64 = sqlx::query_scalar("SELECT id FROM knowledge_entries")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let refused = browser
        .post(
            "/dashboard/conocimiento/demo-shop/entradas",
            &[
                ("csrf", &csrf),
                ("title", ""),
                ("body", "Un texto largo que no se pierde."),
            ],
        )
        .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = refused.text().await.unwrap();
    assert!(
        html.contains("Un texto largo que no se pierde.") && html.contains("role=\"alert\""),
        "a refused entry comes back as typed: {html}"
    );
    let edited = browser
        .post(
            &format!("/dashboard/conocimiento/demo-shop/entradas/{id}"),
            &[
                ("csrf", &csrf),
                ("title", "Envíos"),
                ("body", "Hacemos envíos a Sopocachi por Bs 11."),
            ],
        )
        .await;
    assert!(location(&edited).contains("aviso="));

    // Trying a question shows the answer and the entry it came from.
    let tried = browser
        .page(
            "/dashboard/conocimiento?bot=demo-shop&pregunta=%C2%BFhacen+env%C3%ADos+a+Sopocachi%3F",
        )
        .await;
    assert!(
        tried.contains("Bs 11") && tried.contains("«Envíos»"),
        "{tried}"
    );
    let gray = browser
        .page("/dashboard/conocimiento?bot=demo-shop&pregunta=aceptan+bitcoin")
        .await;
    assert!(gray.contains("Sin dato"), "{gray}");

    // Without the form's token nothing is deleted; with it, the entry goes.
    let forged = browser
        .post(
            &format!("/dashboard/conocimiento/demo-shop/entradas/{id}/borrar"),
            &[("csrf", "forged")],
        )
        .await;
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let deleted = browser
        .post(
            &format!("/dashboard/conocimiento/demo-shop/entradas/{id}/borrar"),
            &[("csrf", &csrf)],
        )
        .await;
    assert!(location(&deleted).contains("aviso="));
    assert_eq!(app.count("SELECT count(*) FROM knowledge_entries").await, 0);
}

/// The visible words of a page: its text and the attributes a person reads
/// (placeholders, titles, labels for screen readers), without scripts or styles.
fn visible_words(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        out.push(' ');
        let Some(close) = rest[open..].find('>') else {
            break;
        };
        let tag = &rest[open..open + close + 1];
        for attribute in ["placeholder=\"", "title=\"", "aria-label=\""] {
            if let Some(at) = tag.find(attribute) {
                let value = &tag[at + attribute.len()..];
                out.push_str(&value[..value.find('"').unwrap_or(0)]);
                out.push(' ');
            }
        }
        rest = &rest[open + close + 1..];
        for skipped in ["script", "style"] {
            if tag.starts_with(&format!("<{skipped}")) {
                let end = format!("</{skipped}>");
                rest = rest.find(&end).map_or("", |at| &rest[at + end.len()..]);
            }
        }
    }
    out.push_str(rest);
    out
}

/// Words and names a shop owner should never read in the console.
const TECHNICAL: &[&str] = &[
    "route not found",
    "not found",
    " must ",
    " the ",
    "null",
    "undefined",
    "CART_OPEN",
    "AWAITING_PAYMENT",
    "HUMAN_TAKEOVER",
    "CHECKOUT",
    "BROWSING",
    "action_",
    "state_changed",
    "_secs",
    "_minor",
    "awaiting_payment",
    "proof_received",
    "Phone number",
    "Access token",
    "App secret",
    "Verify token",
    "backend",
    "Bearer",
    "US$ 0.0",
    "{\"",
];

#[sqlx::test(migrator = "tendero::db::MIGRATOR")]
async fn no_page_of_the_console_shows_english_or_the_backends_names(pool: sqlx::PgPool) {
    let app = spawn_app(pool).await;
    tendero::demo::load_shop(&app.pool, tendero::demo::DEMO_FINANCE)
        .await
        .unwrap();
    for text in ["quiero 2 maracuyá", "cuánto es", "sí", "cancelar"] {
        app.say("ana", text).await;
    }
    for text in ["quiero 1 brownie", "cuánto es", "sí", "ya pagué"] {
        app.say("ana", text).await;
    }
    app.say("beto", "quiero hablar con una persona").await;
    let browser = Browser::sign_in(&app, &app.key).await;
    let conversation = app.conversation_id("ana").await.to_string();
    let key: uuid::Uuid = sqlx::query_scalar("SELECT id FROM api_keys LIMIT 1")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let key = key.to_string();
    let mut checked = 0;
    for (method, template) in tendero::dashboard::ROUTES {
        let skipped = *method != "get"
            || template.contains("{proof}")
            || template.ends_with(".csv")
            || template.ends_with(".css")
            || template.ends_with(".js")
            || *template == "/dashboard/events";
        if skipped {
            continue;
        }
        let path = template
            .replace(
                "{id}",
                if template.contains("keys") {
                    &key
                } else {
                    &conversation
                },
            )
            .to_string();
        let html = if *template == "/dashboard/login" {
            app.client
                .get(format!("{}{path}", app.base))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        } else {
            browser.page(&path).await
        };
        let words = visible_words(&html)
            .replace("demo-shop", "")
            .replace("demo-finanzas", "");
        for token in TECHNICAL {
            assert!(!words.contains(token), "{path} shows «{token}»: {words}");
        }
        if path.ends_with(&conversation) {
            assert!(
                words.contains("Pedido #2") && words.contains("Responder al cliente"),
                "{words}"
            );
            assert!(
                words.contains("Pedidos anteriores de este cliente (1)") && words.contains("#1 ·"),
                "{words}"
            );
            // The summary's buttons, as the customer saw them.
            assert!(
                html.contains("aria-label=\"Botones que vio el cliente\""),
                "{html}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 11, "{checked} pages");
    let missing = browser.get("/dashboard/no-existe").await;
    let words = visible_words(&missing.text().await.unwrap());
    assert!(TECHNICAL.iter().all(|t| !words.contains(t)), "{words}");
}
