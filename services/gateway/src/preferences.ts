import type { Request, Response } from 'express';
import { hasEnded, type Family } from '@gleaner/store';
import type { GatewayDeps } from './deps.js';
import { endedWithin } from './idempotency.js';

/**
 * The RFC 7240 preferences the scraper and the parser honour (others are ignored, as the RFC
 * asks). `Prefer: respond-async` on a submit answers 202 with the request id at once instead of
 * waiting out the 20 s window: for a client that must hold the id before the work ends (the MCP
 * tools, so that a call cancelled early can still be resumed). `Prefer: wait=N` on a status read
 * waits up to N seconds (at most the window) for a running request to end before answering, so
 * such a client follows a request with about one read per window, answered the moment it ends.
 * Each applied preference is named in `Preference-Applied`.
 */
export interface Preferences {
  respondAsync: boolean;
  /** Seconds, or null when not asked. */
  waitSeconds: number | null;
}

export function preferencesOf(req: Request): Preferences {
  const preferences: Preferences = { respondAsync: false, waitSeconds: null };
  // "Prefer: respond-async, wait=10" or several Prefer headers; parameters after ';' are ignored.
  for (const token of (req.get('prefer') ?? '').split(',')) {
    const [name, value] = token.split(';')[0].split('=').map((part) => part.trim().toLowerCase());
    if (name === 'respond-async' && value === undefined) preferences.respondAsync = true;
    if (name === 'wait' && value !== undefined && /^\d{1,6}$/.test(value)) preferences.waitSeconds ??= Number(value);
  }
  return preferences;
}

/** How long a submit waits for its request to end: the window, or nothing with `respond-async`. */
export function submitWindowMs(req: Request, res: Response, windowMs: number): number {
  if (!preferencesOf(req).respondAsync) return windowMs;
  res.set('Preference-Applied', 'respond-async');
  return 0;
}

/**
 * With `Prefer: wait=N`, waits until the caller's request `id` has ended, at most N seconds and
 * never longer than the submit window, before the status route reads it. Another account's id,
 * an unknown one or an ended request is answered at once (the wait says nothing about them).
 */
export async function waitForEndWhenPreferred(req: Request, res: Response, deps: Pick<GatewayDeps, 'stores' | 'recordEndings' | 'config'>, family: Family, id: string, accountId: string): Promise<void> {
  const { waitSeconds } = preferencesOf(req);
  if (!waitSeconds) return;
  const waitMs = Math.min(waitSeconds * 1000, deps.config.SYNC_WINDOW_MS);
  res.set('Preference-Applied', `wait=${Math.ceil(waitMs / 1000)}`);
  const current = await deps.stores.records.get(family, id);
  if (!current || current.accountId !== accountId || hasEnded(current.status)) return;
  await endedWithin(deps.stores.records, deps.recordEndings, family, id, waitMs);
}
