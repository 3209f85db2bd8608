// The console's service worker: it holds the session it was registered with (in its own
// address) and adds it as a header to the console's own requests, pages, forms, event
// streams and images alike. Requests to any other origin go out untouched, so no other
// server, not even another port of the same host, ever receives it.
const SESSION = new URL(self.location.href).searchParams.get('session') || '';

const SAFE = new Set(['GET', 'HEAD']);

function ownPage(referrer) {
  try {
    return new URL(referrer).origin === self.location.origin;
  } catch {
    return false;
  }
}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (new URL(request.url).origin !== self.location.origin) return;
  if (request.url.startsWith(`${self.location.origin}/console-`)) return;
  // a form another site posts here goes out as it came, so the console sees where from
  if (request.mode === 'navigate' && !SAFE.has(request.method) && !ownPage(request.referrer)) {
    return;
  }
  event.respondWith(withSession(request));
});

async function withSession(request) {
  const headers = new Headers(request.headers);
  headers.set('X-Console-Session', SESSION);
  const init = {
    method: request.method,
    headers,
    mode: 'same-origin',
    credentials: 'same-origin',
    redirect: request.redirect,
    referrer: request.referrer,
    signal: request.signal,
  };
  if (!SAFE.has(request.method)) {
    init.body = await request.arrayBuffer();
  }
  return fetch(new Request(request.url, init));
}
