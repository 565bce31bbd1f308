// The chat's websocket (/ws/chat/<id>/, protocol in the README): connect with back-off, a
// heartbeat, and again when the page is back online or visible. The turn (chat.js) says
// what happens on open, on each event and on close through C.socket.on(…).
(function () {
  "use strict";
  var C = window.CairnChat;
  var chat = C.root();
  if (!chat || !chat.dataset.currentId) return;
  var connState = document.getElementById("conn-state");

  var socket = null;
  var retries = 0;
  var retryTimer = null;
  var heartbeat = null;
  var gaveUp = false;
  var hooks = { open: function () {}, event: function () {}, close: function () {} };

  function setConn(text, state) {
    connState.textContent = text;
    connState.className = "conn-state " + (state || "");
  }

  function connected() {
    return socket !== null && socket.readyState === WebSocket.OPEN;
  }

  function send(payload) {
    socket.send(JSON.stringify(payload));
  }

  function connect() {
    window.clearTimeout(retryTimer);
    if (gaveUp || socket) return;
    setConn("connecting…");
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(scheme + window.location.host + chat.dataset.wsPath);
    socket = ws;
    ws.addEventListener("open", function () {
      retries = 0;
      setConn("connected", "up");
      heartbeat = window.setInterval(function () {
        if (connected()) send({ type: "ping" });
      }, 25000);
      hooks.open();
    });
    ws.addEventListener("message", function (event) {
      var data;
      try {
        data = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      hooks.event(data);
    });
    ws.addEventListener("close", function (event) {
      if (socket !== ws) return;
      socket = null;
      window.clearInterval(heartbeat);
      hooks.close();
      var session = window.CairnSession;
      if (event.code === 4401) {
        gaveUp = true;
        setConn("you were signed out", "down");
        if (session) session.signedOut();
        return;
      }
      if (event.code === 4409) {
        // The password changed: connect again and the handshake says whether this session
        // stays. Not at once: the tab that changed it needs its response's new cookie.
        retries = 0;
        setConn("checking the session…");
        retryTimer = window.setTimeout(connect, session ? session.RECHECK_MS : 1500);
        return;
      }
      if (event.code === 4404) {
        gaveUp = true;
        setConn("this conversation no longer exists", "down");
        return;
      }
      var delay = Math.min(30000, 1000 * Math.pow(2, retries)) * (0.8 + Math.random() * 0.4);
      retries += 1;
      setConn("disconnected — reconnecting in " + Math.round(delay / 1000) + " s", "down");
      retryTimer = window.setTimeout(connect, delay);
    });
  }

  window.addEventListener("online", function () {
    retries = 0;
    connect();
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && !socket) {
      retries = 0;
      connect();
    }
  });

  C.socket = {
    connect: connect,
    connected: connected,
    send: send,
    on: function (name, fn) { hooks[name] = fn; },
  };
})();
