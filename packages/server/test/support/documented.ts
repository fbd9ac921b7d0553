// Every answer a test gets through call() is checked against the OpenAPI document the server publishes: the
// schema documented for that route and status (or its `4XX` family) must accept the body. So a route test cannot
// pass while the document says something else, and the document cannot lie again (issue 14).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

interface Documented {
  routes: Array<{ pattern: RegExp; operations: Record<string, Operation> }>;
  validators: Map<object, ValidateFunction>;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const documents = new WeakMap<FastifyInstance, Promise<Documented | null>>();

function load(app: FastifyInstance): Promise<Documented | null> {
  let loaded = documents.get(app);
  if (loaded === undefined) {
    loaded = app.inject({ method: 'GET', url: '/api/v1/openapi.json' }).then((answer) => {
      if (answer.statusCode !== 200) return null;
      const doc = JSON.parse(answer.body) as { paths: Record<string, Record<string, Operation>> };
      // A concrete path before a templated one, as OpenAPI matches (/sessions/end-others before /sessions/{id}):
      // sorted by where the parameters are, a static segment first from the left.
      const shape = (path: string) =>
        path
          .split('/')
          .map((segment) => (segment.startsWith('{') ? '1' : '0'))
          .join('');
      const routes = Object.entries(doc.paths)
        .sort(([a], [b]) => shape(a).localeCompare(shape(b)))
        .map(([path, operations]) => ({
          pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
          operations,
        }));
      return { routes, validators: new Map() };
    });
    documents.set(app, loaded);
  }
  return loaded;
}

/**
 * Throws when a JSON answer of a documented route does not match the schema documented for its status.
 * Answers of undocumented routes (the dashboard's files, /metrics) and non-JSON answers are not checked.
 */
export async function assertDocumented(
  app: FastifyInstance,
  request: { method: string; url: string },
  answer: { statusCode: number; headers: Record<string, unknown>; body: string },
): Promise<void> {
  const contentType = String(answer.headers['content-type'] ?? '');
  if (!contentType.startsWith('application/json') || answer.body === '') return;
  const documented = await load(app);
  if (documented === null) return;
  const path = request.url.split('?')[0]!;
  const route = documented.routes.find((r) => r.pattern.test(path));
  const operation = route?.operations[request.method.toLowerCase()];
  if (operation === undefined) return;
  const status = String(answer.statusCode);
  const response = operation.responses[status] ?? operation.responses[`${status[0]}XX`];
  const schema = response?.content?.['application/json']?.schema;
  if (schema === undefined) {
    throw new Error(
      `${request.method} ${path} answered ${status}, which its OpenAPI operation does not document`,
    );
  }
  let validate = documented.validators.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    documented.validators.set(schema, validate);
  }
  if (!validate(JSON.parse(answer.body))) {
    throw new Error(
      `${request.method} ${path} ${status} does not match its documented schema: ${ajv.errorsText(validate.errors)}\n${answer.body.slice(0, 2000)}`,
    );
  }
}
