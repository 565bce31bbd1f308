// The main navigation folds behind a "Menu" button on narrow screens (issue 18). The
// button stays hidden until this script runs, so without JavaScript the links remain a
// single row that scrolls inside itself (static/css/cairn.css).
(function () {
  "use strict";
  // The user's (developer) menu is a <details>: a click elsewhere or Escape folds it.
  var userMenu = document.querySelector(".user-menu");
  if (userMenu) {
    document.addEventListener("click", function (event) {
      if (userMenu.open && !userMenu.contains(event.target)) userMenu.open = false;
    });
    userMenu.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && userMenu.open) {
        event.stopPropagation();
        userMenu.open = false;
        userMenu.querySelector("summary").focus();
      }
    });
  }

  var toggle = document.querySelector(".nav-toggle");
  var menu = document.getElementById("site-menu");
  var bar = toggle && toggle.closest(".topbar");
  if (!toggle || !menu || !bar) return;

  bar.classList.add("has-menu-button");
  toggle.hidden = false;

  function setOpen(open, returnFocus) {
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    bar.classList.toggle("menu-open", open);
    if (!open && returnFocus) toggle.focus();
  }

  function isOpen() {
    return toggle.getAttribute("aria-expanded") === "true";
  }

  toggle.addEventListener("click", function () {
    setOpen(!isOpen(), false);
    if (isOpen()) {
      var first = menu.querySelector("a, button");
      if (first) first.focus();
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && isOpen()) {
      // Escape elsewhere (the chat's stop) must not also close a menu nobody sees.
      event.preventDefault();
      setOpen(false, true);
    }
  });
  document.addEventListener("click", function (event) {
    if (isOpen() && !bar.contains(event.target)) setOpen(false, false);
  });
  // Tabbing out of the open menu closes it, so it never hides the page behind it.
  menu.addEventListener("focusout", function (event) {
    if (isOpen() && event.relatedTarget && !bar.contains(event.relatedTarget)) setOpen(false, false);
  });
})();
