(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("kscale-data").textContent);
  var palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
  var kinds = {"scale-up": "#2ca02c", "scale-down": "#1f77b4", "drain": "#9467bd", "backoff": "#ff7f0e",
    "failure": "#d62728", "mismatch": "#e377c2", "scenario": "#555555"};
  var dpr = window.devicePixelRatio || 1;
  var width = Math.max(600, Math.min(1150, document.body.clientWidth));
  var charts = [];
  var syncing = false;

  function color(i) { return palette[i % palette.length]; }
  function alpha(c, a) {
    var n = parseInt(c.slice(1), 16);
    return "rgba(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + a + ")";
  }
  function dur(s) {
    s = Math.round(s);
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), x = s % 60, out = "";
    if (h) { out += h + "h"; }
    if (m) { out += m + "m"; }
    if (x || !out) { out += x + "s"; }
    return out;
  }
  function num(v, digits) {
    if (v == null) { return "-"; }
    return Number(v).toLocaleString("en-US", {maximumFractionDigits: digits});
  }

  var key = document.getElementById("marker-key");
  Object.keys(kinds).forEach(function (k) {
    var s = document.createElement("span"), i = document.createElement("i");
    i.style.background = kinds[k];
    s.appendChild(i);
    s.appendChild(document.createTextNode(k));
    key.appendChild(s);
  });

  // markers draws the timeline events as vertical lines with a tick on
  // top, and lists the events under the cursor in the read-out element.
  function markers(readout) {
    return {hooks: {
      draw: [function (u) {
        var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
        ctx.save();
        D.markers.forEach(function (m) {
          if (m.t < u.scales.x.min || m.t > u.scales.x.max) { return; }
          var x = Math.round(u.valToPos(m.t, "x", true));
          ctx.strokeStyle = kinds[m.kind];
          ctx.fillStyle = kinds[m.kind];
          ctx.globalAlpha = 0.45;
          ctx.lineWidth = dpr;
          ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
          ctx.globalAlpha = 1;
          ctx.beginPath(); ctx.moveTo(x - 4 * dpr, top); ctx.lineTo(x + 4 * dpr, top); ctx.lineTo(x, top + 7 * dpr); ctx.fill();
        });
        ctx.restore();
      }],
      setCursor: [function (u) {
        if (!readout) { return; }
        var left = u.cursor.left;
        if (left == null || left < 0) { readout.textContent = ""; return; }
        var near = D.markers.filter(function (m) { return Math.abs(u.valToPos(m.t, "x") - left) <= 4; });
        var lines = near.slice(0, 6).map(function (m) { return dur(m.t) + "  " + m.text; });
        if (near.length > 6) { lines.push("... " + (near.length - 6) + " more at this point"); }
        readout.textContent = lines.join("\n");
      }]
    }};
  }

  // shade draws spans (seconds) as a background under the series.
  function shade(spans, c) {
    return {hooks: {drawClear: [function (u) {
      var ctx = u.ctx;
      ctx.save();
      ctx.fillStyle = c;
      spans.forEach(function (s) {
        var a = u.valToPos(Math.max(s[0], u.scales.x.min), "x", true), b = u.valToPos(Math.min(s[1], u.scales.x.max), "x", true);
        if (b > a) { ctx.fillRect(a, u.bbox.top, b - a, u.bbox.height); }
      });
      ctx.restore();
    }]}};
  }

  function syncZoom(u, scale) {
    if (scale !== "x" || syncing) { return; }
    syncing = true;
    charts.forEach(function (c) {
      if (c !== u && c.kscaleTime) { c.setScale("x", {min: u.scales.x.min, max: u.scales.x.max}); }
    });
    syncing = false;
  }

  var grid = {stroke: "#e6e6e6", width: 1};
  var timeAxis = {grid: grid, space: 70,
    incrs: [1, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800],
    values: function (u, splits) { return splits.map(dur); }};
  function yAxis(label, fmt, side) {
    var a = {label: label, grid: side ? {show: false} : grid, size: 64, labelSize: 18, side: side || 3};
    a.values = function (u, splits) { return splits.map(fmt || function (v) { return num(v, 2); }); };
    if (side) { a.scale = "pct"; }
    return a;
  }

  // timeChart draws series against D.t in the element with the id.
  function timeChart(id, opts, series, data, w, h) {
    var el = document.getElementById(id);
    if (!el) { return null; }
    var readout = document.getElementById(id + "-events");
    opts.width = w || width;
    opts.height = h || 260;
    opts.scales = opts.scales || {};
    opts.scales.x = {time: false, range: function () { return [0, D.duration]; }};
    opts.axes = [timeAxis].concat(opts.axes);
    opts.series = [{label: "time", value: function (u, v) { return v == null ? "-" : dur(v); }}].concat(series);
    opts.cursor = {sync: {key: "time", setSeries: false}, drag: {x: true, y: false}};
    opts.plugins = (opts.plugins || []).concat([markers(readout)]);
    opts.hooks = {setScale: [syncZoom]};
    var u = new uPlot(opts, [D.t].concat(data), el);
    u.kscaleTime = true;
    charts.push(u);
    el.setAttribute("data-points", String(D.t.length));
    el.setAttribute("data-series", String(series.length));
    return u;
  }

  // stacked draws per-group values stacked, with the legend and hover
  // showing each group's own value.
  function stacked(id, label, values, digits) {
    var acc = D.t.map(function () { return 0; }), data = [], series = [], bands = [];
    values.forEach(function (vals, i) {
      acc = acc.map(function (a, j) { return a + (vals[j] || 0); });
      data.push(acc.slice());
      series.push({label: D.groups[i].name, stroke: color(i), width: 1.5, fill: alpha(color(i), 0.35),
        value: function (u, v, si, idx) { return idx == null ? "-" : num(vals[idx], digits); }});
      if (i > 0) { bands.push({series: [i + 1, i], fill: alpha(color(i), 0.35)}); }
    });
    var total = {label: "total", stroke: "#222", width: 0, points: {show: false},
      value: function (u, v, si, idx) { return idx == null ? "-" : num(acc[idx], digits); }};
    return timeChart(id, {bands: bands, axes: [yAxis(label)], scales: {y: {range: function (u, mn, mx) { return [0, Math.max(1, mx * 1.05)]; }}}},
      series.concat([total]), data.concat([acc]));
  }

  var yZero = {range: function (u, mn, mx) { return [0, Math.max(1, mx * 1.1)]; }};
  stacked("nodes-chart", "nodes", D.groups.map(function (g) { return g.nodes; }), 0);

  var multiples = document.getElementById("group-charts");
  var mw = D.groups.length > 1 ? Math.floor((width - 16) / 2) : width;
  D.groups.forEach(function (g, i) {
    var box = document.createElement("div"), title = document.createElement("h3"), el = document.createElement("div");
    title.textContent = g.name;
    el.id = "group-chart-" + i;
    el.setAttribute("data-group", g.name);
    box.appendChild(title);
    box.appendChild(el);
    multiples.appendChild(box);
    timeChart(el.id, {axes: [yAxis("nodes", function (v) { return num(v, 0); })], scales: {y: yZero},
      plugins: [shade(g.backoff, "rgba(255,127,14,0.15)")]},
      [{label: "target", stroke: color(i), width: 2, dash: [6, 4]},
       {label: "registered", stroke: color(i), width: 1.5},
       {label: "ready", stroke: "#333", width: 1}],
      [g.target, g.nodes, g.ready], mw, 170);
  });

  if (document.getElementById("cost-chart")) {
    stacked("cost-chart", "cost / hour", D.groups.map(function (g) {
      return g.nodes.map(function (n) { return n * g.price; });
    }), 2);
  }

  timeChart("pending-chart", {axes: [yAxis("pods", function (v) { return num(v, 0); })], scales: {y: yZero}},
    [{label: "pending pods", stroke: "#d62728", width: 1.5, fill: "rgba(214,39,40,0.1)"}], [D.pending]);

  function usage(id, unit, req, alloc) {
    var pct = req.map(function (r, i) { return alloc[i] > 0 ? 100 * r / alloc[i] : null; });
    timeChart(id, {axes: [yAxis(unit), yAxis("requested %", function (v) { return num(v, 0) + "%"; }, 1)],
      scales: {y: yZero, pct: {range: function () { return [0, 100]; }}}},
      [{label: "allocatable (" + unit + ")", stroke: "#1f77b4", width: 2, value: function (u, v) { return num(v, 1); }},
       {label: "requested (" + unit + ")", stroke: "#ff7f0e", width: 2, fill: "rgba(255,127,14,0.12)", value: function (u, v) { return num(v, 1); }},
       {label: "requested / allocatable", stroke: "#2ca02c", width: 1, dash: [3, 3], scale: "pct", value: function (u, v) { return v == null ? "-" : num(v, 0) + "%"; }}],
      [alloc, req, pct]);
  }
  usage("cpu-chart", "cores", D.cpuReq, D.cpuAlloc);
  usage("memory-chart", "GiB", D.memReq, D.memAlloc);

  var waitEl = document.getElementById("wait-chart");
  var xs = D.waits.labels.map(function (l, i) { return i; });
  var wait = new uPlot({width: width, height: 240,
    scales: {x: {time: false, range: function () { return [-0.5, xs.length - 0.5]; }}, y: yZero},
    axes: [{grid: {show: false}, space: 10, incrs: [1], values: function (u, splits) {
      return splits.map(function (s) { return D.waits.labels[s] || ""; }); }},
      yAxis("pods", function (v) { return num(v, 0); })],
    series: [{label: "waited", value: function (u, v) { return v == null ? "-" : D.waits.labels[v]; }},
      {label: "pods", stroke: "#1f77b4", fill: "rgba(31,119,180,0.5)", paths: uPlot.paths.bars({size: [0.7, 80]}), points: {show: false}}],
    cursor: {drag: {x: false, y: false}}}, [xs, D.waits.counts], waitEl);
  charts.push(wait);
  waitEl.setAttribute("data-points", String(xs.length));
  waitEl.setAttribute("data-total", String(D.waits.counts.reduce(function (a, b) { return a + b; }, 0)));

  // uPlot lays out and draws in a microtask; what follows runs after it.
  Promise.resolve().then(function () {
    charts.forEach(function (u) {
      u.root.parentNode.setAttribute("data-ymax", String(u.scales.y.max));
    });
    if (location.hash === "#probe") { probe(); }
    document.body.setAttribute("data-charts", String(charts.length));
    document.body.setAttribute("data-script", "ok");
  });

  function probe() {
    charts.forEach(function (u) {
      if (!u.kscaleTime) { return; }
      u.setCursor({left: u.valToPos(D.t[D.t.length - 1], "x"), top: 5});
      var vals = [];
      u.root.querySelectorAll(".u-legend .u-series").forEach(function (s) {
        var l = s.querySelector(".u-label"), v = s.querySelector(".u-value");
        vals.push((l ? l.textContent : "") + "=" + (v ? v.textContent : ""));
      });
      u.root.parentNode.setAttribute("data-legend", vals.join("|"));
    });
  }
})();
