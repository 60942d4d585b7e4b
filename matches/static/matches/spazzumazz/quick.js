// Quick entry of a Spazz'u'mazz game: tap the players (step 1, in turn order; step 2, in the
// order they went out). The last one left is the idiot and is filled in by itself.
(function () {
  "use strict";
  function taps(container) { return Array.from(container.querySelectorAll("button.tap")); }
  function mark(buttons, picked) {
    buttons.forEach(function (b) {
      var i = picked.indexOf(b.dataset.player);
      b.setAttribute("aria-pressed", i >= 0 ? "true" : "false");
      b.querySelector(".n").textContent = i >= 0 ? String(i + 1) : "";
    });
  }
  var words = {};
  try { words = JSON.parse(document.getElementById("quick-words").textContent); } catch (e) {}

  var pick = document.getElementById("pick");
  if (pick) {
    var picked = [];
    var buttons = taps(pick);
    var next = document.getElementById("next");
    var update = function () {
      mark(buttons, picked);
      document.getElementById("picked").value = picked.join(",");
      next.disabled = picked.length < 2;
    };
    buttons.forEach(function (b) {
      b.addEventListener("click", function () {
        var i = picked.indexOf(b.dataset.player);
        if (i >= 0) { picked.splice(i, 1); } else { picked.push(b.dataset.player); }
        update();
      });
    });
    document.getElementById("clear").addEventListener("click", function () { picked = []; update(); });
    update();
  }

  var form = document.getElementById("order-form");
  if (form) {
    var size = Number(form.dataset.size);
    var order = [];
    var buttons2 = taps(form);
    var save = document.getElementById("save");
    var another = document.getElementById("another");
    var line = document.getElementById("idiot-line");
    var queued = document.getElementById("queued-orders");
    var list = document.getElementById("queued-list");
    var nameOf = {};
    buttons2.forEach(function (b) { nameOf[b.dataset.player] = b.dataset.name; });
    var render = function () {
      if (order.length === size - 1) {
        // The last one left is the idiot.
        buttons2.forEach(function (b) { if (order.indexOf(b.dataset.player) < 0) { order.push(b.dataset.player); } });
      }
      mark(buttons2, order);
      var done = order.length === size;
      document.getElementById("order").value = done ? order.join(",") : "";
      save.disabled = !done && queued.children.length === 0;
      another.disabled = !done;
      line.textContent = done ? (words.idiot || "Idiot") + ": " + nameOf[order[size - 1]] : "";
      list.innerHTML = "";
      Array.from(queued.children).forEach(function (input, n) {
        var li = document.createElement("li");
        li.textContent = (words.game || "Game") + " " + (n + 1) + ": " + input.value.split(",").map(function (id) { return nameOf[id]; }).join(", ");
        list.appendChild(li);
      });
    };
    buttons2.forEach(function (b) {
      b.addEventListener("click", function () {
        if (order.length === size) { return; }
        var i = order.indexOf(b.dataset.player);
        if (i >= 0) { order = order.slice(0, i); } else { order.push(b.dataset.player); }
        render();
      });
    });
    document.getElementById("undo").addEventListener("click", function () {
      order = order.length === size ? order.slice(0, size - 2) : order.slice(0, -1);
      render();
    });
    another.addEventListener("click", function () {
      var input = document.createElement("input");
      input.type = "hidden"; input.name = "order"; input.value = order.join(",");
      queued.appendChild(input);
      order = [];
      render();
    });
    // Kept on the phone without network (circolo/static/circolo/offline.js): a clean sheet
    // for the next game.
    form.addEventListener("circolo:kept", function () {
      queued.replaceChildren();
      order = [];
      render();
    });
    render();
  }
})();
