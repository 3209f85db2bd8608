// The page side of the console's session. On the first visit's page (data-worker set) it
// registers the console's service worker with the session, waits until it is active, then
// opens the console without the token in the address. On a refused page it reloads once
// through the worker, in case the reload bypassed it (Shift+Reload).
(async () => {
  const said = document.getElementById('session-said');
  const { worker, next } = document.body.dataset;
  const workers = navigator.serviceWorker;
  if (!worker) {
    const last = Number(sessionStorage.getItem('console-retried') || 0);
    if (workers && workers.controller === null && Date.now() - last > 10000) {
      const registration = await workers.getRegistration('/');
      if (registration && registration.active) {
        sessionStorage.setItem('console-retried', String(Date.now()));
        location.reload();
      }
    }
    return;
  }
  if (!workers) {
    said.textContent = 'This browser gives the console no service worker here (a private '
      + 'window?): open the printed URL in a normal window of Chromium, Chrome, Edge or Firefox.';
    return;
  }
  try {
    const registration = await workers.register(worker, { scope: '/' });
    await activated(registration);
    location.replace(next);
  } catch (error) {
    said.textContent = `The console could not keep its session in this browser: ${error.message}`;
  }
})();

function activated(registration) {
  const worker = registration.installing || registration.waiting || registration.active;
  if (worker.state === 'activated') return Promise.resolve();
  return new Promise((resolve, reject) => {
    worker.addEventListener('statechange', () => {
      if (worker.state === 'activated') resolve();
      if (worker.state === 'redundant') reject(new Error('its service worker stopped'));
    });
  });
}
