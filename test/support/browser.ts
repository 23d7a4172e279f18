import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * The browser the reference page test drives, found the way people have one: `CHROMIUM_PATH` if set
 * (it must exist), else a system Chromium (SYSTEM_CHROMIUMS), else an installed Google Chrome
 * through Playwright's `chrome` channel. Without any, one line says what to install, not a stack trace.
 */

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';
/** Where Linux distributions put Chromium: Debian's package, older Ubuntu's, Ubuntu's snap. */
export const SYSTEM_CHROMIUMS = [DEBIAN_CHROMIUM, '/usr/bin/chromium-browser', '/snap/bin/chromium'] as const;

export const NO_BROWSER =
  'The reference page test needs Chromium or Chrome: install one (Debian: sudo apt-get install chromium; Ubuntu: sudo snap install chromium) or set CHROMIUM_PATH to a Chromium binary.';

/** The arguments the test has always launched with: this machine's closed network needs them. */
export const BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** A binary to run, or Playwright's channel for an installed Google Chrome. */
export type BrowserChoice = { readonly executablePath: string } | { readonly channel: 'chrome' };

export interface BrowserFinding<T> {
  /** `process.env.CHROMIUM_PATH`; empty counts as unset. */
  readonly chromiumPath: string | undefined;
  readonly exists: (path: string) => boolean;
  readonly launch: (choice: BrowserChoice) => Promise<T>;
}

/** An error vitest prints as its message alone: a stack of that one line, no frames, no cause. */
export function oneLineError(message: string): Error {
  const error = new Error(message);
  error.stack = message;
  return error;
}

/** Playwright's answer when its `chrome` channel finds no Google Chrome where Chrome installs itself. */
export function chromeIsMissing(error: unknown): boolean {
  return error instanceof Error && /Chromium distribution 'chrome' is not (found|supported)/.test(error.message);
}

/** Launches the first browser found, in the order above; a browser found but failing to start fails as Playwright says. */
export async function findBrowser<T>({ chromiumPath, exists, launch }: BrowserFinding<T>): Promise<T> {
  if (chromiumPath !== undefined && chromiumPath !== '') {
    if (!exists(chromiumPath)) {
      throw oneLineError(
        `CHROMIUM_PATH is ${chromiumPath}, which does not exist: set it to a Chromium or Chrome binary, or unset it to use a system Chromium or Google Chrome.`,
      );
    }
    return launch({ executablePath: chromiumPath });
  }
  const system = SYSTEM_CHROMIUMS.find((path) => exists(path));
  if (system !== undefined) return launch({ executablePath: system });
  try {
    return await launch({ channel: 'chrome' });
  } catch (error) {
    if (chromeIsMissing(error)) throw oneLineError(NO_BROWSER);
    throw error;
  }
}

export interface ReferenceBrowser {
  readonly context: BrowserContext;
  /** Closes the browser and deletes its profile. */
  close(): Promise<void>;
}

/** The browser found, headless, on a fresh, empty profile of its own. */
export async function launchReferenceBrowser(): Promise<ReferenceBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'petstore-chromium-'));
  const removeProfile = () => rmSync(profile, { recursive: true, force: true });
  try {
    const context = await findBrowser({
      chromiumPath: process.env.CHROMIUM_PATH,
      exists: existsSync,
      launch: (choice) =>
        chromium.launchPersistentContext(profile, { ...choice, headless: true, args: [...BROWSER_ARGS] }),
    });
    return {
      context,
      async close() {
        await context.close();
        removeProfile();
      },
    };
  } catch (error) {
    removeProfile();
    throw error;
  }
}
