// Knowledge page: review a pending claim without a page load. Without JavaScript the
// Approve / Reject forms post normally and the server redirects back with a message.
(function () {
  "use strict";

  function announce(text, isError) {
    var live = document.querySelector(".k-live");
    if (!live) return;
    live.textContent = text;
    live.className = "k-live flash" + (isError ? " flash-error" : "");
  }

  function updateCount(pending) {
    document.querySelectorAll("[data-pending-count]").forEach(function (badge) {
      badge.textContent = String(pending);
      if (badge.classList.contains("nav-badge")) badge.hidden = !pending;
    });
    var list = document.querySelector("[data-review-list]");
    var empty = document.querySelector("[data-review-empty]");
    if (empty && list && !list.querySelector("[data-review-item]")) empty.hidden = false;
  }

  // Lists: ticking (or unticking) an item's checkbox sends its form, which marks it done
  // (or restores it); without JavaScript the Save button beside it does (issue 30).
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!(box instanceof HTMLInputElement) || !box.hasAttribute("data-list-check")) return;
    var form = box.form;
    if (!form) return;
    box.disabled = true;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  });

  // A destructive form asks first (without JavaScript it posts; the claims are kept anyway).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-review")) return;
    var item = form.closest("[data-review-item]");
    if (!item || !window.fetch) return; // on the claim's own page, a normal post is right
    event.preventDefault();
    var buttons = item.querySelectorAll("button");
    buttons.forEach(function (button) { button.disabled = true; });
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        return response.json().then(function (data) { return { ok: response.ok, data: data }; });
      })
      .then(function (result) {
        announce(result.data.message, !result.ok);
        if (result.ok) {
          item.remove();
          updateCount(result.data.pending);
        } else {
          buttons.forEach(function (button) { button.disabled = false; });
        }
      })
      .catch(function () {
        form.submit(); // fall back to the ordinary post
      });
  });
})();
