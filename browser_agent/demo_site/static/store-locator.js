// <store-locator>: a search box and results inside an open shadow root.
"use strict";

const STORE_LOCATOR_HTML = `
<style>
  :host { display: block; max-width: 32rem; padding: 1rem; border: 1px solid #ccc; }
  ul { padding-left: 1.2rem; }
</style>
<form id="store-form">
  <label for="store-query">City or postal code</label>
  <input id="store-query" name="location" placeholder="City or postal code">
  <button id="find-stores" type="submit">Find stores</button>
</form>
<p id="store-status" role="status"></p>
<ul id="store-results"></ul>
`;

function storeItem(store) {
  const item = document.createElement("li");
  item.className = "store";
  item.dataset.testid = "store";
  const name = document.createElement("strong");
  name.textContent = store.name;
  item.append(name, `, ${store.address}, ${store.postal_code} ${store.city}`);
  return item;
}

class StoreLocator extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) {
      return;
    }
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = STORE_LOCATOR_HTML;
    root.getElementById("store-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.find(root.getElementById("store-query").value.trim());
    });
  }

  async find(query) {
    const status = this.shadowRoot.getElementById("store-status");
    const results = this.shadowRoot.getElementById("store-results");
    if (!query) {
      results.replaceChildren();
      status.textContent = "Enter a city or postal code.";
      return;
    }
    const response = await fetch(`/api/stores?q=${encodeURIComponent(query)}`);
    const stores = await response.json();
    results.replaceChildren(...stores.map(storeItem));
    status.textContent = stores.length
      ? `${stores.length} store(s) near "${query}"`
      : `No stores found for "${query}".`;
  }
}

customElements.define("store-locator", StoreLocator);
