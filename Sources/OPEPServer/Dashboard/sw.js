// The coach's service worker: after one visit the page, its engine (WebAssembly) and its icons
// come from the cache when the network or the server is gone. Online, every request goes to the
// network first (and refreshes the cache), so an updated page is used at once; the history API
// and /live are never cached.

const CACHE = 'opep-coach-v1';
const NETWORK_WAIT_MS = 4000;
const SHELL = [
  './', 'manifest.webmanifest',
  'assets/app.js', 'assets/charts.js', 'assets/common.js', 'assets/plan.js', 'assets/style.css',
  'assets/capture-worklet.js', 'assets/engine-link.js', 'assets/engine-worker.js', 'assets/engine.mjs',
  'assets/opep-engine.wasm', 'assets/device-history.js',
  'assets/icon-192.png', 'assets/icon-512.png', 'assets/icon-maskable-512.png',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== location.origin || url.pathname.includes('/api/') || url.pathname.endsWith('/live')) return;
  event.respondWith(fromNetwork(request).catch(() => fromCache(request)));
});

async function fromNetwork(request) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), NETWORK_WAIT_MS);
  try {
    const response = await fetch(request, { signal: controller.signal });
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(request, copy));
    }
    return response;
  } finally {
    clearTimeout(timer);
  }
}

async function fromCache(request) {
  const cached = await caches.match(request, { ignoreSearch: request.mode === 'navigate' });
  if (cached) return cached;
  if (request.mode === 'navigate') {
    const page = await caches.match('./');
    if (page) return page;
  }
  return Response.error();
}
