/* The rating chart of a bot page: Elo after each rated match, one line per version,
 * axes with Elo and dates, and the value under the pointer (or under the arrow keys).
 * Drawn at the width the page gives it, again when that width changes. */
(function () {
  "use strict";

  var box = document.getElementById("rating-chart");
  var dataNode = document.getElementById("rating-data");
  var tip = document.getElementById("rating-tip");
  if (!box || !dataNode) return;
  var data = JSON.parse(dataNode.textContent);
  var points = data.points;
  var SVG = "http://www.w3.org/2000/svg";
  var COLOURS = ["#2446b8", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0e7490", "#a16207", "#be185d"];
  var selected = points.length - 1;

  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function colour(version) {
    return COLOURS[data.versions.indexOf(version) % COLOURS.length];
  }

  function niceStep(span, wanted) {
    var raw = span / Math.max(1, wanted);
    var power = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * power >= raw) return steps[i] * power;
    return 10 * power;
  }

  function pad(n) { return n < 10 ? "0" + n : String(n); }

  function dateText(iso, withTime) {
    if (!iso) return "";
    var d = new Date(iso);
    var day = d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate());
    return withTime ? day + " " + pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) : day;
  }

  function draw() {
    var width = Math.max(260, box.clientWidth);
    var narrow = width < 500;
    var height = narrow ? 220 : 280;
    var m = { left: 46, right: 12, top: 12, bottom: 40 };
    var plotW = width - m.left - m.right;
    var plotH = height - m.top - m.bottom;
    var elos = points.map(function (p) { return p.elo; });
    var low = Math.min.apply(null, elos);
    var high = Math.max.apply(null, elos);
    if (high - low < 20) { low -= 10; high += 10; }
    var step = niceStep(high - low, narrow ? 4 : 6);
    low = Math.floor(low / step) * step;
    high = Math.ceil(high / step) * step;
    var x = function (i) { return m.left + (points.length > 1 ? (i * plotW) / (points.length - 1) : plotW / 2); };
    var y = function (elo) { return m.top + plotH - ((elo - low) / (high - low)) * plotH; };

    var chart = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, "aria-hidden": "true", focusable: "false" });
    chart.appendChild(svg("rect", { x: m.left, y: m.top, width: plotW, height: plotH, fill: "#fff", stroke: "#c9cedd" }));
    for (var v = low; v <= high + 1e-9; v += step) {
      chart.appendChild(svg("line", { x1: m.left, x2: m.left + plotW, y1: y(v), y2: y(v), stroke: "#e3e6ef" }));
      chart.appendChild(svg("text", { x: m.left - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 12, fill: "#3b4257" }, String(Math.round(v))));
    }
    chart.appendChild(svg("text", { x: 12, y: m.top + plotH / 2, transform: "rotate(-90 12 " + (m.top + plotH / 2) + ")", "text-anchor": "middle", "font-size": 12, fill: "#3b4257" }, "Elo"));

    // Date ticks: as many as fit; with the time of day when every match fell on one day.
    var first = points[0].at, last = points[points.length - 1].at;
    var oneDay = first && last && dateText(first) === dateText(last);
    var ticks = Math.max(1, Math.min(points.length, Math.floor(plotW / (oneDay ? 70 : 95))));
    var used = {};
    for (var t = 0; t < ticks; t++) {
      var i = ticks === 1 ? points.length - 1 : Math.round((t * (points.length - 1)) / (ticks - 1));
      var label = oneDay ? dateText(points[i].at, true).slice(11) : dateText(points[i].at);
      if (used[i] || used[label]) continue; // one label per date: bursts of matches share one
      used[i] = used[label] = true;
      var anchor = t === 0 && ticks > 1 ? "start" : t === ticks - 1 && ticks > 1 ? "end" : "middle";
      chart.appendChild(svg("line", { x1: x(i), x2: x(i), y1: m.top + plotH, y2: m.top + plotH + 4, stroke: "#3b4257" }));
      chart.appendChild(svg("text", { x: x(i), y: m.top + plotH + 17, "text-anchor": anchor, "font-size": 12, fill: "#3b4257" }, label));
    }
    chart.appendChild(svg("text", { x: m.left + plotW / 2, y: height - 4, "text-anchor": "middle", "font-size": 12, fill: "#3b4257" },
      oneDay ? "rated matches on " + dateText(first) + " (UTC)" : "rated matches by date (UTC)"));

    // One line per version: a version change is a new line, never a drawn jump.
    data.versions.forEach(function (version) {
      var mine = [];
      points.forEach(function (p, i) { if (p.version === version) mine.push(x(i).toFixed(1) + "," + y(p.elo).toFixed(1)); });
      chart.appendChild(svg("polyline", { points: mine.join(" "), fill: "none", stroke: colour(version), "stroke-width": 2, class: "series", "data-version": version }));
    });
    points.forEach(function (p, i) {
      chart.appendChild(svg("circle", { cx: x(i), cy: y(p.elo), r: points.length > 80 ? 2 : 3.5, fill: colour(p.version), class: "point", "data-i": i }));
    });
    var marker = svg("circle", { r: 6, fill: "none", stroke: "#111", "stroke-width": 2, class: "marker" });
    chart.appendChild(marker);

    box.textContent = "";
    box.appendChild(chart);
    var legend = document.createElement("p");
    legend.className = "legend";
    data.versions.forEach(function (version) {
      var item = document.createElement("span");
      var swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = colour(version);
      item.appendChild(swatch);
      item.appendChild(document.createTextNode("v" + version));
      legend.appendChild(item);
    });
    box.appendChild(legend);

    function pick(i) {
      selected = Math.max(0, Math.min(points.length - 1, i));
      var p = points[selected];
      marker.setAttribute("cx", x(selected));
      marker.setAttribute("cy", y(p.elo));
      var sign = p.change > 0 ? "+" : "";
      tip.textContent = "v" + p.version + " · Elo " + p.elo.toFixed(1) + " (" + sign + p.change.toFixed(1) + ") · match #" + p.match + " · " + dateText(p.at, true) + " UTC";
    }
    chart.addEventListener("pointermove", function (event) {
      var rect = chart.getBoundingClientRect();
      var at = event.clientX - rect.left - m.left;
      pick(points.length > 1 ? Math.round((at / plotW) * (points.length - 1)) : 0);
    });
    box.onkeydown = function (event) {
      var moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
      if (!(event.key in moves)) return;
      event.preventDefault();
      var by = moves[event.key];
      pick(by === -Infinity ? 0 : by === Infinity ? points.length - 1 : selected + by);
    };
    pick(selected);
  }

  box.setAttribute("tabindex", "0");
  draw();
  var lastWidth = box.clientWidth;
  window.addEventListener("resize", function () {
    if (box.clientWidth !== lastWidth) { lastWidth = box.clientWidth; draw(); }
  });
})();
