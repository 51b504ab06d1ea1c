// What she typed survives a form sent without a session (she signed out in another tab, or
// the session expired): the server sends her to sign in and then back to the page the form
// came from (web/desk/__init__.py, unsent=1); this puts her words back into that form.
// Kept in this tab's sessionStorage only, from a form's sending until the next page loads.
(function () {
  "use strict";
  var KEY = "desk-unsent";
  var SKIPPED = /^(hidden|password|file|submit|button|reset|image)$/;
  function read() {
    try { return JSON.parse(sessionStorage.getItem(KEY) || "null"); } catch (e) { return null; }
  }
  function write(record) {
    try {
      if (record) sessionStorage.setItem(KEY, JSON.stringify(record)); else sessionStorage.removeItem(KEY);
    } catch (e) { /* storage refused: nothing kept */ }
  }
  function here() { return location.pathname + location.search; }
  function sameForms(action) {
    return Array.prototype.filter.call(document.forms, function (f) { return f.getAttribute("action") === action; });
  }
  function hidden(form) {
    return Array.prototype.filter.call(form.elements, function (e) {
      return e.type === "hidden" && e.name && e.name !== "csrf";
    }).map(function (e) { return [e.name, e.value]; });
  }
  function typed(form) {
    var fields = [];
    Array.prototype.forEach.call(form.elements, function (e) {
      if (!e.name || SKIPPED.test(e.type) || e.disabled) return;
      if (e.type === "checkbox" || e.type === "radio") fields.push([e.name, e.value, e.checked]);
      else fields.push([e.name, e.value]);
    });
    return fields;
  }
  document.addEventListener("submit", function (event) {
    var form = event.target, action = form.getAttribute && form.getAttribute("action");
    if (!action || (form.method || "").toLowerCase() !== "post" || action === "/logout") return;
    if (action === "/login") {  // signing in: a form that was not sent is to be put back
      var pending = read();
      if (pending) { pending.signing = true; write(pending); }
      return;
    }
    write({ page: here(), action: action, index: sameForms(action).indexOf(form),
            keys: JSON.stringify(hidden(form)), fields: typed(form) });
  }, true);
  function target(record) {
    var forms = sameForms(record.action);
    var same = forms.filter(function (f) { return JSON.stringify(hidden(f)) === record.keys; });
    return same.length === 1 ? same[0] : forms[record.index] || same[0] || null;
  }
  function restore(record) {
    var form = target(record);
    if (!form) return;
    var first = null;
    record.fields.forEach(function (field) {
      Array.prototype.forEach.call(form.elements, function (e) {
        if (e.name !== field[0] || SKIPPED.test(e.type)) return;
        if (e.type === "checkbox" || e.type === "radio") {
          if (e.value === field[1]) e.checked = field[2];
        } else if (field.length === 2) {
          e.value = field[1];
          if (!first && field[1]) first = e;
        }
      });
    });
    var note = document.createElement("p");
    note.className = "notice kept";
    note.setAttribute("role", "status");
    note.textContent = "מה שכתבת לפני הכניסה הוחזר לטופס; בדקי אותו ושלחי שוב." +
      (form.querySelector("input[type=file]") ? " את הקובץ יש לבחור שוב." : "");
    form.insertAdjacentElement("beforebegin", note);
    if (first) first.focus();
  }
  function arrived() {
    var record = read();
    if (!record) return;
    if (document.querySelector("form[action='/login']")) {  // not sent: kept until she is in
      var note = document.getElementById("kept-note");
      if (!note) {
        note = document.createElement("p");
        note.id = "kept-note"; note.className = "notice";
        note.textContent = "מה שכתבת בטופס שמור בדפדפן, ויחזור אליו אחרי הכניסה.";
        document.querySelector("form[action='/login']").insertAdjacentElement("beforebegin", note);
      }
      return;
    }
    write(null);
    if (record.signing && record.page === here()) restore(record);
  }
  window.addEventListener("DOMContentLoaded", arrived);
  // An upload sent by desk.js replaces <main> with the answer: a sign-in form there is handled
  // as a sign-in page; any other answer means the form was received.
  new MutationObserver(function (changes) {
    var replaced = changes.some(function (c) {
      return Array.prototype.some.call(c.addedNodes, function (n) { return n.tagName === "MAIN"; });
    });
    if (replaced) arrived();
  }).observe(document.body || document.documentElement, { childList: true });
})();
