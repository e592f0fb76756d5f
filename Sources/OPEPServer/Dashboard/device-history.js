// What the coach keeps on this device (IndexedDB): each session's analysis document (the JSON of
// `opep analyze --format json`, which `opep history import` and POST /api/sessions take), its plan
// and where it was sent; and the saved plan. Nothing leaves the device unless the user asks.

const DB_NAME = 'opep';
const STORE = 'sessions';
const SETTINGS = 'settings';

function open() {
  return new Promise((resolve, reject) => {
    if (!globalThis.indexedDB) { reject(new Error('this browser keeps no data for the page (IndexedDB is off)')); return; }
    const request = indexedDB.open(DB_NAME, 2);
    request.onupgradeneeded = (event) => {
      const db = request.result;
      if (event.oldVersion < 1) db.createObjectStore(STORE, { keyPath: 'id' }).createIndex('recorded_at', 'recorded_at');
      if (event.oldVersion < 2) db.createObjectStore(SETTINGS);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function transact(mode, work, name = STORE) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(name, mode);
      const result = work(tx.objectStore(name));
      tx.oncomplete = () => resolve(result?.result ?? result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('the device storage refused the change'));
    });
  } finally {
    db.close();
  }
}

/**
 * Keeps a session: `document` is the analysis document's JSON text, `complete` false while it
 * runs (the document of the session so far; the same `id` replaces it). Returns its record:
 * {id, recorded_at, document, plan, complete, sent: {origin: session id}}.
 */
export async function keepSession({ id = null, document, recordedAt, plan, complete = true }) {
  const record = {
    id: id ?? `${recordedAt}-${Math.random().toString(36).slice(2, 8)}`,
    recorded_at: recordedAt, document, plan, complete, sent: {},
  };
  await transact('readwrite', (store) => store.put(record));
  return record;
}

/** Every session kept here, newest first. */
export async function keptSessions() {
  const all = await transact('readonly', (store) => store.getAll());
  return all.sort((a, b) => (a.recorded_at < b.recorded_at ? 1 : -1));
}

/** Notes that the session `id` was saved by the server at `origin` as session `sessionId`. */
export async function markSent(id, origin, sessionId) {
  await transact('readwrite', (store) => {
    const request = store.get(id);
    request.onsuccess = () => {
      const record = request.result;
      if (!record) return;
      record.sent = { ...record.sent, [origin]: sessionId };
      store.put(record);
    };
  });
}

/** Removes the session `id` from this device. */
export async function forgetSession(id) {
  await transact('readwrite', (store) => store.delete(id));
}

/**
 * Sends the session to the opep server at `origin` (POST /api/sessions, idempotent: sending it
 * twice saves it once), with `token` as `Authorization: Bearer` when the server asks for one;
 * returns the server's session id.
 */
export async function sendSession(record, origin, token = null) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(new URL('/api/sessions', origin), { method: 'POST', headers, body: record.document });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok || typeof answer.session_id !== 'number') {
    throw new Error(answer.error ?? `the server answered HTTP ${response.status}`);
  }
  await markSent(record.id, origin, answer.session_id);
  return answer.session_id;
}

/** Keeps the therapy plan on this device. */
export async function keepPlan(plan) {
  await transact('readwrite', (store) => store.put(plan, 'plan'), SETTINGS);
}

/** The plan kept on this device, or null. */
export async function keptPlan() {
  return (await transact('readonly', (store) => store.get('plan'), SETTINGS)) ?? null;
}

/** A file name for the session's document. */
export function documentName(record) {
  return `opep-session-${record.recorded_at.replace(/[:]/g, '-')}.json`;
}
