// The conversation's model picker: a choice is remembered as soon as it is made (the form
// posts and the page comes back with it); without JavaScript the "Use" button does it.
(function () {
  "use strict";
  const select = document.querySelector("[data-model-choice]");
  if (!select) return;
  const use = select.form.querySelector("[data-model-use]");
  if (use) use.hidden = true;
  select.addEventListener("change", () => select.form.requestSubmit());
})();
