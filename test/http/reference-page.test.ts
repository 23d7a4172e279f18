import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { OPERATION_IDS, OPERATIONS } from '../../functions/table';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import committed from '../../openapi/openapi.json' with { type: 'json' };
import { expectErrorShape, startTestApi, type TestApi } from '../support/api';
import { launchReferenceBrowser, type ReferenceBrowser } from '../support/browser';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
});

describe('the interface description and its reference page, served without a key', () => {
  it('GET /v1/openapi.json answers the committed document, with the server it was fetched from listed first', async () => {
    const response = await api.request('GET', '/openapi.json', { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const { servers, ...rest } = response.body;
    const { servers: committedServers, ...committedRest } = committed;
    expect(rest).toEqual(committedRest);
    expect(servers.slice(1)).toEqual(committedServers);
    // Relative to the document's own URL: the host and port this test reached (not 3000).
    expect(new URL(servers[0].url, `${api.baseUrl}/openapi.json`).href).toBe(api.baseUrl);
    expect(api.baseUrl).not.toContain(':3000/');
  });

  it('GET /v1/docs answers the page, its assets come from the npm package, and nothing else is served there', async () => {
    const page = await api.request('GET', '/docs', { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).not.toMatch(/https?:\/\//); // no CDN: it must work offline
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'initializer.js']) {
      const response = await api.request('GET', `/docs/${asset}`, { key: null });
      expect(response.status, asset).toBe(200);
      expect(response.text.length).toBeGreaterThan(100);
    }
    const missing = await api.request('GET', '/docs/package.json', { key: null });
    expectErrorShape(missing, 404, 'not_found');
    expect(missing.body.message).toBe('No document answers /v1/docs/package.json.');
    expectErrorShape(await api.request('GET', '/docs/..%2Fpackage.json', { key: null }), 404, 'not_found');
  });
});

describe('the reference page in a real browser (CHROMIUM_PATH, Debian Chromium or Google Chrome)', () => {
  let reference: ReferenceBrowser | undefined;
  let browser: BrowserContext;
  beforeAll(async () => {
    reference = await launchReferenceBrowser();
    browser = reference.context;
  }, 60_000);
  afterAll(async () => {
    await reference?.close();
  });

  /** A new page of the browser, with everything that goes wrong on it collected in `problems`. */
  async function watchedPage(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('requestfailed', (request) => problems.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.url()}: ${response.status()}`);
    });
    return { page, problems };
  }

  /** After `open` (a goto or reload), the page lists every operation in the declared order, getPet deprecated, and nothing went wrong. */
  async function expectOperationsListed(page: Page, problems: string[], open: () => Promise<unknown>): Promise<void> {
    await open();
    // The operations, or Swagger UI's own error when it could not load the document.
    await page.locator('.opblock, .errors-wrapper').first().waitFor({ timeout: 20_000 });
    expect(problems, page.url()).toEqual([]);
    const operations = await page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((block) => ({
        method: block.querySelector('.opblock-summary-method')?.textContent?.trim(),
        path: block.querySelector('[data-path]')?.getAttribute('data-path'),
        operationId: block.querySelector('.opblock-summary-operation-id')?.textContent?.trim(),
        deprecated: block.classList.contains('opblock-deprecated'),
      })),
    );
    expect(operations, page.url()).toEqual(
      OPERATION_IDS.map((operationId) => ({
        ...OPERATIONS[operationId].route,
        operationId,
        deprecated: operationId === 'getPet',
      })),
    );
    expect(operations).toContainEqual({ method: 'GET', path: '/pets', operationId: 'listPets', deprecated: false });
    expect(operations).toContainEqual({ method: 'POST', path: '/pets', operationId: 'createPet', deprecated: false });
    expect(operations).toContainEqual({
      method: 'GET',
      path: '/pets/{petId}',
      operationId: 'getPet',
      deprecated: true,
    });
  }

  it('loads with no console error, lists every operation in the declared order, and shows getPet as deprecated', async () => {
    const { page, problems } = await watchedPage();
    await expectOperationsListed(page, problems, () => page.goto(`${api.baseUrl}/docs`, { waitUntil: 'networkidle' }));
    await expect(page.locator('.info .title').textContent()).resolves.toContain('Pet store API');
    // "Try it out" goes to the server the page was loaded from, whatever its port.
    await expect(page.locator('.servers select').inputValue()).resolves.toBe('/v1');

    const screenshots = join(process.cwd(), 'test-output');
    mkdirSync(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, 'reference-page.png'), fullPage: true });
    expect(problems).toEqual([]);
  }, 60_000);

  it('loads the same from a deep link, on reloading it, and with a query: the document is found beside the page', async () => {
    const { page, problems } = await watchedPage();
    // What deepLinking writes into the address once an operation is opened, then reloaded.
    await expectOperationsListed(page, problems, () =>
      page.goto(`${api.baseUrl}/docs#/pets/listPets`, { waitUntil: 'networkidle' }),
    );
    await expectOperationsListed(page, problems, () => page.reload({ waitUntil: 'networkidle' }));
    expect(new URL(page.url()).hash).toBe('#/pets/listPets');
    await expectOperationsListed(page, problems, () =>
      page.goto(`${api.baseUrl}/docs?x=1`, { waitUntil: 'networkidle' }),
    );
  }, 90_000);
});
