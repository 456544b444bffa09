//! The console's page frame: Spanish, one column on a phone, a small stylesheet
//! inline (no CDN), visible focus, contrast above WCAG AA.

use maud::{DOCTYPE, Markup, html};

/// The stylesheet, served at `/dashboard/app.css` (the policy allows no inline style).
pub const STYLE: &str = r#"
:root { --ink: #111827; --muted: #4b5563; --line: #d1d5db; --bg: #f9fafb; --brand: #1d4ed8;
        --warn: #92400e; --warn-bg: #fef3c7; --bad: #991b1b; --bad-bg: #fee2e2; --ok: #065f46; --ok-bg: #d1fae5; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .6rem 1rem; background: #fff; border-bottom: 1px solid var(--line); }
header.top strong { margin-right: auto; }
nav { display: flex; flex-wrap: wrap; gap: .3rem .8rem; }
nav a { color: var(--brand); }
main { overflow-wrap: anywhere; }
main { max-width: 56rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.35rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 .5rem; }
a { color: var(--brand); }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
button, .button { font: inherit; border: 0; border-radius: .4rem; padding: .55rem .9rem; background: var(--brand); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--brand); border: 1px solid var(--brand); }
button.danger { background: var(--bad); }
input, select, textarea { font: inherit; padding: .45rem; border: 1px solid #6b7280; border-radius: .35rem; background: #fff; color: var(--ink); max-width: 100%; }
textarea { width: 100%; min-height: 4.5rem; }
label { display: block; font-weight: 600; margin: .4rem 0 .2rem; }
label.inline { display: inline-flex; gap: .35rem; align-items: center; font-weight: 400; }
form.row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; }
span.last { color: var(--muted); display: inline-block; max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.note .text { white-space: pre-wrap; }
.msg .text { white-space: pre-wrap; overflow-wrap: anywhere; }
ol.history { padding-left: 1.2rem; }
ol.history li { margin: .25rem 0; }
.card { background: #fff; border: 1px solid var(--line); border-radius: .5rem; padding: .8rem 1rem; margin: .6rem 0; }
ul.list { list-style: none; padding: 0; margin: 0; }
ul.list li a { display: block; text-decoration: none; color: var(--ink); }
.badge { display: inline-block; font-size: .8rem; font-weight: 600; border-radius: 1rem; padding: .1rem .55rem; margin: .1rem .2rem .1rem 0; }
.badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
.badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.info { background: #dbeafe; color: #1e3a8a; }
.muted { color: var(--muted); font-size: .9rem; }
.flash { padding: .6rem .9rem; border-radius: .4rem; margin-bottom: 1rem; }
.flash.error { background: var(--bad-bg); color: var(--bad); }
.flash.done { background: var(--ok-bg); color: var(--ok); }
.msg { margin: .35rem 0; padding: .45rem .7rem; border-radius: .5rem; max-width: 85%; }
.msg.in { background: #fff; border: 1px solid var(--line); }
.msg.out { background: #dbeafe; margin-left: auto; }
.transcript { display: flex; flex-direction: column; }
table { border-collapse: collapse; width: 100%; display: block; overflow-x: auto; }
main { overflow-wrap: anywhere; }
div.row { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0; }
th, td { text-align: left; padding: .35rem; border-bottom: 1px solid var(--line); vertical-align: top; }
img.proof { max-width: 100%; max-height: 28rem; border: 1px solid var(--line); border-radius: .4rem; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
"#;

/// A whole page; `csrf` is given when signed in (the sign-out form needs it).
pub fn page(title: &str, csrf: Option<&str>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="es" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Tendero" }
                link rel="stylesheet" href="/dashboard/app.css";
                script src="/dashboard/app.js" defer {}
            }
            body {
                header.top {
                    strong { "Tendero" }
                    @if let Some(csrf) = csrf {
                        nav aria-label="Secciones" {
                            a href="/dashboard" { "Bandeja" }
                            a href="/dashboard/catalog" { "Catálogo" }
                            a href="/dashboard/conocimiento" { "Conocimiento" }
                            a href="/dashboard/bots" { "Bots" }
                            a href="/dashboard/keys" { "Llaves" }
                        }
                        form method="post" action="/dashboard/logout" {
                            input type="hidden" name="csrf" value=(csrf);
                            button.secondary type="submit" { "Salir" }
                        }
                    }
                }
                main id="main" { (body) }
            }
        }
    }
}

/// A hidden CSRF field for a form.
pub fn csrf_field(csrf: &str) -> Markup {
    html! { input type="hidden" name="csrf" value=(csrf); }
}

/// A message after an action, from the `aviso` / `error` query parameters.
/// A banner the server asked a page to show after a redirect (`aviso` when
/// something was done, `error` when it was not), signed by the server: text in
/// a crafted link is never shown as the console's own words.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Flash {
    #[serde(default)]
    aviso: Option<String>,
    #[serde(default)]
    error: Option<String>,
    /// `<unix seconds>.<hex tag>` over the kind, the time and the text.
    #[serde(default)]
    firma: Option<String>,
}

/// How long a signed banner is shown after its redirect.
const FLASH_SECS: i64 = 600;
const FLASH_PURPOSE: &str = "console-flash";

fn flash_message(kind: &str, at: i64, text: &str) -> Vec<u8> {
    format!("{kind}\0{at}\0{text}").into_bytes()
}

/// The query string of a signed banner.
pub fn signed_flash(kind: &str, text: &str) -> String {
    let at = chrono::Utc::now().timestamp();
    let tag = crate::secret::keyring()
        .map(|keys| hex::encode(keys.sign(FLASH_PURPOSE, &flash_message(kind, at, text))))
        .unwrap_or_default();
    form_urlencoded::Serializer::new(String::new())
        .append_pair(kind, text)
        .append_pair("firma", &format!("{at}.{tag}"))
        .finish()
}

impl Flash {
    /// The banner's text, when the server signed it in the last few minutes.
    fn verified(&self, kind: &str, text: Option<&String>) -> Option<String> {
        let text = text?;
        let (at, tag) = self.firma.as_deref()?.split_once('.')?;
        let at: i64 = at.parse().ok()?;
        let age = chrono::Utc::now().timestamp() - at;
        let tag = hex::decode(tag).ok()?;
        let keys = crate::secret::keyring().ok()?;
        ((0..=FLASH_SECS).contains(&age)
            && keys.verify(FLASH_PURPOSE, &flash_message(kind, at, text), &tag))
        .then(|| text.clone())
    }
}

/// The server's banner, if the link carries one it signed.
pub fn flash(flash: &Flash) -> Markup {
    let error = flash.verified("error", flash.error.as_ref());
    let done = flash.verified("aviso", flash.aviso.as_ref());
    html! {
        @if let Some(error) = error { p.flash.error role="alert" { (error) } }
        @if let Some(done) = done { p.flash.done role="status" { (done) } }
    }
}

/// Live updates: each `data-live` part of a page refreshes from its
/// `data-fragment` (a page with no fragment reloads) when the server says
/// something changed; a part the merchant is typing in is left alone and a note
/// offers the refresh instead, so nothing typed is lost.
pub const SCRIPT: &str = r#"
(function () {
  // Canned replies: a tap inserts one; «/atajo» followed by a space becomes its text.
  var box = document.getElementById('text');
  var canned = Array.prototype.slice.call(document.querySelectorAll('[data-canned]'));
  if (box && canned.length) {
    canned.forEach(function (button) {
      button.addEventListener('click', function () {
        box.value = (box.value ? box.value + ' ' : '') + button.getAttribute('data-canned');
        box.focus();
      });
    });
    box.addEventListener('input', function () {
      var match = /(^|\s)\/([a-z0-9-]+)\s$/.exec(box.value);
      if (!match) return;
      canned.forEach(function (button) {
        if (button.getAttribute('data-shortcut') === match[2]) {
          box.value = box.value.slice(0, match.index + match[1].length) + button.getAttribute('data-canned');
        }
      });
    });
  }
})();
(function () {
  var roots = Array.prototype.slice.call(document.querySelectorAll('[data-live]'));
  if (!roots.length || !window.EventSource) return;
  var watch = roots[0].getAttribute('data-conversation');
  var pending = null;
  function typingIn(root) {
    var el = document.activeElement;
    return el && (!root || root.contains(el)) &&
      (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT') && el.value;
  }
  function news() {
    var note = document.getElementById('news');
    if (note) { note.hidden = false; }
  }
  function refresh() {
    pending = null;
    roots.forEach(function (root) {
      var fragment = root.getAttribute('data-fragment');
      if (!fragment) {
        if (typingIn(null)) { news(); } else { window.location.reload(); }
        return;
      }
      if (typingIn(root)) { news(); return; }
      var query = watch ? '' : window.location.search;
      fetch(fragment + query, {credentials: 'same-origin'})
        .then(function (r) {
          // An ended session: the whole sign-in page, not a piece of it here.
          if (r.status === 401 || r.status === 403 || (r.redirected && r.url.indexOf('/dashboard/login') !== -1)) {
            window.location.assign('/dashboard/login');
            return null;
          }
          return r.ok ? r.text() : null;
        })
        .then(function (html) {
          if (html !== null && !typingIn(root)) {
            root.innerHTML = html;
            announce();
            // The newest message stays in view, just above the reply box.
            if (root.classList.contains('transcript') && root.lastElementChild) {
              root.lastElementChild.scrollIntoView({block: 'nearest'});
            }
          }
        });
    });
  }
  // Chats waiting for a person or a proof: in the tab's title, with a sound
  // and a notification (if the merchant allowed it) when one more arrives.
  var baseTitle = document.title;
  var waiting = null;
  function waitingNow() {
    var list = document.querySelector('[data-waiting]');
    return list ? parseInt(list.getAttribute('data-waiting'), 10) || 0 : null;
  }
  function announce() {
    var now = waitingNow();
    if (now === null) return;
    document.title = (now > 0 ? '(' + now + ') ' : '') + baseTitle;
    if (waiting !== null && now > waiting) {
      try {
        var audio = new (window.AudioContext || window.webkitAudioContext)();
        var tone = audio.createOscillator();
        tone.frequency.value = 880;
        tone.connect(audio.destination);
        tone.start();
        tone.stop(audio.currentTime + 0.2);
      } catch (e) {}
      if (window.Notification && Notification.permission === 'granted') {
        new Notification('Tendero', {body: 'Un cliente te necesita: pidió una persona o envió un comprobante.'});
      }
    }
    waiting = now;
  }
  var ask = document.getElementById('notify');
  if (ask && window.Notification && Notification.permission === 'default') {
    ask.hidden = false;
    ask.addEventListener('click', function () {
      Notification.requestPermission().then(function () { ask.hidden = true; });
    });
  }
  announce();
  var transcript = document.querySelector('.transcript');
  if (transcript && transcript.lastElementChild) {
    transcript.lastElementChild.scrollIntoView({block: 'nearest'});
  }
  var source = new EventSource('/dashboard/events');
  source.addEventListener('changed', function (event) {
    var data = {};
    try { data = JSON.parse(event.data); } catch (e) {}
    if (watch && data.conversation_id !== watch) return;
    if (!pending) pending = setTimeout(refresh, 300);
  });
})();
"#;
