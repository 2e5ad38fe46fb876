/** The console's JSON API, same origin, with the session's CSRF token on every write. */

let csrfToken = '';
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T = any>(path: string, body?: unknown): Promise<T> {
  const write = body !== undefined;
  const response = await fetch(`/console/api${path}`, {
    method: write ? 'POST' : 'GET',
    credentials: 'same-origin',
    headers: write ? { 'content-type': 'application/json', 'x-redline-csrf': csrfToken } : {},
    body: write ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data?.error?.code ?? 'error', data?.error?.message ?? `The console answered ${response.status}.`);
  return data as T;
}
