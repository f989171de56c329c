/* The new-tournament form: offer only what the chosen game and format use. Hidden inputs
 * are disabled, so they are not sent; without scripts every input shows and the server
 * reads only the relevant ones. The start time is read in the browser's own time zone. */
(function () {
  "use strict";
  var form = document.getElementById("tournament-form");
  if (!form) return;
  var game = form.elements.game;
  var format = form.elements.format;
  var players = form.elements.players_per_match;

  function show(element, visible) {
    element.hidden = !visible;
    element.querySelectorAll("input, select, textarea").forEach(function (input) {
      input.disabled = !visible;
    });
  }

  function choiceRow(input) {
    return input.closest("label") ? input.closest("label").parentElement : input.parentElement;
  }

  function update() {
    var chosenGame = game.value;
    var chosenFormat = format.value;
    var options = form.querySelector('fieldset.game-options[data-game="' + chosenGame + '"]');
    var seats = parseInt(players.value, 10) || (options ? parseInt(options.dataset.minPlayers, 10) : 2);
    form.querySelectorAll("[data-formats]").forEach(function (field) {
      var fits = field.dataset.formats.split(" ").indexOf(chosenFormat) >= 0;
      if (field.dataset.minPlayers) fits = fits && seats >= parseInt(field.dataset.minPlayers, 10);
      show(field, fits);
    });
    var offered = 0;
    var entered = {};
    form.querySelectorAll("#bots-field input[data-game]").forEach(function (input) {
      var fits = input.dataset.game === chosenGame;
      show(choiceRow(input), fits);
      if (fits) offered += 1;
      if (fits && input.checked) entered[input.value] = true;
    });
    document.getElementById("no-bots").hidden = offered > 0;
    form.querySelectorAll("#challengers-field input[data-game]").forEach(function (input) {
      var fits = input.dataset.game === chosenGame && entered[input.value] === true;
      show(choiceRow(input), fits && chosenFormat === "gauntlet");
    });
    form.querySelectorAll("fieldset.game-options").forEach(function (set) {
      show(set, set.dataset.game === chosenGame);
    });
    form.querySelectorAll("#format-help [data-format]").forEach(function (line) {
      line.hidden = line.dataset.format !== chosenFormat;
    });
  }

  function zoneText(zone) {
    var offset = -new Date().getTimezoneOffset();
    var sign = offset < 0 ? "−" : "+";
    var hours = Math.floor(Math.abs(offset) / 60);
    var minutes = Math.abs(offset) % 60;
    var utc = "UTC" + sign + String(hours).padStart(2, "0") + ":" + String(minutes).padStart(2, "0");
    return "In your time zone, " + zone + " (" + utc + " now); stored in UTC.";
  }

  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    zone = "";
  }
  if (zone) {
    form.elements.time_zone.value = zone;
    var note = document.getElementById("start-zone");
    note.textContent = zoneText(zone);
    note.hidden = false;
    var help = document.getElementById(form.elements.start_at.id + "_helptext");
    if (help) help.textContent = "Empty: now.";
  }

  form.addEventListener("change", update);
  players.addEventListener("input", update);
  update();
})();
