/* The tournament form (new and edit): offer only what the chosen game and format use.
 * Hidden inputs are disabled, so they are not sent; without scripts every input shows and
 * the server reads only the relevant ones. The start time is read in the browser's own
 * time zone. The entrant list can be searched and filtered (a bot hidden by the search
 * stays entered if ticked), every bot shown ticked at once, and a pasted list of bot or
 * owner names ticked; the server reads the pasted list too, so it works without scripts.
 * A refused form puts the focus on its first refused input. */
(function () {
  "use strict";
  var form = document.getElementById("tournament-form");
  if (!form) return;
  var game = form.elements.game;
  var format = form.elements.format;
  var players = form.elements.players_per_match;
  var search = document.getElementById("bot-search");
  var filter = document.getElementById("bot-filter");
  var botInputs = Array.prototype.slice.call(form.querySelectorAll("#bots-field input[data-game]"));

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
    var shown = 0;
    var picked = 0;
    var entered = {};
    var wanted = pickerWanted();
    botInputs.forEach(function (input) {
      var fits = input.dataset.game === chosenGame;
      var row = choiceRow(input);
      show(row, fits);
      // Searched out of sight, a bot stays enabled: hidden is not removed.
      if (fits && !wanted(input)) row.hidden = true;
      if (fits) offered += 1;
      if (fits && !row.hidden) shown += 1;
      if (fits && input.checked) {
        entered[input.value] = true;
        picked += 1;
      }
    });
    document.getElementById("no-bots").hidden = offered > 0;
    document.getElementById("none-shown").hidden = offered === 0 || shown > 0;
    document.getElementById("bot-count").textContent =
      shown + " of " + offered + " shown; " + picked + " picked";
    ownerChoices(chosenGame);
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

  function pickerWanted() {
    var words = search.value.trim().toLowerCase();
    var how = filter.value;
    return function (input) {
      var name = input.dataset.name.toLowerCase();
      var owner = input.dataset.owner.toLowerCase();
      if (words && name.indexOf(words) < 0 && owner.indexOf(words) < 0) return false;
      if (how === "mine") return input.dataset.mine === "1";
      if (how === "accepts") return input.dataset.mine !== "1" && input.dataset.accepts === "1";
      if (how.indexOf("owner:") === 0) return input.dataset.owner === how.slice(6);
      return true;
    };
  }

  var ownersOf = "";
  function ownerChoices(chosenGame) {
    // "Show" offers each owner of a bot of the chosen game.
    if (ownersOf === chosenGame) return;
    ownersOf = chosenGame;
    var owners = {};
    botInputs.forEach(function (input) {
      if (input.dataset.game === chosenGame && input.dataset.mine !== "1") owners[input.dataset.owner] = true;
    });
    Array.prototype.slice.call(filter.querySelectorAll("option[data-owner]")).forEach(function (option) {
      filter.removeChild(option);
    });
    Object.keys(owners).sort().forEach(function (owner) {
      var option = document.createElement("option");
      option.value = "owner:" + owner;
      option.dataset.owner = owner;
      option.textContent = owner + "'s bots";
      filter.appendChild(option);
    });
    if (filter.selectedIndex < 0) filter.value = "all";
  }

  function tickShown(checked) {
    botInputs.forEach(function (input) {
      if (!input.disabled && !choiceRow(input).hidden) input.checked = checked;
    });
    update();
  }

  function tickPasted() {
    var area = form.elements.bot_list;
    var names = area.value.split(/[\s,;]+/).filter(function (name) { return name; });
    var ticked = 0;
    var unknown = [];
    names.forEach(function (name) {
      var lower = name.toLowerCase();
      var found = botInputs.filter(function (input) {
        return input.dataset.game === game.value &&
          (input.dataset.name.toLowerCase() === lower || input.dataset.owner.toLowerCase() === lower);
      });
      if (!found.length) unknown.push(name);
      found.forEach(function (input) {
        if (!input.checked) ticked += 1;
        input.checked = true;
      });
    });
    area.value = unknown.join("\n");  // what is left is what was not found
    document.getElementById("pasted-result").textContent =
      "Ticked " + ticked + (unknown.length ? "; not found (left in the box): " + unknown.join(", ") : "") + ".";
    update();
  }

  function focusFirstRefusal() {
    var summary = document.getElementById("error-summary");
    if (!summary) return;
    var first = Array.prototype.slice.call(form.querySelectorAll('[aria-invalid="true"]')).filter(function (input) {
      return !input.disabled && input.offsetParent !== null;
    })[0];
    (first || summary).focus();
    summary.querySelectorAll("a[href^='#']").forEach(function (link) {
      link.addEventListener("click", function (event) {
        var target = document.getElementById(link.getAttribute("href").slice(1));
        var input = target && (target.matches("input, select, textarea") ? target :
          target.querySelector("input:not([disabled]):not([type=search]), select, textarea"));
        if (input) {
          event.preventDefault();
          input.focus();
        }
      });
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
  var start = form.elements.start_at;
  if (start.dataset.utc && start.value) {
    // An edit shows the stored start in UTC: rewrite it as the browser's wall clock.
    var when = new Date(start.value + ":00Z");
    if (!isNaN(when.getTime())) {
      var pad = function (n) { return String(n).padStart(2, "0"); };
      start.value = when.getFullYear() + "-" + pad(when.getMonth() + 1) + "-" + pad(when.getDate()) +
        "T" + pad(when.getHours()) + ":" + pad(when.getMinutes());
    }
  }
  if (zone) {
    form.elements.time_zone.value = zone;
    var note = document.getElementById("start-zone");
    note.textContent = zoneText(zone);
    note.hidden = false;
    var help = document.getElementById(form.elements.start_at.id + "_helptext");
    if (help) help.textContent = "Empty: now.";
  }

  document.getElementById("bot-picker").hidden = false;
  var tick = document.getElementById("tick-pasted");
  tick.hidden = false;
  tick.addEventListener("click", tickPasted);
  document.getElementById("select-shown").addEventListener("click", function () { tickShown(true); });
  document.getElementById("clear-shown").addEventListener("click", function () { tickShown(false); });
  search.addEventListener("input", update);
  // Enter in the search box filters; it does not send the form.
  search.addEventListener("keydown", function (event) {
    if (event.key === "Enter") event.preventDefault();
  });
  form.addEventListener("change", update);
  players.addEventListener("input", update);
  update();
  focusFirstRefusal();
})();
