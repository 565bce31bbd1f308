// Pins: a claim pinned to this conversation (the "Pinned here" list) or to every one.
(function () {
  "use strict";
  var C = window.CairnChat;
  var chat = C.root();
  if (!chat || !chat.dataset.currentId) return;
  var conversationId = chat.dataset.currentId;

  function pressed(selector, id, value) {
    document.querySelectorAll("[" + selector + '="' + id + '"]').forEach(function (button) {
      button.setAttribute("aria-pressed", value ? "true" : "false");
    });
  }

  function pinnedListAdd(claim) {
    var list = document.getElementById("pinned-list");
    if (!list || list.querySelector('[data-claim-id="' + claim.id + '"]')) return;
    var placeholder = list.querySelector("[data-pinned-empty]");
    if (placeholder) placeholder.remove();
    list.appendChild(
      C.el("li", { "data-claim-id": claim.id }, [
        C.el("a", { href: claim.url, text: "#" + claim.number }),
        " " + (claim.statement.length > 140 ? claim.statement.slice(0, 139) + "…" : claim.statement) + " ",
        C.el("button", { type: "button", class: "linkish", "data-unpin-here": claim.id, "aria-label": "Unpin #" + claim.number + " from this conversation", text: "Unpin" }),
      ])
    );
  }

  function pinnedCount() {
    var list = document.getElementById("pinned-list");
    var counter = document.querySelector("[data-pinned-count]");
    if (list && counter) counter.textContent = list.querySelectorAll("li[data-claim-id]").length;
  }

  C.pinHere = function (claimId, pin) {
    var path = "conversations/" + conversationId + "/pins";
    var call = pin ? C.api("POST", path, { claim_id: claimId }) : C.api("DELETE", path + "/" + claimId);
    return call
      .then(function (claim) {
        pressed("data-pin-here", claimId, pin);
        if (pin) {
          pinnedListAdd(claim);
          C.announce("Pinned #" + claim.number + " to this conversation");
        } else {
          var item = document.querySelector('#pinned-list [data-claim-id="' + claimId + '"]');
          if (item) item.remove();
          C.announce("Unpinned from this conversation");
        }
        pinnedCount();
      })
      .catch(function (error) { C.showError("Could not change the pin: " + error.message); });
  };

  function pinGlobally(claimId, pin) {
    C.api("POST", "claims/" + claimId + "/pin", { pinned: pin })
      .then(function (claim) {
        pressed("data-pin-global", claimId, claim.pinned);
        C.announce(claim.pinned ? "#" + claim.number + " is used in every conversation" : "#" + claim.number + " is no longer pinned globally");
      })
      .catch(function (error) { C.showError("Could not change the pin: " + error.message); });
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest("button, a");
    if (!target) return;
    var data = target.dataset;
    if (data.pinHere) {
      C.pinHere(data.pinHere, target.getAttribute("aria-pressed") !== "true");
    } else if (data.unpinHere) {
      C.pinHere(data.unpinHere, false);
    } else if (data.pinGlobal) {
      pinGlobally(data.pinGlobal, target.getAttribute("aria-pressed") !== "true");
    }
  });
})();
