/**
 * What the function bundles get for `import { ReadableStream } from 'node:stream/web'`
 * (infra/bundling.ts). Only @middy/core imports it, and only asks `x instanceof ReadableStream`,
 * for a streamed response (we stream none). Importing Node's module loads its web streams at
 * every cold start, about 1 ms; this answers the same question, loading them only when asked.
 * test/infra/function-bundles.test.ts holds both facts.
 */
// biome-ignore lint/complexity/noStaticOnlyClass: a class, so that `instanceof ReadableStream` works as @middy/core asks it
export class ReadableStream {
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }
}
