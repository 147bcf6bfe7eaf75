// One date format everywhere: every <time data-relative> from the `when`
// template tag shows relative text ("5 minutes ago"); this keeps that text
// current and puts the exact time, in the reader's own time zone, in the
// title (shown on hover). Same wording rules as relative_text() in
// switchboard/templatetags/switchboard_tags.py.
(function () {
  const UNITS = [["year", 365 * 86400], ["month", 30 * 86400], ["day", 86400], ["hour", 3600], ["minute", 60]];
  const exact = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric",
    hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short",
  });

  function relative(moment, now) {
    let seconds = (moment - now) / 1000;
    const past = seconds <= 0;
    seconds = Math.abs(seconds);
    if (seconds < 45) return past ? "just now" : "in a few seconds";
    for (const [name, size] of UNITS) {
      const count = Math.round(seconds / size);
      if (count >= 1) {
        const unit = count === 1 ? name : name + "s";
        return past ? `${count} ${unit} ago` : `in ${count} ${unit}`;
      }
    }
    return "just now";
  }

  function refresh(root) {
    const now = Date.now();
    (root || document).querySelectorAll("time[data-relative]").forEach((el) => {
      const moment = new Date(el.getAttribute("datetime"));
      if (isNaN(moment)) return;
      // Inside a live region a ticking clock would be announced every minute.
      const text = relative(moment, now);
      if (el.textContent !== text && !el.closest("[aria-live]")) el.textContent = text;
      const title = exact.format(moment);
      if (el.title !== title) el.title = title;
    });
  }

  document.addEventListener("DOMContentLoaded", () => refresh());
  // Rows swapped in by htmx (pages and live updates) get the same treatment.
  document.addEventListener("htmx:load", (e) => refresh(e.target.parentNode || document));
  setInterval(refresh, 30000);
})();
