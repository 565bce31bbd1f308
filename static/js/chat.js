// The open conversation's turns: one at a time over the socket (chat-socket.js), streamed
// as plain text into the bubbles of chat-render.js and then swapped for the server-rendered
// message; the resync after a lost connection; the actions on messages (use now, save as
// memory, clarify, try again). Pins are chat-pins.js.
(function () {
  "use strict";
  var C = window.CairnChat;
  var chat = C.root();
  if (!chat || !chat.dataset.currentId) return;
  var log = document.getElementById("chat-log");
  var form = document.getElementById("composer");
  var sendButton = document.getElementById("send-btn");
  var stopButton = document.getElementById("stop-btn");
  var errorBox = document.getElementById("composer-error");
  // The server's error codes and limits (apps/chat/events.py: protocol_for_page).
  var PROTOCOL = JSON.parse(document.getElementById("chat-protocol").textContent);
  var CODE = PROTOCOL.error_codes;
  var MAX_BYTES = PROTOCOL.max_message_bytes;
  var REJECTIONS = PROTOCOL.rejection_codes;
  var TOOL_LABELS = { memory_search: "Searching memory", memory_add: "Saving a memory", memory_list: "Reading a list", memory_update: "Updating a memory", read_document: "Reading a document" };

  var R = C.render;
  var resyncNeeded = null;
  var turn = null;

  // ---- small helpers ----------------------------------------------------------------------
  function lastOrder() {
    var orders = Array.prototype.map.call(log.querySelectorAll(".msg[data-order]"), function (node) {
      return Number(node.dataset.order) || 0;
    });
    return orders.length ? Math.max.apply(null, orders) : 0;
  }

  function nearBottom() {
    return log.scrollHeight - log.scrollTop - log.clientHeight < 160;
  }

  function toBottom() {
    log.scrollTop = log.scrollHeight;
  }

  var errorTimer = null;
  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = false;
    window.clearTimeout(errorTimer);
    errorTimer = window.setTimeout(function () { errorBox.hidden = true; }, 10000);
  }
  C.showError = showError;

  function connected() {
    return C.socket.connected();
  }

  function updateButtons() {
    sendButton.disabled = !!turn || !connected() || !C.composer.text().trim();
    stopButton.hidden = !turn;
    stopButton.disabled = !turn || !!turn.stopping;
  }

  // ---- the socket's events ---------------------------------------------------------------------
  C.socket.on("open", function (info) {
    updateButtons();
    // Back after a drop: what was saved meanwhile (an answer that finished while the socket
    // was down, a turn from another tab) comes from the database.
    if (resyncNeeded) resync(resyncNeeded, 0);
    else if (info && info.reconnected) replay();
    resyncNeeded = null;
  });
  C.socket.on("event", function (data) { handle(data); });
  C.socket.on("close", function () {
    if (turn) interrupted();
    updateButtons();
  });

  function setStatusLine(text, typing) {
    if (!turn) return;
    turn.answer.status.textContent = text;
    turn.answer.status.classList.toggle("typing", !!typing);
  }

  function removeClarify() {
    log.querySelectorAll(".clarify").forEach(function (node) { node.remove(); });
  }

  // ---- one turn ------------------------------------------------------------------------------
  function send(textOverride, topic) {
    if (turn) return;
    var fromComposer = textOverride === undefined;
    var text = fromComposer ? C.composer.text() : textOverride;
    if (!text.trim()) return;
    if (!connected()) {
      showError("Not connected — reconnecting. Your text is kept; send again in a moment.");
      C.socket.connect();
      return;
    }
    if (new TextEncoder().encode(text).length > MAX_BYTES) {
      showError("That message is over 32 KB. Upload long text as a file instead.");
      return;
    }
    var attachments = fromComposer ? C.composer.attachments() : [];
    var empty = document.getElementById("log-empty");
    if (empty) empty.remove();
    removeClarify();
    errorBox.hidden = true;
    turn = { text: text, topic: topic || null, attachments: attachments, fromComposer: fromComposer, acked: false, userOrder: null, gotText: false };
    turn.user = R.userBubble(text, attachments);
    turn.answer = R.answerBubble();
    log.appendChild(turn.user);
    log.appendChild(turn.answer.node);
    C.socket.send({
      type: "message",
      text: text,
      attached_claim_ids: attachments.map(function (claim) { return claim.id; }),
      fact_topic: topic || null,
    });
    if (fromComposer) {
      C.composer.clear();
      C.composer.setAttachments([]);
    }
    C.announce("Sent. Cairn is answering…");
    updateButtons();
    toBottom();
  }
  C.send = function () { send(); };

  function stop() {
    if (!turn || !connected() || turn.stopping) return;
    turn.stopping = true;
    C.socket.send({ type: "cancel" });
    setStatusLine("Stopping…", false);
    updateButtons();
  }
  C.stop = stop;

  function rejected(message) {
    // Nothing was saved: put the words (and attachments) back where they were.
    turn.user.remove();
    turn.answer.node.remove();
    if (turn.fromComposer && !C.composer.text().trim()) {
      C.composer.setText(turn.text);
      C.composer.setAttachments(turn.attachments);
    }
    showError(message);
    endTurn();
  }

  /** The message did not commit: its bubble stays, marked, with its words and a Resend
   * button; the words go back to an empty composer too. */
  function notSaved(message) {
    var current = turn;
    current.answer.node.remove();
    current.user.classList.remove("pending");
    current.user.classList.add("msg-unsaved");
    current.user.removeAttribute("data-transient");
    current.user.appendChild(
      C.el("p", { class: "msg-status err" }, [
        message + " ",
        C.el("button", { type: "button", class: "linkish", "data-resend": current.text, "data-resend-bubble": "1", text: "Resend" }),
      ])
    );
    if (current.fromComposer && !C.composer.text().trim()) {
      C.composer.setText(current.text);
      C.composer.setAttachments(current.attachments);
    }
    showError(message);
    C.announce(message);
    endTurn();
  }

  /** The answer streamed but could not be saved: it stays on the page, marked, and "Save
   * again" asks the server (which kept it for this connection) to save it. */
  function answerUnsaved(event) {
    var bubble = turn ? turn.answer : null;
    var node = bubble ? bubble.node : log.querySelector('[data-unsaved-id="' + event.id + '"]');
    if (!node) return;
    var body = bubble ? bubble.body : node.querySelector(".msg-body");
    var status = bubble ? bubble.status : node.querySelector(".msg-status, .tool-line");
    body.classList.remove("streaming");
    body.textContent = event.content;
    node.removeAttribute("aria-busy");
    node.removeAttribute("data-transient");
    node.classList.remove("pending");
    node.classList.add("msg-unsaved");
    node.dataset.unsavedId = event.id;
    status.className = "msg-status err";
    status.replaceChildren(
      C.el("strong", { text: "Not saved" }),
      ": " + event.reason + ". Save it again once the database is back. ",
      C.el("button", { type: "button", class: "linkish", "data-save-answer": event.id, text: "Save again" })
    );
    C.announce("The answer was not saved");
    if (turn) endTurn();
  }

  function answerSaved(event) {
    var node = log.querySelector('[data-unsaved-id="' + event.id + '"]');
    if (node) node.remove();
    replay();
    C.announce("Answer saved");
  }

  /** The messages saved after the last one shown, from the database. */
  function replay() {
    C.fragment(chat.dataset.messagesUrl + "?after=" + lastOrder())
      .then(function (nodes) {
        R.removeStale(nodes);
        if (C.markChips) C.markChips(nodes);
        log.appendChild(nodes);
        toBottom();
      })
      .catch(function () { /* the next reconnection tries again */ });
  }

  function endTurn() {
    turn = null;
    updateButtons();
    if (document.activeElement === document.body || document.activeElement === stopButton) C.composer.input.focus();
  }

  function handle(event) {
    switch (event.type) {
      case "ack":
        if (!turn) return;
        turn.acked = true;
        turn.userOrder = event.order;
        turn.user.dataset.order = event.order;
        turn.user.id = "message-" + event.message_id;
        turn.user.classList.remove("pending");
        (event.references || []).forEach(function (ref) {
          if (ref.found) return;
          turn.user.querySelectorAll(".ref-chip").forEach(function (chip) {
            if (chip.dataset.ref.toLowerCase() === String(ref.identifier).toLowerCase()) {
              chip.classList.add("missing");
              chip.title = ref.message;
            }
          });
        });
        // The server's reading wins: a chip it did not read as a reference (a rank, "my #1
        // crypto") goes back to plain text.
        var read = (event.references || []).map(function (ref) { return String(ref.identifier).toLowerCase(); });
        turn.user.querySelectorAll(".ref-chip").forEach(function (chip) {
          if (read.indexOf(chip.dataset.ref.toLowerCase()) === -1) chip.replaceWith(document.createTextNode(chip.textContent));
        });
        (event.notices || []).forEach(function (notice) {
          turn.user.appendChild(C.el("p", { class: "msg-notice", text: notice }));
        });
        // What the question stored, in words, while the answer is still being written; the
        // saved answer shows the same lines (and any suggestions) when it replaces this one.
        if ((event.changes || []).length) {
          turn.answer.node.appendChild(
            C.el("div", { class: "turn-changes" }, [
              C.el("ul", { class: "turn-facts" }, event.changes.map(function (text) { return C.el("li", { text: text }); })),
            ])
          );
        }
        return;
      case "clarify":
        if (!turn) return;
        turn.answer.body.textContent = event.question;
        setStatusLine("", false);
        return;
      case "memory":
        var count = (event.items || []).length;
        setStatusLine(
          "Using " + count + " memor" + (count === 1 ? "y" : "ies") +
            (event.facts_retrieved ? " and " + event.facts_retrieved + " fact" + (event.facts_retrieved === 1 ? "" : "s") : ""),
          true
        );
        return;
      case "sources":
        return;
      case "review":
        // The marks themselves come with the saved answer's html (done); say it meanwhile.
        if (!turn || !(event.findings || []).length) return;
        C.announce("Checked against its sources: " + event.findings.length + " citation(s) doubted");
        return;
      case "delta":
        if (!turn) return;
        var stick = nearBottom();
        if (!turn.gotText) {
          turn.gotText = true;
          setStatusLine("Writing", true);
        }
        turn.answer.body.appendChild(document.createTextNode(event.text));
        if (stick) toBottom();
        return;
      case "tool":
        if (!turn) return;
        var label = TOOL_LABELS[event.name] || "Using a tool";
        if (event.phase === "call") setStatusLine(label, true);
        else if (event.is_error) setStatusLine("A memory tool failed; going on", true);
        return;
      case "error":
        if (turn && !turn.acked && REJECTIONS.indexOf(event.code) !== -1) {
          rejected(event.message);
          return;
        }
        if (turn && event.code === CODE.NOT_SAVED) {
          notSaved(event.message);
          return;
        }
        if (!turn) {
          log.querySelectorAll("[data-save-answer]").forEach(function (button) { button.disabled = false; });
          showError(event.message);
          return;
        }
        if (event.code === CODE.CANCELLED || event.code === CODE.PROVIDER) {
          setStatusLine(event.code === CODE.CANCELLED ? "Stopped — saving the partial answer" : "The model failed — saving", false);
          return;
        }
        // internal: the turn ended without an answer; the saved messages say what is left.
        setStatusLine(event.message, false);
        turn.answer.node.classList.add("status-failed");
        var order = turn.userOrder;
        endTurn();
        resync({ after: order ? order - 1 : lastOrder() }, 0);
        return;
      case "done":
        finish(event.message);
        return;
      case "answer_unsaved":
        answerUnsaved(event);
        return;
      case "answer_saved":
        answerSaved(event);
        return;
      default:
        return;
    }
  }

  function finish(payload) {
    if (!turn) return;
    var current = turn;
    var stick = nearBottom();
    // The server-rendered, sanitised answer at once; then the whole message as the page
    // renders it (memory used, sources, badge, actions).
    current.answer.body.classList.remove("streaming");
    current.answer.body.classList.add("markdown");
    current.answer.body.innerHTML = payload.html;
    current.answer.node.removeAttribute("aria-busy");
    current.answer.node.dataset.order = payload.order;
    var note = R.statusNote(payload);
    current.answer.status.textContent = note;
    current.answer.status.className = note ? "msg-status " + (payload.status === "failed" ? "err" : "warn") : "tool-line";
    C.announce(note || "Answer complete");
    endTurn();
    var after = current.userOrder ? current.userOrder - 1 : payload.order - 1;
    C.fragment(chat.dataset.messagesUrl + "?after=" + after)
      .then(function (nodes) {
        current.user.remove();
        current.answer.node.remove();
        R.removeStale(nodes);
        if (C.markChips) C.markChips(nodes);
        log.appendChild(nodes);
        if (stick) toBottom();
      })
      .catch(function () { /* the streamed version stays; a reload shows the rest */ });
    if (C.refreshSidebar) C.refreshSidebar().then(R.syncTitle);
    refreshPending(after, 0);
  }

  // ---- pending claims: the navigation's badge and the answer's suggestions ---------------
  function setPending(count) {
    document.querySelectorAll("[data-pending-count]").forEach(function (badge) {
      badge.textContent = String(count);
      badge.hidden = !count;
    });
  }

  /** Claims are suggested in the background after the answer is saved: check the count
   * now and a little later, and show the turn again when it changed. */
  function refreshPending(after, attempt) {
    var before = document.querySelector("[data-pending-count]");
    var known = before ? Number(before.textContent) || 0 : 0;
    window.setTimeout(function () {
      C.api("GET", "claims/pending-count")
        .then(function (data) {
          setPending(data.pending);
          // Re-read the turn only when its answer shows no suggestion yet: one the user is
          // already reviewing must not be replaced under their hand.
          var answer = log.querySelector('.msg-assistant[data-order="' + (after + 2) + '"]');
          var shown = answer && answer.querySelector("[data-suggestion], .turn-saved, .turn-reviewed");
          if (data.pending !== known && !turn && !shown) {
            return C.fragment(chat.dataset.messagesUrl + "?after=" + after).then(function (nodes) {
              R.removeStale(nodes);
              log.appendChild(nodes);
            });
          }
          if (attempt < 1) refreshPending(after, attempt + 1);
        })
        .catch(function () { /* the badge catches up on the next page */ });
    }, attempt ? 4000 : 300);
  }

  // Approve / Edit / Dismiss under an answer, without leaving the chat; without
  // JavaScript the same forms post and come back to this answer.
  log.addEventListener("submit", function (event) {
    var reviewForm = event.target;
    if (!(reviewForm instanceof HTMLFormElement) || !reviewForm.hasAttribute("data-review")) return;
    var box = reviewForm.closest("[data-suggestion]");
    if (!box) return;
    event.preventDefault();
    box.querySelectorAll("button").forEach(function (button) { button.disabled = true; });
    fetch(reviewForm.action, {
      method: "POST",
      body: new FormData(reviewForm),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        return response.json().then(function (data) { return { ok: response.ok, data: data }; });
      })
      .then(function (result) {
        if (!result.ok) {
          showError(result.data.message);
          box.querySelectorAll("button").forEach(function (button) { button.disabled = false; });
          return;
        }
        box.replaceChildren(C.el("p", { class: "turn-reviewed", text: result.data.message }));
        setPending(result.data.pending);
        C.announce(result.data.message);
      })
      .catch(function () { reviewForm.submit(); });
  });

  function interrupted() {
    var current = turn;
    var note = current.acked
      ? "Connection lost — the answer goes on and will show when the page reconnects."
      : "Connection lost before the message was confirmed.";
    setStatusLine(note, false);
    current.answer.status.className = "msg-status warn";
    current.answer.node.removeAttribute("aria-busy");
    resyncNeeded = { after: current.userOrder ? current.userOrder - 1 : lastOrder(), turn: current };
    endTurn();
  }

  /** Fetch the messages saved while we were away and put them in place of the bubbles. */
  function resync(state, attempt) {
    window.setTimeout(function () {
      C.fragment(chat.dataset.messagesUrl + "?after=" + state.after)
        .then(function (nodes) {
          var fresh = nodes.querySelectorAll(".msg");
          var last = fresh.length ? fresh[fresh.length - 1] : null;
          var answered = last && last.classList.contains("msg-assistant");
          if (!answered && attempt < 3) {
            resync(state, attempt + 1); // the partial answer may still be being saved
            return;
          }
          log.querySelectorAll(".msg[data-transient]").forEach(function (node) { node.remove(); });
          R.removeStale(nodes);
          var savedUser = Array.prototype.some.call(fresh, function (node) { return node.classList.contains("msg-user"); });
          log.appendChild(nodes);
          toBottom();
          var lost = state.turn;
          if (lost && !savedUser && lost.fromComposer && !C.composer.text().trim()) {
            C.composer.setText(lost.text);
            C.composer.setAttachments(lost.attachments);
            showError("Your last message did not reach Cairn; it is back in the box.");
          }
        })
        .catch(function () { /* a later reconnect tries again */ });
    }, 800 * (attempt + 1));
  }

  // ---- the composer form ----------------------------------------------------------------------
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    send();
  });
  stopButton.addEventListener("click", stop);
  C.composer.input.addEventListener("input", updateButtons);

  // ---- actions on messages ---------------------------------------------------------------------
  document.addEventListener("click", function (event) {
    var target = event.target.closest("button, a");
    if (!target) return;
    var data = target.dataset;
    if (data.attach) {
      C.composer.attach({ id: data.attach, number: data.number, statement: data.statement });
      C.composer.input.focus();
    } else if (data.clarifyTopic) {
      var group = target.closest("[data-clarify-text]");
      if (group) send(group.dataset.clarifyText, data.clarifyTopic);
    } else if (data.resend) {
      if (data.resendBubble && connected() && !turn) target.closest(".msg").remove();
      send(data.resend);
    } else if (data.saveAnswer) {
      if (!connected()) {
        showError("Not connected — reconnecting. Save again in a moment.");
        return;
      }
      target.disabled = true;
      C.socket.send({ type: "save_answer", id: data.saveAnswer });
    } else if (target.matches('a[href^="#src-"]')) {
      var source = document.getElementById(target.getAttribute("href").slice(1));
      var panel = source && source.closest("details");
      if (panel) panel.open = true;
    }
  });

  // A message's menu folds when the user clicks elsewhere, as the conversation menus do.
  document.addEventListener("click", function (event) {
    document.querySelectorAll("details.msg-menu[open]").forEach(function (menu) {
      if (!menu.contains(event.target)) menu.open = false;
    });
  });

  document.addEventListener("submit", function (event) {
    var rememberForm = event.target;
    if (!rememberForm.matches || !rememberForm.matches("form[data-remember]")) return;
    event.preventDefault();
    var result = rememberForm.querySelector("[data-remember-result]");
    var button = rememberForm.querySelector("button[type=submit]");
    button.disabled = true;
    result.textContent = "Saving…";
    C.api("POST", "messages/" + rememberForm.dataset.remember + "/remember", { statement: rememberForm.elements.statement.value })
      .then(function (saved) {
        result.replaceChildren(
          saved.created ? "Saved as " : "Already known — reinforced ",
          C.el("a", { href: saved.url, text: "#" + saved.number })
        );
      })
      .catch(function (error) { result.textContent = "Not saved: " + error.message; })
      .then(function () { button.disabled = false; });
  });

  // ---- start ------------------------------------------------------------------------------------
  var hash = window.location.hash && document.getElementById(window.location.hash.slice(1));
  if (hash) {
    var details = hash.closest("details");
    if (details) details.open = true;
    hash.scrollIntoView({ block: "center" });
  } else {
    toBottom();
  }
  updateButtons();
  C.socket.connect();
  if (!hash) C.composer.input.focus({ preventScroll: true });
})();
