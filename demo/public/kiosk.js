// The kiosk page's module script: registers the kiosk service worker with bioid-sdk/sw (workbox-window,
// resolved through the page's import map). An update shows the default "a new version is available —
// reload" banner. Sign-out clears the worker's caches first: Cache Storage outlives the session.
import { clearKioskCaches, registerKioskServiceWorker } from '/sdk/sw/index.js';

const state = document.getElementById('sw-state');
registerKioskServiceWorker({ scriptUrl: '/kiosk/sw.js', scope: '/kiosk/' }).then(
  (registration) => {
    state.textContent = registration
      ? 'Service worker: registered; the element bundle and an offline page are available offline.'
      : 'Service worker: not available in this browser; the kiosk works online only.';
    state.dataset.state = registration ? 'registered' : 'unavailable';
    window.bioidKiosk = registration;
  },
  (error) => {
    state.textContent = `Service worker: registration failed (${error.message}).`;
    state.dataset.state = 'failed';
  },
);

const signout = document.querySelector('form.signout');
signout?.addEventListener('submit', (event) => {
  event.preventDefault();
  // form.submit() sends the form without a second submit event; it goes even if clearing failed.
  clearKioskCaches().finally(() => signout.submit());
});
