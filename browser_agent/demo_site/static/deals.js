// Fills the deals list after a delay, so the page has content that appears late.
"use strict";

const DEALS_DELAY_MS = 800;

function dealItem(deal) {
  const item = document.createElement("li");
  item.className = "deal";
  item.dataset.testid = "deal";
  const link = document.createElement("a");
  link.href = deal.url;
  link.textContent = deal.name;
  const was = document.createElement("s");
  was.textContent = deal.was;
  const now = document.createElement("strong");
  now.className = "deal-price";
  now.textContent = deal.now;
  item.append(link, " ", was, " ", now, ` (${deal.percent_off}% off)`);
  return item;
}

async function loadDeals() {
  const list = document.getElementById("deals-list");
  const status = document.getElementById("deals-status");
  try {
    const response = await fetch("/api/deals");
    const deals = await response.json();
    list.replaceChildren(...deals.map(dealItem));
    status.textContent = `${deals.length} deals today`;
  } catch (error) {
    status.textContent = "Deals could not be loaded.";
  }
  list.setAttribute("aria-busy", "false");
}

setTimeout(loadDeals, DEALS_DELAY_MS);
