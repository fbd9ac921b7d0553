// Issue 10, defect 3: slow request bodies were never timed out (requestTimeout 0): 200 sockets sending a byte
// every 20 s stayed open for 330 s, and 1,100 of them exhausted file descriptors so health failed for everyone.
// Every phase of a connection now has an explicit bound, and connections past the cap are refused at once.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const MAX_CONNECTIONS = 10;
/** Node looks for overdue requests once a second; allow that and a busy machine. */
const SLACK_MS = 3_000;

function open(port: number): Promise<{ socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const startedMs = Date.now();
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined); // a reset is one way of being closed
    const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now() - startedMs)));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Writes one byte every `everyMs` until the socket closes (a slowloris client). */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    socket.write(text[i % text.length] ?? 'x');
    i += 1;
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

describe('slow and idle clients cannot hold connections', () => {
  let service: ServiceProcess;
  let port: number;
  before(async () => {
    service = await startServiceProcess({
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      HTTP_IDLE_TIMEOUT_MS: '5000',
    });
    port = Number(new URL(service.url).port);
  });
  after(() => service.stop());

  test('headers sent a byte at a time are cut off at the headers timeout', async () => {
    const { socket, closed } = await open(port);
    socket.write('GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    trickle(socket, 'X-Slow: y\r\n', 100);
    const elapsedMs = await closed;
    assert.ok(elapsedMs < HEADERS_TIMEOUT_MS + SLACK_MS, `closed after ${elapsedMs} ms`);
  });

  test('a body sent a byte at a time is cut off at the request timeout', async () => {
    const { socket, closed } = await open(port);
    socket.write(
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n',
    );
    trickle(socket, ' ', 100);
    const elapsedMs = await closed;
    assert.ok(elapsedMs < REQUEST_TIMEOUT_MS + SLACK_MS, `closed after ${elapsedMs} ms`);
  });

  test('connections past the cap are refused at once; health answers again once the slow ones are cut', async () => {
    const sockets = await Promise.all(Array.from({ length: MAX_CONNECTIONS * 3 }, () => open(port)));
    for (const { socket } of sockets) trickle(socket, 'G', 200);
    const refusedQuickly = await Promise.all(
      sockets.map(({ closed }) => Promise.race([closed.then(() => true), delay(500).then(() => false)])),
    );
    const refused = refusedQuickly.filter(Boolean).length;
    assert.ok(refused >= MAX_CONNECTIONS * 2 - 1, `${refused} of ${sockets.length} refused at once`);
    await Promise.all(sockets.map(({ closed }) => closed));
    const health = await fetch(`${service.url}/api/v1/health`);
    assert.equal(health.status, 200);
    assert.equal(service.child.exitCode, null);
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
