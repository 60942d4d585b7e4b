/* Circolo offline: the service worker, and results entered without network.

   A <form data-offline="what it records"> sent while the phone has no network is not lost:
   its fields (with the CSRF token and, where the form has one, its idempotency key) are kept
   on this phone (localStorage) and sent, in order, when the network returns. The badge
   (#offline-queue) says how many wait. What the server refuses on arrival (recorded by
   someone else meanwhile, out of turn, a rules error) is listed (#offline-refused) with the
   reason the server gave, and with what was entered, so that nothing is lost. A form that
   carries a one-time token (`once`, plumbing/once) gets a fresh one for each result kept, so that two
   results entered from the same page are two, and one sent twice is one. */
"use strict";
(function () {
  const QUEUE = "circolo.offline.queue";
  const REFUSED = "circolo.offline.refused";

  function read(name) {
    try { return JSON.parse(localStorage.getItem(name)) || []; } catch (error) { return []; }
  }
  function write(name, items) { localStorage.setItem(name, JSON.stringify(items)); }
  function freshKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return String(Date.now()) + "-" + String(Math.random()).slice(2);
  }

  function show() {
    const badge = document.getElementById("offline-queue");
    if (badge) {
      const waiting = read(QUEUE).length;
      badge.hidden = waiting === 0;
      badge.textContent = (waiting === 1 ? badge.dataset.one : badge.dataset.many || "").replace("%(n)s", String(waiting));
    }
    const refused = document.getElementById("offline-refused");
    if (!refused) return;
    const items = read(REFUSED);
    refused.hidden = items.length === 0;
    const list = refused.querySelector("ul");
    list.replaceChildren();
    items.forEach((item, index) => {
      const li = document.createElement("li");
      const what = document.createElement("strong");
      what.textContent = item.label;
      const when = document.createElement("span");
      when.className = "muted small";
      when.textContent = " · " + new Date(item.at).toLocaleString(document.documentElement.lang);
      const why = document.createElement("p");
      why.textContent = item.reason;
      const entered = document.createElement("a");
      entered.href = item.page;
      entered.textContent = refused.dataset.again;
      const drop = document.createElement("button");
      drop.type = "button";
      drop.className = "link small";
      drop.textContent = refused.dataset.dismiss;
      drop.addEventListener("click", () => {
        const left = read(REFUSED);
        left.splice(index, 1);
        write(REFUSED, left);
        show();
      });
      li.append(what, when, why, entered, document.createTextNode(" · "), drop);
      list.append(li);
    });
  }

  function keep(form) {
    const data = new FormData(form);
    if (data.has("once")) data.set("once", freshKey()); // plumbing/once: one token, one write
    const queue = read(QUEUE);
    queue.push({
      url: form.action || location.href,
      body: new URLSearchParams(data).toString(),
      label: form.dataset.offline,
      page: location.href,
      at: Date.now(),
    });
    write(QUEUE, queue);
    form.dispatchEvent(new CustomEvent("circolo:kept", { bubbles: true }));
    show();
  }

  // The reason a refused result was not recorded: the page's errors, as the server wrote them.
  function reasonOf(html, status) {
    const page = new DOMParser().parseFromString(html, "text/html");
    const errors = Array.from(page.querySelectorAll(".errorlist li, .message.error, .error-text, main p.error"))
      .map((node) => node.textContent.trim()).filter(Boolean);
    const fallback = document.getElementById("offline-refused");
    return errors.join(" ") || (fallback ? fallback.dataset.status.replace("%(status)s", String(status)) : String(status));
  }

  let sending = false;
  async function send() {
    if (sending || !navigator.onLine) return;
    sending = true;
    try {
      for (;;) {
        const queue = read(QUEUE);
        if (queue.length === 0) break;
        const item = queue[0];
        let response;
        try {
          response = await fetch(item.url, {
            method: "POST",
            body: item.body,
            credentials: "same-origin",
            redirect: "manual",
            headers: { "Content-Type": "application/x-www-form-urlencoded" },
          });
        } catch (error) {
          break; // still no network: try again when it returns
        }
        if (response.status >= 500) break; // the server's trouble, not the result's: later
        const left = read(QUEUE).slice(1);
        write(QUEUE, left);
        // Recorded: the form's answer is a redirect (opaque here). Anything else is a refusal.
        if (response.type !== "opaqueredirect" && !(response.status >= 300 && response.status < 400)) {
          const refused = read(REFUSED);
          refused.push({ label: item.label, page: item.page, at: item.at, reason: reasonOf(await response.text(), response.status) });
          write(REFUSED, refused);
        }
        show();
      }
    } finally {
      sending = false;
      show();
    }
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.matches("[data-logout]") && navigator.serviceWorker && navigator.serviceWorker.controller) {
      navigator.serviceWorker.controller.postMessage("forget");
      return;
    }
    if (!form.matches("[data-offline]") || navigator.onLine) return;
    event.preventDefault();
    keep(form);
  });

  window.addEventListener("online", send);
  window.addEventListener("storage", show);
  document.addEventListener("DOMContentLoaded", () => {
    show();
    send();
  });

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => null);
  }
})();
