import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

// The delivery benches' receiver, a process of its own (as a merchant's receiver is): HTTPS on
// 127.0.0.1 with the bench's test certificate, answers every POST 200 "ok" once its body has arrived
// (after RECEIVER_DELAY_MS, default 0, as a slow receiver would), and counts them with the time of the
// first and the last. It also keeps, per path, how many requests were open at once at most: a
// webhook's cap is checked there, where it matters. It keeps the arrivals per path too, and the time
// of every hundredth arrival, so that a drain's steady rate can be told from its start and its end.
// GET /stats answers the counts; POST /reset starts counting afresh. Prints "receiver listening on {port}" when ready.

const DELAY_MS = Number(process.env.RECEIVER_DELAY_MS ?? 0);
let stats = { count: 0, first: 0, last: 0, maxOpenPerPath: 0, hundreds: [] as number[], perPath: {} as Record<string, number> };
const open = new Map<string, number>();

const server = createServer({ key: readFileSync(process.env.RECEIVER_KEY ?? ''), cert: readFileSync(process.env.RECEIVER_CERT ?? '') }, (req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    return;
  }
  const path = req.url ?? '/';
  const now = open.get(path) ?? 0;
  open.set(path, now + 1);
  if (now + 1 > stats.maxOpenPerPath) stats.maxOpenPerPath = now + 1;
  req.on('data', () => undefined);
  req.on('end', () => {
    const answer = (): void => {
      const left = (open.get(path) ?? 1) - 1;
      if (left === 0) open.delete(path);
      else open.set(path, left);
      if (path === '/reset') {
        stats = { count: 0, first: 0, last: 0, maxOpenPerPath: 0, hundreds: [], perPath: {} };
      } else {
        const at = performance.timeOrigin + performance.now();
        if (stats.count === 0) stats.first = at;
        stats.count++;
        stats.last = at;
        if (stats.count % 100 === 0) stats.hundreds.push(at);
        stats.perPath[path] = (stats.perPath[path] ?? 0) + 1;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    };
    if (DELAY_MS > 0 && path !== '/reset') setTimeout(answer, DELAY_MS);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.maxRequestsPerSocket = 0;
server.listen(0, '127.0.0.1', () => {
  console.log(`receiver listening on ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
