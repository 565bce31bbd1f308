// The bubbles of a turn while it streams (the server's rendering replaces them when it is
// saved), the status line under an answer, and swapping in fresh server-rendered messages.
(function () {
  "use strict";
  var C = window.CairnChat;
  var chat = C.root();
  if (!chat || !chat.dataset.currentId) return;

  function referenceNodes(text) {
    // The ranks the composer already asked the server for; the ack prunes any chip the
    // server did not read as a reference either way.
    var ranks = (C.composer && C.composer.ranksOf(text)) || [];
    var parsed = window.CairnReferences.parseReferences(text, { ranks: ranks });
    var nodes = [];
    var position = 0;
    parsed.references.forEach(function (ref) {
      nodes.push(text.slice(position, ref.utf16Start));
      nodes.push(C.refChip(ref));
      position = ref.utf16End;
    });
    nodes.push(text.slice(position));
    return nodes;
  }

  function head(who) {
    return C.el("div", { class: "msg-head" }, [C.el("span", { class: "msg-who", text: who })]);
  }

  function userBubble(text, attachments) {
    var bubble = C.el("article", { class: "msg msg-user pending", "data-transient": "1" }, [
      head("You"),
      C.el("div", { class: "msg-body msg-text" }, referenceNodes(text)),
    ]);
    if (attachments.length) {
      bubble.appendChild(
        C.el("div", { class: "msg-attached small" }, [C.el("span", { class: "muted", text: "Used for this turn:" })].concat(
          attachments.map(function (claim) { return C.el("span", { class: "chip", text: " #" + claim.number, title: claim.statement }); })
        ))
      );
    }
    return bubble;
  }

  function answerBubble() {
    var body = C.el("div", { class: "msg-body streaming" });
    var status = C.el("p", { class: "tool-line typing", text: "Thinking" });
    var bubble = C.el("article", { class: "msg msg-assistant pending", "data-transient": "1", "aria-busy": "true" }, [head("Cairn"), body, status]);
    return { node: bubble, body: body, status: status };
  }

  function statusNote(payload) {
    if (payload.status === "partial") {
      return payload.error === "Stopped by the user." ? "Stopped — partial answer saved" : "Interrupted: " + payload.error + " — partial answer saved";
    }
    if (payload.status === "failed") return "The model failed: " + (payload.error || "no answer") + "; your message was saved";
    return "";
  }

  /** Remove the messages on the page that ``nodes`` (fresh from the server) replace. */
  function removeStale(nodes) {
    Array.prototype.forEach.call(nodes.querySelectorAll(".msg[id]"), function (fresh) {
      var old = document.getElementById(fresh.id);
      if (old) old.remove();
    });
  }

  /** The first message names an untitled conversation: show the name the server gave it. */
  function syncTitle() {
    var named = document.querySelector(".conv-item.current [data-title]");
    var heading = document.querySelector(".conv-head [data-title]");
    if (!named || !heading || heading.textContent === named.textContent) return;
    heading.textContent = named.textContent;
    document.title = named.textContent + " · Cairn";
  }

  C.render = {
    userBubble: userBubble,
    answerBubble: answerBubble,
    statusNote: statusNote,
    removeStale: removeStale,
    syncTitle: syncTitle,
  };
})();
