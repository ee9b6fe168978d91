/* dc-bridge site: the pages' own script (charts, times in the reader's time zone, the overview's filters) */
(function () {
  "use strict";
  // charts: each figure names the data block holding its Vega-Lite specification; drawn without eval (ast)
  document.querySelectorAll("figure[data-spec]").forEach(function (figure) {
    var block = document.getElementById(figure.getAttribute("data-spec"));
    if (!block || typeof vegaEmbed !== "function") { return; }
    vegaEmbed(figure.querySelector(".vega"), JSON.parse(block.textContent),
              {ast: true, actions: false, renderer: "svg", tooltip: {theme: "light"}})
      .then(function () { figure.setAttribute("data-drawn", "yes"); })
      .catch(function (error) { figure.setAttribute("data-drawn", "no"); figure.title = String(error); });
  });

  // times: written in UTC, shown in the reader's time zone; "rel" adds how long ago
  var short = new Intl.DateTimeFormat(undefined, {month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"});
  var long = new Intl.DateTimeFormat(undefined, {weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"});
  var day = new Intl.DateTimeFormat(undefined, {weekday: "short", month: "short", day: "numeric", timeZone: "UTC"});
  function ago(then) {
    var seconds = (Date.now() - then.getTime()) / 1000;
    if (seconds < 0) { return null; }
    var steps = [[60, "s", 1], [3600, "min", 60], [86400, "h", 3600], [86400 * 60, "d", 86400]];
    for (var i = 0; i < steps.length; i++) {
      if (seconds < steps[i][0]) { return Math.floor(seconds / steps[i][2]) + " " + steps[i][1] + " ago"; }
    }
    return null;  // more than two months: the date says it
  }
  document.querySelectorAll("time[datetime]").forEach(function (node) {
    var form = node.getAttribute("data-form") || "long";
    var then = new Date(node.getAttribute("datetime"));
    if (isNaN(then.getTime())) { return; }
    node.title = node.textContent;
    if (form === "day") { node.textContent = day.format(then); return; }
    var text = (form === "column" ? short : long).format(then);
    var relative = form === "rel" ? ago(then) : null;
    node.textContent = relative ? text + " (" + relative + ")" : text;
  });

  // the overview's filters: owner, domain, tag, status and a text search over the contract rows
  var table = document.getElementById("contracts");
  var filters = document.getElementById("filters");
  if (!table || !filters) { return; }
  filters.hidden = false;
  var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-contract]"));
  var shown = document.getElementById("shown");
  function value(id) { var node = document.getElementById(id); return node ? node.value : ""; }
  function apply() {
    var owner = value("filter-owner"), domain = value("filter-domain"), tag = value("filter-tag"),
        state = value("filter-status"), text = value("filter-text").toLowerCase(), count = 0;
    rows.forEach(function (row) {
      var tags = JSON.parse(row.getAttribute("data-tags") || "[]");
      var visible = (!owner || row.getAttribute("data-owner") === owner) && (!domain || row.getAttribute("data-domain") === domain)
        && (!tag || tags.indexOf(tag) >= 0) && (!state || row.getAttribute("data-state") === state)
        && (!text || row.textContent.toLowerCase().indexOf(text) >= 0);
      row.hidden = !visible;
      if (visible) { count += 1; }
    });
    if (shown) { shown.textContent = count + " of " + rows.length + " contracts shown"; }
  }
  filters.addEventListener("input", apply);
  filters.addEventListener("change", apply);
  document.querySelectorAll("button[data-state]").forEach(function (button) {
    button.addEventListener("click", function () {
      document.getElementById("filter-status").value = button.getAttribute("data-state");
      apply();
    });
  });
  apply();
})();
