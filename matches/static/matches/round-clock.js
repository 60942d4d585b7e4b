// Round clocks: each [data-ends-at] counts down to its end (minutes:seconds), then says
// its data-up text. Works on content htmx or the tonight screen swap in later: it looks for
// clocks every second.
(function () {
  "use strict";
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-ends-at]").forEach(function (clock) {
      var left = Math.round((Date.parse(clock.getAttribute("data-ends-at")) - now) / 1000);
      var out = clock.querySelector(".countdown");
      if (!out) return;
      if (left <= 0) {
        out.textContent = clock.getAttribute("data-up");
        clock.classList.add("up");
      } else {
        out.textContent = Math.floor(left / 60) + ":" + pad(left % 60);
        clock.classList.remove("up");
      }
    });
  }
  tick();
  setInterval(tick, 1000);
})();
