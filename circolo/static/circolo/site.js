/* Circolo: small progressive enhancements. Every page works without this file. */
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // A club's tabs scroll sideways on a phone: show the current one.
  const tabs = document.querySelector(".tabs");
  const current = tabs && tabs.querySelector("a.current");
  if (current && tabs.scrollWidth > tabs.clientWidth) {
    tabs.scrollLeft = current.offsetLeft - (tabs.clientWidth - current.offsetWidth) / 2;
  }
  // <select data-submit-on-change> (the language) sends its form when a choice is made.
  for (const select of document.querySelectorAll("select[data-submit-on-change]")) {
    select.addEventListener("change", () => select.form.submit());
  }
  // <button data-print hidden>: shown, and prints the page.
  for (const button of document.querySelectorAll("button[data-print]")) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
  // Copy buttons: <button data-copy="#input-id" hidden> next to a read-only text box.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.querySelector(button.dataset.copy);
    if (!source) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      source.select();
      try {
        await navigator.clipboard.writeText(source.value);
      } catch (error) {
        document.execCommand("copy");
      }
      const label = button.textContent;
      button.textContent = button.dataset.copied || label;
      setTimeout(() => { button.textContent = label; }, 2000);
    });
  }
  // Live search: <input data-filter="#list-a, #list-b">; each <li data-name> is hidden
  // while its name does not contain what is typed (the form still searches on the server).
  for (const input of document.querySelectorAll("input[data-filter]")) {
    const items = document.querySelectorAll(
      input.dataset.filter.split(",").map((list) => `${list.trim()} > li[data-name]`).join(",")
    );
    input.addEventListener("input", () => {
      const wanted = input.value.trim().toLocaleLowerCase();
      for (const item of items) {
        item.hidden = wanted !== "" && !item.dataset.name.toLocaleLowerCase().includes(wanted);
      }
    });
  }
});
