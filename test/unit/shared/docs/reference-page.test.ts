import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  REFERENCE_PAGE_CSP,
  REFERENCE_PAGE_HTML,
  referenceAsset,
  SWAGGER_UI_FILES,
} from '../../../../shared/docs/reference-page';

/**
 * The reference page's assets: an allow-list by file name, so GET /v1/docs/{asset} reads no other
 * file (the page in a browser: test/http/reference-page.test.ts).
 */
const swaggerUiDist = join(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'), '..');

describe('referenceAsset', () => {
  it("serves the page's initializer as JavaScript", () => {
    const asset = referenceAsset('initializer.js');
    expect(asset?.contentType).toBe('text/javascript; charset=utf-8');
    expect(asset?.body).toContain("window.addEventListener('load'");
  });

  it("serves Swagger UI's two files from the installed package, each with its type, read once", () => {
    expect(SWAGGER_UI_FILES).toEqual(['swagger-ui-bundle.js', 'swagger-ui.css']);
    const script = referenceAsset('swagger-ui-bundle.js');
    expect(script).toEqual({
      body: readFileSync(join(swaggerUiDist, 'swagger-ui-bundle.js'), 'utf8'),
      contentType: 'text/javascript; charset=utf-8',
    });
    expect(referenceAsset('swagger-ui.css')).toEqual({
      body: readFileSync(join(swaggerUiDist, 'swagger-ui.css'), 'utf8'),
      contentType: 'text/css; charset=utf-8',
    });
    expect(referenceAsset('swagger-ui-bundle.js')).toBe(script);
  });

  it('serves nothing else: no other file of the package, no path, no near miss', () => {
    for (const name of [
      'index.html',
      'swagger-ui.js',
      'swagger-ui-bundle.js.map',
      '../package.json',
      './swagger-ui.css',
      'SWAGGER-UI.CSS',
      'initializer.js ',
      '',
      'package.json',
    ]) {
      expect(referenceAsset(name)).toBeUndefined();
    }
  });
});

describe('the reference page', () => {
  it('loads its three assets from beside it, and has no inline script', () => {
    for (const asset of ['docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/initializer.js'])
      expect(REFERENCE_PAGE_HTML).toContain(`"${asset}"`);
    expect(REFERENCE_PAGE_HTML.match(/<script/g)).toHaveLength(2);
    expect(REFERENCE_PAGE_HTML).not.toMatch(/<script>/);
  });

  it('is served with a policy that runs only its own scripts and lets no other site frame it', () => {
    const directives = new Map(REFERENCE_PAGE_CSP.split('; ').map((directive) => [directive.split(' ')[0], directive]));
    expect(directives.get('default-src')).toBe("default-src 'self'");
    expect(directives.get('script-src')).toBe("script-src 'self'");
    expect(directives.get('frame-ancestors')).toBe("frame-ancestors 'none'");
  });
});
