// Spazz'u'mazz by taps: pick the players (the new-game page, step 1, in turn order), then
// tap them in the order they went out (every form.tap-order: entering a game, reporting,
// correcting or deciding one). The last one left is the idiot and is filled in by itself.
// Without JavaScript the pages offer a list per seat and per place instead (<noscript>):
// what this script shows starts hidden, and nobody types ids either way.
(function () {
  "use strict";
  function taps(container) { return Array.from(container.querySelectorAll("button.tap")); }
  function show(element) { if (element) { element.hidden = false; } }
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
    var clear = document.getElementById("clear");
    show(pick.querySelector(".tap-grid"));
    show(clear);
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
    clear.addEventListener("click", function () { picked = []; update(); });
    update();
  }

  function tapOrder(form) {
    var size = Number(form.dataset.size);
    var order = [];
    var buttons2 = taps(form);
    var value = form.querySelector(".order-value");
    var save = form.querySelector(".save");
    var another = form.querySelector(".another");
    var undo = form.querySelector(".undo");
    var line = form.querySelector(".idiot-line");
    var queued = form.querySelector(".queued-orders");
    var list = form.querySelector(".queued-list");
    // A decision may uphold the report without any order: its save stays enabled.
    var optional = form.hasAttribute("data-optional");
    // Tapping another order in a decision means rejecting the report.
    var reject = form.querySelector("input[name=uphold][value=no]");
    var nameOf = {};
    buttons2.forEach(function (b) { nameOf[b.dataset.player] = b.dataset.name; });
    show(form.querySelector(".tap-grid"));
    show(form.querySelector(".tap-help"));
    show(another);
    show(undo);
    var render = function () {
      if (order.length === size - 1) {
        // The last one left is the idiot.
        buttons2.forEach(function (b) { if (order.indexOf(b.dataset.player) < 0) { order.push(b.dataset.player); } });
      }
      mark(buttons2, order);
      var done = order.length === size;
      value.value = done ? order.join(",") : "";
      if (done && reject) { reject.checked = true; }
      var waiting = queued ? queued.children.length : 0;
      if (save) { save.disabled = !optional && !done && waiting === 0; }
      if (another) { another.disabled = !done; }
      line.textContent = done ? (words.idiot || "Idiot") + ": " + nameOf[order[size - 1]] : "";
      if (list) {
        list.innerHTML = "";
        Array.from(queued.children).forEach(function (input, n) {
          var li = document.createElement("li");
          li.textContent = (words.game || "Game") + " " + (n + 1) + ": " + input.value.split(",").map(function (id) { return nameOf[id]; }).join(", ");
          list.appendChild(li);
        });
      }
    };
    buttons2.forEach(function (b) {
      b.addEventListener("click", function () {
        if (order.length === size) { return; }
        var i = order.indexOf(b.dataset.player);
        if (i >= 0) { order = order.slice(0, i); } else { order.push(b.dataset.player); }
        render();
      });
    });
    if (undo) {
      undo.addEventListener("click", function () {
        order = order.length === size ? order.slice(0, size - 2) : order.slice(0, -1);
        render();
      });
    }
    if (another) {
      another.addEventListener("click", function () {
        var input = document.createElement("input");
        input.type = "hidden"; input.name = "order"; input.value = order.join(",");
        queued.appendChild(input);
        order = [];
        render();
      });
    }
    if (queued) {
      // Kept on the phone without network (circolo/static/circolo/offline.js): a clean
      // sheet for the next game.
      form.addEventListener("circolo:kept", function () {
        queued.replaceChildren();
        order = [];
        render();
      });
    }
    render();
  }
  Array.from(document.querySelectorAll("form.tap-order")).forEach(tapOrder);
})();
