// JSON-RPC ids as MCP allows them: "Requests MUST include a string or integer ID", never null, and a response
// carries its request's (MCP base protocol). The SDK refuses any other id with -32600 but echoes a number it could
// not accept (2.6e-42, 1.5, 1e300, or 9007199254740993 read back as …992): an answer with an id the protocol
// forbids, that a client matches to nothing or to another request. Such a body is refused here, before the SDK,
// with id null — what JSON-RPC 2.0 answers an Invalid Request whose id cannot be read.

/** Integers a JSON number holds exactly (JSON.parse keeps no more): the document's bounds for an id. */
const isMcpId = (id: unknown) => typeof id === 'string' || Number.isSafeInteger(id);

/** Where the body (a message or a batch of them) has a message whose `id` MCP does not allow, that id; else undefined. */
export function invalidRequestId(body: unknown): { id: unknown } | undefined {
  // A batch is bounded by the body limit (64 KiB), so walking it is too.
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || !Object.hasOwn(message, 'id')) continue;
    const id = (message as { id: unknown }).id;
    if (!isMcpId(id)) return { id };
  }
  return undefined;
}

/** The transport's refusal (400, JSON-RPC -32600 Invalid Request, id null), naming what was wrong. */
export function invalidIdResponse({ id }: { id: unknown }): Response {
  const what =
    id === null
      ? 'null'
      : Array.isArray(id)
        ? 'an array'
        : typeof id === 'object'
          ? 'an object'
          : typeof id === 'number'
            ? String(id)
            : `a ${typeof id}`;
  const body = {
    jsonrpc: '2.0',
    error: {
      code: -32600,
      message:
        `Invalid Request: a JSON-RPC id must be a string or an integer of at most 2^53 - 1 in size (MCP); ` +
        `got ${what}`,
    },
    id: null,
  };
  return new Response(JSON.stringify(body), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });
}
