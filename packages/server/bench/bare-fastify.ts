// The baseline of the payment benchmark: a bare Fastify route that parses JSON and answers an envelope.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/bare', async () => ({ success: true, data: { ok: true } }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
