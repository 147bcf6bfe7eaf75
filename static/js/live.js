// The page's live connection (one websocket per tab, opened by htmx's ws
// extension on <body>). Three jobs:
//
// 1. Messages. The server sends HTML: elements with hx-swap-oob replace or
//    extend parts of the page by id; a <div data-live-topics="a b"> asks the
//    page to re-read the regions that follow those topics. Parts of a message
//    meant for another page (no such id here) are dropped quietly.
// 2. Regions. An element with an id and data-live-region="topic …" is
//    re-read from the server (this very URL, so filters and pages hold)
//    when one of its topics is announced.
// 3. Reconnection without loss. Whatever happened while the socket was down
//    was never sent to this page, so after every reconnect every region is
//    re-read. While down, the indicator says "reconnecting…".
(function () {
  "use strict";

  const RECONNECTS_ITSELF = [1006, 1011, 1012, 1013]; // htmx's ws extension retries these
  const REFUSED = [1008, 4401]; // signed out or not allowed: retrying cannot help
  let wasOpen = false;
  let pendingTopics = null; // Set of topics, or "all"
  let refreshTimer = null;

  function indicator(state) {
    document.body.setAttribute("data-live", state);
    const el = document.getElementById("live-indicator");
    if (!el) return;
    el.textContent = state === "on" ? "● live" : "● reconnecting…";
    el.title =
      state === "on"
        ? "Live updates arrive without reloading"
        : "The live connection dropped; this page catches up as soon as it is back";
  }

  function regions(topics) {
    return Array.from(document.querySelectorAll("[data-live-region][id]")).filter((el) => {
      if (topics === "all") return true;
      return el.dataset.liveRegion.split(/\s+/).some((topic) => topics.has(topic));
    });
  }

  async function refresh(topics) {
    const stale = regions(topics);
    if (!stale.length) return;
    const response = await fetch(window.location.href, {
      credentials: "same-origin",
      headers: { "X-Live-Refresh": "1" },
    });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const el of stale) {
      const replacement = fresh.getElementById(el.id);
      if (!replacement || !el.isConnected) continue;
      el.replaceWith(replacement);
      htmx.process(replacement);
    }
    document.dispatchEvent(new CustomEvent("live:refreshed", { detail: { topics } }));
  }

  // Bursts (a sync writing twenty ledger lines) become one re-read.
  function schedule(topics) {
    if (topics === "all" || pendingTopics === "all") pendingTopics = "all";
    else {
      pendingTopics = pendingTopics || new Set();
      topics.forEach((topic) => pendingTopics.add(topic));
    }
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => {
      const due = pendingTopics;
      pendingTopics = null;
      refresh(due).catch(() => schedule(due)); // the server may be restarting: try again
    }, 150);
  }

  function targetOf(el) {
    const spec = el.getAttribute("hx-swap-oob") || "true";
    const colon = spec.indexOf(":");
    if (colon >= 0) return document.querySelector(spec.slice(colon + 1));
    return el.id ? document.getElementById(el.id) : null;
  }

  document.addEventListener("htmx:wsBeforeMessage", (event) => {
    event.preventDefault(); // swapped here, so parts for other pages are dropped quietly
    const template = document.createElement("template");
    template.innerHTML = event.detail.message;
    const topics = new Set();
    for (const el of Array.from(template.content.children)) {
      if (el.hasAttribute("data-live-topics")) {
        el.getAttribute("data-live-topics").split(/\s+/).filter(Boolean).forEach((t) => topics.add(t));
        el.remove();
      } else if (!el.hasAttribute("hx-swap-oob") || !targetOf(el)) {
        el.remove();
      }
    }
    if (template.content.children.length) {
      htmx.swap(document.body, template.innerHTML, { swapStyle: "none" });
    }
    if (topics.size) schedule(topics);
  });

  document.addEventListener("htmx:wsOpen", () => {
    indicator("on");
    if (wasOpen) schedule("all"); // catch up on what was sent while we were away
    wasOpen = true;
  });

  document.addEventListener("htmx:wsClose", (event) => {
    indicator("reconnecting");
    const code = event.detail.event.code;
    if (RECONNECTS_ITSELF.includes(code) || REFUSED.includes(code)) return;
    // A server restart (1001) or any other close: the extension would stay
    // down, so ask it to connect again after a short pause.
    setTimeout(() => event.detail.socketWrapper.reconnect(), 1000);
  });
})();
