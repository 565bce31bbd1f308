// One reconnecting websocket for every page (the chat's turn socket, the events socket of
// the Files page): back-off from 1 s doubling to 30 s with ±20 % jitter, a heartbeat, and
// no retry after the close codes that mean "stop" (4401 logged out, 4404 gone). The page
// learns on open whether this is a reconnection, to replay what it missed from the
// database. Pure of the DOM: node tests drive it with a fake WebSocket and timers
// (tests/js/reconnect.test.mjs).
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.CairnReconnect = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var FINAL_CODES = { 4401: "logged out", 4404: "not found" };
  var FIRST_DELAY_MS = 1000;
  var MAX_DELAY_MS = 30000;

  /** Milliseconds to wait before try number ``retries`` + 1; ``random`` in [0, 1). */
  function backoff(retries, random) {
    var base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * Math.pow(2, retries));
    return Math.round(base * (0.8 + random * 0.4));
  }

  /** The websocket URL of ``path`` on the page's own host: wss:// under https. */
  function socketUrl(path, location) {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + location.host + path;
  }

  /**
   * options: url() → the socket's URL; onOpen({reconnected}); onMessage(data) with the parsed
   * JSON; onClose({code, final, delay}) (final: no retry; delay: ms until the next try);
   * heartbeatMs (a {"type": "ping"} while open; 0 for none). env (tests): WebSocket,
   * setTimeout, clearTimeout, setInterval, clearInterval, random.
   */
  function reconnecting(options) {
    var env = options.env || {
      WebSocket: WebSocket,
      setTimeout: function (fn, ms) { return setTimeout(fn, ms); },
      clearTimeout: function (id) { clearTimeout(id); },
      setInterval: function (fn, ms) { return setInterval(fn, ms); },
      clearInterval: function (id) { clearInterval(id); },
      random: Math.random,
    };
    var socket = null;
    var retries = 0;
    var timer = null;
    var heartbeat = null;
    var gaveUp = false;
    var opened = false;

    function connected() {
      return socket !== null && socket.readyState === 1;
    }

    function send(payload) {
      socket.send(JSON.stringify(payload));
    }

    function open() {
      env.clearTimeout(timer);
      timer = null;
      if (gaveUp || socket) return;
      var ws = new env.WebSocket(options.url());
      socket = ws;
      ws.addEventListener("open", function () {
        var reconnected = opened;
        opened = true;
        retries = 0;
        if (options.heartbeatMs) {
          heartbeat = env.setInterval(function () {
            if (connected()) send({ type: "ping" });
          }, options.heartbeatMs);
        }
        if (options.onOpen) options.onOpen({ reconnected: reconnected });
      });
      ws.addEventListener("message", function (event) {
        var data;
        try {
          data = JSON.parse(event.data);
        } catch (error) {
          return;
        }
        if (options.onMessage) options.onMessage(data);
      });
      ws.addEventListener("close", function (event) {
        if (socket !== ws) return;
        socket = null;
        env.clearInterval(heartbeat);
        heartbeat = null;
        if (FINAL_CODES[event.code]) {
          gaveUp = true;
          if (options.onClose) options.onClose({ code: event.code, final: true, delay: null });
          return;
        }
        var delay = backoff(retries, env.random());
        retries += 1;
        timer = env.setTimeout(open, delay);
        if (options.onClose) options.onClose({ code: event.code, final: false, delay: delay });
      });
    }

    /** Try at once (the page is back online or visible), from the shortest delay. */
    function now() {
      retries = 0;
      open();
    }

    return { open: open, now: now, send: send, connected: connected, finalCodes: FINAL_CODES };
  }

  return {
    backoff: backoff,
    reconnecting: reconnecting,
    socketUrl: socketUrl,
    FINAL_CODES: FINAL_CODES,
  };
});
