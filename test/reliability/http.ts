import { Agent, request } from 'undici';

// A small HTTP client for the fault tests: real sockets to a `paylinks serve` process, a shopper who
// keeps the CSRF cookie, and results that record network errors instead of throwing.

export const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

export interface Result {
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  error: string | null;
}

export async function send(
  url: string,
  opts: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<Result> {
  try {
    const res = await request(url, {
      method: opts.method ?? 'GET',
      dispatcher: agent,
      headers: opts.headers ?? {},
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text(), error: null };
  } catch (err) {
    const code = (err as { code?: string }).code ?? (err as Error).name;
    return { status: null, headers: {}, body: '', error: code };
  }
}

export async function api(
  baseUrl: string,
  apiKey: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Result> {
  return send(`${baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

export class HttpShopper {
  cookie = '';
  csrf = '';

  /** Opens the page (cookie and token); false while the service cannot show it. */
  async open(baseUrl: string, path: string): Promise<boolean> {
    const r = await send(`${baseUrl}${path}`, { headers: this.cookie ? { cookie: this.cookie } : {} });
    const set = r.headers['set-cookie'];
    const first = Array.isArray(set) ? set[0] : set;
    if (first) this.cookie = first.split(';')[0] ?? '';
    const m = /name="_csrf" value="([^"]+)"/.exec(r.body);
    if (m?.[1]) this.csrf = m[1];
    return r.status === 200 && this.csrf !== '';
  }

  /** Pays with 4242; on success the answer is 303 to the receipt, whose query names the payfacReference. */
  async pay(baseUrl: string, path: string): Promise<Result & { payfacReference: string | null }> {
    const body = new URLSearchParams({ _csrf: this.csrf, cardNumber: '4242424242424242', expiryDate: '12/39', cvc: '123' }).toString();
    const r = await send(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookie }, body });
    const location = typeof r.headers.location === 'string' ? r.headers.location : '';
    const p = r.status === 303 ? new URL(location, baseUrl).searchParams.get('p') : null;
    return { ...r, payfacReference: p };
  }
}
