// Marks the page "live" while the htmx websocket is open, so people (and
// tests) can tell updates will arrive without reloading.
document.addEventListener("htmx:wsOpen", () => document.body.setAttribute("data-live", "on"));
document.addEventListener("htmx:wsClose", () => document.body.setAttribute("data-live", "off"));
