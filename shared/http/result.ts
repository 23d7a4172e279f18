/** What an operation answers, before the stack turns it into an API Gateway proxy result. */
export interface HttpResult {
  /** Serialized with JSON.stringify, unless it is already JSON text, or NO_BODY (sent with no body and no Content-Type). */
  readonly body: unknown;
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A body already written as JSON text, sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The body of an answer that has none (204): the stack sends it with an empty body and no
 * Content-Type. A marker rather than `undefined`, so that a body left undefined by mistake is not
 * taken for a bodiless answer; the stack tells it apart by one comparison.
 */
export const NO_BODY: unique symbol = Symbol('no body');

export const ok = (body: unknown, headers?: Record<string, string>): HttpResult => ({ status: 200, body, headers });

export const created = (body: unknown, headers?: Record<string, string>): HttpResult => ({
  status: 201,
  body,
  headers,
});

/** 204: done, nothing to say (e.g. a delete). Its headers as any answer's; no body, no Content-Type. */
export const noContent = (headers?: Record<string, string>): HttpResult => ({ status: 204, body: NO_BODY, headers });

export const jsonBodyOf = (result: HttpResult): string =>
  result.body instanceof JsonText ? result.body.text : JSON.stringify(result.body);
