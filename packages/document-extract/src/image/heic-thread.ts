import { Worker } from 'node:worker_threads';

export interface DecodedGray {
  width: number;
  height: number;
  /** One grey channel, or null when the image is larger than the pixel limit (then not converted). */
  gray: Uint8Array | null;
}

/**
 * Decodes a HEIC image to one grey channel in a thread of its own. libheif runs in WebAssembly,
 * whose memory only grows: ~90 MB after a 12-megapixel photo, kept for as long as the module
 * lives. A short-lived thread gives it back as soon as the image is read; only the grey pixels
 * come back, moved rather than copied (the thread peaks ~120 MB above its start for such a photo).
 */
export function decodeHeicGray(bytes: Buffer, maxPixels: number): Promise<DecodedGray> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL('./heic-decode-thread.mjs', import.meta.url), { workerData: { bytes, maxPixels } });
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
