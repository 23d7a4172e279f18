import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  chooseLogFormat,
  clockTime,
  formatOtherLine,
  formatRequestLine,
  prettyLog,
  useColour,
} from '../../local/request-log';
import {
  loadFunctionHandlers,
  startLocalServer,
  type AnsweredRequest,
  type OperationHandlers,
} from '../../local/server';
import { setLogSink, writeLog } from '../../shared/log';
import { GET_PET_DEPRECATION } from '../../shared/http/deprecation';
import { httpOperation } from '../../shared/http/stack';
import { OPERATIONS } from '../../functions/table';
import { send } from '../support/api';

/**
 * npm start's readable log (local/request-log.ts): which format, the short line per request, the
 * sink that replaces the handlers' JSON request lines, and the local server's report of every
 * answered request, the gateway's own answers included. npm start itself in each format:
 * test/http/local-logs.test.ts.
 */
const RED = '\u001b[31m';
const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';
const CYAN = '\u001b[36m';
const RESET = '\u001b[0m';
const ID = '0b6f2a4e-9c1d-4e57-8a3b-2f6d5c4b3a21';
// Local time, as the line shows it: 14:03:07.042 in any time zone.
const AT = new Date(2026, 10, 23, 14, 3, 7, 42).getTime();

function answered(overrides: Partial<AnsweredRequest> = {}): AnsweredRequest {
  return {
    time: AT,
    status: 201,
    method: 'POST',
    path: '/v1/pets',
    durationMs: 12.34,
    operation: 'createPet',
    plan: 'pro',
    requestId: ID,
    ...overrides,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('which format', () => {
  it('pretty in a terminal, JSON otherwise; LOG_FORMAT (any case) wins either way', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(chooseLogFormat(undefined, true)).toBe('pretty');
    expect(chooseLogFormat(undefined, false)).toBe('json');
    expect(chooseLogFormat('', true)).toBe('pretty');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('JSON', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
    expect(chooseLogFormat('Pretty', false)).toBe('pretty');
    expect(stderr).not.toHaveBeenCalled();
  });

  it('an unknown LOG_FORMAT says so once on stderr and falls back to the default', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(chooseLogFormat('colour', true)).toBe('pretty');
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(stderr).toHaveBeenCalledWith('LOG_FORMAT "colour" is not one of pretty, json; logging as pretty.\n');
    expect(chooseLogFormat('yaml', false)).toBe('json');
    expect(stderr).toHaveBeenLastCalledWith('LOG_FORMAT "yaml" is not one of pretty, json; logging as json.\n');
  });

  it('colours only in a terminal, and not when NO_COLOR is set (an empty NO_COLOR does not count)', () => {
    expect(useColour(undefined, true)).toBe(true);
    expect(useColour('', true)).toBe(true);
    expect(useColour('1', true)).toBe(false);
    expect(useColour(undefined, false)).toBe(false);
  });
});

describe('the short line', () => {
  it('time, status, method, path, duration, operation, plan and request id', () => {
    expect(clockTime(AT)).toBe('14:03:07.042');
    expect(formatRequestLine(answered(), false)).toBe(
      `14:03:07.042 201 POST   /v1/pets               12.3ms createPet pro        ${ID}`,
    );
    expect(
      formatRequestLine(
        answered({
          status: 404,
          method: 'GET',
          path: '/v1/nope',
          durationMs: 1.04,
          operation: undefined,
          plan: undefined,
        }),
        false,
      ),
    ).toBe(`14:03:07.042 404 GET    /v1/nope                1.0ms -         -          ${ID}`);
  });

  it('its status coloured by class: 2xx green, 3xx cyan, 4xx yellow, 5xx red; nothing else coloured', () => {
    for (const [status, colour] of [
      [200, GREEN],
      [201, GREEN],
      [304, CYAN],
      [401, YELLOW],
      [429, YELLOW],
      [500, RED],
      [503, RED],
    ] as const) {
      const line = formatRequestLine(answered({ status }), true);
      expect(line).toBe(
        formatRequestLine(answered({ status }), false).replace(` ${status} `, ` ${colour}${status}${RESET} `),
      );
    }
    expect(formatRequestLine(answered(), false)).not.toContain('\u001b');
  });

  it('is what the README and the Logs section show', () => {
    const shown = ['README.md', 'docs/deploying-and-operating.md'].flatMap((page) =>
      readFileSync(resolve(__dirname, '../..', page), 'utf8')
        .split('\n')
        .filter((line) => /^\d\d:\d\d:\d\d\.\d{3} \d{3} /.test(line)),
    );
    expect(shown.length).toBeGreaterThanOrEqual(3);
    for (const line of shown) {
      const [time = '', status, method, path, duration, operation, plan, requestId = ''] = line.split(/ +/);
      const [hours, minutes, seconds] = time.split(':').map(Number);
      const request = answered({
        time: new Date(2026, 10, 23, hours, minutes, Math.floor(seconds!), Math.round((seconds! % 1) * 1000)).getTime(),
        status: Number(status),
        method,
        path,
        durationMs: Number(duration?.replace('ms', '')),
        operation: operation === '-' ? undefined : operation,
        plan: plan === '-' ? undefined : plan,
        requestId,
      });
      expect(formatRequestLine(request, false)).toBe(line);
    }
  });

  it('a control character in the path is shown escaped, never sent to the terminal', () => {
    expect(formatRequestLine(answered({ path: '/v1/\u001b[2Jx' }), false)).toContain(' /v1/\\x1b[2Jx ');
  });
});

describe('the pretty sink', () => {
  function collect(level: 'debug' | 'info' | 'warn' | 'error' | 'silent' = 'info') {
    let out = '';
    const log = prettyLog({ write: (text) => (out += text), colour: false, level });
    const previous = setLogSink(log.sink);
    return { log, out: () => out, restore: () => setLogSink(previous) };
  }
  const requestEntry = {
    level: 'info',
    msg: 'request',
    requestId: ID,
    operation: 'createPet',
    route: 'POST /v1/pets',
    status: 201,
    durationMs: 12.34,
    keyId: 'b8f8e5e2f9798cc4',
    plan: 'pro',
  } as const;

  it("drops the handlers' request lines and the metrics-only lines: the server's short line replaces them", () => {
    const { log, out, restore } = collect();
    try {
      writeLog({ ...requestEntry }, '"Requests":1,"_aws":{}', ['operation', 'plan']);
      writeLog({ level: 'info', msg: 'request', requestId: 'authorizer-401', status: 401, code: 'unauthorized' });
      expect(out()).toBe('');
      log.onAnswered(answered());
      expect(out()).toBe(`${formatRequestLine(answered(), false)}\n`);
    } finally {
      restore();
    }
  });

  it('a 5xx keeps its error under its short line (message, stack, cause), whichever wrote it', () => {
    const { log, out, restore } = collect();
    try {
      const failure = new TypeError('no table pets-x', { cause: new Error('connection refused') });
      writeLog(
        {
          level: 'error',
          msg: 'request',
          requestId: ID,
          operation: 'getPet',
          status: 500,
          error: {
            name: failure.name,
            message: failure.message,
            stack: failure.stack,
            cause: { name: 'Error', message: 'connection refused' },
          },
        },
        '"Requests":1',
      );
      expect(out()).toBe('');
      log.onAnswered(answered({ status: 500 }));
      const lines = out().split('\n');
      expect(lines[0]).toBe(formatRequestLine(answered({ status: 500 }), false));
      expect(lines[1]).toBe('  TypeError: no table pets-x');
      expect(lines[2]).toMatch(/^ {2}\s+at /);
      expect(lines.at(-2)).toBe('  cause: Error: connection refused');
      expect(lines.at(-1)).toBe('');
      // Its error is shown once: the next answer of another request has none.
      log.onAnswered(answered({ requestId: 'other' }));
      expect(
        out()
          .split('\n')
          .filter((line) => line.includes('no table')),
      ).toHaveLength(1);
    } finally {
      restore();
    }
  });

  it('other lines (warnings, errors) are shown readably: time, level, message, fields, the error indented', () => {
    const { out, restore } = collect();
    try {
      writeLog({
        level: 'warn',
        msg: 'cursor keys not read again; the known ones stay in use',
        error: { name: 'Error', message: 'throttled' },
      });
      expect(out()).toMatch(
        /^\d\d:\d\d:\d\d\.\d{3} WARN {2}cursor keys not read again; the known ones stay in use\n {2}Error: throttled\n$/,
      );
    } finally {
      restore();
    }
    expect(
      formatOtherLine(
        { time: new Date(AT).toISOString(), level: 'error', msg: 'key mirror', copied: 3, plan: 'pro' },
        true,
      ),
    ).toBe(`14:03:07.042 ${RED}ERROR${RESET} key mirror copied=3 plan=pro\n`);
  });

  it('LOG_LEVEL drops short lines as it drops the JSON ones: warn keeps only 5xx, silent writes nothing', () => {
    const warn = collect('warn');
    try {
      warn.log.onAnswered(answered());
      warn.log.onAnswered(answered({ status: 503 }));
      expect(warn.out()).toBe(`${formatRequestLine(answered({ status: 503 }), false)}\n`);
    } finally {
      warn.restore();
    }
    const silent = collect('silent');
    try {
      writeLog({ level: 'error', msg: 'cursor keys not read', error: { name: 'Error', message: 'x' } });
      silent.log.onAnswered(answered({ status: 500 }));
      expect(silent.out()).toBe('');
    } finally {
      silent.restore();
    }
  });
});

describe('the local server reports every answered request once', () => {
  it("the real path, the request id it answered with, the operation that ran (none for the gateway's own answers) and the plan", async () => {
    const handlers = await loadFunctionHandlers();
    const broken = httpOperation({
      operationId: 'getPet',
      ...OPERATIONS.getPet.request,
      deprecation: GET_PET_DEPRECATION,
      handle: async () => {
        throw new TypeError('the pet store broke');
      },
    });
    const reported: AnsweredRequest[] = [];
    let out = '';
    const log = prettyLog({ write: (text) => (out += text), colour: false, level: 'info' });
    const previousSink = setLogSink(log.sink);
    const server = await startLocalServer({
      port: 0,
      handlers: { ...handlers, getPet: broken } satisfies OperationHandlers,
      onAnswered: (request) => {
        reported.push(request);
        log.onAnswered(request);
      },
    });
    try {
      const listed = await send(server.baseUrl, 'GET', '/pets?limit=1', { key: 'local-pro-key' });
      const failed = await send(server.baseUrl, 'GET', '/pets/41', { key: 'local-business-key' });
      const noKey = await send(server.baseUrl, 'GET', '/pets', { key: null });
      const unknown = await send(server.baseUrl, 'GET', '/nope');
      const document = await fetch(`${server.baseUrl}/openapi.json`);
      await document.arrayBuffer();
      // The report comes when the answer is done ('close'), which may be just after the client has it.
      for (let waited = 0; reported.length < 5 && waited < 5_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));

      expect(listed.status).toBe(200);
      expect(failed.status).toBe(500);
      expect(
        reported.map(({ status, method, path, operation, plan }) => ({ status, method, path, operation, plan })),
      ).toEqual([
        { status: 200, method: 'GET', path: '/v1/pets', operation: 'listPets', plan: 'pro' },
        { status: 500, method: 'GET', path: '/v1/pets/41', operation: 'getPet', plan: 'business' },
        { status: 401, method: 'GET', path: '/v1/pets', operation: undefined, plan: undefined },
        { status: 404, method: 'GET', path: '/v1/nope', operation: undefined, plan: undefined },
        { status: 200, method: 'GET', path: '/v1/openapi.json', operation: 'apiDocs', plan: undefined },
      ]);
      expect(reported.map((request) => request.requestId)).toEqual(
        [listed, failed, noKey, unknown, document].map((response) => response.headers.get('x-request-id')),
      );
      expect(new Set(reported.map((request) => request.requestId)).size).toBe(5);
      for (const request of reported) {
        expect(request.durationMs).toBeGreaterThan(0);
        expect(Math.abs(request.time - Date.now())).toBeLessThan(10_000);
      }
      // Printed: one short line each, and the 500's error under its own.
      const lines = out.split('\n').filter((line) => line !== '');
      expect(lines.filter((line) => !line.startsWith('  '))).toEqual(
        reported.map((request) => formatRequestLine(request, false)),
      );
      expect(lines[2]).toBe('  TypeError: the pet store broke');
      expect(lines[1]).toBe(formatRequestLine(reported[1]!, false));
    } finally {
      setLogSink(previousSink);
      await server.close();
    }
  });
});
