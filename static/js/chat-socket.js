// The chat's websocket (/ws/chat/<id>/, protocol in the README) on the shared reconnecting
// socket (reconnect.js): back-off, a heartbeat, and again when the page is back online or
// visible. The turn (chat.js) says what happens on open, on each event and on close
// through C.socket.on(…); on a reconnection it replays what it missed from the database.
(function () {
  "use strict";
  var C = window.CairnChat;
  var chat = C.root();
  if (!chat || !chat.dataset.currentId) return;
  var connState = document.getElementById("conn-state");
  var hooks = { open: function () {}, event: function () {}, close: function () {} };

  function setConn(text, state) {
    connState.textContent = text;
    connState.className = "conn-state " + (state || "");
  }

  var socket = window.CairnReconnect.reconnecting({
    url: function () {
      setConn("connecting…");
      return window.CairnReconnect.socketUrl(chat.dataset.wsPath, window.location);
    },
    heartbeatMs: 25000,
    onOpen: function (info) {
      setConn("connected", "up");
      hooks.open(info);
    },
    onMessage: function (data) { hooks.event(data); },
    onClose: function (info) {
      hooks.close(info);
      if (info.code === 4401) {
        setConn("you were signed out", "down");
        if (window.CairnSession) window.CairnSession.signedOut();
      } else if (info.code === 4409) setConn("checking the session…");
      else if (info.code === 4404) setConn("this conversation no longer exists", "down");
      else setConn("disconnected — reconnecting in " + Math.max(1, Math.round(info.delay / 1000)) + " s", "down");
    },
  });

  window.addEventListener("online", socket.now);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && !socket.connected()) socket.now();
  });

  C.socket = {
    connect: socket.open,
    connected: socket.connected,
    send: socket.send,
    on: function (name, fn) { hooks[name] = fn; },
  };
})();
