// The desk's small enhancements; every page works without them.
// Keyboard: an element with data-key="x" is clicked when x is pressed (outside text fields).
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var key = event.key && event.key.toLowerCase();
    if (!key || key.length !== 1) return;
    var element = document.querySelector('[data-key="' + key + '"]');
    if (!element) return;
    event.preventDefault();
    element.click();
    // A <summary> (the lesson's edit form) opens its form: the cursor goes to its first field.
    if (element.tagName === "SUMMARY" && element.parentNode.open) {
      var field = element.parentNode.querySelector("textarea, input:not([type=hidden]), select");
      if (field) field.focus();
    }
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button.copy");
    if (!button) return;
    var text = button.getAttribute("data-copy") || "";
    var done = function () { button.textContent = "הועתק"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {});
    } else {
      var area = document.createElement("textarea");
      area.value = text; document.body.appendChild(area); area.select();
      try { document.execCommand("copy"); done(); } catch (e) { /* nothing to do */ }
      document.body.removeChild(area);
    }
  });
  // A corpus switch submits the search form (with a query) so its filters appear.
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input.hasAttribute && input.hasAttribute("data-autosubmit") && input.form) input.form.submit();
  });
  // The reader view brings the highlighted span into view (a page link's #page-N goes there).
  window.addEventListener("DOMContentLoaded", function () {
    var span = document.getElementById("span");
    if (span && (!location.hash || location.hash === "#span")) { span.scrollIntoView({ block: "center" }); span.focus({ preventScroll: true }); }
  });
})();
