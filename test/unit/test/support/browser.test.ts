import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  chromeIsMissing,
  DEBIAN_CHROMIUM,
  findBrowser,
  NO_BROWSER,
  SYSTEM_CHROMIUMS,
  type BrowserChoice,
} from '../../../support/browser';

/** Playwright's own words when its `chrome` channel finds no Google Chrome (playwright-core 1.65). */
const CHROME_NOT_FOUND =
  'browserType.launchPersistentContext: Chromium distribution \'chrome\' is not found at /opt/google/chrome/chrome\nRun "npx playwright install chrome"';

/** A machine with these files, on which only these choices start (the launch answers what it was asked to start). */
function machine(files: string[], starts: (choice: BrowserChoice) => boolean) {
  const launched: BrowserChoice[] = [];
  return {
    launched,
    exists: (path: string) => files.includes(path),
    launch: async (choice: BrowserChoice) => {
      launched.push(choice);
      if (!starts(choice))
        throw new Error('channel' in choice ? CHROME_NOT_FOUND : `Failed to launch ${choice.executablePath}`);
      return choice;
    },
  };
}

const chromeChannel = (choice: BrowserChoice) => 'channel' in choice;

describe("finding the reference page test's browser", () => {
  it('with nothing installed, fails with one line naming what to install, and no stack', async () => {
    const nothing = machine([], () => false);
    const error: Error = await findBrowser({ chromiumPath: undefined, ...nothing }).then(
      () => expect.unreachable(),
      (thrown: Error) => thrown,
    );
    expect(error.message).toBe(NO_BROWSER);
    expect(error.message).toContain('sudo apt-get install chromium');
    expect(error.message).toContain('sudo snap install chromium');
    expect(error.message).toContain('CHROMIUM_PATH');
    expect(error.message).not.toContain('\n');
    expect(error.stack).toBe(NO_BROWSER); // what vitest prints: the line alone, no frames
    expect(error.cause).toBeUndefined();
    expect(nothing.launched).toEqual([{ channel: 'chrome' }]); // the system Chromiums were looked for, not launched
  });

  it('with CHROMIUM_PATH set to a missing file, fails naming CHROMIUM_PATH and that file, and tries nothing else', async () => {
    const debian = machine([DEBIAN_CHROMIUM], () => true);
    const error: Error = await findBrowser({ chromiumPath: '/opt/nowhere/chromium', ...debian }).then(
      () => expect.unreachable(),
      (thrown: Error) => thrown,
    );
    expect(error.message).toMatch(/^CHROMIUM_PATH is \/opt\/nowhere\/chromium, which does not exist/);
    expect(error.message).not.toContain('\n');
    expect(error.stack).toBe(error.message);
    expect(debian.launched).toEqual([]);
  });

  it("uses CHROMIUM_PATH first when it exists, even with Debian's chromium installed", async () => {
    const both = machine(['/opt/mine/chrome', DEBIAN_CHROMIUM], () => true);
    await expect(findBrowser({ chromiumPath: '/opt/mine/chrome', ...both })).resolves.toEqual({
      executablePath: '/opt/mine/chrome',
    });
    expect(both.launched).toEqual([{ executablePath: '/opt/mine/chrome' }]);
  });

  it("uses Debian's chromium when it is there (an empty CHROMIUM_PATH counts as unset)", async () => {
    for (const chromiumPath of [undefined, '']) {
      const debian = machine([DEBIAN_CHROMIUM], () => true);
      await expect(findBrowser({ chromiumPath, ...debian })).resolves.toEqual({ executablePath: '/usr/bin/chromium' });
      expect(debian.launched).toEqual([{ executablePath: '/usr/bin/chromium' }]);
    }
  });

  it.each(SYSTEM_CHROMIUMS.slice(1))("uses Ubuntu's %s when it is the one there", async (path) => {
    const ubuntu = machine([path], () => true);
    await expect(findBrowser({ chromiumPath: undefined, ...ubuntu })).resolves.toEqual({ executablePath: path });
  });

  // Playwright's own answer, not a copy of its words: when it rewords it, this fails, not the one-line message.
  it.skipIf(process.platform !== 'linux' || existsSync('/opt/google/chrome/chrome'))(
    "recognizes Playwright's answer when no Google Chrome is installed",
    async () => {
      const error = await chromium.launch({ channel: 'chrome' }).then(
        async (browser) => {
          await browser.close();
          return undefined;
        },
        (thrown: unknown) => thrown,
      );
      expect(chromeIsMissing(error)).toBe(true);
    },
  );

  it("uses an installed Google Chrome through Playwright's channel when only that works", async () => {
    const chrome = machine([], chromeChannel);
    await expect(findBrowser({ chromiumPath: undefined, ...chrome })).resolves.toEqual({ channel: 'chrome' });
    expect(chrome.launched).toEqual([{ channel: 'chrome' }]);
  });

  it("passes on a found browser's own failure to start instead of saying none is installed", async () => {
    const broken = machine([DEBIAN_CHROMIUM], () => false);
    await expect(findBrowser({ chromiumPath: undefined, ...broken })).rejects.toThrow(
      'Failed to launch /usr/bin/chromium',
    );
    const brokenChrome = machine([], () => false);
    brokenChrome.launch = async (choice) => {
      brokenChrome.launched.push(choice);
      throw new Error('browserType.launchPersistentContext: Target page, context or browser has been closed');
    };
    await expect(findBrowser({ chromiumPath: undefined, ...brokenChrome })).rejects.toThrow('has been closed');
  });
});
