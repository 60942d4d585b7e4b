/* "Notify me on this phone" (the profile page): asks the browser's permission, subscribes
   through the service worker with the site's VAPID key, and sends the subscription to the
   site. The worker (/sw.js) shows what is pushed and opens its page when tapped. */
"use strict";
(function () {
  const button = document.getElementById("push-subscribe");
  const status = document.getElementById("push-status");
  if (!button || !("serviceWorker" in navigator) || !("PushManager" in window)) return;
  button.hidden = false;

  function key(base64url) {
    const padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  button.addEventListener("click", async () => {
    const allowed = await Notification.requestPermission();
    if (allowed !== "granted") {
      status.textContent = button.dataset.refused;
      return;
    }
    const registration = await navigator.serviceWorker.ready;
    const subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: key(button.dataset.key),
    });
    const response = await fetch(button.dataset.url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": button.dataset.csrf },
      body: JSON.stringify(subscription.toJSON()),
    });
    const answer = await response.json().catch(() => ({}));
    status.textContent = response.ok ? button.dataset.done : Object.values(answer).flat().join(" ");
    if (response.ok) window.location.reload();
  });
})();
