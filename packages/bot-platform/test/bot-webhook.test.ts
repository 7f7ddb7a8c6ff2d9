import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createBotPlatformClient, MIN_TIME_FOR_A_WRITE_MS, runBotWebhook, type BotWebhookResult } from '../src/index.js';
import { startFakeBotPlatform, type FakeBotPlatform } from '../../../tests/fakes/bot-platform.js';

const TOKEN = 'bot-token-SECRET-9f8e7d';
const FLOW = 'f190385s3400927';
const LOOKUP = 'GET /subscriber/get-info-by-user-id';
const SEND = 'POST /subscriber/send-sub-flow';

describe('runBotWebhook against the fake platform', () => {
  let fake: FakeBotPlatform;
  let client: ReturnType<typeof createBotPlatformClient>;

  beforeAll(async () => {
    fake = await startFakeBotPlatform({
      tokens: [TOKEN],
      userFields: [{ name: 'city' }, { name: 'plan' }, ...Array.from({ length: 25 }, (_, i) => ({ name: `f${i}` }))],
      subFlows: [{ name: 'Welcome', sub_flow_ns: FLOW }],
      subscribers: [
        { phone: '+33612345678', name: 'Known by id' },
        // No channel id: only the phone search can find this one, and it is stored without `+`.
        { phone: '44 7700 900123'.replace(/\s/g, ''), user_id: null, name: 'Known by phone' },
      ],
    });
    client = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 1000, retry: { baseDelayMs: 10 } });
  });
  beforeEach(() => void fake.requests.splice(0));
  afterEach(() => fake.clearFaults());
  afterAll(() => fake.close());

  it('finds an existing user by WhatsApp user id, sets fields and sends the flow', async () => {
    const out = await runBotWebhook({ phone_number: '+33 6 12 34 56 78', flow_ns: FLOW, user_fields: { city: 'Lyon' } }, client);
    const known = [...fake.subscribers.values()].find((s) => s.name === 'Known by id')!;
    expect(out).toEqual({
      httpStatus: 200,
      body: {
        user_ns_retrieval: { success: true, message: 'User found', user_ns: known.user_ns },
        custom_fields_update: { success: true, message: 'Updated 1 custom field', details: [{ field: 'city', status: 'updated' }] },
        flow_sent: { success: true, message: `Flow ${FLOW} sent` },
      },
    });
    expect(fake.requestsTo(LOOKUP)[0].query).toEqual({ user_id: '33612345678' });
    expect(fake.requestsTo('GET /subscribers')).toHaveLength(0);
    expect(known.user_fields.city).toBe('Lyon');
    expect(fake.sentFlows).toContainEqual({ user_ns: known.user_ns, sub_flow_ns: FLOW });
    // Contract §1: JSON negotiation headers on every call, GET included.
    for (const r of fake.requests) expect(r.headers).toMatchObject({ accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` });
  });

  it('falls back to the phone search, trying +digits then digits', async () => {
    const out = await runBotWebhook({ phone_number: '+44 7700-900123', flow_ns: FLOW }, client);
    expect(out.httpStatus).toBe(200);
    const body = out.body as BotWebhookResult;
    expect(body.user_ns_retrieval.message).toBe('User found by phone number search');
    expect(body.custom_fields_update).toEqual({ success: true, message: 'No custom fields to update', details: [] });
    expect(fake.requestsTo('GET /subscribers').map((r) => r.query.phone)).toEqual(['+447700900123', '447700900123']);
    expect(fake.requestsTo('POST /subscriber/create')).toHaveLength(0);
  });

  it('creates a user that does not exist, whichever way the platform says "not found"', async () => {
    for (const [i, style] of (['status-400', 'status-404', 'empty-200'] as const).entries()) {
      fake.settings.notFound = style;
      const out = await runBotWebhook({ phone_number: `4915112345${i}0`, flow_ns: FLOW }, client);
      expect(out.httpStatus).toBe(200);
      expect((out.body as BotWebhookResult).user_ns_retrieval.message).toBe('User not found; created a new user');
    }
    fake.settings.notFound = 'status-400';
    expect(fake.requestsTo('POST /subscriber/create').map((r) => r.body)).toEqual([{ phone: '491511234500' }, { phone: '491511234510' }, { phone: '491511234520' }]);
  });

  it('answers 404 when the user is missing and creation fails', async () => {
    fake.failNext('POST /subscriber/create', { status: 422, body: { message: 'The phone has an invalid format.' } });
    const out = await runBotWebhook({ phone_number: '4915100000001', flow_ns: FLOW }, client);
    expect(out).toEqual({ httpStatus: 404, body: { error: 'User not found, and creating it on the bot platform failed', details: ['Bot platform rejected creating the subscriber (HTTP 422): The phone has an invalid format.'] } });
    expect(fake.requestsTo(SEND)).toHaveLength(0);
  });

  it('reports each field when a batch fails, and answers 206', async () => {
    const out = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW, user_fields: { city: 'Paris', nickname: 'Jo', plan: 'pro' } }, client);
    expect(out.httpStatus).toBe(206);
    const body = out.body as BotWebhookResult;
    expect(body.custom_fields_update).toEqual({
      success: false,
      message: 'Updated 2 of 3 custom fields',
      details: [
        { field: 'city', status: 'updated' },
        { field: 'nickname', status: 'failed: Bot platform rejected setting the user field "nickname" (HTTP 422): The user field "nickname" does not exist.' },
        { field: 'plan', status: 'updated' },
      ],
    });
    expect(body.flow_sent.success).toBe(true);
    expect(fake.requestsTo('PUT /subscriber/set-user-fields-by-name')).toHaveLength(1);
    expect(fake.requestsTo('PUT /subscriber/set-user-field-by-name').map((r) => r.body)).toEqual([
      { user_ns: body.user_ns_retrieval.user_ns, field_name: 'city', value: 'Paris' },
      { user_ns: body.user_ns_retrieval.user_ns, field_name: 'nickname', value: 'Jo' },
      { user_ns: body.user_ns_retrieval.user_ns, field_name: 'plan', value: 'pro' },
    ]);
  });

  it('answers 206 when the flow cannot be sent, and never retries a send', async () => {
    const unknownFlow = await runBotWebhook({ phone_number: '33612345678', flow_ns: 'f190385s999' }, client);
    expect(unknownFlow.httpStatus).toBe(206);
    expect((unknownFlow.body as BotWebhookResult).flow_sent).toEqual({ success: false, message: 'Flow not sent: Bot platform rejected sending the sub flow (HTTP 400): Sub flow not found.' });

    fake.requests.splice(0);
    fake.failNext(SEND, { status: 500 }, 3);
    const serverError = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW }, client);
    expect(serverError.httpStatus).toBe(206);
    expect((serverError.body as BotWebhookResult).flow_sent.message).toBe('Flow not sent: Bot platform failed while sending the sub flow (HTTP 500): Server Error');
    expect(fake.requestsTo(SEND)).toHaveLength(1);
  });

  it('tries a failing lookup three times in all', async () => {
    fake.failNext(LOOKUP, { status: 500 }, 2);
    const out = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW }, client);
    expect(out.httpStatus).toBe(200);
    expect(fake.requestsTo(LOOKUP)).toHaveLength(3);

    fake.requests.splice(0);
    fake.failNext(LOOKUP, { status: 503 }, 3);
    const exhausted = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW }, client);
    expect(exhausted).toEqual({ httpStatus: 500, body: { error: 'Could not look up the user on the bot platform: Bot platform failed while looking up the subscriber (HTTP 503): Server Error' } });
    expect(fake.requestsTo(LOOKUP)).toHaveLength(3);
    // An unanswered lookup must not lead to a (possibly duplicate) create.
    expect(fake.requestsTo('POST /subscriber/create')).toHaveLength(0);
  });

  it('waits for retry-after on a 429 before looking up again', async () => {
    fake.failNext(LOOKUP, { status: 429, body: { message: 'Too Many Attempts.' }, headers: { 'retry-after': '1' } });
    const out = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW }, client);
    expect(out.httpStatus).toBe(200);
    const [first, second] = fake.requestsTo(LOOKUP);
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  });

  it('answers 401 when the platform refuses the token, at any step', async () => {
    const stranger = createBotPlatformClient({ baseUrl: fake.baseUrl, token: 'not-a-known-token', timeoutMs: 1000 });
    const out = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW }, stranger);
    expect(out.httpStatus).toBe(401);
    expect(fake.requestsTo(LOOKUP)).toHaveLength(1);

    fake.failNext(SEND, { status: 401, body: { message: 'Unauthenticated.' } });
    expect((await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW }, client)).httpStatus).toBe(401);
    fake.failNext('PUT /subscriber/set-user-fields-by-name', { status: 401, body: { message: 'Unauthenticated.' } });
    expect((await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW, user_fields: { city: 'Nice' } }, client)).httpStatus).toBe(401);
  });

  it('ends a hanging lookup at the client timeout with a 500', async () => {
    const impatient = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 300, retry: { baseDelayMs: 10 } });
    fake.failNext(LOOKUP, { hang: true });
    const started = Date.now();
    const out = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW }, impatient);
    expect(out).toEqual({ httpStatus: 500, body: { error: 'Could not look up the user on the bot platform: Bot platform did not answer within 0.3 s' } });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('stops field calls after a timeout but still sends the flow', async () => {
    const impatient = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 300, retry: { baseDelayMs: 10 } });
    fake.failNext('PUT /subscriber/set-user-fields-by-name', { hang: true });
    const out = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW, user_fields: { city: 'Metz', plan: 'free' } }, impatient);
    expect(out.httpStatus).toBe(206);
    const body = out.body as BotWebhookResult;
    expect(body.custom_fields_update.details).toEqual([
      { field: 'city', status: 'failed: Bot platform did not answer within 0.3 s' },
      { field: 'plan', status: 'failed: Bot platform did not answer within 0.3 s' },
    ]);
    expect(fake.requestsTo('PUT /subscriber/set-user-field-by-name')).toHaveLength(0);
    expect(body.flow_sent.success).toBe(true);
  });

  it('splits more than 20 fields into batches', async () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, `v${i}`]));
    const out = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW, user_fields: many }, client);
    expect(out.httpStatus).toBe(200);
    expect((out.body as BotWebhookResult).custom_fields_update.message).toBe('Updated 25 custom fields');
    const batches = fake.requestsTo('PUT /subscriber/set-user-fields-by-name').map((r) => (r.body as { data: unknown[] }).data.length);
    expect(batches).toEqual([20, 5]);
  });

  it('with a deadline: a lookup that cannot be retried in time ends the call, and nothing is created', async () => {
    fake.failNext(LOOKUP, { status: 429, body: { message: 'Too Many Attempts.' }, headers: { 'retry-after': '5' } }, 3);
    const deadlineAt = Date.now() + 3_000;
    const hurried = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 1000, deadlineAt });
    const out = await runBotWebhook({ phone_number: '4915100000777', flow_ns: FLOW }, hurried, { deadlineAt });
    expect(out.httpStatus).toBe(500);
    expect((out.body as { error: string }).error).toMatch(/^Could not look up the user on the bot platform: Bot platform rate limit reached/);
    expect(Date.now()).toBeLessThan(deadlineAt);
    expect(fake.requestsTo(LOOKUP)).toHaveLength(1);
    expect(fake.requestsTo('POST /subscriber/create')).toHaveLength(0);
  });

  it('with a deadline: no create and no send is started with less than MIN_TIME_FOR_A_WRITE_MS left', async () => {
    const deadlineAt = Date.now() + MIN_TIME_FOR_A_WRITE_MS - 200;
    const hurried = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 1000, deadlineAt });
    const newUser = await runBotWebhook({ phone_number: '4915100000888', flow_ns: FLOW }, hurried, { deadlineAt });
    expect(newUser).toEqual({ httpStatus: 500, body: { error: 'Looking up the user on the bot platform took the time allowed for this call; the user was not created (nothing was changed)' } });
    const known = await runBotWebhook({ phone_number: '33612345678', flow_ns: FLOW, user_fields: { city: 'Brest' } }, hurried, { deadlineAt });
    expect(known.httpStatus).toBe(206);
    const body = known.body as BotWebhookResult;
    expect(body.custom_fields_update.success).toBe(true);
    expect(body.flow_sent).toEqual({ success: false, message: 'Flow not sent: the earlier steps took the time allowed for this call' });
    expect(fake.requestsTo('POST /subscriber/create')).toHaveLength(0);
    expect(fake.requestsTo(SEND)).toHaveLength(0);
  });

  it('never lets the token into a result or an error', async () => {
    fake.failNext(LOOKUP, { status: 400, body: { message: `Token ${TOKEN} is not allowed here` } });
    fake.failNext('PUT /subscriber/set-user-fields-by-name', { status: 500, body: { message: `boom ${TOKEN}` } });
    fake.failNext(SEND, { status: 422, body: { message: `bad ${TOKEN}` } });
    const partial = await runBotWebhook({ phone_number: '4915100000002', flow_ns: FLOW, user_fields: { nope: 'x' } }, client);
    fake.failNext('POST /subscriber/create', { status: 500, body: { message: `create failed for ${TOKEN}` } });
    const failed = await runBotWebhook({ phone_number: '4915100000003', flow_ns: FLOW }, client);
    const stranger = await runBotWebhook({ phone_number: '4915100000003', flow_ns: FLOW }, createBotPlatformClient({ baseUrl: fake.baseUrl, token: `${TOKEN}-revoked`, timeoutMs: 1000 }));
    expect([partial.httpStatus, failed.httpStatus, stranger.httpStatus]).toEqual([206, 404, 401]);
    const text = JSON.stringify([partial, failed, stranger]);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(TOKEN);
  });
});
