import { extractStructured, LlmError } from '@gleaner/llm-extract';
import { JobFailure } from '@gleaner/worker-runtime';
import type { ScrapeProcessorDeps } from './deps.js';

export interface LlmRun {
  output: Record<string, unknown>;
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * Runs the account's language model over a page. The provider SDK's own retries are the only
 * retry layer for the call, so failures end the job (no BullMQ retry on top). `failureCode` is the
 * family's: E008 for the current scraper, 422 for v1.
 */
export async function runLlm(
  deps: ScrapeProcessorDeps,
  args: { accountId: string; llmKeyId?: string; prompt: string; schema?: Record<string, unknown>; page: { url: string; title?: string; description?: string; markdown: string } },
  failureCode: string,
): Promise<LlmRun> {
  const key = await deps.llmKeys.resolve(args.accountId, args.llmKeyId);
  if (!key) throw new JobFailure(failureCode === 'E008' ? 'E009' : failureCode, 'the language-model key no longer exists', false);
  try {
    const run = await extractStructured({
      provider: key.provider,
      apiKey: key.secret,
      model: key.model,
      baseUrl: key.baseUrl ?? (key.provider === 'anthropic' ? deps.config.ANTHROPIC_BASE_URL : undefined),
      prompt: args.prompt,
      page: args.page,
      schema: args.schema,
    });
    await deps.usage.countTokens(args.accountId, run.usage.inputTokens, run.usage.outputTokens);
    return { output: run.output, usage: run.usage };
  } catch (err) {
    if (err instanceof LlmError) {
      // Calls that completed before the failure (e.g. a failed repair round) spent tokens all the same.
      const spent = err.usage;
      if (spent && (spent.inputTokens || spent.outputTokens)) {
        await deps.usage.countTokens(args.accountId, spent.inputTokens, spent.outputTokens).catch((e) => deps.logger.warn('could not count LLM tokens', { error: (e as Error).message }));
      }
      throw new JobFailure(failureCode, failureCode === 'E008' ? `LLM processing failed: ${err.reason}` : `LLM processing failed: ${err.reason}`, false);
    }
    throw err;
  }
}
