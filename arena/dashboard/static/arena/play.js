/* A game against bots, live: the table as your seat sees it (table.js draws it, as in the
 * replay viewer), your legal moves as buttons (and the keys 1 to 9), your clock, what the
 * bots did since your last move, and the result.
 *
 * It reads /api/human-games/<id>/ (your view: the engine's observation for your seat) about
 * every second while the bots move, and posts your move to .../act/ with the turn it
 * answers, so a click made on a page that fell behind is refused rather than misplaced.
 * Leaving the page and coming back resumes the game: everything drawn comes from that answer.
 */
(function () {
  "use strict";

  var T = window.ArenaTable;
  var configNode = document.getElementById("play-config");
  if (!T || !configNode) return;
  var config = JSON.parse(configNode.textContent);
  var el = T.el;
  var statusBox = document.getElementById("play-status");
  var clockBox = document.getElementById("play-clock");
  var actionsBox = document.getElementById("play-actions");
  var errorBox = document.getElementById("play-error");
  var sinceBox = document.getElementById("play-since");
  var resultBox = document.getElementById("play-result");
  var resignButton = document.getElementById("play-resign");
  var csrf = document.getElementById("play-csrf").value;
  var root = document.getElementById("play");

  var state = null; // the latest answer
  var shownTurn = null; // the turn whose buttons are drawn
  var deadline = null; // when your time runs out, in this browser's clock
  var timer = null;
  var sending = false;

  function seatName(seat) {
    var info = state && state.seats[seat];
    if (!info) return "seat " + (seat + 1);
    return "seat " + (seat + 1) + " · " + (seat === config.seat ? "you" : info.name);
  }

  function request(method, url, body) {
    var options = { method: method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (method !== "GET") {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRFToken"] = csrf;
      options.body = JSON.stringify(body || {});
    }
    return fetch(url, options).then(function (response) {
      return response.json().then(function (data) {
        return { ok: response.ok, status: response.status, data: data };
      });
    });
  }

  // ---- drawing ------------------------------------------------------------------------
  function faultsOf(answer) {
    var faults = {};
    ((answer.result && answer.result.seats) || []).forEach(function (seat, i) {
      if (seat.fault) faults[i] = seat.fault;
    });
    return faults;
  }

  function drawTable(answer) {
    var frame = answer.observation || {};
    if (frame.to_act === undefined) frame = Object.assign({}, frame, { to_act: answer.to_act });
    var ctx = {
      deck: config.layout.deck,
      dice: config.layout.deck === "punk" && typeof frame.dice === "number" && frame.dice > 0,
      seatName: seatName,
    };
    T.drawInfo(document.getElementById("play-info"), config.layout, frame, ctx);
    T.drawCentre(document.getElementById("play-centre"), config.layout, frame, ctx);
    var view = {
      layout: config.layout,
      seats: answer.seats.map(function (s) { return { seat: s.seat, bot: s.name }; }),
      faults: faultsOf(answer),
      viewer: config.seat,
      seatName: seatName,
    };
    T.drawSeats(document.getElementById("play-seats"), view, frame, ctx, Infinity);
    return ctx;
  }

  // A move that is a card of your hand shows as that card; any other as short text.
  function actionLabel(action, ctx, hand) {
    var french = typeof action === "string" && /^[A2-9TJQK][CDHS]$/.test(action);
    var inHand = typeof action === "number" && Array.isArray(hand) && hand.indexOf(action) >= 0;
    if (french || inHand) return T.cardFace(action, ctx.deck, false);
    return el("span", { text: T.shortText(action) });
  }

  function drawActions(answer, ctx) {
    if (answer.status !== "your_turn") {
      actionsBox.textContent = "";
      shownTurn = null;
      return;
    }
    if (shownTurn === answer.turn) return; // the same buttons: keep the focus where it is
    shownTurn = answer.turn;
    var hadFocus = actionsBox.contains(document.activeElement) || document.activeElement === document.body;
    actionsBox.textContent = "";
    answer.legal.forEach(function (action, index) {
      // The accessible name is the visible text: the key's number, then the move.
      var button = el("button", { type: "button", class: "act", "data-index": String(index), title: "Play " + T.shortText(action) + (index < 9 ? " (key " + (index + 1) + ")" : "") }, [
        index < 9 ? el("span", { class: "key", "aria-hidden": "true", text: String(index + 1) }) : null,
        actionLabel(action, ctx, config.layout.hand && (answer.observation || {})[config.layout.hand.key]),
      ]);
      button.addEventListener("click", function () { act(answer.turn, action); });
      actionsBox.appendChild(button);
    });
    if (hadFocus && actionsBox.firstChild) actionsBox.firstChild.focus();
  }

  function eventItem(event) {
    var li = el("li", null, [el("strong", { text: String(event.type || "?") })]);
    Object.keys(event).forEach(function (key) {
      if (key === "type") return;
      var value = event[key];
      var text = key === "seat" && typeof value === "number" ? seatName(value) : T.shortText(value);
      if (!(key === "seat" && typeof value === "number")) li.appendChild(document.createTextNode(" " + key.replace(/_/g, " ")));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("span", { class: "ev-value", text: text }));
    });
    return li;
  }

  function drawSince(answer) {
    sinceBox.textContent = "";
    var events = answer.events;
    events.slice(-40).forEach(function (event) { sinceBox.appendChild(eventItem(event)); });
    if (!events.length) sinceBox.appendChild(el("li", { class: "muted", text: "Nothing yet." }));
  }

  function drawResult(answer) {
    resultBox.textContent = "";
    if (answer.status !== "finished" && answer.status !== "ended") return;
    resignButton.hidden = true;
    if (answer.status === "finished") {
      var mine = answer.result.seats[config.seat];
      resultBox.appendChild(el("h2", { class: "h3", id: "play-outcome", text: mine.rank === 1 ? "You won" : "You came " + ordinal(mine.rank) + " of " + answer.players }));
      var table = el("table", { id: "play-ranks" }, [el("tr", null, [
        el("th", { scope: "col", text: "Rank" }), el("th", { scope: "col", text: "Seat" }), el("th", { scope: "col", text: "Score" }),
      ])]);
      answer.result.seats.forEach(function (seat, i) {
        var note = seat.fault ? " (" + seat.fault.kind + ": " + seat.fault.reason + ")" : "";
        table.appendChild(el("tr", { class: i === config.seat ? "mine" : null }, [
          el("td", { text: String(seat.rank) }), el("td", { text: seatName(i) + note }), el("td", { text: String(seat.score) }),
        ]));
      });
      resultBox.appendChild(el("div", { class: "table-wrap play-result", tabindex: "0", role: "region", "aria-label": "Final ranks" }, [table]));
    }
    var again = el("button", { type: "button", id: "play-again", text: "Play again (same seats)" });
    again.addEventListener("click", rematch);
    var replay = el("a", { href: config.matchUrl + "?seat=" + config.seat, text: "Watch the replay" });
    resultBox.appendChild(el("p", { class: "play-tools" }, [again, replay]));
  }

  function ordinal(n) {
    var s = ["th", "st", "nd", "rd"], v = n % 100;
    return n + (s[(v - 20) % 10] || s[v] || s[0]);
  }

  function tick() {
    if (!deadline) {
      clockBox.textContent = state && state.status === "waiting" ? "Your time: " + clockText(state.move_seconds) + " a move" : "";
      clockBox.classList.remove("low");
      return;
    }
    var left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    clockBox.textContent = "Time left for this move: " + clockText(left);
    clockBox.classList.toggle("low", left <= 30);
  }

  function clockText(seconds) {
    var m = Math.floor(seconds / 60), s = seconds % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function draw(answer) {
    var before = state && state.status;
    state = answer;
    var ctx = drawTable(answer);
    var text = answer.status === "your_turn" ? "Your turn (move " + answer.turn + ")." : answer.message;
    if (answer.status === "finished") text = "The game is over.";
    if (answer.resigned && answer.status !== "finished") text = "You resigned; the game ends at your next turn.";
    statusBox.textContent = text;
    statusBox.classList.toggle("yours", answer.status === "your_turn");
    deadline = answer.status === "your_turn" && typeof answer.seconds_left === "number" ? Date.now() + answer.seconds_left * 1000 : null;
    tick();
    drawActions(answer, ctx);
    drawSince(answer);
    if (answer.status !== before) drawResult(answer);
    root.setAttribute("data-status", answer.status);
    root.setAttribute("data-turn", answer.turn === null ? "" : String(answer.turn));
  }

  // ---- talking to the server ----------------------------------------------------------
  function poll() {
    clearTimeout(timer);
    request("GET", config.gameUrl).then(function (reply) {
      if (!reply.ok) throw new Error(reply.data.detail || "the server answered " + reply.status);
      errorBox.textContent = "";
      draw(reply.data);
      schedule(reply.data.status);
    }).catch(function (error) {
      errorBox.textContent = "Could not reach the server (" + error.message + "); trying again.";
      timer = setTimeout(poll, 3000);
    });
  }

  function schedule(status) {
    if (status === "finished" || status === "ended") return;
    // On your turn nothing moves but your clock (which ticks here): look now and then, in
    // case the time ran out; otherwise the bots' moves show within a second.
    timer = setTimeout(poll, status === "your_turn" ? 5000 : 700);
  }

  function act(turn, action) {
    if (sending) return;
    sending = true;
    Array.prototype.forEach.call(actionsBox.querySelectorAll("button"), function (b) { b.disabled = true; });
    statusBox.textContent = "Sending your move…";
    request("POST", config.actUrl, { action: action, turn: turn }).then(function (reply) {
      sending = false;
      shownTurn = null;
      if (!reply.ok) errorBox.textContent = reply.data.detail || "Your move was refused.";
      else errorBox.textContent = "";
      if (reply.ok) {
        draw(reply.data);
        clearTimeout(timer);
        timer = setTimeout(poll, 250);
      } else poll();
    }).catch(function () {
      sending = false;
      shownTurn = null;
      errorBox.textContent = "Your move could not be sent; try again.";
      poll();
    });
  }

  function resign() {
    if (!window.confirm("Resign this game? You rank last.")) return;
    request("POST", config.resignUrl).then(function (reply) {
      if (!reply.ok) errorBox.textContent = reply.data.detail || "Could not resign.";
      poll();
    });
  }

  function rematch() {
    request("POST", config.rematchUrl).then(function (reply) {
      if (!reply.ok) {
        errorBox.textContent = reply.data.detail || "Could not start another game.";
        return;
      }
      window.location.href = config.playUrl.replace("{id}", String(reply.data.id));
    });
  }

  resignButton.addEventListener("click", resign);
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (!/^[1-9]$/.test(event.key)) return;
    var button = actionsBox.querySelector('button[data-index="' + (parseInt(event.key, 10) - 1) + '"]');
    if (button && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  });
  setInterval(tick, 1000);
  poll();
})();
