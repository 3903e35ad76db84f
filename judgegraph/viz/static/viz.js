// judgegraph viz: load big raw events only when opened; submit filters as they change.
"use strict";

document.addEventListener("toggle", async (event) => {
  const details = event.target;
  if (!(details instanceof HTMLDetailsElement) || !details.open || !details.dataset.src || details.dataset.loaded) {
    return;
  }
  details.dataset.loaded = "1";
  const body = details.querySelector(".raw-body");
  try {
    const response = await fetch(details.dataset.src);
    body.textContent = response.ok ? JSON.stringify(await response.json(), null, 1) : `could not load (${response.status})`;
  } catch (error) {
    body.textContent = `could not load: ${error}`;
  }
}, true);

const filters = document.getElementById("filters");
if (filters) {
  filters.querySelectorAll("select").forEach((select) => select.addEventListener("change", () => filters.requestSubmit()));
}
