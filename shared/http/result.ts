/** What an operation answers, before the stack turns it into an API Gateway proxy result. */
export interface HttpResult {
  /** Serialized with JSON.stringify, unless it is already JSON text. */
  readonly body: unknown;
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A body already written as JSON text, sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

export const ok = (body: unknown, headers?: Record<string, string>): HttpResult => ({ status: 200, body, headers });

export const created = (body: unknown, headers?: Record<string, string>): HttpResult => ({ status: 201, body, headers });

export const jsonBodyOf = (result: HttpResult): string => (result.body instanceof JsonText ? result.body.text : JSON.stringify(result.body));
