// A webhook receiver on loopback for route tests: records each delivery's raw body and signature header and
// answers 204. Targets need WEBHOOK_ALLOW_PRIVATE=true (loopback, http://).
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  body: string;
  signature: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      received.push({ body, signature: String(req.headers['agent-wallet-signature'] ?? '') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** The header's v1 values, in order. */
export function v1Values(header: string): string[] {
  return header
    .split(',')
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice('v1='.length));
}

/** The v1 a secret gives for a delivery: hex HMAC-SHA256(secret, "<t>.<body>"). */
export function expectedV1(secret: string, delivery: ReceivedDelivery): string {
  const t = /^t=([0-9]+),/.exec(delivery.signature)?.[1] ?? '';
  return createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest('hex');
}
