import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from '../src/index.js';
const f = process.argv[2];
const r = await parseDocument(readFileSync(f), { declaredType: path.extname(f).slice(1), output: 'markdown' });
process.stdout.write(r.text);
