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
  // Uploads (form[data-upload]): a file dropped on the form fills its file field, and the form
  // is sent with XMLHttpRequest so a progress bar shows while it goes; the answer (the /cases
  // page, or its error) replaces the page's <main>. Without this script the plain form posts.
  function uploadForm(node) {
    var form = node && node.closest ? node.closest("form[data-upload]") : null;
    return form && form.querySelector("input[type=file]") ? form : null;
  }
  ["dragenter", "dragover"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var form = uploadForm(event.target);
      if (!form) return;
      event.preventDefault();
      form.classList.add("dropping");
    });
  });
  document.addEventListener("dragleave", function (event) {
    var form = uploadForm(event.target);
    if (form && !form.contains(event.relatedTarget)) form.classList.remove("dropping");
  });
  document.addEventListener("drop", function (event) {
    var form = uploadForm(event.target);
    if (!form) return;
    event.preventDefault();
    form.classList.remove("dropping");
    var files = event.dataTransfer && event.dataTransfer.files;
    if (!files || files.length !== 1) return;
    var input = form.querySelector("input[type=file]");
    input.files = files;
    var shown = form.querySelector(".dropped") || document.createElement("p");
    shown.className = "dropped";
    shown.textContent = "קובץ: " + files[0].name;
    input.parentNode.insertAdjacentElement("afterend", shown);
  });
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-upload") || !window.FormData) return;
    event.preventDefault();
    var button = form.querySelector("button[type=submit]");
    var bar = form.querySelector("progress.upload") || document.createElement("progress");
    bar.className = "upload"; bar.max = 100; bar.value = 0;
    bar.setAttribute("aria-label", "התקדמות ההעלאה");
    var label = form.querySelector(".upload-state") || document.createElement("span");
    label.className = "upload-state"; label.setAttribute("role", "status");
    label.textContent = "נשלח… 0%";
    (button || form.lastChild).insertAdjacentElement("afterend", bar);
    bar.insertAdjacentElement("afterend", label);
    if (button) button.disabled = true;
    var request = new XMLHttpRequest();
    request.open("POST", form.action);
    request.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) return;
      bar.value = Math.round((100 * e.loaded) / e.total);
      label.textContent = "נשלח… " + bar.value + "%";
    });
    request.upload.addEventListener("load", function () {
      bar.value = 100; label.textContent = "הקובץ נשלח; מעבד…";
    });
    request.addEventListener("load", function () {
      var page = new DOMParser().parseFromString(request.responseText, "text/html");
      var main = page.querySelector("main");
      if (!main) { label.textContent = "תשובה לא צפויה מהשרת (" + request.status + ")"; if (button) button.disabled = false; return; }
      document.querySelector("main").replaceWith(document.adoptNode(main));
      document.title = page.title;
      window.scrollTo(0, 0);
    });
    request.addEventListener("error", function () {
      label.textContent = "השליחה נכשלה (אין חיבור לשרת); נסי שוב";
      if (button) button.disabled = false;
    });
    request.send(new FormData(form));
  });
  // The reader view brings the highlighted span into view (a page link's #page-N goes there).
  window.addEventListener("DOMContentLoaded", function () {
    var span = document.getElementById("span");
    if (span && (!location.hash || location.hash === "#span")) { span.scrollIntoView({ block: "center" }); span.focus({ preventScroll: true }); }
  });
})();
