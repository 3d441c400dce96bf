/// <reference lib="webworker" />
/**
 * The dashboard's service worker: the page's shell kept for when the server is not running (the page then says so and
 * keeps trying), so the installed app opens at all. Data is never cached: /api/ always goes to the server.
 */
const sw = self as unknown as ServiceWorkerGlobalScope;
const SHELL = 'loopx-dashboard-shell-v1';
// The page's files, where this worker's scope is (the server's root, or the path a forwarded port serves it under).
const FILES = ['', 'app.js', 'app.css', 'icon.svg', 'icon.png', 'manifest.webmanifest'].map(
  (f) => new URL(f, sw.registration.scope).pathname,
);

sw.addEventListener('install', (event: ExtendableEvent) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(FILES)));
  void sw.skipWaiting();
});

sw.addEventListener('activate', (event: ExtendableEvent) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== SHELL).map((k) => caches.delete(k))))
      .then(() => sw.clients.claim()),
  );
});

sw.addEventListener('fetch', (event: FetchEvent) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== location.origin || url.pathname.includes('/api/')) return;
  // The server first (a newer page when it runs), the kept shell when it does not answer.
  event.respondWith(
    fetch(event.request)
      .then((res) => {
        if (res.ok && FILES.includes(url.pathname)) {
          const copy = res.clone();
          void caches.open(SHELL).then((cache) => cache.put(event.request, copy));
        }
        return res;
      })
      .catch(async () => (await caches.match(event.request)) ?? (await caches.match(FILES[0]!)) ?? Response.error()),
  );
});

// A push from the dashboard's server: a new row in what waits on the person (its text shown as text by the system).
sw.addEventListener('push', (event: PushEvent) => {
  const data = (event.data?.json() ?? {}) as { title?: string; body?: string; tag?: string };
  event.waitUntil(sw.registration.showNotification(data.title ?? 'LoopX', { body: data.body ?? '', tag: data.tag }));
});

sw.addEventListener('notificationclick', (event: NotificationEvent) => {
  event.notification.close();
  event.waitUntil(
    sw.clients
      .matchAll({ type: 'window' })
      .then((windows) => (windows[0] ? windows[0].focus() : sw.clients.openWindow(sw.registration.scope))),
  );
});
