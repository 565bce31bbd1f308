// Files page: drag and drop uploads, and live indexing progress from the
// `indexing.progress` events on /ws/events/. Events reach the page when the worker and the
// site share a channel layer (Redis); otherwise, and whenever events stop, a running
// source's card is re-read every few seconds. Without JavaScript the page still works:
// forms post normally and the progress shows on reload.
(function () {
  "use strict";

  var STATUS_LABELS = {
    idle: "Idle", queued: "Queued", scanning: "Scanning", indexing: "Indexing",
    ready: "Up to date", failed: "Failed",
  };
  var RUNNING = { queued: true, scanning: true, indexing: true };
  var REFRESH_EVERY_MS = 1500;
  var POLL_EVERY_MS = 2500;
  var lastRefresh = {};
  var lastEvent = {};
  var refreshTimers = {};

  // The project picker shows its project as soon as it changes.
  document.querySelectorAll("[data-autosubmit]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
  document.querySelectorAll("[data-hide-with-js]").forEach(function (el) { el.style.display = "none"; });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
    }
  });

  // Drag and drop: the dropped files become the input's files and the form is sent.
  document.querySelectorAll("[data-drop-zone]").forEach(function (zone) {
    var input = zone.querySelector("input[type=file]");
    var form = zone.closest("form");
    if (!input || !form) return;
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (event) {
        event.preventDefault();
        zone.classList.add("is-over");
      });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("is-over"); });
    });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      if (!event.dataTransfer || !event.dataTransfer.files.length) return;
      input.files = event.dataTransfer.files;
      form.submit();
    });
  });

  function sourceCard(sourceId) {
    return document.querySelector('[data-source-id="' + sourceId + '"]');
  }

  function showProgress(card, event) {
    var bar = card.querySelector("[data-progress-bar]");
    var percent = event.total ? Math.min(100, Math.round((100 * event.done) / event.total))
      : (event.status === "ready" ? 100 : 0);
    if (bar) {
      bar.setAttribute("aria-valuenow", String(event.done));
      bar.setAttribute("aria-valuemax", String(event.total));
      var fill = bar.querySelector("span");
      if (fill) fill.style.width = percent + "%";
    }
    var badge = card.querySelector("[data-progress-status]");
    if (badge) {
      badge.textContent = STATUS_LABELS[event.status] || event.status;
      badge.className = "badge" + (event.status === "failed" ? " err"
        : event.status === "ready" ? " ok" : RUNNING[event.status] ? " warn" : "");
    }
    var count = card.querySelector("[data-progress-count]");
    // A finished run's count is the card's own (files by status, matching the list),
    // which the refresh that follows brings; only a running one shows the run's progress.
    if (count && RUNNING[event.status]) count.textContent = event.done + " / " + event.total;
    var current = card.querySelector("[data-progress-current]");
    if (current) current.textContent = RUNNING[event.status] && event.current ? "· " + event.current : "";
    card.dataset.status = event.status;
  }

  // Re-render the source's card (its documents' statuses), at most every 1.5 s while it
  // runs, and once more when it finishes.
  function refreshCard(sourceId, now) {
    var card = sourceCard(sourceId);
    if (!card || !window.fetch) return;
    window.clearTimeout(refreshTimers[sourceId]);
    var wait = now ? 0 : Math.max(0, REFRESH_EVERY_MS - (Date.now() - (lastRefresh[sourceId] || 0)));
    refreshTimers[sourceId] = window.setTimeout(function () {
      lastRefresh[sourceId] = Date.now();
      fetch(card.dataset.sourceUrl, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) {
          var old = sourceCard(sourceId);
          if (!html || !old) return;
          var holder = document.createElement("div");
          holder.innerHTML = html.trim();
          var fresh = holder.firstElementChild;
          if (fresh) {
            old.replaceWith(fresh);
            hideReloadLinks();
          }
        })
        .catch(function () { /* the next event tries again */ });
    }, wait);
  }

  // With this script running the cards update themselves.
  function hideReloadLinks() {
    document.querySelectorAll("[data-reload-link]").forEach(function (link) { link.hidden = true; });
  }

  // The shared reconnecting socket (reconnect.js); what an event missed while it was
  // down, the poll below re-reads.
  function connect() {
    if (!window.WebSocket || !window.CairnReconnect || !document.querySelector("[data-sources]")) return;
    window.CairnReconnect.reconnecting({
      url: function () { return window.CairnReconnect.socketUrl("/ws/events/", window.location); },
      heartbeatMs: 25000,
      onMessage: function (event) {
        if (!event || event.type !== "indexing.progress") return;
        var card = sourceCard(event.source_id);
        if (!card) return;
        lastEvent[event.source_id] = Date.now();
        var wasRunning = RUNNING[card.dataset.status];
        showProgress(card, event);
        refreshCard(event.source_id, wasRunning && !RUNNING[event.status]);
      },
      onClose: function (info) {
        if (info.code === 4401 && window.CairnSession) window.CairnSession.signedOut();
      },
    }).open();
  }

  // Without events (no shared channel layer, or a dropped socket) running sources are
  // re-read from the server; a card that is no longer running stops being polled.
  function poll() {
    document.querySelectorAll("[data-source-id]").forEach(function (card) {
      var sourceId = card.dataset.sourceId;
      if (RUNNING[card.dataset.status] && Date.now() - (lastEvent[sourceId] || 0) > POLL_EVERY_MS) {
        refreshCard(sourceId, true);
      }
    });
  }

  hideReloadLinks();
  connect();
  window.setInterval(poll, POLL_EVERY_MS);
})();
