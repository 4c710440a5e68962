import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/metrics.js';

// A delivery worker's holdings are read when scraped, from the worker running now: a stopped worker
// holds nothing, and a worker started after it (the same process's metrics) is the one read.

async function series(metrics: Metrics): Promise<string[]> {
  const text = (await metrics.text()).body;
  return text.split('\n').filter((l) => /^paylinks_(worker_|webhook_deliveries_given_back_total)/.test(l));
}

describe('a delivery worker’s metrics', () => {
  it('has no series before a worker starts', async () => {
    expect(await series(new Metrics())).toEqual([]);
  });

  it('reads the running worker, shows nothing held once it stops, and follows the next one', async () => {
    const metrics = new Metrics();
    metrics.workerStarted(() => ({ queued: 7, sending: 5, webhooks: 2, slowWebhooks: 1 }));
    metrics.givenBack('slow_endpoint', 4);
    metrics.givenBack('slow_endpoint', 0);
    expect(await series(metrics)).toEqual([
      'paylinks_webhook_deliveries_given_back_total{reason="slow_endpoint"} 4',
      'paylinks_webhook_deliveries_given_back_total{reason="stopping"} 0',
      'paylinks_worker_deliveries_held{stage="queued"} 7',
      'paylinks_worker_deliveries_held{stage="sending"} 5',
      'paylinks_worker_webhooks{state="held"} 2',
      'paylinks_worker_webhooks{state="slow"} 1',
    ]);
    metrics.givenBack('stopping', 7);
    metrics.workerStopped();
    expect(await series(metrics)).toEqual([
      'paylinks_webhook_deliveries_given_back_total{reason="slow_endpoint"} 4',
      'paylinks_webhook_deliveries_given_back_total{reason="stopping"} 7',
      'paylinks_worker_deliveries_held{stage="queued"} 0',
      'paylinks_worker_deliveries_held{stage="sending"} 0',
      'paylinks_worker_webhooks{state="held"} 0',
      'paylinks_worker_webhooks{state="slow"} 0',
    ]);
    metrics.workerStarted(() => ({ queued: 1, sending: 3, webhooks: 1, slowWebhooks: 0 }));
    expect(await series(metrics)).toContain('paylinks_worker_deliveries_held{stage="sending"} 3');
  });
});
