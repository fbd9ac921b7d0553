// Quick start: an agent pays, within the limits its owner set.
//
//   npm start                                   # a local sandbox server on http://127.0.0.1:8787
//   node packages/sdk/examples/quickstart.ts    # Node >= 22.18 runs TypeScript directly
//
// AGENT_WALLET_URL points elsewhere. With AGENT_WALLET_API_KEY set, the agent part runs with that key;
// without it, the script first sets up a sandbox account the way an owner would (sign up, deposit
// simulated money, create and fund an agent wallet with a spending cap, create its API key).
//
// In your project, import from '@agent-wallet/sdk' instead.
import {
  AgentWalletClient,
  InsufficientBalanceError,
  isAgentWalletError,
  ManagementClient,
  PolicyDeniedError,
  RateLimitError,
} from '../src/index.ts';

const baseUrl = process.env.AGENT_WALLET_URL || 'http://127.0.0.1:8787';

// Every error the service can answer has a stable code: say it in one line instead of a stack trace.
process.on('uncaughtException', (error) => {
  if (!isAgentWalletError(error)) throw error;
  const request = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
  console.error(`${error.code}: ${error.message}${request}`);
  process.exit(1);
});

const apiKey = process.env.AGENT_WALLET_API_KEY || (await setUpSandboxAgent());

// ---- The agent: an API key is all it has. ----
const agent = new AgentWalletClient({ baseUrl, apiKey, maxRetries: 2 });

const balance = await agent.checkBalance();
console.log(`balance: ${balance.balance} ${balance.currency} (held ${balance.heldBalance})`);

// Amounts are decimal strings, never floats. The SDK sends an idempotency key with every payment, so its
// retries (maxRetries) cannot pay twice.
const payment = await agent.sendPayment({
  toAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
  amount: '2.50',
  memo: 'API credits',
});
console.log(`paid ${payment.amount} to ${payment.toAddress}: ${payment.status} (tx ${payment.txId})`);

try {
  await agent.sendPayment({ toAddress: '0x8617e340b3d01fa5f11f306f4090fd50e238070d', amount: '500' });
} catch (error) {
  if (error instanceof PolicyDeniedError) {
    console.log(`denied by policy: ${error.violations.map((v) => v.reason).join('; ')} (tx ${error.txId})`);
    // What the policies deny, the owner may still approve:
    const asked = await agent.requestApproval({
      toAddress: '0x8617e340b3d01fa5f11f306f4090fd50e238070d',
      amount: '25',
      reason: 'a one-off purchase above my cap',
    });
    console.log(`approval requested: ${asked.status} (tx ${asked.txId})`);
  } else if (error instanceof InsufficientBalanceError) {
    console.log(`not enough money: ${error.message}`);
  } else if (error instanceof RateLimitError) {
    console.log(`rate limited: retry in ${error.retryAfter} s`);
  } else {
    throw error;
  }
}

const history = await agent.getTxHistory({ limit: 5 });
for (const tx of history.transactions) {
  console.log(`  ${tx.createdAt}  ${tx.type.padEnd(8)} ${tx.status.padEnd(10)} ${tx.amount}`);
}
console.log(`done: ${history.total} transactions`);

/** What the owner does once (usually in the dashboard): returns the new agent's API key. */
async function setUpSandboxAgent(): Promise<string> {
  const owner = new ManagementClient({ baseUrl });
  const { rail } = await owner.health();
  if (rail !== 'sandbox')
    throw new Error('set AGENT_WALLET_API_KEY: this server does not hand out sandbox money');
  await owner.signup({
    email: `quickstart-${crypto.randomUUID()}@example.com`,
    password: 'a long sandbox password',
  });
  await owner.sandboxDeposit('100');
  const wallet = await owner.agentWallets.create({ label: 'quickstart agent' });
  await owner.agentWallets.fund(wallet.id, { amount: '40', idempotencyKey: crypto.randomUUID() });
  await owner.policies.create(wallet.id, { type: 'spend_cap_per_tx', params: { limit: '20' } });
  const key = await owner.keys.create(wallet.id, { label: 'quickstart', scopes: ['read', 'write'] });
  console.log(`set up sandbox agent wallet ${wallet.id} with 40 USDC and a 20 USDC per-payment cap`);
  return key.key;
}
