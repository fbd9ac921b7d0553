// Issue 30: the three agent frameworks a developer reaches for, each driven by its own scripted model (no LLM, no
// network: loopback only) against a real service, connected by exactly the code the dashboard's "Connect your
// agent" page shows (test/frameworks/snippets/*, copied into the dashboard by scripts/connect-snippets.mjs):
//  - a multi-step agent loop: checks the balance, pays, is denied by a policy (a tool error the loop goes on
//    from, the code and violations in it), asks for approval (pending), reads the history;
//  - a retry after a dropped response pays once: a proxy lets the first send_payment reach the service and drops
//    its answer; the framework (or its scripted model) calls again with the same idempotencyKey; one payment.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AIMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import {
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Agent as OpenAIAgent,
  run as runOpenAIAgent,
  setTracingDisabled,
  Usage,
} from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createAgent, toolRetryMiddleware } from 'langchain';
import { connect as connectAiSdk } from './frameworks/snippets/ai-sdk.ts';
import { connect as connectLangChain, walletToolRetry } from './frameworks/snippets/langchain.ts';
import { connect as connectOpenAIAgents } from './frameworks/snippets/openai-agents.ts';
import { type Agent, agentWithKey, createPolicy, EXTERNAL } from './support/agent.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';

setTracingDisabled(true);

/** One tool call the scripted model makes. */
interface Step {
  tool: string;
  args: Record<string, unknown>;
}

/** A tool result as the framework handed it to the model: its text, and whether the framework marked it an error. */
interface Seen {
  tool: string;
  text: string;
  error: boolean;
}

/** Runs the script through a framework's own agent loop; answers what the model saw after each call. */
type Driver = (url: string, apiKey: string, script: Step[], retry: RetryMode) => Promise<Seen[]>;

/**
 * How a failed call (a dropped response) is retried: by the framework itself (LangChain's tool retry middleware),
 * or by the model, which calls the tool again with the same arguments when it sees the failure.
 */
type RetryMode = 'none' | 'on-failure';

const LOOP: Step[] = [
  { tool: 'check_balance', args: {} },
  {
    tool: 'send_payment',
    args: { toAddress: EXTERNAL, amount: '2.5', memo: 'coffee', idempotencyKey: 'pay-coffee' },
  },
  {
    tool: 'send_payment',
    args: { toAddress: EXTERNAL, amount: '25', memo: 'laptop', idempotencyKey: 'pay-laptop' },
  },
  {
    tool: 'request_approval',
    args: {
      toAddress: EXTERNAL,
      amount: '25',
      memo: 'laptop',
      reason: 'over my per-payment cap',
      idempotencyKey: 'ask-laptop',
    },
  },
  // Every param is listed as required (OpenAI's strict mode): a conforming model sends each, null where it means
  // none, and LangChain's MCP adapter checks the arguments against the listed schema before calling.
  { tool: 'get_tx_history', args: { page: null, limit: 10, status: null } },
];

const RETRIED: Step = {
  tool: 'send_payment',
  args: { toAddress: EXTERNAL, amount: '3', memo: 'retried', idempotencyKey: 'pay-once' },
};

/** The text of a tool output, whichever shape the framework gives it: a string, a text part, a list of them. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('');
  if (value !== null && typeof value === 'object' && typeof (value as { text?: unknown }).text === 'string') {
    return (value as { text: string }).text;
  }
  return JSON.stringify(value);
}

// --- Vercel AI SDK: MockLanguageModelV4 from ai/test, generateText's own multi-step loop ----------------------

const aiSdk: Driver = async (url, apiKey, script, retry) => {
  const { client, tools } = await connectAiSdk({ url, apiKey });
  try {
    const planned = [...script];
    let callId = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        const last = options.prompt.at(-1);
        const failed =
          last?.role === 'tool' &&
          last.content.some((part) => part.type === 'tool-result' && part.output.type === 'error-text');
        // The model's retry: the call failed, so it makes the same call again, arguments and key unchanged.
        const step = retry === 'on-failure' && failed ? lastStep : planned.shift();
        const usage = {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        };
        if (step === undefined) {
          return {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          };
        }
        lastStep = step;
        callId += 1;
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `call-${callId}`,
              toolName: step.tool,
              input: JSON.stringify(step.args),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      },
    });
    let lastStep: Step | undefined;
    const result = await generateText({
      model,
      tools,
      prompt: 'Pay for the coffee and the laptop.',
      stopWhen: stepCountIs(20),
    });
    const seen: Seen[] = [];
    for (const step of result.steps) {
      for (const part of step.content) {
        if (part.type === 'tool-result') {
          const output = part.output as { isError?: boolean; content?: Array<{ text?: string }> };
          seen.push({
            tool: part.toolName,
            text: (output.content ?? []).map((c) => c.text ?? '').join('') || textOf(output),
            error: output.isError === true,
          });
        } else if (part.type === 'tool-error') {
          seen.push({ tool: part.toolName, text: textOf(String(part.error)), error: true });
        }
      }
    }
    return seen;
  } finally {
    await client.close();
  }
};

// --- LangChain JS: fakeModel from @langchain/core/testing, createAgent's loop (ToolNode) --------------------------

/** No waiting between attempts in tests; each retry setting is otherwise as shipped. */
const NO_DELAY = { maxRetries: 2, initialDelayMs: 0, jitter: false };

const langChain: Driver = (url, apiKey, script, retry) =>
  // The framework's own retry, as the connect page's snippet sets it up: a failed tool call (here, a dropped
  // response) is made again, unchanged.
  runLangChain(url, apiKey, script, retry === 'on-failure' ? [walletToolRetry(NO_DELAY)] : []);

async function runLangChain(
  url: string,
  apiKey: string,
  script: Step[],
  middleware: ReturnType<typeof toolRetryMiddleware>[],
): Promise<Seen[]> {
  const { client, tools } = await connectLangChain({ url, apiKey });
  try {
    const model = fakeModel();
    for (const [i, step] of script.entries()) {
      model.respondWithTools([{ name: step.tool, args: step.args, id: `call-${i + 1}` }]);
    }
    model.respond(new AIMessage('done'));
    const agent = createAgent({ model, tools, middleware });
    const state = await agent.invoke({ messages: [new HumanMessage('Pay for the coffee and the laptop.')] });
    return state.messages
      .filter((m): m is ToolMessage => m.type === 'tool')
      .map((m) => ({ tool: m.name ?? '', text: textOf(m.content), error: m.status === 'error' }));
  } finally {
    await client.close();
  }
}

// --- OpenAI Agents SDK: a scripted Model, the Runner's own loop ----------------------------------------------

class ScriptedModel implements Model {
  private readonly planned: Step[];
  private lastStep: Step | undefined;
  private callId = 0;
  private readonly retry: RetryMode;
  constructor(script: Step[], retry: RetryMode) {
    this.planned = [...script];
    this.retry = retry;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = request.input as AgentInputItem[];
    const last = input.at(-1) as { type?: string; output?: { text?: string } } | undefined;
    const failed =
      last?.type === 'function_call_result' &&
      /An error occurred while running the tool/.test(textOf(last.output));
    const step = this.retry === 'on-failure' && failed ? this.lastStep : this.planned.shift();
    const usage = new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
    if (step === undefined) {
      return {
        usage,
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'done' }],
          },
        ],
      };
    }
    this.lastStep = step;
    this.callId += 1;
    return {
      usage,
      output: [
        {
          type: 'function_call',
          callId: `call-${this.callId}`,
          name: step.tool,
          arguments: JSON.stringify(step.args),
          status: 'completed',
        },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: the runner is never asked to stream here
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

const openAIAgents: Driver = async (url, apiKey, script, retry) => {
  const { server } = await connectOpenAIAgents({ url, apiKey });
  try {
    const agent = new OpenAIAgent({
      name: 'payer',
      instructions: 'Pay what you are asked to, within your policies.',
      model: new ScriptedModel(script, retry),
      mcpServers: [server],
    });
    const result = await runOpenAIAgent(agent, 'Pay for the coffee and the laptop.', { maxTurns: 20 });
    const names = new Map<string, string>();
    const seen: Seen[] = [];
    for (const item of result.history) {
      if (item.type === 'function_call') names.set(item.callId, item.name);
      if (item.type === 'function_call_result') {
        const text = textOf(item.output);
        // The SDK hands an MCP error result to the model as its text (the code first); a failed call as its message.
        seen.push({
          tool: names.get(item.callId) ?? item.name,
          text,
          error: /"isError":true|An error occurred while running the tool|^\w+_\w+: /.test(text),
        });
      }
    }
    return seen;
  } finally {
    await server.close();
  }
};

// --- The service, and a proxy that can drop the answer to a send_payment -------------------------------------

/**
 * Forwards to the service; while `drops` > 0, lets a send_payment call through and then drops its answer. Records
 * the MCP revision each tools/call went on: its MCP-Protocol-Version header (2026-07-28 and the 2025 revisions
 * after initialize both send it).
 */
function startProxy(
  target: string,
): Promise<Server & { drops: number; dropped: number; revisions: Set<string>; calls: string[] }> {
  const upstreamUrl = new URL(target);
  const proxy = Object.assign(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        let drop = false;
        try {
          const message = JSON.parse(body.toString('utf8'));
          drop =
            proxy.drops > 0 && message.method === 'tools/call' && message.params?.name === 'send_payment';
          if (message.method === 'tools/call') proxy.calls.push(String(message.params?.name));
        } catch {
          // not JSON: forwarded as it is
        }
        if (drop) proxy.drops -= 1;
        const revision = req.headers['mcp-protocol-version'];
        if (typeof revision === 'string' && body.includes('"tools/call"')) proxy.revisions.add(revision);
        const upstream = httpRequest(
          {
            host: upstreamUrl.hostname,
            port: upstreamUrl.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: upstreamUrl.host },
          },
          (answer) => {
            if (drop) {
              // The service has answered (the payment is made); the client never hears it.
              answer.resume();
              answer.on('end', () => {
                proxy.dropped += 1;
                req.socket.destroy();
              });
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.writeHead(502).end());
        upstream.end(body);
      });
    }),
    { drops: 0, dropped: 0, revisions: new Set<string>(), calls: [] as string[] },
  );
  return new Promise((done) => proxy.listen(0, '127.0.0.1', () => done(proxy)));
}

/**
 * Each framework with the MCP revision it ends up on: the AI SDK and the Agents SDK (on the v2 client) open with
 * server/discover and take 2026-07-28; the LangChain adapters (on the 1.x client) initialize on 2025-11-25.
 */
const FRAMEWORKS: Array<[string, Driver, string]> = [
  ['Vercel AI SDK (ai + @ai-sdk/mcp)', aiSdk, '2026-07-28'],
  ['LangChain JS (@langchain/mcp-adapters, createAgent)', langChain, '2025-11-25'],
  ['OpenAI Agents SDK (@openai/agents)', openAIAgents, '2026-07-28'],
];

// Both stores: the frameworks' retries meet the idempotency claim of SQLite's single writer and of PostgreSQL's rows.
const targets = await storeTargets();

for (const target of targets)
  describe(`agent frameworks over MCP, connected by the connect page’s snippets, on ${target.name}`, {
    skip: target.skip,
  }, () => {
    let h: Harness;
    let proxy: Awaited<ReturnType<typeof startProxy>>;
    let url: string;

    before(async () => {
      h = await startHarness(target.name, 'frameworks');
      const direct = await h.app.listen({ port: 0, host: '127.0.0.1' });
      proxy = await startProxy(direct);
      url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    after(async () => {
      await new Promise<void>((done) => (proxy ? proxy.close(() => done()) : done()));
      proxy?.closeAllConnections();
      await h?.close();
    });

    /** The wallet's payments in the store, as [memo, status] pairs in a stable order (the test clock stands still). */
    async function payments(walletId: string): Promise<string[][]> {
      const rows = await h.services.store.db
        .selectFrom('transactions')
        .select(['status', 'memo'])
        .where('wallet_id', '=', walletId)
        .where('type', '=', 'payment')
        .execute();
      return rows.map((t) => [t.memo ?? '', t.status]).sort((a, b) => a.join().localeCompare(b.join()));
    }

    async function balanceOf(agent: Agent): Promise<{ balance: string; heldBalance: string }> {
      const reply = await agent.user.api.get(`/api/v1/agent-wallets/${agent.walletId}`);
      assert.equal(reply.status, 200, reply.raw);
      return reply.body.data;
    }

    for (const [name, drive, revision] of FRAMEWORKS) {
      test(`${name}: pays, is denied, waits for approval, reads the history (MCP ${revision})`, async () => {
        const agent = await agentWithKey(h);
        const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '10' });
        proxy.revisions.clear();
        const seen = await drive(url, agent.key, LOOP, 'none');
        assert.deepEqual([...proxy.revisions], [revision], 'every tool call on the revision it negotiated');

        assert.deepEqual(
          seen.map((s) => s.tool),
          LOOP.map((s) => s.tool),
          'every call reached the model, and the loop went on after the denial',
        );
        const [balance, paid, denied, asked, history] = seen as [Seen, Seen, Seen, Seen, Seen];
        assert.equal(balance.error, false, balance.text);
        assert.match(balance.text, /"balance":"100(\.0+)?"/);
        assert.equal(paid.error, false, paid.text);
        assert.match(paid.text, /"status":"completed"/);
        // The denial is a tool error the model can tell apart, with the code and the policy that denied it.
        assert.equal(denied.error, true, denied.text);
        assert.match(denied.text, /POLICY_DENIED/);
        assert.ok(denied.text.includes(cap.id), denied.text);
        assert.equal(asked.error, false, asked.text);
        assert.match(asked.text, /"status":"pending"/);
        assert.equal(history.error, false, history.text);
        for (const status of ['completed', 'rejected', 'pending']) {
          assert.ok(history.text.includes(`"status":"${status}"`), `${status} in ${history.text}`);
        }

        assert.deepEqual(await payments(agent.walletId), [
          ['coffee', 'completed'],
          ['laptop', 'pending'],
          ['laptop', 'rejected'],
        ]);
        const after = await balanceOf(agent);
        assert.equal(Number(after.balance), 72.5, '100 - 2.5 paid - 25 held');
        assert.equal(Number(after.heldBalance), 25);
      });

      test(`${name}: a retry after a dropped response pays once`, async () => {
        const agent = await agentWithKey(h);
        proxy.drops = 1;
        proxy.dropped = 0;
        const seen = await drive(url, agent.key, [RETRIED], 'on-failure');
        proxy.drops = 0;
        assert.equal(proxy.dropped, 1, 'the first answer was dropped');
        const last = seen.at(-1);
        assert.ok(last !== undefined && !last.error, JSON.stringify(seen));
        assert.match(last.text, /"status":"completed"/);
        assert.deepEqual(
          await payments(agent.walletId),
          [['retried', 'completed']],
          'one payment for the two calls',
        );
        assert.equal(Number((await balanceOf(agent)).balance), 97);
      });
    }

    test('LangChain’s toolRetryMiddleware: the snippet’s setting reads a denial once; the default retries it blind', {
      skip: target.name !== 'sqlite',
    }, async () => {
      const agent = await agentWithKey(h);
      const cap = await createPolicy(agent.user, agent.walletId, 'spend_cap_per_tx', { limit: '10' });
      const denied: Step = {
        tool: 'send_payment',
        args: { toAddress: EXTERNAL, amount: '25', memo: 'laptop', idempotencyKey: 'deny-once' },
      };
      // As shipped: every failure is retried, and the model is told only that it failed.
      proxy.calls.length = 0;
      const blind = await runLangChain(url, agent.key, [denied], [toolRetryMiddleware(NO_DELAY)]);
      assert.deepEqual(proxy.calls, ['send_payment', 'send_payment', 'send_payment']);
      assert.match(blind.at(-1)?.text ?? '', /failed after 3 attempts/);
      assert.doesNotMatch(blind.at(-1)?.text ?? '', /POLICY_DENIED/);
      // The snippet's walletToolRetry: the denial is the answer, made once, read whole (the code, the policy).
      proxy.calls.length = 0;
      const [read] = await runLangChain(url, agent.key, [denied], [walletToolRetry(NO_DELAY)]);
      assert.deepEqual(proxy.calls, ['send_payment']);
      assert.ok(read?.error, JSON.stringify(read));
      assert.match(read.text, /POLICY_DENIED/);
      assert.ok(read.text.includes(cap.id), read.text);
    });

    test('LangChain’s MCP adapter keeps a type for each nullable param: what a model behind it is shown', {
      skip: target.name !== 'sqlite',
    }, async () => {
      const agent = await agentWithKey(h);
      const { client, tools } = await connectLangChain({ url, apiKey: agent.key });
      try {
        // The tool as LangChain hands it to a chat model (the OpenAI function format its providers start from).
        const shown = (tool: string, param: string) => {
          const found = tools.find((t) => t.name === tool);
          assert.ok(found !== undefined, tool);
          const parameters = convertToOpenAITool(found).function.parameters as {
            properties: Record<string, { type?: unknown }>;
          };
          return parameters.properties[param];
        };
        for (const [tool, param, type] of [
          ['send_payment', 'memo', 'string'],
          ['request_approval', 'reason', 'string'],
          ['get_tx_history', 'page', 'integer'],
          ['get_tx_history', 'limit', 'integer'],
          ['get_tx_history', 'status', 'string'],
        ] as const) {
          assert.deepEqual(
            shown(tool, param)?.type,
            [type, 'null'],
            `${tool}.${param}: ${JSON.stringify(shown(tool, param))}`,
          );
        }
      } finally {
        await client.close();
      }
    });

    test('the connect page shows exactly these snippets (else: npm run snippets)', {
      skip: target.name !== 'sqlite',
    }, async () => {
      // biome-ignore lint/suspicious/noExplicitAny: a plain script without types
      const script: any = await import(resolve(import.meta.dirname, '../../../scripts/connect-snippets.mjs'));
      const { FRAMEWORK_SNIPPETS } = await import('../../dashboard/src/views/connectSnippets.generated.ts');
      assert.deepEqual(
        FRAMEWORK_SNIPPETS,
        script.expectedSnippets(),
        'connectSnippets.generated.ts is stale',
      );
      assert.deepEqual(
        FRAMEWORK_SNIPPETS.map((s) => s.code),
        ['openai-agents', 'ai-sdk', 'langchain'].map((file) =>
          readFileSync(resolve(import.meta.dirname, `frameworks/snippets/${file}.ts`), 'utf8'),
        ),
      );
    });
  });
