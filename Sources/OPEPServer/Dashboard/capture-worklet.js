// AudioWorkletProcessor that hands the microphone's mono samples to the main thread in blocks
// of `blockSize` frames (default 1024, about 21 ms at 48 kHz). The main thread batches them into
// the ~100 ms binary messages of the /live protocol. It writes no output: nothing is played.
// 'flush' sends the partial block; 'stop' sends it, answers 'done' and ends the processor.

class CaptureProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.size = options?.processorOptions?.blockSize ?? 1024;
    this.block = new Float32Array(this.size);
    this.filled = 0;
    this.running = true;
    this.port.onmessage = (event) => {
      if (event.data === 'flush') this.flush();
      if (event.data === 'stop') { this.flush(); this.running = false; this.port.postMessage('done'); }
    };
  }

  flush() {
    if (this.filled === 0) return;
    const out = this.block.slice(0, this.filled);
    this.port.postMessage(out, [out.buffer]);
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0]?.[0]; // the node is set to one channel: the graph mixes down
    if (channel && this.running) {
      let offset = 0;
      while (offset < channel.length) {
        const count = Math.min(channel.length - offset, this.size - this.filled);
        this.block.set(channel.subarray(offset, offset + count), this.filled);
        this.filled += count;
        offset += count;
        if (this.filled === this.size) {
          this.port.postMessage(this.block, [this.block.buffer]);
          this.block = new Float32Array(this.size);
          this.filled = 0;
        }
      }
    }
    return this.running;
  }
}

registerProcessor('opep-capture', CaptureProcessor);
