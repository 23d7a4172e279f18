import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * `npm start` and `npm run keys` as a user runs them (the package scripts' own commands: node
 * --import tsx local/start.ts, node --import tsx local/keys-cli.ts), in a user's environment: without the
 * settings each test file is given (its DynamoDB Local, its table, its cursor secret), which would
 * otherwise point `npm start` at the test run's database.
 */
export const root = resolve(__dirname, '../..');
/** Node's arguments before a script of local/ that the package scripts run: tsx's loader in node itself (no tsx process between). */
export const TSX_LOADER = ['--import', 'tsx'];
/** Node's arguments for npm start's script (package.json): start.ts in node itself, with tsx's loader. */
export const START_ARGS = ['--import', 'tsx', 'local/start.ts'];

/**
 * What a test that starts processes (node with tsx's loader, DynamoDB Local's java) may take: some
 * seconds on an idle two-core machine, several times that beside other work (a load of 7 to 13
 * made 30 s too little). Each wait inside it has its own deadline from its own start (waitFor);
 * this is the net for a hang, never a check of speed. Files that start processes set it:
 * `vi.setConfig({ testTimeout: PROCESS_TEST_TIMEOUT_MS })`.
 */
export const PROCESS_TEST_TIMEOUT_MS = 180_000;

export function shellEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // The test run's own settings too: npm start refuses a settle time below its bound (LISTING_SETTLE_MS=0 is the tests' alone).
  for (const name of [
    'DYNAMODB_ENDPOINT',
    'TABLE_NAME',
    'DYNAMODB_LOCAL_ACCESS_KEY_ID',
    'CURSOR_SECRET',
    'PARTITION_MODEL_FACTOR',
    'LISTING_SETTLE_MS',
    'FIRST_PAGE_CACHE',
    'FOUND_PET_CACHE',
  ])
    delete env[name];
  return env;
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** Started in a process group of its own (startThroughNpm), led by `child`. */
  group?: boolean;
}

/** Every npm start begun here, for stopAllStarted. */
const children: Started[] = [];

/** npm start with `env` on top of the shell's; its stdout and stderr together in output(). */
export function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, START_ARGS, {
    cwd: root,
    env: { ...shellEnvironment(), LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watch(child, false);
}

/**
 * `npm start` itself, as a terminal runs it in the foreground: npm, its shell, the node process of
 * local/start.ts and DynamoDB Local's java, in a process group of their own (led by npm), so that
 * `process.kill(-child.pid, 'SIGINT')` is what Ctrl-C sends.
 */
export function startThroughNpm(env: Record<string, string>): Started {
  const child = spawn('npm', ['start'], {
    cwd: root,
    env: { ...shellEnvironment(), LOG_LEVEL: 'silent', npm_config_update_notifier: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return watch(child, true);
}

function watch(child: ChildProcess, group: boolean): Started {
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const started = { child, output: () => output, exited, group };
  children.push(started);
  return started;
}

/** For afterAll: stops an npm start a timed-out test left running (SIGTERM lets it stop its DynamoDB Local). */
export async function stopAllStarted(): Promise<void> {
  for (const started of children) {
    const pid = started.child.pid as number;
    if (started.group === true) {
      // npm passes no signal on: the whole group, as a terminal would.
      if (processesInGroup(pid) === '') continue;
      signalGroup(pid, 'SIGTERM');
      const deadline = Date.now() + 15_000;
      while (processesInGroup(pid) !== '' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      signalGroup(pid, 'SIGKILL');
      continue;
    }
    if (started.child.exitCode !== null || started.child.signalCode !== null) continue;
    started.child.kill('SIGTERM');
    const stopped = await Promise.race([
      started.exited.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000)),
    ]);
    if (!stopped) started.child.kill('SIGKILL');
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
  }
}

/** The processes of the process group `pgid` that are still there (pid and command line, one a line). */
export function processesInGroup(pgid: number): string {
  try {
    return execFileSync('pgrep', ['-a', '-g', String(pgid)], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

export async function waitFor(started: Started, text: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!started.output().includes(text)) {
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" within ${timeoutMs} ms:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** npm run keys with `env` on top of the shell's. */
export function runKeys(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [...TSX_LOADER, 'local/keys-cli.ts', ...args], {
    cwd: root,
    env: { ...shellEnvironment(), ...env },
    encoding: 'utf8',
  });
}

/** Processes whose command line names the folder (DynamoDB Local is started with -dbPath inside it). */
export function processesUsing(dir: string): string {
  try {
    return execFileSync('pgrep', ['-af', dir], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}
