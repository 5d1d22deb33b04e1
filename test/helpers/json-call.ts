// One request to a daemon's JSON API, as the route tests make it: the body (when given) as JSON,
// the answer parsed (undefined when empty, as a 204's is).

export interface JsonAnswer {
  status: number;
  body: any;
}

export async function jsonCall(baseUrl: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
