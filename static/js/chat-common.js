// Shared helpers of the chat page (loaded in <head>, before the page is parsed, so the
// "js" class is on <html> before the first paint and script-only controls never flash).
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function root() {
    return document.getElementById("chat");
  }

  function csrfToken() {
    var input = document.querySelector("#chat input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  /** A JSON call to the page's own API (/api/ui/...), with the session and CSRF token. */
  function api(method, path, body) {
    var init = {
      method: method,
      credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(root().dataset.apiRoot + path, init).then(function (response) {
      if (response.status === 204) return null;
      return response
        .json()
        .catch(function () { return {}; })
        .then(function (data) {
          if (!response.ok) {
            // Both JSON APIs refuse a value as {"field": ["why"]} (or {"detail": …}).
            var detail = data && data.detail;
            if (Array.isArray(detail)) detail = detail.map(function (d) { return d.msg || d; }).join("; ");
            if (!detail && data && typeof data === "object") {
              detail = Object.keys(data).map(function (field) {
                return field + ": " + [].concat(data[field]).join(" ");
              }).join("; ");
            }
            var error = new Error(detail || "The server answered " + response.status + ".");
            error.status = response.status;
            throw error;
          }
          return data;
        });
    });
  }

  /** GET an HTML fragment of the page and parse it into nodes. */
  function fragment(url) {
    return fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } }).then(
      function (response) {
        if (!response.ok) throw new Error("The server answered " + response.status + ".");
        return response.text().then(function (html) {
          var template = document.createElement("template");
          template.innerHTML = html;
          return template.content;
        });
      }
    );
  }

  /** Say something to screen readers (and nothing to anyone else). */
  function announce(text) {
    var status = document.getElementById("chat-status");
    if (!status) return;
    status.textContent = "";
    window.setTimeout(function () { status.textContent = text; }, 30);
  }

  /** el("span", {class: "x", text: "hi"}, [children]) — builds DOM without innerHTML. */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === undefined || value === null || value === false) return;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function debounce(fn, wait) {
    var timer = null;
    return function () {
      var args = arguments;
      var self = this;
      window.clearTimeout(timer);
      timer = window.setTimeout(function () { fn.apply(self, args); }, wait);
    };
  }

  /** A parsed reference (references.js) as the chip the composer and the messages show. */
  function refChip(ref) {
    return el("span", { class: "ref-chip", tabindex: "0", "data-ref": ref.identifier, "data-ref-kind": ref.kind, text: ref.raw });
  }

  window.CairnChat = {
    root: root,
    refChip: refChip,
    api: api,
    fragment: fragment,
    announce: announce,
    el: el,
    debounce: debounce,
  };
})();
