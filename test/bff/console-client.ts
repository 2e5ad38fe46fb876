import { expect } from 'vitest';

/**
 * The console's JSON API as its page calls it: a session cookie from signing in, the CSRF
 * token on writes, the console's own Origin. Every answer's raw text is kept, so a test can
 * grep all of them for a secret.
 */
export class ConsoleClient {
  readonly answers: string[] = [];
  #cookie = '';
  #csrf = '';

  private constructor(readonly base: string) {}

  static async signIn(base: string, token: string): Promise<ConsoleClient> {
    const client = new ConsoleClient(base);
    const answer = await client.send('POST', '/sign-in', { token });
    expect(answer.status, answer.raw).toBe(200);
    client.#cookie = answer.headers.get('set-cookie')!.split(';')[0]!;
    client.#csrf = answer.body.csrfToken;
    return client;
  }

  async send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any; raw: string }> {
    const headers: Record<string, string> = {};
    if (this.#cookie) headers.cookie = this.#cookie;
    if (method === 'POST') Object.assign(headers, { origin: this.base, 'content-type': 'application/json', 'x-redline-csrf': this.#csrf });
    const response = await fetch(`${this.base}/console/api${path}`, { method, headers, body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined });
    const raw = await response.text();
    this.answers.push(raw);
    let parsed: any = raw;
    try {
      parsed = JSON.parse(raw);
    } catch {
      // text (CSV)
    }
    return { status: response.status, headers: response.headers, body: parsed, raw };
  }

  get = (path: string) => this.send('GET', path);
  post = (path: string, body?: unknown) => this.send('POST', path, body);

  /** Pastes, tests, marks saved and activates a key; returns its id and the test's answer. */
  async rotateTo(label: string, key: string): Promise<{ id: string; test: any }> {
    const added = await this.post('/upstream-keys', { label, key });
    expect(added.status, added.raw).toBe(201);
    const id = added.body.key.id as string;
    const test = await this.post(`/upstream-keys/${id}/test`);
    expect(test.status, test.raw).toBe(200);
    expect(test.body.test.ok, test.raw).toBe(true);
    expect((await this.post(`/upstream-keys/${id}/saved`)).status).toBe(200);
    const activated = await this.post(`/upstream-keys/${id}/activate`);
    expect(activated.status, activated.raw).toBe(200);
    expect(activated.body.inUse).toBe(true);
    return { id, test: test.body };
  }
}
