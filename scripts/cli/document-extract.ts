// The document library, loaded by gleaner-cli.ts only to parse a local file: it brings sharp,
// @napi-rs/canvas, pdf.js and mammoth, which the other commands never need (a bundle loads the
// packages of everything it holds when it starts).
export { createLazyOcrEngine, parseDocument } from '@gleaner/document-extract';
