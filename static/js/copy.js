// Copy buttons (the tokens page, issue 30): a button with data-copy="<element id>" copies
// that element's text. The buttons stay hidden until this script runs. The Clipboard API
// needs a secure context (https, or localhost); over plain http on a LAN the selected
// text is copied the older way, and when neither works the text is left selected for
// Ctrl+C / Cmd+C, and the button says so.
(function () {
  "use strict";
  var status = document.querySelector("[data-copy-status]");
  var buttons = document.querySelectorAll("button[data-copy]");

  function announce(text) {
    if (status) status.textContent = text;
  }

  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function copyBySelection(element) {
    selectText(element);
    try {
      return document.execCommand("copy");
    } catch (error) {
      return false;
    }
  }

  function show(button, label, copied) {
    var original = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", original);
    button.textContent = label;
    button.classList.toggle("is-copied", copied);
    announce(copied ? "Copied to the clipboard." : "Selected: press Ctrl+C or Cmd+C to copy.");
    window.clearTimeout(button._copyTimer);
    button._copyTimer = window.setTimeout(function () {
      button.textContent = original;
      button.classList.remove("is-copied");
    }, 2500);
  }

  Array.prototype.forEach.call(buttons, function (button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (!target) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = target.textContent;
      var fallback = function () {
        var copied = copyBySelection(target);
        show(button, copied ? "Copied" : "Selected", copied);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () {
          show(button, "Copied", true);
        }, fallback);
      } else {
        fallback();
      }
    });
  });
})();
