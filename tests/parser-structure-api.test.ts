import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { filesUnder, startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { reportFigures } from './support/figures.js';
import { parseStructureCorpus, PDF_TARGETS, scoreStructure, STRUCTURE_CORPUS, structureFiles, type ParsedFile, type StructureScores } from './support/structure-corpus.js';

/**
 * The PDFs of the structure corpus (../shared/corpus/docs-structure: pdf/, Docling's test PDFs
 * with Docling's markdown, and pdf-tables/, PDFs of tabula-java's and camelot's tests with their
 * pinned tables) parsed through the API with `output: markdown` (a local server hosts the files,
 * the gateway takes the requests, a real parser-worker process parses them), and scored by the
 * corpus's own scorer against issue 41's targets. bench:document-structure prints the same per
 * file and for every type.
 */
const files = structureFiles().filter((f) => f.type === 'pdf' || f.type === 'pdf-tables');
const prefix = testPrefix('structure');
let h: GatewayHarness;
let worker: ServiceProcess;
let server: Awaited<ReturnType<typeof startPageServer>>;
let account: TestAccount;
let parsed: Map<string, ParsedFile>;
let scores: StructureScores;

beforeAll(async () => {
  server = await startPageServer({}, filesUnder(STRUCTURE_CORPUS));
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '0' });
  worker = startService('parser-worker', serviceEnv(prefix, { PARSER_CONCURRENCY: '2' }));
  await worker.waitFor(/parser-worker ready/);
  account = await h.account('structure-user');
  await h.stores.accounts.setRateLimit(account.accountId, 100_000);
  parsed = await parseStructureCorpus({ gatewayUrl: h.url, apiKey: account.apiKey, fileUrl: (file) => `${server.url}/${file}`, files, timeoutMs: 240_000 });
  scores = await scoreStructure(parsed, files);
  const f3 = (x: number | null) => (x === null ? '    -' : x.toFixed(3));
  reportFigures(
    [
      ...scores.types.map((t) => `${t.name.padEnd(24)} text ${f3(t.means.text)}  table recall ${f3(t.means.tableRecall)}  cell F1 ${f3(t.means.cellF1)}  heading F1 ${f3(t.means.headingF1)}  list F1 ${f3(t.means.listF1)}`),
      ...scores.files.map((f) => `  ${f.path.padEnd(44)} text ${f3(f.scores.text)}  tblR ${f3(f.scores.tableRecall)}  cellF1 ${f3(f.scores.cellF1)}  headF1 ${f3(f.scores.headingF1)}`),
    ].join('\n'),
  );
}, 300_000);

afterAll(async () => {
  await worker?.kill();
  await h?.stop();
  await server?.close();
  await deleteKeysWithPrefix(prefix);
});

describe('PDF structure through the API (output markdown)', () => {
  it('parses every PDF of the structure corpus', () => {
    for (const file of files) expect({ file: file.path, refused: parsed.get(file.path)?.refused }).toEqual({ file: file.path, refused: undefined });
  });

  it(`finds the tables of the PDFs that have some: mean table recall >= ${PDF_TARGETS.tableRecall}, cell F1 >= ${PDF_TARGETS.cellF1}`, () => {
    const [recall, cells] = scores.targets;
    expect(recall.value).toBeGreaterThanOrEqual(PDF_TARGETS.tableRecall);
    expect(cells.value).toBeGreaterThanOrEqual(PDF_TARGETS.cellF1);
    // Every pinned table of tabula-java's and camelot's tests is found.
    for (const f of scores.files.filter((s) => s.type === 'pdf-tables')) expect({ file: f.path, recall: f.scores.tableRecall }).toEqual({ file: f.path, recall: 1 });
  });

  it(`writes headings (F1 >= ${PDF_TARGETS.headingF1}) and keeps the text (similarity >= ${PDF_TARGETS.text}) on Docling's PDFs`, () => {
    const [, , headings, text] = scores.targets;
    expect(headings.value).toBeGreaterThanOrEqual(PDF_TARGETS.headingF1);
    expect(text.value).toBeGreaterThanOrEqual(PDF_TARGETS.text);
  });

  it('writes tables as pipe tables, lists as markdown lists, and leaves running headers and page numbers out', () => {
    const spanning = parsed.get('pdf-tables/tabula-spanning_cells.pdf')!.markdown;
    // A section row across the table's width is written once, in its first cell.
    expect(spanning).toContain('| Improved operation scenario |  |  |  |  |  |');
    expect(spanning).toMatch(/^\| Server closets \| 1,505 \| 1,580 \| 1,643 \| 1,673 \| 1,689 \|$/m);
    const multiPage = parsed.get('pdf/multi_page.pdf')!.markdown;
    expect(multiPage).toMatch(/^#+ The Evolution of the Word Processor$/m);
    expect(multiPage).toMatch(/^- WordStar \(1978\): Developed for the CP\/M operating system/m);
    // The redpaper's running footer ("10 Row and Column Access Control Support in IBM DB2 for i",
    // on five pages) is left out: the title stays, once.
    const redpaper = parsed.get('pdf/redp5110_sampled.pdf')!.markdown;
    expect(redpaper.match(/Row and Column Access Control Support in IBM DB2 for i/g)).toHaveLength(1);
    // Arabic reads from the right, its lam-alef ligatures spelled as drawn.
    expect(parsed.get('pdf/right_to_left_01.pdf')!.markdown).toMatch(/^# تحسين الإنتاجية وحل المشكلات من خلال البرمجة بلغة R و Python$/m);
  });
});
