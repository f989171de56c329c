/* Wide tables scroll inside their wrapper on a phone; a wrapper that does scroll becomes
 * reachable by keyboard (a focusable, named region), as screen readers and axe expect. */
(function () {
  "use strict";
  function mark() {
    document.querySelectorAll(".table-wrap").forEach(function (wrap) {
      var scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
      if (scrolls && !wrap.hasAttribute("tabindex")) {
        var table = wrap.querySelector("table");
        var heading = table && table.id ? table.id.replace(/-/g, " ") : "table";
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", heading + " (scrolls sideways)");
      } else if (!scrolls && wrap.getAttribute("role") === "region") {
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    });
  }
  mark();
  window.addEventListener("resize", mark);
  document.addEventListener("toggle", mark, true); // a <details> opened: its tables now measure
  // A live part of the page was replaced: marked as soon as it is in the page, and again
  // once its attributes settle.
  document.addEventListener("htmx:afterSwap", mark);
  document.addEventListener("htmx:afterSettle", mark);
})();
