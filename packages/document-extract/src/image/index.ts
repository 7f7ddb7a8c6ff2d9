export { extractImage } from './extract-image.js';
export type { ImageKind } from './image-pages.js';
