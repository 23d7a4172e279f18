/** What an operation answers, before the stack turns it into an API Gateway proxy result. */
export interface HttpResult {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export const ok = (body: unknown, headers?: Record<string, string>): HttpResult => ({ status: 200, body, headers });

export const created = (body: unknown, headers?: Record<string, string>): HttpResult => ({ status: 201, body, headers });
