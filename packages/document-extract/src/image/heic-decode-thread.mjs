// Body of the short-lived thread started by heic-thread.ts: decodes one HEIC image (heic-decode,
// libheif in WebAssembly) and reduces it to one grey channel as decodeGray does with sharp (alpha
// on white, then luminance in linear light, Rec. 709 weights, back to sRGB), so that only the grey
// pixels leave the thread. Plain JavaScript: threads started from a parse thread do not get its
// TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import decode from 'heic-decode';

const { bytes, maxPixels } = workerData;
const { width, height, data } = await decode({ buffer: bytes });
if (width * height > maxPixels) {
  parentPort.postMessage({ width, height, gray: null });
} else {
  const toLinear = new Float32Array(256);
  for (let v = 0; v < 256; v++) {
    const c = v / 255;
    toLinear[v] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }
  const STEPS = 4096;
  const toSrgb = new Uint8Array(STEPS + 1);
  for (let i = 0; i <= STEPS; i++) {
    const y = i / STEPS;
    toSrgb[i] = Math.round(255 * (y <= 0.0031308 ? 12.92 * y : 1.055 * y ** (1 / 2.4) - 0.055));
  }
  const gray = new Uint8Array(width * height);
  for (let i = 0, j = 0; j < gray.length; i += 4, j++) {
    const a = data[i + 3];
    let r = data[i];
    let g = data[i + 1];
    let b = data[i + 2];
    if (a !== 255) {
      // Flattened on white, as sharp's flatten() does, in sRGB values.
      r = Math.round((r * a + 255 * (255 - a)) / 255);
      g = Math.round((g * a + 255 * (255 - a)) / 255);
      b = Math.round((b * a + 255 * (255 - a)) / 255);
    }
    gray[j] = toSrgb[Math.round((0.2126 * toLinear[r] + 0.7152 * toLinear[g] + 0.0722 * toLinear[b]) * STEPS)];
  }
  parentPort.postMessage({ width, height, gray }, [gray.buffer]);
}
