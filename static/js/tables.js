// On a phone each table row is shown as a card (static/css/switchboard.css);
// every cell is labelled with its column's header, copied here into
// data-label so templates need not repeat it. Rows added live get it too.
(function () {
  function label(root) {
    (root || document).querySelectorAll("table").forEach((table) => {
      const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
      if (!heads.length) return;
      table.querySelectorAll("tbody tr").forEach((tr) => {
        [...tr.children].forEach((cell, i) => {
          if (!cell.hasAttribute("data-label")) cell.setAttribute("data-label", heads[i] || "");
        });
      });
    });
  }
  document.addEventListener("DOMContentLoaded", () => label());
  document.addEventListener("htmx:load", () => label());
  // Regions re-read by static/js/live.js are swapped in without htmx:load.
  document.addEventListener("live:refreshed", () => label());
})();
