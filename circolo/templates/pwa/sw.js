/* Circolo's service worker (served as /sw.js by circolo/pwa.py). Pages: from the network,
   a copy kept of each one opened (the last 80), the copy shown when the network is gone.
   Static files: from the copy, refreshed in the background. Nothing else is touched: no
   POST, no API, no admin, no login pages. */
"use strict";
const CACHE = "circolo-__VERSION__";
const SHELL = {{ shell|safe }};
const OFFLINE = {{ offline|safe }};
const STATIC = {{ static_prefix|safe }};
const NEVER = ["/api/", "/admin/", "/accounts/", "/i18n/", "/health/", "/sw.js", "/manifest.webmanifest"];
const PAGES_KEPT = 80;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll([...SHELL, OFFLINE])).then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(
        keys.filter((key) => key.startsWith("circolo-") && key !== CACHE).map((key) => caches.delete(key))
      ))
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (NEVER.some((prefix) => url.pathname.startsWith(prefix))) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request));
  } else if (url.pathname.startsWith(STATIC)) {
    event.respondWith(staticFile(request, event));
  }
});

async function page(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") {
      await cache.put(request, response.clone());
      await trim(cache);
    }
    return response;
  } catch (error) {
    return (await cache.match(request, { ignoreVary: true })) || (await cache.match(OFFLINE)) || Response.error();
  }
}

async function staticFile(request, event) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  const fresh = fetch(request).then((response) => {
    if (response.ok) cache.put(request, response.clone());
    return response;
  });
  if (kept) {
    event.waitUntil(fresh.catch(() => null));
    return kept;
  }
  return fresh;
}

async function trim(cache) {
  const pages = (await cache.keys()).filter((request) => !request.url.includes(STATIC) && !request.url.endsWith(OFFLINE));
  for (const request of pages.slice(0, Math.max(0, pages.length - PAGES_KEPT))) {
    await cache.delete(request);
  }
}

// "forget" (on logging out): the kept pages go, a shared phone shows nobody's club night.
self.addEventListener("message", (event) => {
  if (event.data === "forget") {
    event.waitUntil(
      caches.open(CACHE).then((cache) => cache.keys().then((requests) => Promise.all(
        requests.filter((request) => !request.url.includes(STATIC)).map((request) => cache.delete(request))
      )))
    );
  }
});

// What waits for you, pushed (clubs/inbox/tasks.py): shown, and opened when tapped.
self.addEventListener("push", (event) => {
  let message = {};
  try { message = event.data ? event.data.json() : {}; } catch (error) { message = { body: event.data && event.data.text() }; }
  event.waitUntil(
    self.registration.showNotification(message.title || "Circolo", {
      body: message.body || "",
      tag: message.tag,
      data: { url: message.url || "/inbox/" },
      icon: SHELL.find((url) => url.endsWith(".png")),
    })
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data.url, self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window" }).then((windows) => {
      const open = windows.find((w) => w.url === url);
      return open ? open.focus() : self.clients.openWindow(url);
    })
  );
});
