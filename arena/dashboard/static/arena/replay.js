/* The replay viewer: one generic renderer for every game.
 *
 * It reads two answers of the API: /api/matches/<id>/frames/?seat=N (the table as that
 * seat saw it after each move, cut to the keys the game's layout names, plus the layout)
 * and /api/matches/<id>/replay/?seat=N (that seat's events, and the moves with their
 * times). The layout (arena/dashboard/frame_layouts.py) says which keys are hands, piles, chips...
 * Nothing here knows a particular game.
 */
(function () {
  "use strict";

  var root = document.getElementById("replay");
  var configNode = document.getElementById("replay-config");
  if (!root || !configNode) return;
  var config = JSON.parse(configNode.textContent);
  var viewer = config.seat; // null: spectator

  // ---- small DOM helpers ------------------------------------------------------------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (name) {
        var value = attrs[name];
        if (value === null || value === undefined || value === false) return;
        if (name === "text") node.textContent = value;
        else if (name === "class") node.className = value;
        else node.setAttribute(name, value === true ? "" : value);
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function shortText(value) {
    if (value === null || value === undefined) return "—";
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value === "string" && FRENCH.test(value)) return (RANK_TEXT[value[0]] || value[0]) + SUITS[value[1]][0];
    if (typeof value !== "object") return String(value);
    if (Array.isArray(value)) {
      if (!value.length) return "none";
      return value.map(function (item) { return Array.isArray(item) ? "[" + shortText(item) + "]" : shortText(item); }).join(", ");
    }
    return Object.keys(value)
      .map(function (k) { return k.replace(/_/g, " ") + ": " + shortText(value[k]); })
      .join("; ");
  }

  // ---- card faces ---------------------------------------------------------------------
  var SUITS = {
    C: ["\u2663", "black", "clubs"],
    D: ["\u2666", "red", "diamonds"],
    H: ["\u2665", "red", "hearts"],
    S: ["\u2660", "black", "spades"],
  };
  var RANK_TEXT = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
  var RANK_NAME = { A: "ace", T: "ten", J: "jack", Q: "queen", K: "king" };
  var FRENCH = /^[A2-9TJQK][CDHS]$/;
  // Pip positions on a 3x3 grid, for die faces 1 to 6.
  var PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

  function frenchName(value) {
    var rank = RANK_NAME[value[0]] || value[0];
    return rank + " of " + SUITS[value[1]][2];
  }

  function cardFace(value, deck, dice) {
    if (typeof value === "string" && FRENCH.test(value)) {
      var suit = SUITS[value[1]];
      return el("span", { class: "pc french " + suit[1], role: "img", "aria-label": frenchName(value), title: frenchName(value) }, [
        el("span", { class: "r", text: RANK_TEXT[value[0]] || value[0] }),
        el("span", { class: "s", "aria-hidden": "true", text: suit[0] }),
      ]);
    }
    if (dice && typeof value === "number") {
      var die = el("span", { class: "pc die", role: "img", "aria-label": "die showing " + value, title: "die: " + value });
      if (PIPS[value]) {
        for (var i = 0; i < 9; i++) die.appendChild(el("span", { class: PIPS[value].indexOf(i) >= 0 ? "pip on" : "pip" }));
      } else {
        die.classList.add("big");
        die.appendChild(el("span", { class: "r", text: String(value) }));
      }
      return die;
    }
    if (typeof value === "number" && deck === "punk") {
      var label = value === 1 ? "A" : String(value);
      return el("span", { class: "pc punk", role: "img", "aria-label": "card " + (value === 1 ? "ace" : value), title: "card " + label }, [
        el("span", { class: "r", text: label }),
      ]);
    }
    if (typeof value === "number") {
      return el("span", { class: "pc pairs v" + Math.max(1, Math.min(10, value)), role: "img", "aria-label": "card " + value, title: "card " + value }, [
        el("span", { class: "r", text: String(value) }),
      ]);
    }
    return el("span", { class: "pc odd", text: shortText(value) });
  }

  function cardBack(count) {
    var shown = Math.min(count, 8);
    var row = el("span", { class: "cards backs", role: "img", "aria-label": count + " face-down card" + (count === 1 ? "" : "s") });
    for (var i = 0; i < shown; i++) row.appendChild(el("span", { class: "pc back", "aria-hidden": "true" }));
    if (count > shown || count === 0) row.appendChild(el("span", { class: "more", "aria-hidden": "true", text: count === 0 ? "none" : "×" + count }));
    return row;
  }

  // ---- values by kind -------------------------------------------------------------------
  function cardsRow(value, ctx) {
    if (value === null || value === undefined) return el("span", { class: "muted", text: "—" });
    var list = Array.isArray(value) ? value : [value];
    if (!list.length) return el("span", { class: "muted", text: "none" });
    var row = el("span", { class: "cards" });
    list.forEach(function (card) { row.appendChild(cardFace(card, ctx.deck, ctx.dice)); });
    return row;
  }

  function groups(value, ctx) {
    if (!Array.isArray(value) || !value.length) return el("span", { class: "muted", text: "none" });
    var box = el("span", { class: "groups" });
    value.forEach(function (group) {
      var slot = el("span", { class: "group" });
      slot.appendChild(Array.isArray(group) && group.length ? cardsRow(group, ctx) : el("span", { class: "muted", text: "empty" }));
      box.appendChild(slot);
    });
    return box;
  }

  function render(kind, value, ctx) {
    switch (kind) {
      case "cards":
        return cardsRow(value, ctx);
      case "groups":
        return groups(value, ctx);
      case "last-groups":
        return groups(Array.isArray(value) && value.length ? value[value.length - 1] : [], ctx);
      case "plays": {
        if (!Array.isArray(value) || !value.length) return el("span", { class: "muted", text: "none" });
        var box = el("span", { class: "groups" });
        value.forEach(function (play) {
          box.appendChild(el("span", { class: "group" }, [el("span", { class: "who", text: ctx.seatName(play[0]) }), cardsRow(play[1], ctx)]));
        });
        return box;
      }
      case "count":
        return typeof value === "number" ? cardBack(value) : el("span", { text: shortText(value) });
      case "chips":
        return el("span", { class: "chips" }, [el("span", { class: "chip", "aria-hidden": "true" }), shortText(value)]);
      default:
        return el("span", { class: "value", text: shortText(value) });
    }
  }

  function actingSeats(frame) {
    var acting = frame.to_act;
    if (acting === undefined && typeof frame.turn === "number") acting = [frame.turn];
    if (typeof acting === "number") acting = [acting];
    return Array.isArray(acting) ? acting : [];
  }

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
    var info = this.info;
    info.textContent = "";
    this.layout.info.forEach(function (entry) {
      var value = frame[entry.key];
      if (value === undefined || value === null) return;
      info.appendChild(el("span", { class: "item" }, [el("span", { class: "label", text: entry.label + " " }), render(entry.kind, value, ctx)]));
    });
  };

  Viewer.prototype.drawCentre = function (frame, ctx) {
    var centre = this.centre;
    centre.textContent = "";
    this.layout.centre.forEach(function (entry) {
      var value = frame[entry.key];
      if (value === undefined) return;
      centre.appendChild(el("div", { class: "pile", "data-key": entry.key }, [el("div", { class: "label", text: entry.label }), render(entry.kind, value, ctx)]));
    });
  };

  Viewer.prototype.seatCount = function (frame) {
    var count = Math.max(this.seats.length, typeof frame.players === "number" ? frame.players : 0);
    var perSeat = this.layout.seats.map(function (e) { return e.key; });
    if (this.layout.hand) perSeat.push(this.layout.hand.count);
    perSeat.forEach(function (key) {
      if (Array.isArray(frame[key])) count = Math.max(count, frame[key].length);
    });
    return count;
  };

  Viewer.prototype.drawSeats = function (frame, ctx, step) {
    var acting = actingSeats(frame);
    var box = this.seatBox;
    box.textContent = "";
    var hand = this.layout.hand;
    for (var seat = 0; seat < this.seatCount(frame); seat++) {
      var tags = el("span", { class: "tags" });
      if (acting.indexOf(seat) >= 0) tags.appendChild(el("span", { class: "tag acting", text: "to act" }));
      if (frame.dealer === seat) tags.appendChild(el("span", { class: "tag", text: "dealer" }));
      if (Array.isArray(frame.teams)) {
        frame.teams.forEach(function (team, t) {
          if (Array.isArray(team) && team.indexOf(seat) >= 0) tags.appendChild(el("span", { class: "tag", text: "team " + (t + 1) }));
        });
      }
      if (viewer === seat) tags.appendChild(el("span", { class: "tag you", text: "this view" }));
      var fault = this.faults[seat];
      if (fault && (typeof fault.move !== "number" || fault.move < step)) {
        tags.appendChild(el("span", { class: "tag fault", title: fault.reason, text: "faulted: " + fault.kind }));
      }
      var panel = el("div", { class: "seat" + (acting.indexOf(seat) >= 0 ? " acting" : "") + (viewer === seat ? " mine" : ""), "data-seat": String(seat) }, [
        el("div", { class: "seat-name" }, [el("strong", { text: this.seatName(seat) }), tags]),
      ]);
      if (hand) {
        var own = viewer === seat ? frame[hand.key] : undefined;
        var counts = frame[hand.count];
        var content;
        if (Array.isArray(own)) content = cardsRow(own, ctx);
        else if (Array.isArray(counts) && typeof counts[seat] === "number") content = cardBack(counts[seat]);
        if (content) panel.appendChild(el("div", { class: "row hand" }, [el("span", { class: "label", text: "Hand" }), content]));
      }
      this.layout.seats.forEach(function (entry) {
        var values = frame[entry.key];
        if (!Array.isArray(values) || seat >= values.length) return;
        var value = values[seat];
        if (entry.kind === "flag") {
          panel.appendChild(el("div", { class: "row" }, [el("span", { class: "flag " + (value ? "on" : "off"), text: entry.label + (value ? "" : ": no") })]));
          return;
        }
        panel.appendChild(el("div", { class: "row", "data-key": entry.key }, [el("span", { class: "label", text: entry.label }), render(entry.kind, value, ctx)]));
      });
      box.appendChild(panel);
    }
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
