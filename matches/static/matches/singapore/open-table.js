/* Opening a table: the seats go in the order they are ticked (going round the table). */
(function () {
  "use strict";
  var form = document.querySelector("form.sg-open");
  if (!form) return;
  var order = form.querySelector("input[name=order]");
  var shown = form.querySelector(".sg-order");
  var boxes = Array.prototype.slice.call(form.querySelectorAll("input[name=seats]"));
  var picked = (order.value || "").split(/\D+/).filter(Boolean);
  function label(box) { return box.parentElement.textContent.trim(); }
  function update() {
    order.value = picked.join(",");
    var names = picked.map(function (id) {
      var box = boxes.filter(function (b) { return b.value === id; })[0];
      return box ? label(box) : id;
    });
    shown.textContent = names.length ? shown.dataset.orderLabel + " " + names.join(" → ") : "";
  }
  boxes.forEach(function (box) {
    if (box.checked && picked.indexOf(box.value) < 0) picked.push(box.value);
    box.addEventListener("change", function () {
      picked = picked.filter(function (id) { return id !== box.value; });
      if (box.checked) picked.push(box.value);
      update();
    });
  });
  update();
})();
