import Joi from 'joi';
import { compileOutputSchema, LlmError } from '@gleaner/llm-extract';
import { RENDER_TIMEOUT_MAX_MS, RENDER_WAIT_FOR_MAX_MS, type PageOptions, type ScrapeJob } from '@gleaner/queues';
import type { Stores } from '@gleaner/store';
import { ApiError } from '../errors/index.js';

/**
 * The per-page fields of a scrape, also taken by crawls and batches for every page: their types
 * (checked first, E001), then their values against the rules (E009), then the account's LLM key.
 */
export const pageOptionKeys = {
  output_type: Joi.string(),
  use_llm: Joi.boolean().strict(),
  prompt: Joi.string().allow(''),
  llm_key_id: Joi.string().allow(null),
  schema: Joi.object().unknown(true),
  render_js: Joi.alternatives(Joi.boolean().strict(), Joi.string()),
  wait_for: Joi.number().strict(),
  wait_for_selector: Joi.string().allow(''),
  timeout: Joi.number().strict(),
};

export interface PageOptionFields {
  output_type?: string;
  use_llm?: boolean;
  prompt?: string;
  llm_key_id?: string | null;
  schema?: Record<string, unknown>;
  render_js?: boolean | string;
  wait_for?: number;
  wait_for_selector?: string;
  timeout?: number;
}

/** `render_js`, `wait_for`, `wait_for_selector` and `timeout` as the scrape job carries them. */
type RenderOptions = Pick<ScrapeJob, 'renderJs' | 'timeoutMs' | 'waitForMs' | 'waitForSelector'>;

/** Checks the rendering fields (E009 for values the rules refuse) and translates them for the job. */
function renderOptions(body: PageOptionFields): RenderOptions {
  const { render_js: renderJs = 'auto', wait_for: waitFor, wait_for_selector: selector, timeout } = body;
  if (renderJs !== true && renderJs !== false && renderJs !== 'auto') throw new ApiError('E009', "render_js must be 'auto', true or false");
  const wholeMs = (v: number | undefined, min: number, max: number) => v === undefined || (Number.isInteger(v) && v >= min && v <= max);
  if (!wholeMs(timeout, 1_000, RENDER_TIMEOUT_MAX_MS)) throw new ApiError('E009', `timeout must be a whole number of milliseconds from 1000 to ${RENDER_TIMEOUT_MAX_MS}`);
  if (!wholeMs(waitFor, 0, RENDER_WAIT_FOR_MAX_MS)) throw new ApiError('E009', `wait_for must be a whole number of milliseconds from 0 to ${RENDER_WAIT_FOR_MAX_MS}`);
  if (selector !== undefined && (!selector.trim() || selector.length > 1_000)) throw new ApiError('E009', 'wait_for_selector must be a CSS selector of 1 to 1000 characters');
  if (renderJs === false && (waitFor !== undefined || selector !== undefined)) throw new ApiError('E009', "wait_for and wait_for_selector need rendering: render_js must be 'auto' or true");
  if (waitFor !== undefined && waitFor >= (timeout ?? RENDER_TIMEOUT_MAX_MS)) throw new ApiError('E009', 'wait_for must be shorter than timeout');
  return {
    renderJs: renderJs === true ? 'always' : renderJs === false ? 'never' : 'auto',
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    ...(waitFor ? { waitForMs: waitFor } : {}),
    ...(selector !== undefined ? { waitForSelector: selector.trim() } : {}),
  };
}

/** A schema the worker could not use fails here, before a job is queued or a token spent. */
function assertUsableSchema(schema: Record<string, unknown>): void {
  try {
    compileOutputSchema(schema);
  } catch (err) {
    throw new ApiError('E009', `schema: ${err instanceof LlmError ? err.reason : 'not a usable JSON Schema'}`);
  }
}

/** The page options of a scrape, crawl or batch body, checked (E009) and resolved (the LLM key). */
export async function pageOptionsOf(body: PageOptionFields, accountId: string, stores: Pick<Stores, 'llmKeys'>): Promise<PageOptions> {
  const outputType = body.output_type ?? 'plaintext';
  if (outputType !== 'plaintext' && outputType !== 'markdown') throw new ApiError('E009', "output_type must be 'plaintext' or 'markdown'");
  const useLlm = body.use_llm === true;
  if (useLlm && !body.prompt?.trim()) throw new ApiError('E009', 'prompt is required when use_llm is true');
  if (!useLlm && body.schema) throw new ApiError('E009', 'schema is only allowed with use_llm');
  if (body.schema) assertUsableSchema(body.schema);
  const rendering = renderOptions(body);
  let llmKeyId: string | undefined;
  if (useLlm) {
    const key = await stores.llmKeys.resolve(accountId, body.llm_key_id ?? undefined);
    if (!key) throw new ApiError('E009', body.llm_key_id ? `unknown llm_key_id '${body.llm_key_id}'` : 'no language-model key is registered for this account (POST /account/llm-keys)');
    llmKeyId = key.id;
  }
  return { outputType, useLlm, ...(useLlm ? { prompt: body.prompt, llmKeyId, ...(body.schema ? { schema: body.schema } : {}) } : {}), ...rendering };
}
