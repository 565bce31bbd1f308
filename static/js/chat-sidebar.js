// The conversations sidebar (and the conversation header's menu): live search, the
// archived toggle, inline rename, archive and delete through /api/ui/. Without script
// the same controls are links and forms that the server answers with redirects.
(function () {
  "use strict";
  var C = window.CairnChat;
  var chat = C.root();
  if (!chat) return;
  var currentId = chat.dataset.currentId || "";
  var search = document.getElementById("conv-search");
  var query = document.getElementById("conv-q");
  var archived = document.getElementById("conv-archived");

  function listUrl() {
    var params = new URLSearchParams();
    if (query.value.trim()) params.set("q", query.value.trim());
    if (archived.checked) params.set("archived", "on");
    return params;
  }

  var refreshToken = 0;
  function refresh() {
    var params = listUrl();
    var shown = params.toString();
    params.set("current", currentId);
    var token = ++refreshToken;
    return C.fragment(chat.dataset.sidebarUrl + "?" + params.toString())
      .then(function (nodes) {
        if (token !== refreshToken) return; // a newer search has been sent
        var list = document.getElementById("conv-list");
        list.replaceWith(nodes);
        var url = new URL(window.location.href);
        url.search = shown;
        window.history.replaceState(window.history.state, "", url);
        var count = document.getElementById("conv-list").dataset.count;
        if (query.value.trim()) C.announce(count + " conversation" + (count === "1" ? "" : "s") + " found");
      })
      .catch(function () { /* the list stays as it was; the next keystroke tries again */ });
  }
  C.refreshSidebar = refresh;

  if (search) {
    search.addEventListener("submit", function (event) {
      event.preventDefault();
      refresh();
    });
    query.addEventListener("input", C.debounce(refresh, 250));
    query.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && query.value) {
        query.value = "";
        refresh();
      }
    });
    archived.addEventListener("change", refresh);
  }

  // The drawer on narrow screens.
  function setDrawer(open) {
    chat.classList.toggle("sidebar-open", open);
    document.querySelectorAll(".sidebar-toggle").forEach(function (button) {
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
    if (open) query.focus();
  }
  document.addEventListener("click", function (event) {
    var toggle = event.target.closest(".sidebar-toggle");
    if (toggle) {
      setDrawer(!chat.classList.contains("sidebar-open"));
      return;
    }
    if (chat.classList.contains("sidebar-open") && !event.target.closest("#chat-sidebar")) {
      setDrawer(false);
    }
  });
  // The rename / archive / delete menus: Escape or a click elsewhere closes them.
  function closeMenus(except) {
    document.querySelectorAll("details.conv-menu[open], details.pinned-panel[open]").forEach(function (menu) {
      if (menu !== except) menu.open = false;
    });
  }
  document.addEventListener("click", function (event) {
    closeMenus(event.target.closest("details.conv-menu, details.pinned-panel"));
  });
  document.addEventListener("keydown", function (event) {
    var menu = event.key === "Escape" && event.target.closest && event.target.closest("details[open]");
    if (menu && menu.matches(".conv-menu, .pinned-panel")) {
      menu.open = false;
      menu.querySelector("summary").focus();
      return;
    }
    if (event.key === "Escape" && chat.classList.contains("sidebar-open")) setDrawer(false);
    if (event.altKey && !event.ctrlKey && !event.metaKey && (event.key === "n" || event.key === "N")) {
      var form = document.querySelector(".sidebar-new");
      if (form) {
        event.preventDefault();
        form.submit();
      }
    }
  });

  // Actions on one conversation, from the sidebar or the header.
  function owner(node) {
    return node.closest("[data-conversation-id]");
  }

  function closeMenu(node) {
    var menu = node.closest("details.conv-menu");
    if (menu) menu.open = false;
  }

  function titleNodes(id) {
    return document.querySelectorAll('[data-conversation-id="' + id + '"] [data-title]');
  }

  function showTitle(id, title) {
    titleNodes(id).forEach(function (node) { node.textContent = title; });
    if (id === currentId) document.title = title + " · Cairn";
  }

  function startRename(item) {
    var id = item.dataset.conversationId;
    var label = item.querySelector("[data-title]");
    if (!label || item.querySelector(".conv-rename-input")) return;
    var before = label.textContent;
    var input = C.el("input", {
      type: "text",
      class: "conv-rename-input",
      maxlength: "200",
      "aria-label": "New title",
      value: before === "Untitled conversation" ? "" : before,
    });
    // Never inside the sidebar's link, where a click in the field would follow it.
    var hide = label.closest(".conv-link") || label;
    hide.hidden = true;
    hide.after(input);
    input.focus();
    input.select();
    var done = false;
    function finish(save) {
      if (done) return;
      done = true;
      var title = input.value.trim();
      input.remove();
      hide.hidden = false;
      if (!save || title === before) return;
      C.api("PATCH", "conversations/" + id, { title: title })
        .then(function (conversation) {
          showTitle(id, conversation.title);
          C.announce("Renamed to " + conversation.title);
        })
        .catch(function (error) { window.alert("Could not rename: " + error.message); });
    }
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        finish(true);
      } else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        finish(false);
      }
    });
    input.addEventListener("blur", function () { finish(true); });
  }

  document.addEventListener("click", function (event) {
    var rename = event.target.closest('a[data-action="rename"]');
    var remove = event.target.closest('a[data-action="delete"]');
    var action = rename || remove;
    if (!action || !owner(action)) return;
    event.preventDefault();
    var item = owner(action);
    var id = item.dataset.conversationId;
    closeMenu(action);
    if (rename) {
      startRename(item);
      return;
    }
    var title = (item.querySelector("[data-title]") || {}).textContent || "this conversation";
    if (!window.confirm("Delete “" + title + "” and all its messages? Memories saved from it stay.")) {
      return;
    }
    C.api("DELETE", "conversations/" + id)
      .then(function () {
        if (id === currentId) {
          window.location.href = chat.dataset.homeUrl;
          return;
        }
        document.querySelectorAll('.conv-item[data-conversation-id="' + id + '"]').forEach(function (li) {
          li.remove();
        });
        C.announce("Deleted “" + title + "”");
      })
      .catch(function (error) { window.alert("Could not delete: " + error.message); });
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches('form[data-action="archive"]') || !owner(form)) return;
    event.preventDefault();
    var id = owner(form).dataset.conversationId;
    var archive = form.elements.archived.value === "true";
    closeMenu(form);
    C.api("PATCH", "conversations/" + id, { archived: archive })
      .then(function () {
        if (id === currentId) {
          // Its own address: home would now open another conversation.
          window.location.assign(chat.dataset.conversationUrl);
          return;
        }
        refresh();
        C.announce(archive ? "Conversation archived" : "Conversation restored");
      })
      .catch(function (error) { window.alert("Could not change it: " + error.message); });
  });
})();
