// The composer: the @ autocomplete popup (/api/ui/references), the chips of the
// references typed so far (CairnReferences.parseReferences, previews from
// /api/ui/references/preview), the claims attached for the next turn, and the keys.
// Sending is chat.js's job; this file calls C.send() and C.stop().
(function () {
  "use strict";
  var C = window.CairnChat;
  var input = document.getElementById("composer-input");
  var form = document.getElementById("composer");
  if (!input || !form) return;
  var popup = document.getElementById("ref-popup");
  var options = document.getElementById("ref-options");
  var chips = document.getElementById("ref-chips");
  var attachedBox = document.getElementById("attached");
  var attachedList = document.getElementById("attached-list");
  var tip = document.getElementById("ref-tip");

  // ---- previews, shared by chips in the composer and in messages -------------------------
  var previews = new Map();

  function preview(identifier) {
    var key = identifier.toLowerCase();
    if (!previews.has(key)) {
      previews.set(
        key,
        C.api("GET", "references/preview?ref=" + encodeURIComponent(identifier)).catch(function () {
          previews.delete(key);
          return null;
        })
      );
    }
    return previews.get(key);
  }

  function tipContent(chip, data) {
    var nodes = [];
    if (chip.dataset.refKind === "uuid") {
      nodes.push(C.el("div", { class: "tip-title", text: "A claim by its id" }));
      return nodes;
    }
    if (!data) return [C.el("div", { text: "Could not load a preview." })];
    if (!data.found) {
      return [C.el("div", { class: "tip-title", text: "Not found" }), C.el("div", { text: data.message })];
    }
    nodes.push(C.el("div", { class: "tip-title", text: data.kind + " · " + data.title }));
    var count = data.claim_count;
    nodes.push(C.el("div", { class: "muted", text: count + " claim" + (count === 1 ? "" : "s") + " for the answer" }));
    if (data.claims.length) {
      nodes.push(
        C.el(
          "ul",
          {},
          data.claims.slice(0, 5).map(function (claim) {
            return C.el("li", { text: "#" + claim.number + " " + claim.statement });
          })
        )
      );
    }
    return nodes;
  }

  var tipFor = null;
  function showTip(chip) {
    tipFor = chip;
    chip.setAttribute("aria-describedby", "ref-tip");
    tip.replaceChildren(C.el("div", { class: "muted", text: "Looking it up…" }));
    tip.hidden = false;
    place(chip);
    var done = chip.dataset.refKind === "uuid" ? Promise.resolve(null) : preview(chip.dataset.ref);
    done.then(function (data) {
      if (tipFor !== chip) return;
      tip.replaceChildren.apply(tip, tipContent(chip, data));
      place(chip);
    });
  }

  function place(chip) {
    var box = chip.getBoundingClientRect();
    var top = box.bottom + 6;
    if (top + tip.offsetHeight > window.innerHeight) top = Math.max(4, box.top - tip.offsetHeight - 6);
    tip.style.top = top + "px";
    tip.style.left = Math.max(4, Math.min(box.left, window.innerWidth - tip.offsetWidth - 8)) + "px";
  }

  function hideTip() {
    if (tipFor) tipFor.removeAttribute("aria-describedby");
    tipFor = null;
    tip.hidden = true;
  }

  ["mouseover", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var chip = event.target.closest && event.target.closest(".ref-chip[data-ref]");
      if (chip && chip !== tipFor) showTip(chip);
    });
  });
  ["mouseout", "focusout"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var chip = event.target.closest && event.target.closest(".ref-chip[data-ref]");
      if (chip && chip === tipFor && !chip.contains(event.relatedTarget)) hideTip();
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && tipFor) hideTip();
  });

  /** Mark the chips under ``root`` whose reference finds nothing (the tooltip says why). */
  function markChips(root) {
    root.querySelectorAll(".ref-chip[data-ref]").forEach(function (chip) {
      if (chip.dataset.refKind === "uuid") return;
      preview(chip.dataset.ref).then(function (data) {
        if (data && !data.found) chip.classList.add("missing");
      });
    });
  }
  C.markChips = markChips;

  // ---- chips of the references typed so far ---------------------------------------------
  // The spans the server reads as ranks ("my #1 crypto is BTC"): a "#N" inside one is no
  // chip, as the answer will not use claim N (POST /api/ui/references/read, issue 18).
  var ranksRead = { text: "", ranks: [] };
  function ranksOf(text) {
    return ranksRead.text === text ? ranksRead.ranks : null;
  }

  /** Whether ``ref`` is the one the caret is still in: no verdict on it yet (issue 18:
   * "@pre" is not "not found", it is half-typed). The verdict comes once the caret
   * leaves it (a space, a click elsewhere, the focus moving away) or the message is sent. */
  function stillTyping(ref) {
    if (document.activeElement !== input || input.selectionStart !== input.selectionEnd) return false;
    var caret = input.selectionStart;
    if (ref.raw.charAt(0) === "#") return caret === ref.utf16End;
    var current = window.CairnReferences.referenceAtCaret(input.value, caret);
    return !!current && current.at === ref.utf16Start;
  }

  function renderChips() {
    var text = input.value;
    var ranks = ranksOf(text);
    if (ranks === null && text.indexOf("#") !== -1) {
      C.api("POST", "references/read", { text: text })
        .then(function (data) {
          ranksRead = { text: text, ranks: data.ranks || [] };
          if (input.value === text) renderChips();
        })
        .catch(function () { /* chips without ranks until the server answers */ });
      return; // the chips drawn last stay until the server has read this text
    }
    drawChips(text, ranks || []);
  }

  function drawChips(text, ranks) {
    var parsed = window.CairnReferences.parseReferences(text, { ranks: ranks });
    var chipNodes = parsed.references.slice(0, 20).map(function (ref) {
      var chip = C.refChip(ref);
      if (stillTyping(ref)) {
        chip.classList.add("ref-typing");
        chip.appendChild(C.el("span", { class: "chip-kind", text: "typing…" }));
        return chip;
      }
      if (ref.kind !== "uuid") {
        preview(ref.identifier).then(function (data) {
          if (data && !data.found) chip.classList.add("missing");
          if (data) chip.appendChild(C.el("span", { class: "chip-kind", text: data.found ? data.kind : "not found" }));
        });
      }
      return chip;
    });
    chips.replaceChildren.apply(chips, chipNodes);
  }
  var renderChipsSoon = C.debounce(renderChips, 200);

  // ---- attachments: claims used for the next turn only -----------------------------------
  var attached = [];

  function renderAttached() {
    attachedList.replaceChildren.apply(
      attachedList,
      attached.map(function (claim) {
        var remove = C.el("button", { type: "button", "aria-label": "Remove #" + claim.number, text: "×" });
        remove.addEventListener("click", function () {
          detach(claim.id);
          input.focus();
        });
        return C.el("span", { class: "attach-chip", title: claim.statement }, [
          C.el("span", { text: "#" + claim.number + " " + claim.statement }),
          remove,
        ]);
      })
    );
    attachedBox.hidden = attached.length === 0;
  }

  function attach(claim) {
    if (!attached.some(function (c) { return c.id === claim.id; })) attached.push(claim);
    renderAttached();
    C.announce("#" + claim.number + " will be used for your next message");
  }

  function detach(id) {
    attached = attached.filter(function (c) { return c.id !== id; });
    renderAttached();
  }

  // ---- the @ popup ------------------------------------------------------------------------
  var suggestions = [];
  var active = -1;
  var token = null;
  var requestSeq = 0;

  function tokenAtCaret() {
    var caret = input.selectionStart;
    if (caret !== input.selectionEnd) return null;
    // The parser's own rules (references.js), so the popup offers exactly what is a reference.
    return window.CairnReferences.referenceAtCaret(input.value, caret);
  }

  function isOpen() {
    return !popup.hidden;
  }

  function close() {
    popup.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    suggestions = [];
    active = -1;
    token = null;
  }

  function setActive(index) {
    active = index;
    Array.prototype.forEach.call(options.children, function (li, i) {
      li.setAttribute("aria-selected", i === index ? "true" : "false");
      if (i === index) li.scrollIntoView({ block: "nearest" });
    });
    if (index >= 0) input.setAttribute("aria-activedescendant", "ref-opt-" + index);
    else input.removeAttribute("aria-activedescendant");
  }

  function optionNode(s, index) {
    var actions = null;
    if (s.kind === "claim") {
      actions = C.el("span", { class: "opt-actions" }, [
        C.el("button", { type: "button", class: "chip-btn", tabindex: "-1", "data-opt-attach": index, title: "Attach to the next message only (Alt+A)", text: "Use now" }),
        C.el("button", { type: "button", class: "chip-btn", tabindex: "-1", "data-opt-pin": index, title: "Pin to this conversation (Alt+P)", text: "Pin here" }),
      ]);
    }
    // The option shows exactly the text choosing it inserts (issue 18), then its label.
    return C.el("li", { role: "option", id: "ref-opt-" + index, class: "ref-option", "aria-selected": "false", "data-index": index }, [
      C.el("span", { class: "kind", text: (s.group === "pinned" ? "pinned " : "") + s.kind }),
      C.el("span", { class: "insert" }, [
        C.el("span", { class: "ref-text", text: "@" + s.insert }),
        s.label ? C.el("span", { class: "ref-label", text: s.label }) : C.el("span"),
      ]),
      actions || C.el("span"),
      C.el("span", { class: "preview", text: s.preview }),
    ]);
  }

  function show(list, forQuery) {
    suggestions = list;
    if (!list.length) {
      if (forQuery.length === 1) {
        close();
        return;
      }
      // A bare "@" with nothing saved yet still says what "@" is for.
      var hint = forQuery
        ? "Nothing matches @" + forQuery
        : "Nothing saved yet. Type a word to find a memory, context or tag; #number finds a claim.";
      options.replaceChildren(C.el("li", { class: "ref-option muted", text: hint }));
      active = -1;
    } else {
      options.replaceChildren.apply(options, list.map(optionNode));
      setActive(0);
    }
    popup.hidden = false;
    input.setAttribute("aria-expanded", "true");
  }

  var lookup = C.debounce(function () {
    var current = tokenAtCaret();
    if (!current) {
      close();
      return;
    }
    token = current;
    var seq = ++requestSeq;
    C.api("GET", "references?limit=8&q=" + encodeURIComponent(current.query))
      .then(function (list) {
        if (seq !== requestSeq || !tokenAtCaret()) return;
        show(list, current.query);
      })
      .catch(close);
  }, 120);

  function replaceToken(text) {
    var current = tokenAtCaret() || token;
    if (!current) return;
    input.focus();
    input.setRangeText(text, current.at, current.end, "end");
    close();
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function insert(index) {
    var s = suggestions[index];
    if (!s) return;
    var after = input.value[(tokenAtCaret() || token).end];
    replaceToken("@" + s.insert + (after === " " || after === "\n" ? "" : " "));
  }

  /** The UUID of a claim suggestion (the endpoint names claims by number). */
  function claimOf(s) {
    return preview(s.insert).then(function (data) {
      if (!data || !data.found || !data.claims.length) throw new Error("That claim is gone.");
      return data.claims[0];
    });
  }

  function attachSuggestion(index) {
    var s = suggestions[index];
    if (!s || s.kind !== "claim") return;
    claimOf(s)
      .then(function (claim) {
        replaceToken("");
        attach({ id: claim.id, number: claim.number, statement: claim.statement });
      })
      .catch(function (error) { C.showError(error.message); });
  }

  function pinSuggestion(index) {
    var s = suggestions[index];
    if (!s || s.kind !== "claim" || !C.pinHere) return;
    claimOf(s)
      .then(function (claim) {
        replaceToken("");
        return C.pinHere(claim.id, true);
      })
      .catch(function (error) { C.showError(error.message); });
  }

  options.addEventListener("mousedown", function (event) {
    event.preventDefault(); // keep the focus (and the caret) in the textarea
  });
  options.addEventListener("click", function (event) {
    var attachButton = event.target.closest("[data-opt-attach]");
    var pinButton = event.target.closest("[data-opt-pin]");
    if (attachButton) return attachSuggestion(Number(attachButton.dataset.optAttach));
    if (pinButton) return pinSuggestion(Number(pinButton.dataset.optPin));
    var li = event.target.closest("li[data-index]");
    if (li) insert(Number(li.dataset.index));
  });

  // ---- keys -------------------------------------------------------------------------------
  input.addEventListener("keydown", function (event) {
    if (event.isComposing || event.keyCode === 229) return; // an IME is composing a character
    if (isOpen() && suggestions.length) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        var step = event.key === "ArrowDown" ? 1 : -1;
        setActive((active + step + suggestions.length) % suggestions.length);
        return;
      }
      if ((event.key === "Enter" && !event.shiftKey) || (event.key === "Tab" && !event.shiftKey)) {
        event.preventDefault();
        insert(active < 0 ? 0 : active);
        return;
      }
      if (event.altKey && (event.key === "a" || event.key === "A" || event.code === "KeyA")) {
        event.preventDefault();
        attachSuggestion(active);
        return;
      }
      if (event.altKey && (event.key === "p" || event.key === "P" || event.code === "KeyP")) {
        event.preventDefault();
        pinSuggestion(active);
        return;
      }
    }
    if (event.key === "Escape") {
      if (isOpen()) {
        event.preventDefault();
        close();
      } else if (C.stop) {
        C.stop();
      }
      return;
    }
    if (event.key === "Enter" && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      if (C.send) C.send();
    }
  });

  function grow() {
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight + 2, window.innerHeight * 0.4) + "px";
  }

  input.addEventListener("input", function () {
    grow();
    renderChipsSoon();
    lookup();
  });
  input.addEventListener("click", function () {
    lookup();
    renderChipsSoon();
  });
  input.addEventListener("keyup", function (event) {
    if (event.key === "ArrowLeft" || event.key === "ArrowRight" || event.key === "Home" || event.key === "End") {
      lookup();
      renderChipsSoon();
    }
  });
  input.addEventListener("blur", function () {
    renderChipsSoon(); // the caret has left whatever was being typed: give its verdict
    window.setTimeout(function () {
      if (document.activeElement !== input) close();
    }, 150);
  });

  C.composer = {
    input: input,
    text: function () { return input.value; },
    setText: function (text) {
      input.value = text;
      grow();
      renderChips();
    },
    clear: function () {
      input.value = "";
      grow();
      renderChips();
      close();
    },
    attachments: function () { return attached.slice(); },
    setAttachments: function (list) {
      attached = list.slice();
      renderAttached();
    },
    attach: attach,
    ranksOf: ranksOf,
  };
  renderChips();
  var log = document.getElementById("chat-log");
  if (log) markChips(log);
})();
