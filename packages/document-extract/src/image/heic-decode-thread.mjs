// Body of the short-lived thread started by heic-thread.ts: decodes one HEIC image (libheif in
// WebAssembly, through libheif-js, the decoder heic-decode wraps) and reduces it to one grey
// channel as decodeGray does with sharp (alpha on white, then luminance in linear light, Rec. 709
// weights, back to sRGB), so that only the grey pixels leave the thread. Plain JavaScript:
// threads started from a parse thread do not get its TypeScript loader.
//
// libheif is asked for planar RGB rather than heic-decode's interleaved RGBA: the RGBA image (48
// MB for a 12-megapixel photo) is then neither built in the WebAssembly heap nor copied out of it,
// and the planes are read where libheif wrote them. For the corpus's 12 MP photo the thread peaked
// 114-125 MB above its start instead of 182-196 MB, in the same time (1.26-1.32 s against 1.24-1.28 s).
// The greys are the same conversion of the same R, G and B values (mean difference 0.015 levels, at
// most 1, from chroma upsampling); 10-bit images, which the RGBA output reduced to 8 bits, are
// reduced here.
import { parentPort, workerData } from 'node:worker_threads';
import libheif from 'libheif-js/wasm-bundle.js';

// libheif-js reports what it cannot read with console.log, which would land in the service's JSON
// logs; its failures are thrown below with a message instead.
console.log = () => undefined;

const { bytes, maxPixels } = workerData;
await libheif.ready;
const context = new libheif.HeifDecoder();
const images = context.decode(bytes);
try {
  if (images.length === 0) throw new TypeError('input is not a HEIC image libheif can read');
  // The first top-level image, as heic-decode reads it.
  const image = images[0];
  const width = image.get_width();
  const height = image.get_height();
  if (width * height > maxPixels) {
    parentPort.postMessage({ width, height, gray: null });
  } else {
    const { heif_colorspace, heif_chroma, heif_channel } = libheif;
    const decoded = await libheif.heif_js_decode_image2(image.handle, heif_colorspace.heif_colorspace_RGB, heif_chroma.heif_chroma_444);
    if (!decoded || !decoded.channels) throw new Error(`HEIF decoding failed: ${decoded?.message || 'no image'}`);
    try {
      const plane = (id) => decoded.channels.find((channel) => channel.id === id);
      const [red, green, blue, alpha] = [heif_channel.heif_channel_R, heif_channel.heif_channel_G, heif_channel.heif_channel_B, heif_channel.heif_channel_Alpha].map(plane);
      if (!red || !green || !blue) throw new Error('HEIF decoding failed: no RGB planes');
      const gray = toGray(width, height, red, green, blue, alpha);
      parentPort.postMessage({ width, height, gray }, [gray.buffer]);
    } finally {
      libheif.heif_image_release(decoded.image);
    }
  }
} finally {
  for (const decodedImage of images) decodedImage.free();
  context.decoder.delete();
}

/**
 * A plane's samples as 8-bit values with the distance between rows: 8-bit planes as libheif wrote
 * them (read in place, padded rows included), 10-bit ones (phones often make them: two bytes a
 * sample, little-endian) scaled to 0-255 as its RGBA output does, into rows `width` long.
 */
function eightBit(plane, width, height) {
  if (plane.bits_per_pixel <= 8) return { data: plane.data, stride: plane.stride };
  const out = new Uint8Array(width * height);
  const { data, stride } = plane;
  const scale = 255 / (2 ** plane.bits_per_pixel - 1);
  for (let row = 0, j = 0; row < height; row++) {
    for (let col = 0, i = row * stride; col < width; col++, j++, i += 2) out[j] = Math.round((data[i] | (data[i + 1] << 8)) * scale);
  }
  return { data: out, stride: width };
}

/** Grey of planar R, G, B (and alpha) planes. */
function toGray(width, height, red, green, blue, alpha) {
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
  const [r, g, b] = [red, green, blue].map((plane) => eightBit(plane, width, height));
  const a = alpha ? eightBit(alpha, width, height) : null;
  const gray = new Uint8Array(width * height);
  for (let row = 0, j = 0; row < height; row++) {
    const [rowR, rowG, rowB, rowA] = [row * r.stride, row * g.stride, row * b.stride, a ? row * a.stride : 0];
    for (let col = 0; col < width; col++, j++) {
      let rv = r.data[rowR + col];
      let gv = g.data[rowG + col];
      let bv = b.data[rowB + col];
      const av = a ? a.data[rowA + col] : 255;
      if (av !== 255) {
        // Flattened on white, as sharp's flatten() does, in sRGB values.
        rv = Math.round((rv * av + 255 * (255 - av)) / 255);
        gv = Math.round((gv * av + 255 * (255 - av)) / 255);
        bv = Math.round((bv * av + 255 * (255 - av)) / 255);
      }
      gray[j] = toSrgb[Math.round((0.2126 * toLinear[rv] + 0.7152 * toLinear[gv] + 0.0722 * toLinear[bv]) * STEPS)];
    }
  }
  return gray;
}
