/**
 * Headers every answer carries, whoever gives it: a function, the gateway, the WAF, the docs.
 * Bodies are JSON (or the reference page's own types): a browser must never guess otherwise.
 * (Every answer also carries its request's `X-Request-Id`, where the answering party knows it.)
 */
export const EVERY_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
};
