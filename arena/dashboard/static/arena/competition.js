/* The competition form (new and edit): only the chosen game's options and the final
 * format's settings show (hidden inputs are disabled, so they are not sent); the invite
 * code shows with invite entry. Dates are read in the browser's own time zone, and an
 * edit's stored UTC dates are shown in it. A refused form focuses its first refused input. */
(function () {
  "use strict";
  var form = document.getElementById("competition-form");
  if (!form) return;

  function show(element, visible) {
    element.hidden = !visible;
    element.querySelectorAll("input, select, textarea").forEach(function (input) {
      input.disabled = !visible;
    });
  }

  function update() {
    var game = form.elements.game.value;
    var format = form.elements.format.value;
    var eligibility = form.elements.eligibility.value;
    form.querySelectorAll("fieldset.game-options").forEach(function (group) {
      show(group, group.dataset.game === game);
    });
    var options = form.querySelector('fieldset.game-options[data-game="' + game + '"]');
    var seats = parseInt(form.elements.players.value, 10) ||
      (options ? parseInt(options.dataset.minPlayers, 10) : 2);
    form.querySelectorAll("[data-formats]").forEach(function (field) {
      var fits = field.dataset.formats.split(" ").indexOf(format) >= 0;
      if (field.dataset.minPlayers) fits = fits && seats >= parseInt(field.dataset.minPlayers, 10);
      show(field, fits);
    });
    form.querySelectorAll("#format-help [data-format]").forEach(function (help) {
      help.hidden = help.dataset.format !== format;
    });
    form.querySelectorAll("[data-eligibility]").forEach(function (field) {
      show(field, field.dataset.eligibility === eligibility);
    });
  }

  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    zone = "";
  }
  var pad = function (n) { return String(n).padStart(2, "0"); };
  form.querySelectorAll("input[type=datetime-local][data-utc]").forEach(function (input) {
    if (!input.value) return;
    var when = new Date(input.value + ":00Z");
    if (isNaN(when.getTime())) return;
    input.value = when.getFullYear() + "-" + pad(when.getMonth() + 1) + "-" + pad(when.getDate()) +
      "T" + pad(when.getHours()) + ":" + pad(when.getMinutes());
  });
  if (zone) {
    form.elements.time_zone.value = zone;
    document.getElementById("dates-zone").textContent = "Dates are in your time zone, " + zone + ".";
  }

  form.addEventListener("change", update);
  form.elements.players.addEventListener("input", update);
  update();
  var summary = document.getElementById("error-summary");
  if (summary) {
    var first = form.querySelector("[aria-invalid=true]:not([disabled])");
    (first || summary).focus();
  }
})();
