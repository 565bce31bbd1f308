// The reconnecting websocket every page uses (static/js/reconnect.js): back-off, the close
// codes that stop it, and telling a reconnection from the first connection.
// Run: node --test tests/js/
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const require = createRequire(import.meta.url);
const { backoff, reconnecting, socketUrl } = require(
  fileURLToPath(new URL("../../static/js/reconnect.js", import.meta.url))
);

/** A WebSocket and timers the test moves by hand. */
function harness(random = 0.5) {
  const sockets = [];
  const timers = [];
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.readyState = 0;
      this.sent = [];
      this.listeners = {};
      sockets.push(this);
    }
    addEventListener(name, fn) {
      (this.listeners[name] ||= []).push(fn);
    }
    send(text) {
      this.sent.push(JSON.parse(text));
    }
    fire(name, event = {}) {
      if (name === "open") this.readyState = 1;
      if (name === "close") this.readyState = 3;
      (this.listeners[name] || []).forEach((fn) => fn(event));
    }
  }
  const env = {
    WebSocket: FakeSocket,
    setTimeout: (fn, ms) => timers.push({ fn, ms, cleared: false }) - 1,
    clearTimeout: (id) => {
      if (id !== null && timers[id]) timers[id].cleared = true;
    },
    setInterval: () => 1,
    clearInterval: () => {},
    random: () => random,
  };
  const runDueTimer = () => {
    const timer = timers.filter((t) => !t.cleared).pop();
    timer.cleared = true;
    timer.fn();
    return timer.ms;
  };
  return { sockets, timers, env, runDueTimer };
}

test("back-off doubles from 1 s to at most 30 s, with ±20 % jitter", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6, 10].map((n) => backoff(n, 0.5)),
    [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]
  );
  assert.equal(backoff(0, 0), 800);
  assert.equal(backoff(5, 0.999999), 36000);
});

test("a dropped socket is opened again after the back-off, and the page is told it reconnected", () => {
  const h = harness();
  const opens = [];
  const closes = [];
  const socket = reconnecting({
    url: () => "ws://site/ws/chat/1/",
    env: h.env,
    onOpen: (info) => opens.push(info.reconnected),
    onClose: (info) => closes.push(info),
  });

  socket.open();
  h.sockets[0].fire("open");
  h.sockets[0].fire("close", { code: 1006 });
  assert.equal(socket.connected(), false);
  assert.deepEqual(closes[0], { code: 1006, final: false, delay: 1000 });
  assert.equal(h.runDueTimer(), 1000);
  h.sockets[1].fire("close", { code: 1011 }); // the server is still restarting
  assert.equal(closes[1].delay, 2000);
  h.runDueTimer();
  h.sockets[2].fire("open");

  assert.equal(h.sockets.length, 3);
  assert.deepEqual(opens, [false, true]);
  assert.equal(socket.connected(), true);
  h.sockets[2].fire("close", { code: 1012 });
  assert.equal(closes[2].delay, 1000); // an open resets the back-off
});

test("logged out (4401) and gone (4404) are final: no retry", () => {
  for (const code of [4401, 4404]) {
    const h = harness();
    const closes = [];
    const socket = reconnecting({ url: () => "ws://x/", env: h.env, onClose: (i) => closes.push(i) });
    socket.open();
    h.sockets[0].fire("open");
    h.sockets[0].fire("close", { code });
    assert.deepEqual(closes, [{ code, final: true, delay: null }]);
    assert.equal(h.timers.length, 0);
    socket.now(); // even "back online" does not reopen it
    assert.equal(h.sockets.length, 1);
  }
});

test("messages arrive parsed; what is not JSON is dropped; a second open() is a no-op", () => {
  const h = harness();
  const got = [];
  const socket = reconnecting({ url: () => "ws://x/", env: h.env, onMessage: (d) => got.push(d) });
  socket.open();
  socket.open();
  assert.equal(h.sockets.length, 1);
  h.sockets[0].fire("open");
  h.sockets[0].fire("message", { data: '{"type":"pong"}' });
  h.sockets[0].fire("message", { data: "not json" });
  socket.send({ type: "ping" });
  assert.deepEqual(got, [{ type: "pong" }]);
  assert.deepEqual(h.sockets[0].sent, [{ type: "ping" }]);
});

test("now() skips the wait: back online tries at once, from the shortest delay", () => {
  const h = harness();
  const closes = [];
  const socket = reconnecting({ url: () => "ws://x/", env: h.env, onClose: (i) => closes.push(i) });
  socket.open();
  h.sockets[0].fire("close", { code: 1006 });
  h.runDueTimer();
  h.sockets[1].fire("close", { code: 1006 });
  socket.now();
  assert.equal(h.sockets.length, 3);
  h.sockets[2].fire("close", { code: 1006 });
  assert.equal(closes[2].delay, 1000);
});

test("a socket's URL is on the page's host, secure under https", () => {
  assert.equal(
    socketUrl("/ws/events/", { protocol: "https:", host: "cairn.example:8443" }),
    "wss://cairn.example:8443/ws/events/"
  );
  assert.equal(
    socketUrl("/ws/chat/7/", { protocol: "http:", host: "127.0.0.1:8000" }),
    "ws://127.0.0.1:8000/ws/chat/7/"
  );
});
