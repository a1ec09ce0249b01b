import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** The Chromium the browser tests and scripts/screenshot.ts drive: Debian's package, or CHUNKD_CHROMIUM. */
export const CHROMIUM = process.env.CHUNKD_CHROMIUM || '/usr/bin/chromium';

/**
 * Headless Chromium through playwright-core (which downloads no browser of its own). A missing
 * binary is an error that says how to install one, never a skipped test.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: on Debian install it with \`apt-get install chromium\`; elsewhere (on Ubuntu it is a snap) set CHUNKD_CHROMIUM to a Chromium or Chrome binary.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
