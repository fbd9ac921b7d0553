// Load generators for the benchmark: autocannon for single-route scenarios (rotating API keys and bodies), and
// a worker loop for the mixed workload, whose requests differ in route and credential.
import autocannon from 'autocannon';

export interface Measured {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors5xx: number;
  non2xx: number;
  requests: number;
  /** The service's resident memory after the scenario, when measured. */
  rssBytes?: number;
}

export interface Shot {
  path: string;
  /** Bearer credential; undefined sends none (login). */
  token: string | undefined;
  body: unknown;
}

function headersOf(shot: Shot): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...(shot.token === undefined ? {} : { authorization: `Bearer ${shot.token}` }),
  };
}

/** autocannon at `connections`, each request the next of `shots` in turn. */
export async function hammer(
  base: string,
  shots: readonly Shot[],
  options: { seconds: number; connections: number },
): Promise<Measured> {
  let next = 0;
  const result = await autocannon({
    url: base,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const shot = shots[next++ % shots.length]!;
          return {
            ...request,
            path: shot.path,
            headers: headersOf(shot),
            body: JSON.stringify(shot.body),
          };
        },
      },
    ],
  });
  const errors5xx = result['5xx'] ?? 0;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors5xx,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}

/** `workers` loops, each sending the next of its own requests until the time is up. */
export async function workerLoad(
  base: string,
  pick: (worker: number, n: number) => Shot,
  options: { seconds: number; workers: number },
): Promise<Measured> {
  const endMs = Date.now() + options.seconds * 1000;
  const latenciesMs: number[] = [];
  let errors5xx = 0;
  let non2xx = 0;
  const loop = async (worker: number) => {
    for (let n = 0; Date.now() < endMs; n += 1) {
      const shot = pick(worker, n);
      const startedMs = performance.now();
      const response = await fetch(`${base}${shot.path}`, {
        method: 'POST',
        headers: headersOf(shot),
        body: JSON.stringify(shot.body),
      });
      await response.arrayBuffer();
      latenciesMs.push(performance.now() - startedMs);
      if (response.status >= 500) errors5xx += 1;
      if (response.status >= 300) non2xx += 1;
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, worker) => loop(worker)));
  latenciesMs.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latenciesMs[Math.floor(q * (latenciesMs.length - 1))] ?? 0);
  return {
    requestsPerSecond: latenciesMs.length / options.seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors5xx,
    non2xx,
    requests: latenciesMs.length,
  };
}
