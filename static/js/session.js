// When this browser's session ends while a page is open (logout in another tab, or a
// password change elsewhere: apps/accounts/sessions.py), the server closes the page's
// sockets with 4401. The page then says so and opens the login page, instead of trying
// to reconnect forever. 4409 (the password changed) means: connect again shortly (the
// tab that changed it first needs its response's new session cookie); the handshake lets
// a session that is still signed in back, and closes the others with 4401.
(function () {
  "use strict";
  var shown = false;
  var login = document.body.dataset.loginUrl || "/login/";

  function signedOut() {
    if (shown) return;
    shown = true;
    var box = document.createElement("div");
    box.className = "messages";
    box.setAttribute("role", "alert");
    var notice = document.createElement("div");
    notice.className = "flash flash-warning";
    notice.textContent = "You were signed out. Opening the login page…";
    box.appendChild(notice);
    document.body.insertBefore(box, document.getElementById("main"));
    var next = window.location.pathname + window.location.search;
    window.setTimeout(function () {
      window.location.assign(login + "?next=" + encodeURIComponent(next));
    }, 1500);
  }

  window.CairnSession = {
    SIGNED_OUT: 4401,
    CHANGED: 4409,
    RECHECK_MS: 1500,
    signedOut: signedOut,
  };
})();
