/* Tendero web chat: paste
 *   <script src="https://YOUR-TENDERO/webchat/BOT/widget.js" defer></script>
 * on a page of an origin the bot allows (webchat_origins). A bubble opens the
 * chat; the session token stays in this browser (localStorage), so a reload or
 * another page of the site continues the same conversation. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script) return;
  // The bot: `data-bot`, or the path the script came from (/webchat/BOT/widget.js).
  var bot = script.getAttribute("data-bot") ||
    decodeURIComponent(new URL(script.src).pathname.split("/")[2] || "");
  var base = new URL(script.src).origin;
  var title = script.getAttribute("data-title") || "Chatea con nosotros";
  var key = "tendero:" + base + ":" + bot;
  var store = {
    get: function () {
      try { return JSON.parse(localStorage.getItem(key)) || {}; } catch (e) { return {}; }
    },
    set: function (v) { try { localStorage.setItem(key, JSON.stringify(v)); } catch (e) {} }
  };
  var state = store.get();
  state.log = state.log || [];
  state.last = state.last || 0;

  var css = "#tendero-bubble{position:fixed;right:16px;bottom:16px;z-index:2147483000;border:0;border-radius:28px;" +
    "padding:14px 18px;background:#14532d;color:#fff;font:600 15px system-ui,sans-serif;box-shadow:0 4px 14px rgba(0,0,0,.25);cursor:pointer}" +
    "#tendero-panel{position:fixed;right:16px;bottom:80px;z-index:2147483000;width:360px;max-width:calc(100vw - 32px);height:520px;" +
    "max-height:calc(100vh - 112px);display:none;flex-direction:column;background:#fff;color:#111;border-radius:12px;" +
    "box-shadow:0 8px 28px rgba(0,0,0,.3);font:15px/1.4 system-ui,sans-serif;overflow:hidden}" +
    "#tendero-panel.open{display:flex}" +
    "#tendero-panel header{background:#14532d;color:#fff;padding:12px 14px;font-weight:600;display:flex;justify-content:space-between}" +
    "#tendero-panel header button{background:none;border:0;color:#fff;font-size:20px;cursor:pointer}" +
    "#tendero-log{flex:1;overflow-y:auto;padding:10px;display:flex;flex-direction:column;gap:6px;background:#f6f7f6}" +
    ".tendero-msg{max-width:85%;padding:8px 10px;border-radius:10px;white-space:pre-wrap;word-wrap:break-word}" +
    ".tendero-them{align-self:flex-start;background:#fff;border:1px solid #d4d4d4}" +
    ".tendero-me{align-self:flex-end;background:#dcfce7}" +
    ".tendero-choices{display:flex;flex-wrap:wrap;gap:6px;align-self:flex-start}" +
    ".tendero-choices button{border:1px solid #14532d;background:#fff;color:#14532d;border-radius:16px;padding:6px 10px;cursor:pointer;font:inherit}" +
    "#tendero-typing{padding:0 12px 6px;color:#444;font-style:italic;min-height:1.4em;background:#f6f7f6}" +
    "#tendero-name-row{display:flex;gap:6px;align-items:center;padding:6px 10px;border-bottom:1px solid #ddd;font-size:13px;color:#333}" +
    "#tendero-name-row input{flex:1;border:1px solid #bbb;border-radius:6px;padding:4px 6px;font:inherit}" +
    "#tendero-form{display:flex;border-top:1px solid #ddd}" +
    "#tendero-form input{flex:1;border:0;padding:12px;font:inherit}" +
    "#tendero-form button{border:0;background:#14532d;color:#fff;padding:0 16px;font:inherit;cursor:pointer}" +
    "#tendero-form #tendero-attach{background:#fff;color:#14532d;padding:0 12px;display:flex;align-items:center}" +
    ".tendero-msg img{display:block;max-width:100%;max-height:220px;border-radius:6px;margin-bottom:4px}" +
    "@media (max-width:480px){#tendero-panel{right:0;bottom:0;width:100vw;max-width:100vw;height:100vh;max-height:100vh;border-radius:0}}";
  var style = document.createElement("style");
  style.textContent = css;
  document.head.appendChild(style);

  var bubble = document.createElement("button");
  bubble.id = "tendero-bubble";
  bubble.type = "button";
  bubble.textContent = title;
  var panel = document.createElement("section");
  panel.id = "tendero-panel";
  panel.setAttribute("aria-label", title);
  panel.innerHTML = '<header><span></span><button type="button" aria-label="Cerrar">×</button></header>' +
    '<div id="tendero-name-row"><label for="tendero-name">Tu nombre (opcional)</label>' +
    '<input id="tendero-name" maxlength="80" autocomplete="name"></div>' +
    '<div id="tendero-log" aria-live="polite"></div><div id="tendero-typing"></div>' +
    '<form id="tendero-form"><label for="tendero-text" style="position:absolute;left:-9999px">Tu mensaje</label>' +
    '<button type="button" id="tendero-attach" aria-label="Enviar una foto o PDF (comprobante de pago)" title="Enviar una foto o PDF"><svg width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" aria-hidden="true"><path d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9"/></svg></button>' +
    '<input id="tendero-file" type="file" accept="image/jpeg,image/png,image/webp,application/pdf" hidden>' +
    '<input id="tendero-text" autocomplete="off" maxlength="4096" placeholder="Escribe tu mensaje…">' +
    '<button type="submit">Enviar</button></form>';
  panel.querySelector("header span").textContent = title;
  document.body.appendChild(panel);
  document.body.appendChild(bubble);
  var log = panel.querySelector("#tendero-log");
  var typing = panel.querySelector("#tendero-typing");
  var input = panel.querySelector("#tendero-text");
  var nameInput = panel.querySelector("#tendero-name");
  nameInput.value = state.name || "";
  nameInput.onchange = function () { state.name = nameInput.value.trim(); store.set(state); };

  function show(who, text, choices, picture, file) {
    var item = document.createElement("div");
    item.className = "tendero-msg " + (who === "me" ? "tendero-me" : "tendero-them");
    if (picture) {
      var img = document.createElement("img");
      img.src = picture;
      img.alt = text;
      item.appendChild(img);
    }
    // A chart the bot drew is shown; its figures are in the text beside it.
    if (file && file.url && /^image\//.test(file.content_type || "")) {
      var chart = document.createElement("img");
      chart.src = base + file.url;
      chart.alt = text;
      chart.className = "tendero-chart";
      chart.style.maxWidth = "100%";
      chart.style.display = "block";
      chart.style.marginBottom = "6px";
      item.appendChild(chart);
    }
    item.appendChild(document.createTextNode(text));
    if (file && file.url) {
      var link = document.createElement("a");
      link.href = base + file.url;
      link.textContent = "Descargar " + file.filename;
      link.setAttribute("download", file.filename);
      link.style.display = "block";
      link.style.marginTop = "6px";
      item.appendChild(link);
    }
    log.appendChild(item);
    var old = log.querySelector(".tendero-choices");
    if (old) old.remove();
    if (choices && choices.length) {
      var row = document.createElement("div");
      row.className = "tendero-choices";
      choices.forEach(function (choice) {
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = choice;
        b.onclick = function () { send(choice); };
        row.appendChild(b);
      });
      log.appendChild(row);
    }
    log.scrollTop = log.scrollHeight;
  }
  function remember(who, text, choices, id, file) {
    state.log.push({ who: who, text: text, choices: choices || [], file: file || null });
    if (state.log.length > 200) state.log = state.log.slice(-200);
    if (id) state.last = id;
    store.set(state);
  }
  state.log.forEach(function (m, i) {
    show(m.who, m.text, i === state.log.length - 1 ? m.choices : null, null, m.file);
  });

  function session() {
    if (state.token) return Promise.resolve(state.token);
    return fetch(base + "/webchat/" + encodeURIComponent(bot) + "/sessions", { method: "POST" })
      .then(function (r) { if (!r.ok) throw new Error("session " + r.status); return r.json(); })
      .then(function (body) { state.token = body.token; store.set(state); return body.token; });
  }
  var events = null;
  function listen(token) {
    if (events) return;
    events = new EventSource(base + "/webchat/" + encodeURIComponent(bot) + "/events?token=" +
      encodeURIComponent(token) + "&after=" + state.last);
    events.onmessage = function (e) {
      var m = JSON.parse(e.data);
      if (m.id <= state.last) return;
      typing.textContent = "";
      show("them", m.text, m.choices, null, m.file);
      remember("them", m.text, m.choices, m.id, m.file);
    };
    events.addEventListener("typing", function () { typing.textContent = "Escribiendo…"; });
    events.onerror = function () {
      // A token the server no longer knows: start a new session.
      if (events.readyState === EventSource.CLOSED) {
        events = null;
        state = { log: state.log, last: 0, name: state.name };
        store.set(state);
      }
    };
  }
  function newId() { return String(Date.now()) + Math.random().toString(16).slice(2); }
  // A payment proof: the file goes as it is (its type in Content-Type); Tendero
  // keeps it and takes it like a photo on Telegram. Retries reuse the client id.
  var MAX_FILE = 5 * 1024 * 1024;
  function sendFile(file) {
    if (!file) return;
    if (["image/jpeg", "image/png", "image/webp", "application/pdf"].indexOf(file.type) < 0) {
      show("them", "Solo podemos recibir fotos (JPG, PNG o WebP) o un PDF.");
      return;
    }
    if (file.size > MAX_FILE) {
      show("them", "El archivo pesa más de 5 MB; envía una foto más liviana.");
      return;
    }
    var label = "Archivo enviado: " + file.name;
    show("me", label, null, file.type.indexOf("image/") === 0 ? URL.createObjectURL(file) : null);
    remember("me", label);
    var id = newId();
    session().then(function (token) {
      listen(token);
      var url = base + "/webchat/" + encodeURIComponent(bot) + "/uploads?client_id=" + id +
        (state.name ? "&name=" + encodeURIComponent(state.name) : "");
      var attempt = function (left) {
        return fetch(url, {
          method: "POST",
          headers: { "content-type": file.type, "authorization": "Bearer " + token },
          body: file
        }).then(function (r) {
          if (r.status === 415) throw new Error("type");
          if (r.status === 413) throw new Error("size");
          if (!r.ok && r.status >= 500 && left > 0) return attempt(left - 1);
          if (!r.ok) throw new Error("upload " + r.status);
        }, function (e) { if (left > 0) return attempt(left - 1); throw e; });
      };
      return attempt(2);
    }).catch(function (e) {
      show("them", e.message === "type" ? "Solo podemos recibir fotos (JPG, PNG o WebP) o un PDF." :
        e.message === "size" ? "El archivo pesa más de 5 MB; envía una foto más liviana." :
        "No pudimos enviar tu archivo. Inténtalo de nuevo.");
    });
  }
  function send(text) {
    text = text.trim();
    if (!text) return;
    show("me", text);
    remember("me", text);
    session().then(function (token) {
      listen(token);
      return fetch(base + "/webchat/" + encodeURIComponent(bot) + "/messages", {
        method: "POST",
        headers: { "content-type": "application/json", "authorization": "Bearer " + token },
        body: JSON.stringify({ text: text, name: state.name || undefined,
                               client_id: newId() })
      });
    }).catch(function () { show("them", "No pudimos enviar tu mensaje. Inténtalo de nuevo."); });
  }
  bubble.onclick = function () {
    panel.classList.toggle("open");
    if (panel.classList.contains("open")) {
      input.focus();
      if (state.token) listen(state.token);
    }
  };
  panel.querySelector("header button").onclick = function () { panel.classList.remove("open"); };
  var fileInput = panel.querySelector("#tendero-file");
  panel.querySelector("#tendero-attach").onclick = function () { fileInput.click(); };
  fileInput.onchange = function () {
    sendFile(fileInput.files[0]);
    fileInput.value = "";
  };
  panel.querySelector("#tendero-form").onsubmit = function (e) {
    e.preventDefault();
    send(input.value);
    input.value = "";
  };
  if (state.token) listen(state.token);
})();
