// The page's own engine (engine-worker.js) behind the part of the WebSocket interface the coach
// uses (send, close, readyState, bufferedAmount, onopen, onmessage, onerror, onclose), so the
// coach speaks the /live protocol to it exactly as to `opep serve`.

/** Whether this browser can run the engine in the page (module workers and WebAssembly). */
export function pageEngineAvailable() {
  return typeof Worker === 'function' && typeof WebAssembly === 'object';
}

export class EngineLink {
  constructor() {
    this.readyState = 0;            // CONNECTING, then OPEN (1) once the engine is loaded, CLOSED (3)
    this.bufferedAmount = 0;
    this.onopen = this.onmessage = this.onerror = this.onclose = null;
    this.worker = new Worker(new URL('./engine-worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (event) => {
      const data = event.data;
      if (typeof data === 'string') { this.onmessage?.({ data }); return; }
      if (data?.ready) { this.readyState = 1; this.onopen?.(); return; }
      this.#end(data?.error ?? 'the engine could not start');
    };
    this.worker.onerror = (event) => { event.preventDefault?.(); this.#end(event.message || 'the engine failed'); };
  }

  /** A JSON text message, or an ArrayBuffer of audio (handed over, not copied). */
  send(data) {
    if (this.readyState !== 1) return;
    if (data instanceof ArrayBuffer) this.worker.postMessage(data, [data]);
    else this.worker.postMessage(data);
  }

  close() {
    this.#end('');
  }

  #end(reason) {
    if (this.readyState === 3) return;
    const failed = reason !== '';
    this.readyState = 3;
    this.worker.terminate();
    if (failed) this.onerror?.({ message: reason });
    this.onclose?.({ reason, code: failed ? 1011 : 1000 });
  }
}
