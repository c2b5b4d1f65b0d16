// multitrace report: the table of multitraces, filtered and paged in the page (no network).
(function () {
  "use strict";
  var VERDICTS = ["Pass", "WeakPass", "Fail", "Inconclusive", "Error"];
  var PAGE = 100;
  var reasons = JSON.parse(document.getElementById("mt-reasons").textContent);
  var raw = JSON.parse(document.getElementById("mt-rows").textContent);
  // Rows: [shared prefix length with the previous name in UTF-16 units (what `slice`
  // counts), rest of the name, verdict, reason,
  // time in µs, explanation or 0, index of the failure shown in full or -1].
  var rows = new Array(raw.length);
  var prev = "";
  for (var i = 0; i < raw.length; i++) {
    var x = raw[i];
    var name = prev.slice(0, x[0]) + x[1];
    prev = name;
    rows[i] = { i: i, name: name, v: x[2], r: x[3], t: x[4], e: x[5] || "", f: x[6] };
  }
  raw = null;
  var state = { verdict: "all", query: "", page: 0 };
  var body = document.getElementById("mt-tbody");
  var info = document.getElementById("mt-pageinfo");
  var shown = [];

  function matches(r) {
    if (state.verdict !== "all" && VERDICTS[r.v] !== state.verdict) return false;
    if (state.query && r.name.toLowerCase().indexOf(state.query) < 0 &&
        r.e.toLowerCase().indexOf(state.query) < 0) return false;
    return true;
  }

  function cell(tr, cls, text) {
    var td = document.createElement("td");
    if (cls) td.className = cls;
    if (text !== undefined) td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function time(us) {
    if (us < 1000) return us + " µs";
    if (us < 1e6) return (us / 1000).toFixed(us < 1e4 ? 2 : 1) + " ms";
    return (us / 1e6).toFixed(2) + " s";
  }

  function render() {
    shown = rows.filter(matches);
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    var start = state.page * PAGE;
    var frag = document.createDocumentFragment();
    shown.slice(start, start + PAGE).forEach(function (r) {
      var tr = document.createElement("tr");
      tr.className = "row v-row-" + VERDICTS[r.v];
      tr.dataset.verdict = VERDICTS[r.v];
      cell(tr, "i", String(r.i + 1));
      var n = cell(tr, "name");
      n.title = r.name;
      if (r.f >= 0) {
        var a = document.createElement("a");
        a.href = "#f" + r.f;
        a.textContent = r.name;
        n.appendChild(a);
      } else {
        n.textContent = r.name;
      }
      var v = cell(tr, "v");
      var b = document.createElement("span");
      b.className = "badge v-" + VERDICTS[r.v];
      b.textContent = VERDICTS[r.v];
      v.appendChild(b);
      cell(tr, "r", r.r >= 0 ? reasons[r.r] : "");
      var e = cell(tr, "e", r.e);
      e.title = r.e;
      cell(tr, "t", time(r.t));
      frag.appendChild(tr);
    });
    body.textContent = "";
    body.appendChild(frag);
    var n = function (x) { return x.toLocaleString("en-US"); };
    info.textContent = shown.length === 0 ? "no multitrace" :
      n(start + 1) + "–" + n(Math.min(start + PAGE, shown.length)) + " of " + n(shown.length) +
      " (page " + n(state.page + 1) + " of " + n(pages) + ")";
    document.getElementById("mt-prev").disabled = state.page === 0;
    document.getElementById("mt-next").disabled = state.page + 1 >= pages;
  }

  Array.prototype.forEach.call(document.querySelectorAll(".filters button[data-filter]"), function (btn) {
    btn.addEventListener("click", function () {
      state.verdict = btn.dataset.filter;
      state.page = 0;
      Array.prototype.forEach.call(document.querySelectorAll(".filters button[data-filter]"), function (o) {
        o.setAttribute("aria-pressed", o === btn ? "true" : "false");
      });
      render();
    });
  });
  var search = document.getElementById("mt-search");
  var timer = null;
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      state.query = search.value.trim().toLowerCase();
      state.page = 0;
      render();
    }, 120);
  });
  document.getElementById("mt-prev").addEventListener("click", function () { state.page--; render(); });
  document.getElementById("mt-next").addEventListener("click", function () { state.page++; render(); });
  render();
  // When the table is usable (read by the browser test).
  document.body.dataset.ready = String(Math.round(performance.now()));
})();
