// The desk's small enhancements; every page works without them.
// Keyboard (the review queue): an element with data-code="KeyA" is clicked when the key at that
// place is pressed — event.code, so a Hebrew layout (where it types ש) works as an English one —
// never while she types in a field, never with Ctrl, Alt or Meta. A decision that takes a
// reason (data-reason: optional or required) first moves the cursor to the reason field; Enter
// there sends that decision; Escape leaves the field (a reason typed first, the key decides at
// once). A click on a decision that needs a reason, with none typed, asks for it the same way.
// Ctrl+Enter in a textarea with data-ctrl-enter sends its form with that button.
(function () {
  "use strict";
  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }
  function say(form, text) {
    var line = form.querySelector(".pending");
    if (!line) return;
    line.textContent = text;
    line.hidden = !text;
  }
  function choose(button) {
    var form = button.form;
    var reason = form && form.querySelector("input[name=reason]");
    if (!reason || reason.value.trim()) { button.click(); return; }
    form.pendingButton = button;
    say(form, (button.getAttribute("data-pending") || "") + " — ואז Enter; Esc לביטול");
    reason.focus();
  }
  function inField(event) {
    var target = event.target;
    var form = target.form;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target.hasAttribute("data-ctrl-enter")) {
      var named = form && form.querySelector('button[value="' + target.getAttribute("data-ctrl-enter") + '"]');
      if (named) { event.preventDefault(); named.click(); }
      return;
    }
    if (!form || target.name !== "reason") return;
    if (event.key === "Escape") {  // out of the field: the keys work again
      form.pendingButton = null; say(form, ""); target.blur();
      return;
    }
    if (event.key !== "Enter" || !form.pendingButton) return;
    event.preventDefault();
    var button = form.pendingButton;
    if (button.getAttribute("data-reason") === "required" && !target.value.trim()) {
      say(form, "נימוק חובה כאן: כתבי אותו ואז Enter");
      return;
    }
    button.click();
  }
  document.addEventListener("keydown", function (event) {
    if (typing(event.target)) { inField(event); return; }
    if (event.ctrlKey || event.metaKey || event.altKey || !event.code) return;
    var element = document.querySelector('[data-code="' + event.code + '"]');
    if (!element) return;
    event.preventDefault();
    if (element.hasAttribute("data-reason")) { choose(element); return; }
    element.click();
    // A <summary> (the lesson's edit form) opens its form: the cursor goes to its first field.
    if (element.tagName === "SUMMARY" && element.parentNode.open) {
      var field = element.parentNode.querySelector("textarea, input:not([type=hidden]), select");
      if (field) field.focus();
    }
  });
  document.addEventListener("click", function (event) {
    var needs = event.target.closest && event.target.closest('button[data-reason="required"]');
    var reason = needs && needs.form && needs.form.querySelector("input[name=reason]");
    if (reason && !reason.value.trim()) { event.preventDefault(); choose(needs); }
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
  // is sent with XMLHttpRequest so a progress bar shows while it goes. Received, the server
  // answers with the case's page (a redirect): the browser goes there. Refused, its answer (the
  // page with the reason beside the field, what she filled in kept) replaces the page's <main>,
  // and the file she chose stays chosen unless the file itself was refused. A second submit
  // while the first is on its way sends nothing. Without this script the plain form posts.
  // The file chosen before a refusal, put back in the form shown again (same id), unless the
  // file itself was refused (its field marked invalid).
  function keepFile(sent, files) {
    if (!files || !sent.id || !window.DataTransfer) return;
    var again = document.getElementById(sent.id);
    var input = again && again.querySelector("input[type=file]");
    if (!input || input.getAttribute("aria-invalid") === "true") return;
    var kept = new DataTransfer();
    for (var i = 0; i < files.length; i++) kept.items.add(files[i]);
    input.files = kept.files;
    nameChosen(input);
  }
  // A required field left empty: the browser's own bubble would say so in the browser's
  // language ("Please fill out this field." in an English one); the desk says it in Hebrew. The
  // message is cleared as soon as she types or chooses, so the field is judged afresh.
  document.addEventListener("invalid", function (event) {
    var field = event.target;
    if (!field.validity || !field.validity.valueMissing || !field.setCustomValidity) return;
    field.setCustomValidity(field.tagName === "SELECT" ? "יש לבחור מהרשימה" : "יש למלא את השדה הזה");
  }, true);
  ["input", "change"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      if (event.target.setCustomValidity) event.target.setCustomValidity("");
    }, true);
  });
  // The file field's own face (_case_forms.html file_field) names the file chosen, in Hebrew
  // whatever the browser's language: picked, dropped on the form, or kept after a refusal.
  function nameChosen(input) {
    var face = input.parentNode.querySelector(".file-chosen");
    if (!face) return;
    var files = input.files;
    face.textContent = files && files.length ? files[0].name : "לא נבחר קובץ";
  }
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input.matches && input.matches("input[type=file]")) nameChosen(input);
  });
  // A file over its kind's limit (the field's data-caps, "pdf:10,docx:10,txt:2"): what to say,
  // or "" when it may go.
  function overCap(input, file) {
    var caps = {};
    (input.getAttribute("data-caps") || "").split(",").forEach(function (pair) {
      var kv = pair.split(":"); if (kv.length === 2) caps[kv[0]] = parseFloat(kv[1]);
    });
    var ext = (file.name.split(".").pop() || "").toLowerCase();
    var mb = caps[ext];
    if (!mb || file.size <= mb * 1048576) return "";
    var size = (file.size / 1048576).toFixed(1);
    return "הקובץ (" + size + " מגה־בייט) גדול מהמותר ל" + (input.getAttribute("data-kind") || "קובץ") +
      ": עד " + mb + " מגה־בייט. הוא לא נשלח ודבר לא נשמר.";
  }
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
    nameChosen(input);
  });
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-upload") || !window.FormData) return;
    event.preventDefault();
    var button = form.querySelector("button[type=submit]");
    var sending = form.querySelector(".upload-state");
    if (form.getAttribute("data-sending")) {  // a double submit: the first is on its way
      if (sending) sending.textContent = "ההעלאה כבר נשלחת; המתיני לתשובה";
      return;
    }
    var chosen = form.querySelector("input[type=file]");
    var files = chosen && chosen.files && chosen.files.length ? chosen.files : null;
    var over = files && overCap(chosen, files[0]);
    if (over) {  // over its kind's limit: said at once, nothing sent
      var said = form.querySelector(".upload-state") || document.createElement("span");
      said.className = "upload-state field-error"; said.setAttribute("role", "alert");
      said.textContent = over;
      (button || form.lastChild).insertAdjacentElement("afterend", said);
      chosen.setAttribute("aria-invalid", "true");
      chosen.focus();
      return;
    }
    chosen && chosen.removeAttribute("aria-invalid");
    form.setAttribute("data-sending", "1");
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
    // While the file is on its way she may stop it (nothing reaches the server whole, nothing
    // is stored); once sent, the server works on it and the answer says what became of it.
    var stop = document.createElement("button");
    stop.type = "button"; stop.className = "upload-cancel"; stop.textContent = "ביטול השליחה";
    stop.addEventListener("click", function () { request.abort(); });
    label.insertAdjacentElement("afterend", stop);
    function lost(text) {  // the upload did not go through: said, the form ready again
      label.textContent = text; label.setAttribute("role", "alert");
      bar.remove(); stop.remove();
      form.removeAttribute("data-sending");
      if (button) button.disabled = false;
    }
    request.open("POST", form.action);
    request.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) return;
      bar.value = Math.round((100 * e.loaded) / e.total);
      label.textContent = "נשלח… " + bar.value + "%";
    });
    request.upload.addEventListener("load", function () {
      bar.value = 100; stop.remove();
      label.textContent = "הקובץ נשלח; השרת קורא ובודק אותו (בדרך כלל כמה שניות)…";
    });
    request.addEventListener("load", function () {
      var landed = (request.responseURL || "").split("#")[0];
      if (request.status < 400 && landed && landed !== form.action) {
        window.location.assign(request.responseURL);  // received: the case's page
        return;
      }
      var page = new DOMParser().parseFromString(request.responseText, "text/html");
      var main = page.querySelector("main");
      form.removeAttribute("data-sending");
      if (!main) {
        lost("ההעלאה לא נשמרה: השרת לא השיב כמצופה (" + request.status + "); הקובץ לא נשמר — נסי שוב בעוד רגע");
        return;
      }
      stop.remove();
      document.querySelector("main").replaceWith(document.adoptNode(main));
      document.title = page.title;
      keepFile(form, files);
      var invalid = document.querySelector("main [aria-invalid=true]");
      if (invalid) invalid.focus(); else window.scrollTo(0, 0);
    });
    request.addEventListener("error", function () {
      lost("השליחה נכשלה (החיבור לשרת נותק); ייתכן שהקובץ לא נשמר — בדקי בדף התיק או שלחי שוב");
    });
    request.addEventListener("abort", function () {
      lost("השליחה בוטלה; הקובץ לא נשמר");
    });
    request.send(new FormData(form));
  });
  // Her final on its way (/uploads/final/<token>): its stages polled and redrawn as they
  // happen; ended (stored, refused, cancelled) or waiting for her answer, the page is asked
  // again and says so. A lost upload (the server restarted) is said, never left spinning.
  window.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("upload-stages");
    if (!box || !window.fetch || box.querySelector(".confirm-open, .ocr-wait")) return;
    var list = box.querySelector("ol.stages"), line = box.querySelector(".stage-now");
    function poll() {
      fetch(box.getAttribute("data-poll"), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (answer) { return answer.json(); })
        .then(function (state) {
          if (state.status === "lost") { line.textContent = state.said; line.setAttribute("role", "alert"); return; }
          list.textContent = "";
          state.stages.forEach(function (s) {
            var item = document.createElement("li");
            item.className = "stage " + s.state;
            if (s.state === "now") item.setAttribute("aria-current", "step");
            item.textContent = s.said + " · " + s.state_said;
            list.appendChild(item);
          });
          if (state.status === "running") { setTimeout(poll, 400); return; }
          window.location.assign(box.getAttribute("data-next"));
        })
        .catch(function () {
          line.textContent = "הקשר עם השרת נותק; הקליטה ממשיכה בשרת — רענני את הדף בעוד רגע";
          line.setAttribute("role", "alert");
          setTimeout(poll, 2000);
        });
    }
    setTimeout(poll, 300);
  });
  // The reader view brings the highlighted span into view (a page link's #page-N goes there).
  window.addEventListener("DOMContentLoaded", function () {
    var span = document.getElementById("span");
    if (span && (!location.hash || location.hash === "#span")) { span.scrollIntoView({ block: "center" }); span.focus({ preventScroll: true }); }
  });
})();

// Printing: every folded part prints open, and folds again after (desk.css's print rules).
(() => {
  let opened = [];
  window.addEventListener("beforeprint", () => {
    opened = [...document.querySelectorAll("main details:not([open])")];
    opened.forEach((d) => { d.open = true; });
  });
  window.addEventListener("afterprint", () => {
    opened.forEach((d) => { d.open = false; });
    opened = [];
  });
})();
