/* The tonight screen, live: an EventSource on the page's event stream; each "changed"
   event fetches the panes again (?panes=1) and puts them in place. Without EventSource, or
   while the stream is down, the panes are fetched every minute. On the big screen, panes
   that do not fit are shown in turns. */
"use strict";
(function () {
  const root = document.getElementById("tonight");
  if (!root) return;
  const live = document.getElementById("tonight-live");
  let fetching = false;
  let again = false;

  async function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    try {
      const response = await fetch(root.dataset.panes, { credentials: "same-origin" });
      if (response.ok) {
        const html = await response.text();
        const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("tonight-panes");
        const old = document.getElementById("tonight-panes");
        if (fresh && old) {
          old.replaceWith(document.adoptNode(fresh));
          rotate();
        }
      }
    } catch (error) {
      /* the network is gone: the next event or poll tries again */
    } finally {
      fetching = false;
      if (again) { again = false; refresh(); }
    }
  }

  let poll = null;
  function polling(on) {
    if (on && !poll) {
      poll = setInterval(refresh, 60000);
      live.textContent = live.dataset.polling;
    } else if (!on && poll) {
      clearInterval(poll);
      poll = null;
    }
    if (!on) live.textContent = live.dataset.live;
  }

  if ("EventSource" in window) {
    const source = new EventSource(root.dataset.events);
    source.addEventListener("open", () => polling(false));
    source.addEventListener("changed", () => refresh());
    source.addEventListener("error", () => polling(true));
  } else {
    polling(true);
  }

  // The big screen: when the panes overflow it, one pane at a time, every 12 seconds.
  let turn = 0;
  let timer = null;
  function rotate() {
    if (!root.classList.contains("on-screen")) return;
    const grid = root.querySelector(".tonight-grid");
    if (!grid) return;
    const panes = Array.from(grid.querySelectorAll(".tonight-pane"));
    panes.forEach((pane) => { pane.hidden = false; });
    grid.classList.remove("rotating");
    const overflowing = panes.some((pane) => pane.scrollHeight > pane.clientHeight + 2);
    if (timer) { clearInterval(timer); timer = null; }
    if (!overflowing || panes.length < 2) return;
    grid.classList.add("rotating");
    const show = () => {
      panes.forEach((pane, index) => { pane.hidden = index !== turn % panes.length; });
      turn += 1;
    };
    show();
    timer = setInterval(show, 12000);
  }
  rotate();
})();
