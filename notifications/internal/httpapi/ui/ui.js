// Live refresh: every 5 s the page's main part is fetched again (same
// filters and selection) unless the box is unticked or a form has focus.
(function () {
  "use strict";
  var main = document.getElementById("main");
  var live = document.getElementById("live");
  function busy() {
    var a = document.activeElement;
    return a && a.form && main.contains(a);
  }
  function refresh() {
    if (!live.checked || busy() || document.hidden) return;
    fetch(main.dataset.refresh, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html !== null) main.innerHTML = html; })
      .catch(function () {});
  }
  setInterval(refresh, 5000);
  document.addEventListener("submit", function (e) {
    var msg = e.target.dataset && e.target.dataset.confirm;
    if (msg && !window.confirm(msg)) e.preventDefault();
  });
})();
