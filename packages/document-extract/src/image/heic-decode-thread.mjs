// Body of the short-lived thread started by heic-thread.ts: decodes one HEIC image (libheif in
// WebAssembly, through libheif-js, the decoder heic-decode wraps) and reduces it to one grey
// channel as decodeGray does with sharp (alpha on white, then luminance in linear light, Rec. 709
// weights, back to sRGB), so that only the grey pixels leave the thread. Plain JavaScript:
// threads started from a parse thread do not get its TypeScript loader.
//
// Phones store a photo as a grid of small HEVC images (512x512 for the corpus's iPhone photo), and
// libheif can decode one grid tile at a time: the greys are then made tile by tile and the whole
// image never exists in the WebAssembly heap, whose memory only grows. For the corpus's 12 MP
// photo the heap stays at its initial 17 MB instead of growing to 42 MB, and the thread peaked
// 67-70 MB above its start instead of 83-101 MB (with the parser worker's one WebAssembly compile
// task, see parse-pool.ts; four runs each), in the same time. The greys are those of the whole
// image, byte for byte (test). Images this cannot read exactly, such as those with alpha (kept in
// a grid of its own) or cropped by a clean aperture, are decoded whole, as before:
//
// libheif is then asked for planar RGB rather than heic-decode's interleaved RGBA: the RGBA image
// (48 MB for a 12-megapixel photo) is neither built in the WebAssembly heap nor copied out of it,
// and the planes are read where libheif wrote them (114-125 MB above the thread's start instead of
// 182-196 MB for the corpus's photo). The greys are the same conversion of the same R, G and B
// values (mean difference 0.015 levels, at most 1, from chroma upsampling); 10-bit images, which
// the RGBA output reduced to 8 bits, are reduced here.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

// The decoder's WebAssembly is read from its file, not from libheif-js's bundle (wasm-bundle.js,
// what heic-decode loads), which carries it as a 1.9 MB base64 string inside its JavaScript: the
// thread peaked 56-57 MB above its start instead of 71-75 MB (three runs each, same speed).
const require = createRequire(import.meta.url);
const libheif = require('libheif-js/libheif-wasm/libheif.js')({ wasmBinary: readFileSync(require.resolve('libheif-js/libheif-wasm/libheif.wasm')) });

// libheif-js reports what it cannot read with console.log, which would land in the service's JSON
// logs; its failures are thrown below with a message instead.
console.log = () => undefined;

// libheif's C API as libheif-js exports it (wasm32: pointers and ints are 4 bytes; a function that
// returns a struct heif_error takes a pointer to it first).
const heif_colorspace_RGB = 1;
const heif_chroma_444 = 3;
const [heif_channel_R, heif_channel_G, heif_channel_B] = [3, 4, 5];

/**
 * The first top-level image (the one heic-decode reads), grey, decoded one grid tile at a time
 * with its rotation and mirroring applied. Null, for the whole-image path, unless the image has
 * no alpha, the size of the coded grid (turned or not), and grid overhangs (the part of the last
 * tiles past the image's edge) of less than a tile. A file libheif cannot read takes that path
 * too, which says why.
 */
function decodeByTiles(bytes, maxPixels) {
  const heif = libheif;
  // struct heif_error (12 bytes), two pointers or ints, and two struct heif_image_tiling (72 bytes).
  const scratch = heif._malloc(256);
  const [ERROR, OUT, STRIDE, SHOWN_TILING, CODED_TILING] = [scratch, scratch + 16, scratch + 20, scratch + 32, scratch + 128];
  const ok = () => heif.HEAP32[ERROR >> 2] === 0;
  const file = heif._malloc(bytes.length);
  const context = heif._heif_context_alloc();
  let handle = 0;
  try {
    heif.HEAPU8.set(bytes, file);
    heif._heif_context_read_from_memory_without_copy(ERROR, context, file, bytes.length, 0);
    if (!ok() || heif._heif_context_get_list_of_top_level_image_IDs(context, OUT, 1) !== 1) return null;
    heif._heif_context_get_image_handle(ERROR, context, heif.HEAPU32[OUT >> 2], OUT);
    if (!ok()) return null;
    handle = heif.HEAPU32[OUT >> 2];
    const width = heif._heif_image_handle_get_width(handle);
    const height = heif._heif_image_handle_get_height(handle);
    if (width * height > maxPixels) return { width, height, gray: null, byTiles: false };
    if (heif._heif_image_handle_has_alpha_channel(handle)) return null;

    const tiling = (transformed, at) => {
      heif._heif_image_handle_get_image_tiling(ERROR, handle, transformed, at);
      const [columns, rows, tileWidth, tileHeight, imageWidth, imageHeight, topOffset, leftOffset] = heif.HEAPU32.subarray((at >> 2) + 1, (at >> 2) + 9);
      return ok() ? { columns, rows, tileWidth, tileHeight, imageWidth, imageHeight, topOffset, leftOffset } : null;
    };
    const shown = tiling(1, SHOWN_TILING);
    const coded = tiling(0, CODED_TILING);
    if (!shown || !coded || shown.imageWidth !== width || shown.imageHeight !== height) return null;
    // Rotation and mirroring only move the grid's overhang to the leading edge, which libheif
    // flags with a non-zero offset (1.23 gives the tile's size less the overhang, where its
    // header describes the overhang itself); a crop would also change the size.
    const turned = shown.imageWidth === coded.imageHeight && shown.imageHeight === coded.imageWidth;
    if (!turned && (shown.imageWidth !== coded.imageWidth || shown.imageHeight !== coded.imageHeight)) return null;
    const overhangX = shown.columns * shown.tileWidth - width;
    const overhangY = shown.rows * shown.tileHeight - height;
    if (overhangX < 0 || overhangX >= shown.tileWidth || overhangY < 0 || overhangY >= shown.tileHeight) return null;
    const left = shown.leftOffset ? overhangX : 0;
    const top = shown.topOffset ? overhangY : 0;

    const gray = new Uint8Array(width * height);
    for (let row = 0; row < shown.rows; row++) {
      for (let column = 0; column < shown.columns; column++) {
        heif._heif_image_handle_decode_image_tile(ERROR, handle, OUT, heif_colorspace_RGB, heif_chroma_444, 0, column, row);
        if (!ok()) return null;
        const image = heif.HEAPU32[OUT >> 2];
        try {
          if (heif._heif_image_get_width(image, heif_channel_R) !== shown.tileWidth || heif._heif_image_get_height(image, heif_channel_R) !== shown.tileHeight) return null;
          // Where the tile lies in the image, and the part of it that does.
          const x = column * shown.tileWidth - left;
          const y = row * shown.tileHeight - top;
          const [skipX, skipY] = [Math.max(0, -x), Math.max(0, -y)];
          const tileWidth = Math.min(shown.tileWidth, width - x) - skipX;
          const tileHeight = Math.min(shown.tileHeight, height - y) - skipY;
          const plane = (channel) => {
            const data = heif._heif_image_get_plane_readonly(image, channel, STRIDE);
            const stride = heif.HEAP32[STRIDE >> 2];
            const bits = heif._heif_image_get_bits_per_pixel_range(image, channel);
            const start = data + skipY * stride + skipX * (bits > 8 ? 2 : 1);
            return { data: heif.HEAPU8.subarray(start, start + tileHeight * stride), stride, bits_per_pixel: bits };
          };
          const target = { data: gray, offset: (y + skipY) * width + x + skipX, stride: width };
          writeGray(target, tileWidth, tileHeight, plane(heif_channel_R), plane(heif_channel_G), plane(heif_channel_B), null);
        } finally {
          heif._heif_image_release(image);
        }
      }
    }
    return { width, height, gray, byTiles: true };
  } finally {
    if (handle) heif._heif_image_handle_release(handle);
    heif._heif_context_free(context);
    heif._free(file);
    heif._free(scratch);
  }
}

/** The first top-level image decoded whole, through libheif-js's own bindings. */
async function decodeWhole(bytes, maxPixels) {
  const context = new libheif.HeifDecoder();
  const images = context.decode(bytes);
  try {
    if (images.length === 0) throw new TypeError('input is not a HEIC image libheif can read');
    const image = images[0];
    const width = image.get_width();
    const height = image.get_height();
    if (width * height > maxPixels) return { width, height, gray: null, byTiles: false };
    const { heif_colorspace, heif_chroma, heif_channel } = libheif;
    const decoded = await libheif.heif_js_decode_image2(image.handle, heif_colorspace.heif_colorspace_RGB, heif_chroma.heif_chroma_444);
    if (!decoded || !decoded.channels) throw new Error(`HEIF decoding failed: ${decoded?.message || 'no image'}`);
    try {
      const plane = (id) => decoded.channels.find((channel) => channel.id === id);
      const [red, green, blue, alpha] = [heif_channel.heif_channel_R, heif_channel.heif_channel_G, heif_channel.heif_channel_B, heif_channel.heif_channel_Alpha].map(plane);
      if (!red || !green || !blue) throw new Error('HEIF decoding failed: no RGB planes');
      const gray = new Uint8Array(width * height);
      writeGray({ data: gray, offset: 0, stride: width }, width, height, red, green, blue, alpha);
      return { width, height, gray, byTiles: false };
    } finally {
      libheif.heif_image_release(decoded.image);
    }
  } finally {
    for (const decodedImage of images) decodedImage.free();
    context.decoder.delete();
  }
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

/** sRGB value to linear light, and back (in 4096 steps). */
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

/** Writes the grey of planar R, G, B (and alpha) planes, `width` x `height`, into `target` from its `offset`, rows `stride` apart. */
function writeGray(target, width, height, red, green, blue, alpha) {
  const [r, g, b] = [red, green, blue].map((plane) => eightBit(plane, width, height));
  const a = alpha ? eightBit(alpha, width, height) : null;
  const gray = target.data;
  for (let row = 0; row < height; row++) {
    const [rowR, rowG, rowB, rowA] = [row * r.stride, row * g.stride, row * b.stride, a ? row * a.stride : 0];
    for (let col = 0, j = target.offset + row * target.stride; col < width; col++, j++) {
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
}

const { bytes, maxPixels, byTiles } = workerData;
await libheif.ready;
const decoded = (byTiles && decodeByTiles(bytes, maxPixels)) || (await decodeWhole(bytes, maxPixels));
parentPort.postMessage(decoded, decoded.gray ? [decoded.gray.buffer] : []);
