import { Worker } from 'node:worker_threads';

export interface DecodedGray {
  width: number;
  height: number;
  /** One grey channel, or null when the image is larger than the pixel limit (then not converted). */
  gray: Uint8Array | null;
  /** Whether the image was read one tile at a time rather than whole. */
  byTiles: boolean;
}

/**
 * Decodes a HEIC image to one grey channel in a thread of its own. libheif runs in WebAssembly,
 * whose memory only grows and is kept for as long as the module lives; with the compiled decoder
 * and V8's compile memory, a thread takes ~56 MB for a 12-megapixel photo read one grid tile at a
 * time (more decoded whole, as images the tiles cannot give exactly are, and every image with
 * `byTiles: false`: see heic-decode-thread.mjs). A short-lived thread gives it all back as
 * soon as the image is read; only the grey pixels come back, moved rather than copied.
 */
export function decodeHeicGray(bytes: Buffer, maxPixels: number, { byTiles = true }: { byTiles?: boolean } = {}): Promise<DecodedGray> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL('./heic-decode-thread.mjs', import.meta.url), { workerData: { bytes, maxPixels, byTiles } });
    let decoded: DecodedGray | null = null;
    let failure: Error | null = null;
    thread.once('message', (message: DecodedGray) => (decoded = message));
    thread.once('error', (error) => (failure = error));
    // Settled once the thread is gone, its memory with it, rather than as the pixels arrive: the
    // caller's next steps copy them while the decoder would still be tearing down.
    thread.once('exit', (code) => {
      if (decoded) resolve(decoded);
      else reject(failure ?? new Error(`the HEIC decoder stopped with exit code ${code}`));
    });
  });
}
