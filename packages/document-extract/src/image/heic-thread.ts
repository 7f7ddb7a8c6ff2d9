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
    let settled = false;
    thread.once('message', (decoded: DecodedGray) => {
      settled = true;
      resolve(decoded);
    });
    thread.once('error', (error) => {
      settled = true;
      reject(error);
    });
    thread.once('exit', (code) => {
      if (!settled) reject(new Error(`the HEIC decoder stopped with exit code ${code}`));
    });
  });
}
