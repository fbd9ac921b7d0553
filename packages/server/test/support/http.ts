// Small request helpers over Fastify's inject, typed loosely on purpose: tests assert on the wire format.
import type { FastifyInstance } from 'fastify';
import { assertDocumented } from './documented.ts';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
  raw: string;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  ip?: string;
}

export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  url: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload }),
    ...(options.ip === undefined ? {} : { remoteAddress: options.ip }),
  });
  await assertDocumented(
    app,
    { method, url },
    { statusCode: response.statusCode, headers: response.headers, body: response.body },
  );
  let parsed: unknown;
  try {
    parsed = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, headers: response.headers, body: parsed, raw: response.body };
}

/** A client bound to one token. */
export function as(app: FastifyInstance, token: string, ip?: string) {
  const options = (extra?: RequestOptions): RequestOptions => ({
    token,
    ...(ip === undefined ? {} : { ip }),
    ...extra,
  });
  return {
    get: (url: string, extra?: RequestOptions) => call(app, 'GET', url, undefined, options(extra)),
    post: (url: string, body?: unknown, extra?: RequestOptions) =>
      call(app, 'POST', url, body, options(extra)),
    patch: (url: string, body?: unknown, extra?: RequestOptions) =>
      call(app, 'PATCH', url, body, options(extra)),
    delete: (url: string, extra?: RequestOptions) => call(app, 'DELETE', url, undefined, options(extra)),
  };
}

let userCounter = 0;

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
  api: ReturnType<typeof as>;
}

export async function signupUser(app: FastifyInstance, prefix = 'user'): Promise<TestUser> {
  userCounter += 1;
  const email = `${prefix}${userCounter}.${process.pid}@example.test`;
  const password = 'correct horse battery';
  const reply = await call(app, 'POST', '/api/v1/auth/signup', { email, password });
  if (reply.status !== 201) throw new Error(`signup failed: ${reply.status} ${reply.raw}`);
  const token: string = reply.body.data.token;
  return { id: reply.body.data.user.id, email, password, token, api: as(app, token) };
}

/**
 * A new member of `owner`'s organization with `role`: invited, then signed up with the invitation's token.
 * Answers the member and that token (a secret a test may look for in mails and logs).
 */
export async function addMember(
  app: FastifyInstance,
  owner: TestUser,
  role: string,
  label: string = role,
): Promise<{ member: TestUser; invitationToken: string }> {
  userCounter += 1;
  const email = `${label}${userCounter}.${process.pid}@example.test`;
  const password = 'correct horse battery';
  const invited = await owner.api.post('/api/v1/members/invitations', { email, role });
  if (invited.status !== 201) throw new Error(`invitation failed: ${invited.status} ${invited.raw}`);
  const invitationToken: string = invited.body.data.token;
  const joined = await call(app, 'POST', '/api/v1/auth/signup', { email, password, invitationToken });
  if (joined.status !== 201) throw new Error(`signup by invitation failed: ${joined.status} ${joined.raw}`);
  const token: string = joined.body.data.token;
  return {
    member: { id: joined.body.data.user.id, email, password, token, api: as(app, token) },
    invitationToken,
  };
}

/** Proves presence again with the password (a user without a second factor), for a session older than the step-up age. */
export async function stepUpWithPassword(user: TestUser): Promise<void> {
  const reply = await user.api.post('/api/v1/auth/step-up', { password: user.password });
  if (reply.status !== 200) throw new Error(`step-up failed: ${reply.status} ${reply.raw}`);
}

/** A user with `amount` in the master wallet and one agent wallet. */
export async function fundedUser(app: FastifyInstance, masterAmount: string) {
  const user = await signupUser(app);
  const deposit = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: masterAmount });
  if (deposit.status !== 201) throw new Error(`deposit failed: ${deposit.raw}`);
  const wallet = await user.api.post('/api/v1/agent-wallets', { label: 'agent one' });
  if (wallet.status !== 201) throw new Error(`agent wallet failed: ${wallet.raw}`);
  return { user, walletId: wallet.body.data.id as string, wallet: wallet.body.data };
}

/** The error envelope's shape, checked the same way everywhere. */
export function expectError(reply: Reply, status: number, code: string): void {
  if (reply.status !== status || reply.body?.success !== false || reply.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${reply.status} ${reply.raw}`);
  }
  if (typeof reply.body.error.message !== 'string' || reply.body.error.message.length === 0) {
    throw new Error(`error without a message: ${reply.raw}`);
  }
}
