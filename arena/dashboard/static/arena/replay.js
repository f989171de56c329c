/* The replay viewer: one generic renderer for every game.
 *
 * It reads two answers of the API: /api/matches/<id>/frames/?seat=N (the table as that
 * seat saw it after each move, cut to the keys the game's layout names, plus the layout)
 * and /api/matches/<id>/replay/?seat=N (that seat's events, and the moves with their
 * times). The layout (arena/dashboard/frame_layouts.py) says which keys are hands, piles, chips...
 * The table itself is drawn by table.js, shared with the live game against bots. Nothing
 * here knows a particular game.
 */
(function () {
  "use strict";

  var root = document.getElementById("replay");
  var configNode = document.getElementById("replay-config");
  if (!root || !configNode) return;
  var config = JSON.parse(configNode.textContent);
  var viewer = config.seat; // null: spectator

  var T = window.ArenaTable;
  var el = T.el, shortText = T.shortText;

  // ---- the viewer -----------------------------------------------------------------------
  function Viewer(data, replay) {
    this.layout = data.layout;
    this.events = replay.events || [];
    this.moves = replay.moves || [];
    this.frames = [];
    this.eventMarks = [];
    var current = {};
    var self = this;
    data.frames.forEach(function (frame) {
      current = Object.assign({}, current, frame.d);
      self.frames.push(current);
      self.eventMarks.push(frame.e);
    });
    this.last = this.frames.length - 1;
    this.seats = config.seats;
    this.step = 0;
    this.timer = null;
    this.faults = {};
    this.seats.forEach(function (s) {
      if (s.fault) self.faults[s.seat] = s.fault;
    });
  }

  Viewer.prototype.seatName = function (seat) {
    var info = this.seats[seat];
    return info ? "seat " + seat + " · " + info.bot : "seat " + seat + (seat >= this.seats.length ? " (dummy)" : "");
  };

  Viewer.prototype.build = function () {
    var self = this;
    root.textContent = "";
    var controls = el("div", { class: "controls", role: "group", "aria-label": "Replay controls" });
    function button(name, label, text) {
      var b = el("button", { type: "button", "data-go": name, "aria-label": label, title: label, text: text });
      b.addEventListener("click", function () { self.go(name); });
      controls.appendChild(b);
      return b;
    }
    button("first", "First position", "|\u25C0");
    button("prev", "Previous move", "\u25C0");
    this.playButton = button("play", "Play", "\u25B6");
    button("next", "Next move", "\u25B6\u25B6");
    button("last", "Last position", "\u25B6|");
    this.slider = el("input", { type: "range", id: "replay-step", min: "0", max: String(this.last), value: "0", "aria-label": "Jump to move" });
    this.slider.addEventListener("input", function () { self.show(parseInt(self.slider.value, 10)); });
    controls.appendChild(this.slider);
    this.counter = el("output", { id: "replay-counter", for: "replay-step", "aria-live": "polite" });
    controls.appendChild(this.counter);
    this.speed = el("select", { id: "replay-speed", "aria-label": "Playing speed" });
    [["1200", "slow"], ["600", "normal"], ["200", "fast"]].forEach(function (o) {
      self.speed.appendChild(el("option", { value: o[0], selected: o[1] === "normal", text: o[1] }));
    });
    controls.appendChild(this.speed);

    this.info = el("p", { class: "table-info", id: "replay-info" });
    this.centre = el("div", { class: "centre", id: "replay-centre" });
    this.seatBox = el("div", { class: "seats", id: "replay-seats" });
    var table = el("div", { class: "felt", id: "replay-table" }, [this.info, this.centre, this.seatBox]);
    this.moveBox = el("div", { class: "move-now", id: "replay-move", "aria-live": "polite" });
    this.list = el("ol", { class: "move-list", id: "replay-moves", start: "0" });
    this.listItems = [];
    for (var i = 0; i <= this.last; i++) this.listItems.push(this.listItem(i));
    this.listItems.forEach(function (li) { self.list.appendChild(li); });
    var side = el("div", { class: "side" }, [
      this.moveBox,
      el("h3", { text: "All moves" }),
      el("div", { class: "move-list-box", tabindex: "0", role: "region", "aria-label": "All moves" }, [this.list]),
    ]);
    root.appendChild(controls);
    root.appendChild(el("div", { class: "replay-body" }, [table, side]));
    document.addEventListener("keydown", function (event) { self.key(event); });
  };

  Viewer.prototype.listItem = function (step) {
    var self = this;
    var text;
    if (step === 0) text = "Start";
    else {
      var move = this.moves[step - 1] || {};
      var seats = Object.keys(move.actions || {});
      text = "Move " + step + ": " + seats.map(function (s) {
        var ms = (move.ms || {})[s];
        return "seat " + s + (ms !== undefined && ms !== null ? " " + ms + " ms" : "");
      }).join(", ");
      if (this.faultAt(step).length) text += " · fault";
    }
    var b = el("button", { type: "button", class: "jump", "data-step": String(step), text: text });
    b.addEventListener("click", function () { self.pause(); self.show(step); });
    return el("li", null, [b]);
  };

  Viewer.prototype.faultAt = function (step) {
    var self = this;
    return Object.keys(this.faults).filter(function (seat) {
      var f = self.faults[seat];
      return typeof f.move === "number" && f.move === step - 1;
    });
  };

  Viewer.prototype.go = function (name) {
    if (name === "play") return this.timer ? this.pause() : this.play();
    this.pause();
    if (name === "first") this.show(0);
    else if (name === "prev") this.show(this.step - 1);
    else if (name === "next") this.show(this.step + 1);
    else if (name === "last") this.show(this.last);
  };

  Viewer.prototype.play = function () {
    var self = this;
    if (this.step >= this.last) this.show(0);
    this.playButton.textContent = "\u275A\u275A";
    this.playButton.setAttribute("aria-label", "Pause");
    this.playButton.title = "Pause";
    var tick = function () {
      if (self.step >= self.last) return self.pause();
      self.show(self.step + 1);
      self.timer = setTimeout(tick, parseInt(self.speed.value, 10));
    };
    this.timer = setTimeout(tick, parseInt(this.speed.value, 10));
  };

  Viewer.prototype.pause = function () {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.playButton.textContent = "\u25B6";
    this.playButton.setAttribute("aria-label", "Play");
    this.playButton.title = "Play";
  };

  Viewer.prototype.key = function (event) {
    var target = event.target;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var map = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
    if (map[event.key]) {
      event.preventDefault();
      this.go(map[event.key]);
    }
  };

  Viewer.prototype.show = function (step) {
    step = Math.max(0, Math.min(this.last, step | 0));
    this.step = step;
    var frame = this.frames[step];
    var ctx = {
      deck: this.layout.deck,
      dice: this.layout.deck === "punk" && typeof frame.dice === "number" && frame.dice > 0,
      seatName: this.seatName.bind(this),
    };
    this.slider.value = String(step);
    this.counter.textContent = step === 0 ? "start of " + this.last + " moves" : "move " + step + " of " + this.last;
    this.drawInfo(frame, ctx);
    this.drawCentre(frame, ctx);
    this.drawSeats(frame, ctx, step);
    this.drawMove(step);
    this.listItems.forEach(function (li, i) {
      var b = li.firstChild;
      if (i === step) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    });
    var box = this.list.parentNode;
    var item = this.listItems[step];
    if (item.offsetTop < box.scrollTop || item.offsetTop > box.scrollTop + box.clientHeight - item.offsetHeight) {
      box.scrollTop = item.offsetTop - box.clientHeight / 2;
    }
    this.remember(step);
  };

  Viewer.prototype.drawInfo = function (frame, ctx) {
    T.drawInfo(this.info, this.layout, frame, ctx);
  };

  Viewer.prototype.drawCentre = function (frame, ctx) {
    T.drawCentre(this.centre, this.layout, frame, ctx);
  };

  Viewer.prototype.drawSeats = function (frame, ctx, step) {
    T.drawSeats(this.seatBox, { layout: this.layout, seats: this.seats, faults: this.faults, viewer: viewer, seatName: this.seatName.bind(this) }, frame, ctx, step);
  };

  Viewer.prototype.drawMove = function (step) {
    var box = this.moveBox;
    box.textContent = "";
    var self = this;
    if (step === 0) {
      box.appendChild(el("h3", { text: "Start" }));
      box.appendChild(el("p", { class: "muted", text: "Before the first move. Step forward with ▶▶ or the right arrow key." }));
    } else {
      var move = this.moves[step - 1] || {};
      box.appendChild(el("h3", { text: "Move " + step }));
      var rows = el("table", { class: "move-table" }, [
        el("tr", null, [
          el("th", { scope: "col", text: "Seat" }),
          el("th", { scope: "col", text: "Action" }),
          el("th", { scope: "col", class: "num", text: "Time" }),
          el("th", { scope: "col", class: "num", text: "CPU" }),
        ]),
      ]);
      var faulted = this.faultAt(step);
      Object.keys(move.actions || {}).forEach(function (seat) {
        var s = parseInt(seat, 10);
        // Each view shows its own seat's choices; the others' come through the public events.
        var action = viewer === s ? JSON.stringify(move.actions[seat]) : "(not shown to this view)";
        var note = [];
        if ((move.defaulted || []).indexOf(s) >= 0) note.push(el("span", { class: "tag", text: "played by default" }));
        var ms = (move.ms || {})[seat];
        var cpu = (move.cpu_ms || {})[seat];
        rows.appendChild(el("tr", { class: faulted.indexOf(seat) >= 0 ? "faulted" : null }, [
          el("td", { text: self.seatName(s) }),
          el("td", null, [el("code", { text: action })].concat(note)),
          el("td", { class: "num", text: ms === undefined || ms === null ? "—" : ms + " ms" }),
          el("td", { class: "num", text: cpu === undefined || cpu === null ? "—" : cpu + " ms" }),
        ]));
      });
      box.appendChild(rows);
      faulted.forEach(function (seat) {
        var f = self.faults[seat];
        box.appendChild(el("p", { class: "fault reason", role: "alert", text: self.seatName(parseInt(seat, 10)) + " faulted here (" + f.kind + "): " + f.reason }));
      });
    }
    var from = step === 0 ? 0 : this.eventMarks[step - 1];
    var to = this.eventMarks[step];
    var list = el("ul", { class: "events" });
    this.events.slice(from, to).forEach(function (event) { list.appendChild(self.eventItem(event)); });
    if (!list.childNodes.length) list.appendChild(el("li", { class: "muted", text: "no event" }));
    box.appendChild(el("h4", { text: "What happened" }));
    box.appendChild(list);
  };

  Viewer.prototype.eventItem = function (event) {
    var li = el("li", null, [el("strong", { text: String(event.type || "?") })]);
    var self = this;
    Object.keys(event).forEach(function (key) {
      if (key === "type") return;
      var value = event[key];
      var text = key === "seat" && typeof value === "number" ? self.seatName(value) : shortText(value);
      // "seat 2 · bot" already names itself; other keys get their name in front.
      if (!(key === "seat" && typeof value === "number")) li.appendChild(document.createTextNode(" " + key.replace(/_/g, " ")));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("span", { class: "ev-value", text: text }));
    });
    return li;
  };

  Viewer.prototype.remember = function (step) {
    var url = new URL(window.location.href);
    url.searchParams.delete("move");
    url.hash = "move=" + step;
    history.replaceState(null, "", url.toString());
    document.querySelectorAll(".seat-switch a").forEach(function (a) {
      var target = new URL(a.href, window.location.href);
      target.hash = "move=" + step;
      a.href = target.toString();
    });
  };

  function startingStep() {
    var fromHash = /(?:^#|&)move=(\d+)/.exec(window.location.hash);
    if (fromHash) return parseInt(fromHash[1], 10);
    var fromQuery = new URL(window.location.href).searchParams.get("move");
    return fromQuery && /^\d+$/.test(fromQuery) ? parseInt(fromQuery, 10) : 0;
  }

  function query(url) {
    return viewer === null ? url : url + "?seat=" + viewer;
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body.detail || "the server answered " + response.status);
        return body;
      });
    });
  }

  Promise.all([getJSON(query(config.framesUrl)), getJSON(query(config.replayUrl))])
    .then(function (answers) {
      if (!answers[0].frames.length) {
        root.textContent = "";
        root.appendChild(el("p", { class: "muted", text: "Nothing to replay yet: the match has no recorded moves." }));
        return;
      }
      var view = new Viewer(answers[0], answers[1]);
      view.build();
      view.show(startingStep());
      root.setAttribute("data-ready", "true");
      window.addEventListener("hashchange", function () { view.show(startingStep()); });
    })
    .catch(function (error) {
      root.textContent = "";
      root.appendChild(el("p", { class: "fault", text: "The replay could not be drawn: " + error.message + ". The text log below still has every event." }));
    });
})();
