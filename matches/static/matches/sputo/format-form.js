// The tournament form shows the fields of the format chosen and hides the others
// (``data-formats`` on each field lists its formats). Without JavaScript every field shows,
// and the server ignores those of another format.
(function () {
  "use strict";
  function update(form) {
    var chosen = form.querySelector("input[name=format]:checked");
    if (!chosen) return;
    form.querySelectorAll("[data-formats]").forEach(function (field) {
      var row = field.closest("p") || field.parentElement;
      var shown = field.getAttribute("data-formats").split(" ").indexOf(chosen.value) !== -1;
      row.hidden = !shown;
    });
  }
  function init() {
    document.querySelectorAll("form").forEach(function (form) {
      if (!form.querySelector("input[name=format]")) return;
      form.addEventListener("change", function (event) {
        if (event.target.name === "format") update(form);
      });
      update(form);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
