/* Live countdowns: every <time class="countdown" datetime="..."> counts down to its
 * instant each second ("2 d 3 h 4 min 5 s"); the server's text ("3 days, 2 hours") stays
 * without scripts. At zero it says so and offers a reload, since the phase changes then. */
(function () {
  "use strict";
  var clocks = Array.prototype.slice.call(document.querySelectorAll("time.countdown[datetime]"));
  if (!clocks.length) return;

  function text(ms) {
    var s = Math.floor(ms / 1000);
    var days = Math.floor(s / 86400);
    var hours = Math.floor((s % 86400) / 3600);
    var minutes = Math.floor((s % 3600) / 60);
    var seconds = s % 60;
    var parts = [];
    if (days) parts.push(days + " d");
    if (days || hours) parts.push(hours + " h");
    if (days || hours || minutes) parts.push(minutes + " min");
    if (!days) parts.push(seconds + " s");
    return parts.join(" ");
  }

  clocks.forEach(function (clock) {
    clock.dataset.at = String(Date.parse(clock.getAttribute("datetime")));
    clock.setAttribute("title", new Date(Number(clock.dataset.at)).toLocaleString());
  });

  function tick() {
    var now = Date.now();
    clocks.forEach(function (clock) {
      var at = Number(clock.dataset.at);
      if (isNaN(at) || clock.dataset.done) return;
      var left = at - now;
      if (left <= 0) {
        clock.dataset.done = "1";
        clock.textContent = "now";
        var reload = document.createElement("a");
        reload.href = window.location.pathname;
        reload.textContent = "reload the page";
        reload.className = "countdown-reload";
        clock.parentNode.appendChild(document.createTextNode(" · "));
        clock.parentNode.appendChild(reload);
        return;
      }
      clock.textContent = text(left);
    });
  }

  tick();
  window.setInterval(tick, 1000);
})();
