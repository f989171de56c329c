/* The card table every game is drawn on: the replay viewer (replay.js) and the live game
 * against bots (play.js) share it. It draws one observation (cut to the game's layout keys
 * or whole) as arena/dashboard/frame_layouts.py lays it out; nothing here knows a game.
 */
(function () {
  "use strict";

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


  // ---- the table ---------------------------------------------------------------------
  function drawInfo(info, layout, frame, ctx) {
    info.textContent = "";
    layout.info.forEach(function (entry) {
      var value = frame[entry.key];
      if (value === undefined || value === null) return;
      info.appendChild(el("span", { class: "item" }, [el("span", { class: "label", text: entry.label + " " }), render(entry.kind, value, ctx)]));
    });
  }

  function drawCentre(centre, layout, frame, ctx) {
    centre.textContent = "";
    layout.centre.forEach(function (entry) {
      var value = frame[entry.key];
      if (value === undefined) return;
      centre.appendChild(el("div", { class: "pile", "data-key": entry.key }, [el("div", { class: "label", text: entry.label }), render(entry.kind, value, ctx)]));
    });
  }

  function seatCount(view, frame) {
    var count = Math.max(view.seats.length, typeof frame.players === "number" ? frame.players : 0);
    var perSeat = view.layout.seats.map(function (e) { return e.key; });
    if (view.layout.hand) perSeat.push(view.layout.hand.count);
    perSeat.forEach(function (key) {
      if (Array.isArray(frame[key])) count = Math.max(count, frame[key].length);
    });
    return count;
  }

  // ``view``: the layout, the seats' names (``seatName``), their faults, and whose view
  // this is (``viewer``, null for a spectator); ``step``: the moves played so far.
  function drawSeats(box, view, frame, ctx, step) {
    var acting = actingSeats(frame);
    var viewer = view.viewer;
    box.textContent = "";
    var hand = view.layout.hand;
    for (var seat = 0; seat < seatCount(view, frame); seat++) {
      var tags = el("span", { class: "tags" });
      if (acting.indexOf(seat) >= 0) tags.appendChild(el("span", { class: "tag acting", text: "to act" }));
      if (frame.dealer === seat) tags.appendChild(el("span", { class: "tag", text: "dealer" }));
      if (Array.isArray(frame.teams)) {
        frame.teams.forEach(function (team, t) {
          if (Array.isArray(team) && team.indexOf(seat) >= 0) tags.appendChild(el("span", { class: "tag", text: "team " + (t + 1) }));
        });
      }
      if (viewer === seat) tags.appendChild(el("span", { class: "tag you", text: "this view" }));
      var fault = view.faults[seat];
      if (fault && (typeof fault.move !== "number" || fault.move < step)) {
        tags.appendChild(el("span", { class: "tag fault", title: fault.reason, text: "faulted: " + fault.kind }));
      }
      var panel = el("div", { class: "seat" + (acting.indexOf(seat) >= 0 ? " acting" : "") + (viewer === seat ? " mine" : ""), "data-seat": String(seat) }, [
        el("div", { class: "seat-name" }, [el("strong", { text: view.seatName(seat) }), tags]),
      ]);
      if (hand) {
        var own = viewer === seat ? frame[hand.key] : undefined;
        var counts = frame[hand.count];
        var content;
        if (Array.isArray(own)) content = cardsRow(own, ctx);
        else if (Array.isArray(counts) && typeof counts[seat] === "number") content = cardBack(counts[seat]);
        if (content) panel.appendChild(el("div", { class: "row hand" }, [el("span", { class: "label", text: "Hand" }), content]));
      }
      view.layout.seats.forEach(function (entry) {
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
  }


  window.ArenaTable = {
    el: el,
    shortText: shortText,
    cardFace: cardFace,
    cardsRow: cardsRow,
    render: render,
    actingSeats: actingSeats,
    drawInfo: drawInfo,
    drawCentre: drawCentre,
    drawSeats: drawSeats,
  };
})();
