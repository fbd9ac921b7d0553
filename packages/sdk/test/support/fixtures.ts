// Sets up what most tests need through the SDK itself: an owner with sandbox money, an agent wallet funded
// from it, and an API key for that wallet.
import { randomUUID } from 'node:crypto';
import { AgentWalletClient, type ClientOptions, ManagementClient } from '../../src/index.ts';
import type { AgentWallet, CreatedApiKey, Scope } from '../../src/types.ts';

export const PASSWORD = 'correct horse battery staple';

/** An address outside the service: a payment to it settles on the sandbox rail. */
export function externalAddress(): string {
  return `0x${randomUUID().replaceAll('-', '')}${'0'.repeat(8)}`;
}

export function uniqueEmail(tag = 'sdk'): string {
  return `${tag}-${randomUUID()}@example.com`;
}

export interface Owner {
  mgmt: ManagementClient;
  email: string;
}

export async function newOwner(
  url: string,
  options: Partial<ClientOptions> = {},
  deposit = '1000',
): Promise<Owner> {
  const mgmt = new ManagementClient({ ...options, baseUrl: url });
  const email = uniqueEmail();
  await mgmt.signup({ email, password: PASSWORD });
  if (deposit !== '0') await mgmt.sandboxDeposit(deposit);
  return { mgmt, email };
}

export interface Agent extends Owner {
  wallet: AgentWallet;
  walletId: string;
  apiKey: CreatedApiKey;
  agent: AgentWalletClient;
}

export interface AgentOptions {
  /**
   * A new owner (a signup, argon2 and all) instead of the file's shared one: for tests about one user's
   * resources, or about another user.
   */
  freshOwner?: boolean;
  /** Moved from the master wallet to the agent wallet. Default '100'. */
  fund?: string;
  scopes?: Scope[];
  /** Client options of both clients (base URL excluded). */
  client?: Partial<ClientOptions>;
  /** Where the agent client points (default: the server). */
  agentUrl?: string;
}

/** One owner per server and client options, with plenty of sandbox money, shared by the tests of a file. */
const sharedOwners = new Map<string, Promise<Owner>>();

function sharedOwner(url: string, client: Partial<ClientOptions> | undefined): Promise<Owner> {
  if (client !== undefined) return newOwner(url, client, '1000000');
  let owner = sharedOwners.get(url);
  if (owner === undefined) {
    owner = newOwner(url, {}, '1000000');
    sharedOwners.set(url, owner);
  }
  return owner;
}

/** A funded agent wallet with an API key, and clients for both sides. */
export async function newAgent(url: string, options: AgentOptions = {}): Promise<Agent> {
  const owner = options.freshOwner
    ? await newOwner(url, options.client)
    : await sharedOwner(url, options.client);
  const wallet = await owner.mgmt.agentWallets.create({ label: 'test agent' });
  const fund = options.fund ?? '100';
  if (fund !== '0') await owner.mgmt.agentWallets.fund(wallet.id, { amount: fund });
  const apiKey = await owner.mgmt.keys.create(wallet.id, {
    label: 'test key',
    ...(options.scopes === undefined ? {} : { scopes: options.scopes }),
  });
  const agent = new AgentWalletClient({
    ...options.client,
    baseUrl: options.agentUrl ?? url,
    apiKey: apiKey.key,
  });
  return { ...owner, wallet, walletId: wallet.id, apiKey, agent };
}

/** Runs `fn`, which must throw; returns the error for further checks. */
export async function rejection(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it resolved');
}

/** A sleep that records the delays it was asked for and returns at once. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
    },
  };
}
