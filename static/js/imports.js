// The Import page: follow each running import until it is searchable (or failed),
// updating its bar and counts from /api/v1/imports/<id>/ once a second.
(function () {
  "use strict";
  var RUNNING = ["queued", "storing", "indexing"];

  function counts(data) {
    if (data.status === "failed") return data.error;
    var parts = [
      data.conversations_done + " of " + data.conversations_total + " conversations stored (" +
        data.conversations_created + " new)",
      data.messages_indexed + " of " + data.messages_stored + " messages searchable",
    ];
    var names = { chatgpt: "ChatGPT", claude: "Claude" };
    if (data.source) parts.push("from " + (names[data.source] || data.source));
    return parts.join(", ");
  }

  function skippedText(data) {
    var listed = data.skipped.slice(0, 5).map(function (record) {
      return "conversation " + (record.index + 1) +
        (record.title ? " (\u201c" + record.title + "\u201d)" : "") + ": " + record.reason;
    });
    return data.conversations_skipped + " of " + data.conversations_total +
      " conversations skipped: " + listed.join("; ") + (data.conversations_skipped > 5 ? " \u2026" : "");
  }

  function follow(card) {
    var id = card.getAttribute("data-import-id");
    fetch("/api/v1/imports/" + id + "/", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) return;
        var percent = Math.round(data.progress * 100);
        var bar = card.querySelector(".progress");
        bar.setAttribute("aria-valuenow", String(percent));
        bar.firstElementChild.style.width = percent + "%";
        card.querySelector("[data-status-text]").textContent = data.status_display;
        card.querySelector("[data-counts]").textContent = counts(data);
        if (data.conversations_skipped) {
          var note = card.querySelector("[data-skipped]");
          if (!note) {
            note = document.createElement("p");
            note.className = "muted small";
            note.setAttribute("data-skipped", "");
            card.appendChild(note);
          }
          note.textContent = skippedText(data);
        }
        card.setAttribute("data-status", data.status);
        if (RUNNING.indexOf(data.status) !== -1) window.setTimeout(function () { follow(card); }, 1000);
      })
      .catch(function () { window.setTimeout(function () { follow(card); }, 3000); });
  }

  document.querySelectorAll("[data-import-id]").forEach(function (card) {
    if (RUNNING.indexOf(card.getAttribute("data-status")) !== -1) follow(card);
  });
})();
