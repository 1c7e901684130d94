import { mesh } from './mesh';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ApiOptions {
  method?: string;
  body?: unknown;
  /** Raw body string sent as is (for malformed JSON tests). */
  rawBody?: string;
  contentType?: string;
  /** API key; null sends no Authorization header. Defaults to the dev key. */
  key?: string | null;
  authorization?: string;
  headers?: Record<string, string>;
  /** Abort the call after this long (default 60 s). */
  timeoutMs?: number;
}

/** One HTTP call to the embedded gateway. */
export async function api<T = any>(
  path: string,
  options: ApiOptions = {},
): Promise<ApiResponse<T>> {
  const m = await mesh();
  return callApi<T>(m.gatewayUrl, m.apiKey, path, options);
}

/** One HTTP call to a gateway at baseUrl, authenticated with defaultKey unless options say otherwise. */
export async function callApi<T = any>(
  baseUrl: string,
  defaultKey: string,
  path: string,
  options: ApiOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? defaultKey : options.key;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (key !== null) headers.authorization = `X-API-Key ${key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  // Bounded, so a test never waits forever on one answer (the gateway's own deadlines are 30 s).
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A new organization made through the admin API of a mesh, with its time zone; answers its API key. */
export async function organizationKey(
  mesh: { gatewayUrl: string; adminToken: string },
  id: string,
  timeZone: string,
): Promise<string> {
  const admin = { authorization: `Bearer ${mesh.adminToken}`, key: null };
  const created = await callApi(mesh.gatewayUrl, '', '/api/v2/admin/organizations', {
    ...admin,
    body: { id, name: id, monthlyTokenQuota: 10_000_000, timeZone },
  });
  if (created.status !== 201) throw new Error(`organization ${id}: ${created.text}`);
  const issued = await callApi(mesh.gatewayUrl, '', `/api/v2/admin/organizations/${id}/keys`, {
    ...admin,
    body: { name: 'e2e' },
  });
  if (issued.status !== 201) throw new Error(`key of ${id}: ${issued.text}`);
  return issued.body.key as string;
}
