import { extractStructured, LlmError } from '@gleaner/llm-extract';
import { createGuardedFetch } from '@gleaner/safe-fetch';
import type { LlmUsage } from '@gleaner/store';
import { JobFailure } from '@gleaner/worker-runtime';
import type { ScrapeProcessorDeps } from './deps.js';

export interface LlmRun {
  output: Record<string, unknown>;
  /** Goes onto the request record as is; `inputTruncated` is shown to callers as `llm_input_truncated`. */
  usage: LlmUsage;
}

/**
 * Runs the account's language model over a page. The provider SDK's own retries are the only
 * retry layer for the call, so failures end the job (no BullMQ retry on top), with the tokens
 * already spent kept on the failed record. `failureCode` is the family's: E008 for the current
 * scraper, 422 for v1. Provider connections go through the same address guard as page fetches:
 * a key's base URL was checked when it was registered, but its name may resolve elsewhere now.
 */
export async function runLlm(
  deps: ScrapeProcessorDeps,
  args: { accountId: string; llmKeyId?: string; prompt: string; schema?: Record<string, unknown>; page: { url: string; title?: string; description?: string; markdown: string } },
  failureCode: string,
): Promise<LlmRun> {
  const key = await deps.llmKeys.resolve(args.accountId, args.llmKeyId);
  if (!key) throw new JobFailure(failureCode === 'E008' ? 'E009' : failureCode, 'the language-model key no longer exists', false);
  // A failure to count is logged, never thrown: throwing would fail (or re-run) a model call
  // that succeeded and was paid for.
  const countTokens = (usage: LlmUsage) =>
    usage.inputTokens || usage.outputTokens
      ? deps.usage.countTokens(args.accountId, usage.inputTokens, usage.outputTokens).catch((e) => deps.logger.warn('could not count LLM tokens', { accountId: args.accountId, error: (e as Error).message }))
      : Promise.resolve();
  try {
    const run = await extractStructured({
      provider: key.provider,
      apiKey: key.secret,
      model: key.model,
      baseUrl: key.baseUrl ?? (key.provider === 'anthropic' ? deps.config.ANTHROPIC_BASE_URL : undefined),
      prompt: args.prompt,
      page: args.page,
      schema: args.schema,
      maxInputTokens: deps.config.LLM_INPUT_TOKEN_BUDGET,
      deadlineMs: deps.config.LLM_DEADLINE_MS,
      fetch: createGuardedFetch({ allowPrivateNetworks: deps.config.GLEANER_ALLOW_PRIVATE_NETWORKS }),
    });
    const usage: LlmUsage = { ...run.usage, ...(run.trimmed ? { inputTruncated: true } : {}) };
    await countTokens(usage);
    return { output: run.output, usage };
  } catch (err) {
    if (!(err instanceof LlmError)) throw err;
    // Calls that completed before the failure (e.g. a failed repair round) spent tokens all the same.
    const spent = err.usage && (err.usage.inputTokens || err.usage.outputTokens) ? { inputTokens: err.usage.inputTokens, outputTokens: err.usage.outputTokens } : undefined;
    if (spent) await countTokens(spent);
    throw new JobFailure(failureCode, `LLM processing failed: ${err.reason}`, false, [], spent);
  }
}
