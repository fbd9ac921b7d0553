import { describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../src/api/client.ts';
import { type ApiError, toApiError } from '../src/api/errors.ts';
import { isStepUpPath, StepUpGate, stepUpMethods } from '../src/api/stepUp.ts';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  signal: AbortSignal | null;
}

type Reply = { status: number; body?: unknown } | Error;

function fakeFetch(replies: Reply[]) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({
      url: String(input),
      method: init?.method ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: (init?.body as string | null) ?? null,
      signal: init?.signal ?? null,
    });
    const reply = replies.shift();
    if (reply === undefined) throw new Error('no scripted reply left');
    if (reply instanceof Error) throw reply;
    return new Response(reply.body === undefined ? '' : JSON.stringify(reply.body), { status: reply.status });
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, calls };
}

function client(replies: Reply[]) {
  const { fetch, calls } = fakeFetch(replies);
  const sleeps: number[] = [];
  const api = new ApiClient({
    fetch,
    origin: 'http://dash.test',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  api.setToken('jwt');
  return { api, calls, sleeps };
}

const ok = (data: unknown, status = 200): Reply => ({ status, body: { success: true, data } });
const stepUpRequired = (methods: unknown = ['totp', 'passkey', 'recovery_code']): Reply => ({
  status: 403,
  body: {
    success: false,
    error: { code: 'STEP_UP_REQUIRED', message: 'this operation needs presence proven…', methods },
  },
});

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    return toApiError(error);
  }
  throw new Error('expected a failure');
}

describe('stepUpMethods: reading a refusal', () => {
  it('answers the methods of a 403 STEP_UP_REQUIRED, known ones only, once each', () => {
    const text = (body: unknown) => JSON.stringify(body);
    expect(
      stepUpMethods(
        403,
        text({
          success: false,
          error: { code: 'STEP_UP_REQUIRED', methods: ['totp', 'passkey', 'recovery_code'] },
        }),
      ),
    ).toEqual(['totp', 'passkey', 'recovery_code']);
    expect(
      stepUpMethods(
        403,
        text({ error: { code: 'STEP_UP_REQUIRED', methods: ['password', 'sms', 'password'] } }),
      ),
    ).toEqual(['password']);
    // No usable method named: the password is what every account has.
    expect(stepUpMethods(403, text({ error: { code: 'STEP_UP_REQUIRED' } }))).toEqual(['password']);
  });

  it('is null for anything else', () => {
    expect(stepUpMethods(403, JSON.stringify({ error: { code: 'INSUFFICIENT_SCOPE' } }))).toBeNull();
    expect(stepUpMethods(401, JSON.stringify({ error: { code: 'STEP_UP_REQUIRED' } }))).toBeNull();
    expect(stepUpMethods(403, 'Forbidden')).toBeNull();
    expect(stepUpMethods(403, '')).toBeNull();
    expect(stepUpMethods(403, 'null')).toBeNull();
  });

  it('never holds the step-up calls themselves', () => {
    expect(isStepUpPath('/api/v1/auth/step-up')).toBe(true);
    expect(isStepUpPath('/api/v1/auth/step-up/passkey-options')).toBe(true);
    expect(isStepUpPath('/api/v1/auth/step-upx')).toBe(false);
    expect(isStepUpPath('/api/v1/wallet/withdrawals')).toBe(false);
  });
});

describe('StepUpGate: one question at a time', () => {
  it('says no when nobody can be asked', async () => {
    expect(await new StepUpGate().request(['password'])).toBe(false);
  });

  it('shares one pending question between requests, then asks afresh', async () => {
    const gate = new StepUpGate();
    let answer: (value: boolean) => void = () => {};
    const ask = vi.fn(() => new Promise<boolean>((resolve) => (answer = resolve)));
    gate.setAsk(ask);
    const first = gate.request(['totp']);
    const second = gate.request(['totp']);
    answer(true);
    expect(await Promise.all([first, second])).toEqual([true, true]);
    expect(ask).toHaveBeenCalledTimes(1);
    const third = gate.request(['totp']);
    answer(false);
    expect(await third).toBe(false);
    expect(ask).toHaveBeenCalledTimes(2);
  });

  it('treats a failing question as a no', async () => {
    const gate = new StepUpGate();
    gate.setAsk(async () => {
      throw new Error('dialog crashed');
    });
    expect(await gate.request(['password'])).toBe(false);
  });
});

describe('ApiClient: a request refused for a step-up is held, then sent again', () => {
  it('asks with the methods offered and repeats an SDK call once the person proved presence', async () => {
    const { api, calls } = client([stepUpRequired(), ok({ id: 'key_1', key: 'svc_x' }, 201)]);
    const ask = vi.fn(async () => true);
    api.setStepUpAsk(ask);
    const created = await api.sdk.keys.create('w1', { label: 'bot' });
    expect(created).toEqual({ id: 'key_1', key: 'svc_x' });
    expect(ask).toHaveBeenCalledWith(['totp', 'passkey', 'recovery_code']);
    expect(calls.map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual([
      'POST /api/v1/agent-wallets/w1/keys',
      'POST /api/v1/agent-wallets/w1/keys',
    ]);
    expect(calls[1]?.body).toBe(calls[0]?.body);
  });

  it('repeats a custody request with the same body and Idempotency-Key', async () => {
    const withdrawal = { id: 'wd_1', status: 'completed' };
    const { api, calls } = client([stepUpRequired(['password']), ok(withdrawal, 201)]);
    api.setStepUpAsk(async () => true);
    const done = await api.custody.withdraw({
      toAddress: `0x${'ab'.repeat(20)}`,
      amount: '10',
      memo: 'rent',
      idempotencyKey: 'dash-1',
    });
    expect(done).toEqual(withdrawal);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.headers['idempotency-key']).toBe('dash-1');
    expect(calls[1]?.headers['idempotency-key']).toBe('dash-1');
    expect(JSON.parse(calls[1]?.body ?? '')).toEqual({
      toAddress: `0x${'ab'.repeat(20)}`,
      amount: '10',
      memo: 'rent',
    });
  });

  it('lets the refusal through when the person cancels (words, not the server’s hint)', async () => {
    const { api, calls } = client([stepUpRequired()]);
    api.setStepUpAsk(async () => false);
    const error = await caught(api.custody.startTotp());
    expect(error.code).toBe('STEP_UP_REQUIRED');
    expect(error.details.methods).toEqual(['totp', 'passkey', 'recovery_code']);
    expect(error.message).toMatch(/confirm it is you/);
    expect(error.message).not.toContain('/api/v1');
    expect(calls).toHaveLength(1);
  });

  it('lets the refusal through when nobody can be asked (logged out, no dialog mounted)', async () => {
    const { api, calls } = client([stepUpRequired()]);
    const error = await caught(api.sdk.webhooks.create({ url: 'https://x.example/h' }));
    expect(error.code).toBe('STEP_UP_REQUIRED');
    expect(error.details.methods).toEqual(['totp', 'passkey', 'recovery_code']);
    expect(calls).toHaveLength(1);
  });

  it('asks once for requests refused together, and repeats each', async () => {
    const { api, calls } = client([stepUpRequired(), stepUpRequired(), ok({ a: 1 }), ok({ b: 2 })]);
    let answer: (value: boolean) => void = () => {};
    const ask = vi.fn(() => new Promise<boolean>((resolve) => (answer = resolve)));
    api.setStepUpAsk(ask);
    const first = api.custody.removeTotp();
    const second = api.custody.removePasskey('pk_1');
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    await new Promise((r) => setTimeout(r, 10));
    answer(true);
    const results = await Promise.all([first, second]);
    expect(ask).toHaveBeenCalledTimes(1);
    expect(calls).toHaveLength(4);
    expect(results).toHaveLength(2);
  });

  it('never holds the step-up call itself, and asks nobody for another 403', async () => {
    const ask = vi.fn(async () => true);
    const { api, calls } = client([
      stepUpRequired(),
      { status: 403, body: { success: false, error: { code: 'INSUFFICIENT_SCOPE', message: 'no' } } },
    ]);
    api.setStepUpAsk(ask);
    expect((await caught(api.custody.stepUp({ password: 'pw' }))).code).toBe('STEP_UP_REQUIRED');
    expect((await caught(api.custody.sessions())).code).toBe('INSUFFICIENT_SCOPE');
    expect(ask).not.toHaveBeenCalled();
    expect(calls).toHaveLength(2);
  });

  it('gives the repeat a live signal when the SDK’s timeout fired while the person answered', async () => {
    const { api, calls } = client([stepUpRequired(), ok({ id: 'w' }, 201)]);
    // A 1 ms SDK timeout is long over by the time the repeat goes.
    const sdk = api.sdk.withOptions({ timeoutMs: 1 });
    api.setStepUpAsk(async () => {
      await new Promise((r) => setTimeout(r, 20));
      return true;
    });
    // withOptions copies the SDK client but keeps the adapter: the repeat goes through the same hold.
    await expect(sdk.agentWallets.create({ label: 'x' })).resolves.toEqual({ id: 'w' });
    expect(calls[0]?.signal?.aborted).toBe(true);
    expect(calls[1]?.signal?.aborted).toBe(false);
  });
});

describe('ApiClient.request: custody routes through the same adapter', () => {
  it('sends JSON with the token, builds the query and unwraps the envelope', async () => {
    const { api, calls } = client([ok({ items: [], total: 0, page: 2, limit: 10 })]);
    expect(await api.custody.securityEvents(2, 10)).toEqual({ items: [], total: 0, page: 2, limit: 10 });
    expect(calls[0]).toMatchObject({
      url: 'http://dash.test/api/v1/auth/security-events?page=2&limit=10',
      method: 'GET',
      headers: { authorization: 'Bearer jwt', accept: 'application/json' },
    });
  });

  it('keeps the error’s extra fields (a login’s mfaToken and methods)', async () => {
    const { api } = client([
      {
        status: 401,
        body: {
          success: false,
          error: {
            code: 'MFA_REQUIRED',
            message: 'a second factor',
            mfaToken: 'mfa_1',
            methods: ['passkey'],
          },
        },
      },
    ]);
    const error = await caught(api.sdk.login({ email: 'a@b.co', password: 'pw' }));
    expect(error.code).toBe('MFA_REQUIRED');
    expect(error.details).toEqual({ mfaToken: 'mfa_1', methods: ['passkey'] });
  });

  it('retries a read after a network error, never a write without a key', async () => {
    const { api, calls, sleeps } = client([new TypeError('offline'), ok({ items: [] })]);
    expect(await api.custody.sessions()).toEqual({ items: [] });
    expect(calls).toHaveLength(2);
    expect(sleeps).toEqual([200]);
    const write = client([new TypeError('offline')]);
    expect((await caught(write.api.custody.endOtherSessions())).code).toBe('NETWORK_ERROR');
    expect(write.calls).toHaveLength(1);
  });

  it('retries a keyed write after a 5xx with the same key, and words an answer that is no envelope', async () => {
    const { api, calls } = client([
      { status: 503, body: { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'down' } } },
      ok({ id: 'wd_1' }, 201),
    ]);
    await api.custody.withdraw({ toAddress: '0x1', amount: '1', idempotencyKey: 'k1' });
    expect(calls.map((c) => c.headers['idempotency-key'])).toEqual(['k1', 'k1']);
    const odd = client([{ status: 502 }]);
    const error = await caught(odd.api.custody.passkeyRegistrationOptions());
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.message).not.toContain('{');
  });
});
