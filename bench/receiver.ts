import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

// The black-box delivery bench's receiver, a process of its own (as a merchant's receiver is): HTTPS
// on 127.0.0.1 with the bench's test certificate, answers every POST 200 "ok" once its body has
// arrived, and counts them with the time of the first and the last. GET /stats answers the count;
// POST /reset starts counting afresh. Prints "receiver listening on {port}" when ready.

const server = createServer({ key: readFileSync(process.env.RECEIVER_KEY ?? ''), cert: readFileSync(process.env.RECEIVER_CERT ?? '') }, (req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    return;
  }
  req.on('data', () => undefined);
  req.on('end', () => {
    if (req.url === '/reset') {
      stats = { count: 0, first: 0, last: 0 };
    } else {
      const now = performance.timeOrigin + performance.now();
      if (stats.count === 0) stats.first = now;
      stats.count++;
      stats.last = now;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
let stats = { count: 0, first: 0, last: 0 };
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`receiver listening on ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
