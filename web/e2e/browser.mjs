// Debian's Chromium under Playwright, with the flags this machine needs (no browser
// download, no background network).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.MIRROR_CHROMIUM ?? '/usr/bin/chromium';

/** The value after `--NAME` on the command line, if given. */
export const arg = name => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

export async function launch() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: apt-get install chromium (or set MIRROR_CHROMIUM)`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Runs each check in order; one that throws, or during which the page logged a console
 * error (`errors` grows), fails, with a screenshot by `shot(name)`. Prints a line per
 * check and the totals, closes the browser and exits 0 only when every check passed. */
export async function runChecks(checks, errors, shot, close, prefix = '') {
  let failed = 0;
  for (const [i, { name, f }] of checks.entries()) {
    const before = errors.length;
    try {
      await f();
      assert.deepEqual(errors.slice(before), [], 'no console errors');
      console.log(`ok   ${name}`);
    } catch (e) {
      failed += 1;
      console.log(`FAIL ${name}\n     ${String(e.stack ?? e).split('\n').slice(0, 8).join('\n     ')}`);
      await shot(`${prefix}failed-${i}`).catch(() => {});
    }
  }
  await close();
  console.log(`${checks.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
