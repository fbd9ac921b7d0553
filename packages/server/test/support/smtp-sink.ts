// A real SMTP server on loopback (the smtp-server package) that wants a login, for tests of the mail the service
// sends: every mail is parsed with mailparser and kept, with its raw text (for checks that no secret is in one).
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpSink {
  port: number;
  received: ReceivedMail[];
  /** SMTP_URL for the service, with the login. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the sink; `port` 0 (the default) picks one, a known one restarts it there; `received` collects the mail
 * (a restarted sink keeps filling the same list) and `onMail` sees each one too.
 */
export async function startSmtpSink(
  login: { user: string; password: string },
  options: { port?: number; received?: ReceivedMail[]; onMail?: (mail: ReceivedMail) => void } = {},
): Promise<SmtpSink> {
  const received = options.received ?? [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === login.user && auth.password === login.password) done(null, { user: login.user });
      else done(new Error('invalid login'));
    },
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then((mail) => {
          const to = Array.isArray(mail.to) ? mail.to.map((a) => a.text).join(', ') : (mail.to?.text ?? '');
          const parsed = {
            to,
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
            raw,
          };
          received.push(parsed);
          options.onMail?.(parsed);
          done();
        }, done);
      });
    },
  });
  await new Promise<void>((done) => server.listen(options.port ?? 0, '127.0.0.1', done));
  const bound = (server.server.address() as AddressInfo).port;
  return {
    port: bound,
    received,
    url: `smtp://${login.user}:${login.password}@127.0.0.1:${bound}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
