/* The hand form's card picker: tap a rank, then a suit (or the joker), and the card goes to
   the winner's or the loser's ten. The text boxes stay the truth (paste works as before);
   the picker only writes into them. No more than two copies of a card, or two jokers, as
   the pack has. Progressive enhancement: without this script the form works as it is. */
(function () {
  "use strict";
  var form = document.getElementById("hand-form");
  if (!form) return;
  var picker = form.querySelector(".sg-picker");
  var fields = {
    winner_cards: form.querySelector("[name=winner_cards]"),
    loser_cards: form.querySelector("[name=loser_cards]")
  };
  if (!picker || !fields.winner_cards || !fields.loser_cards) return;
  var HAND = 10;
  var SYMBOLS = { "♠": "S", "♥": "H", "♦": "D", "♣": "C" };
  var hint = picker.querySelector(".sg-picker-hint");
  var target = "winner_cards";
  var pendingRank = null;
  // Errors the server found, by field and index, kept until that field changes.
  var serverErrors = {};

  function tokens(text) {
    return (text || "").split(/[\s,;]+/).filter(function (t) { return t.length > 0; });
  }
  function canonical(token) {
    var t = token.trim();
    Object.keys(SYMBOLS).forEach(function (s) { t = t.split(s).join(SYMBOLS[s]); });
    t = t.toUpperCase();
    if (t.charAt(0) === "T") t = "10" + t.slice(1);
    return t;
  }
  function counts() {
    var all = {};
    Object.keys(fields).forEach(function (name) {
      tokens(fields[name].value).forEach(function (t) {
        var c = canonical(t);
        all[c] = (all[c] || 0) + 1;
      });
    });
    return all;
  }
  function setTokens(name, list) {
    fields[name].value = list.join(" ");
    delete serverErrors[name];
    render();
  }

  // What a chip shows: A♠, 10♥, the joker by its name (as the server's ``suited`` filter);
  // the field keeps the code as typed.
  var LETTERS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  var jokerButton = picker.querySelector("[data-joker]");
  function suited(card) {
    if (card === "JK") return (jokerButton && jokerButton.getAttribute("aria-label")) || card;
    var suit = LETTERS[card.slice(-1)];
    return suit && /^(10|[2-9AJQK])$/.test(card.slice(0, -1)) ? card.slice(0, -1) + suit : card;
  }
  function chip(card, index, name) {
    var li = document.createElement("li");
    li.className = "sg-chip";
    li.dataset.card = card;
    li.textContent = suited(card);
    var remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "×";
    remove.setAttribute("aria-label", "− " + suited(card));
    remove.addEventListener("click", function () {
      var list = tokens(fields[name].value);
      list.splice(index, 1);
      setTokens(name, list);
    });
    li.appendChild(remove);
    return li;
  }

  function render() {
    Object.keys(fields).forEach(function (name) {
      var list = form.querySelector('.sg-chips[data-for="' + name + '"]');
      var errors = serverErrors[name] || {};
      list.innerHTML = "";
      tokens(fields[name].value).forEach(function (token, i) {
        var li = chip(canonical(token), i, name);
        list.appendChild(li);
        if (errors[i]) {
          li.classList.add("bad");
          var err = document.createElement("li");
          err.className = "sg-err";
          err.setAttribute("role", "alert");
          err.textContent = errors[i];
          list.appendChild(err);
        }
      });
      var count = form.querySelector('[data-count-for="' + name + '"]');
      var n = tokens(fields[name].value).length;
      if (count) {
        count.textContent = n + "/" + HAND;
        count.classList.toggle("full", n === HAND);
      }
    });
    picker.querySelectorAll(".sg-targets [data-target]").forEach(function (b) {
      b.setAttribute("aria-pressed", b.dataset.target === target ? "true" : "false");
    });
    var have = counts();
    picker.querySelectorAll("[data-rank]").forEach(function (b) {
      b.setAttribute("aria-pressed", b.dataset.rank === pendingRank ? "true" : "false");
      var left = ["S", "H", "D", "C"].some(function (s) { return (have[b.dataset.rank + s] || 0) < 2; });
      b.disabled = !left;
    });
    picker.querySelectorAll("[data-suit]").forEach(function (b) {
      b.disabled = !pendingRank || (have[pendingRank + b.dataset.suit] || 0) >= 2;
    });
    picker.querySelector("[data-joker]").disabled = (have.JK || 0) >= 2;
    hint.textContent = pendingRank ? hint.dataset.pickSuit : hint.dataset.pickRank;
  }

  function add(card) {
    var have = counts();
    if ((have[card] || 0) >= 2) {
      hint.textContent = hint.dataset.noMore;
      return;
    }
    var list = tokens(fields[target].value);
    if (list.length >= HAND) {
      var other = target === "winner_cards" ? "loser_cards" : "winner_cards";
      if (tokens(fields[other].value).length >= HAND) return;
      target = other;
      list = tokens(fields[target].value);
    }
    list.push(card);
    pendingRank = null;
    setTokens(target, list);
    if (list.length >= HAND && target === "winner_cards" && tokens(fields.loser_cards.value).length < HAND) {
      target = "loser_cards";
      render();
    }
  }

  // The server's errors next to the offending cards, read from the page it sent.
  Object.keys(fields).forEach(function (name) {
    var found = {};
    var i = 0;
    form.querySelectorAll('.sg-chips[data-for="' + name + '"] > li.sg-chip').forEach(function (li) {
      if (li.dataset.error) found[i] = li.dataset.error;
      i += 1;
    });
    serverErrors[name] = found;
    fields[name].addEventListener("input", function () { delete serverErrors[name]; render(); });
    fields[name].addEventListener("focus", function () { target = name; render(); });
  });

  picker.addEventListener("click", function (event) {
    var b = event.target.closest("button");
    if (!b || b.disabled) return;
    if (b.dataset.target) { target = b.dataset.target; pendingRank = null; }
    else if (b.dataset.rank) { pendingRank = pendingRank === b.dataset.rank ? null : b.dataset.rank; }
    else if (b.dataset.suit && pendingRank) { add(pendingRank + b.dataset.suit); return; }
    else if (b.dataset.joker) { add("JK"); return; }
    else if (b.classList.contains("sg-back")) {
      var list = tokens(fields[target].value);
      list.pop();
      setTokens(target, list);
      return;
    }
    render();
  });

  // The dealer covers nobody: hide the dealer's own cover box; name the two players.
  var dealer = form.querySelector("select[name=dealer]");
  var opponent = form.querySelector("select[name=opponent]");
  function pair() {
    var dealerId = dealer ? dealer.value : (form.querySelector("input[name=dealer]") || {}).value;
    form.querySelectorAll(".sg-covers [data-player]").forEach(function (p) {
      var isDealer = p.dataset.player === dealerId;
      p.hidden = isDealer;
      if (isDealer) { var input = p.querySelector("input"); if (input) input.value = ""; }
    });
    [["dealer", dealer], ["opponent", opponent]].forEach(function (item) {
      var radio = form.querySelector('input[name=winner][value="' + item[0] + '"]');
      var select = item[1];
      if (!radio || !select || !radio.parentElement) return;
      var label = radio.closest("label") || radio.parentElement;
      var name = label.querySelector(".sg-who");
      if (!name) { name = document.createElement("strong"); name.className = "sg-who"; label.appendChild(name); }
      name.textContent = " " + select.options[select.selectedIndex].text;
    });
  }
  if (dealer) dealer.addEventListener("change", pair);
  if (opponent) opponent.addEventListener("change", pair);
  pair();

  picker.hidden = false;
  render();
})();
