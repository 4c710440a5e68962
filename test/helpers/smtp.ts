import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';

// A real SMTP server for the mail tests (the smtp-server package) on port 0: it keeps every message it
// accepted, and refuses the next ones with a given code when told to.

export interface ReceivedMail {
  messageId: string;
  to: string[];
  raw: string;
}

export interface TestSmtp {
  port: number;
  /** smtp://user:password@127.0.0.1:port (the password is the test's own, to look for in logs). */
  url: string;
  password: string;
  accepted: ReceivedMail[];
  /** How many DATA commands it refused. */
  refused: number;
  /** Refuse the next `n` messages with `code` (451: try later; 554: refused). */
  refuseNext(n: number, code: number): void;
  /** Wait this long before answering each message (a slow server; the window a crash may fall in). */
  delayMs: number;
  close(): Promise<void>;
}

function read(stream: SMTPServerDataStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}

export async function startSmtp(): Promise<TestSmtp> {
  const password = `pw-${Math.random().toString(36).slice(2)}-secret`;
  let refuse = { n: 0, code: 451 };
  const t: Omit<TestSmtp, 'port' | 'url' | 'close'> = {
    password,
    accepted: [],
    refused: 0,
    delayMs: 0,
    refuseNext: (n, code) => {
      refuse = { n, code };
    },
  };
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, cb) {
      if (auth.username === 'paylinks' && auth.password === password) cb(null, { user: 'paylinks' });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      read(stream).then(
        async (raw) => {
          if (t.delayMs > 0) await new Promise((r) => setTimeout(r, t.delayMs));
          if (refuse.n > 0) {
            refuse.n--;
            t.refused++;
            const err = Object.assign(new Error(refuse.code >= 500 ? 'Message refused by policy' : 'Try again later'), { responseCode: refuse.code });
            cb(err);
            return;
          }
          const messageId = /^Message-ID:\s*(<[^>]+>)/im.exec(raw)?.[1] ?? '';
          t.accepted.push({ messageId, to: session.envelope.rcptTo.map((r) => r.address), raw });
          cb();
        },
        (err: Error) => cb(err),
      );
    },
  });
  // A client killed mid-conversation (the crash tests SIGKILL the sender) resets its connection; the
  // server reports that as an 'error' event, which with no listener would end the test process.
  server.on('error', (err: Error & { code?: string }) => {
    if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') throw err;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return Object.assign(t as TestSmtp, {
    port,
    url: `smtp://paylinks:${password}@127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A header of a raw message, unfolded and decoded from MIME encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=). */
export function headerOf(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`)) ?? '';
  const value = line.slice(name.length + 1).trim();
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_w, enc: string, text: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
