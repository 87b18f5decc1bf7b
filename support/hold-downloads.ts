import type { Page } from 'playwright-core';

/** The signed download URLs the job page's stems are fetched from. */
export const STEM_DOWNLOADS = '**/v1/blobs/**';

/**
 * Holds back the page's whole-file stem downloads (the player's decoder) until the returned
 * function is called; media elements ask for byte ranges, so they still load and play. The caller
 * lifts the route with `page.unroute(STEM_DOWNLOADS)`.
 */
export async function holdWholeFileDownloads(page: Page): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((go) => {
    release = go;
  });
  await page.route(STEM_DOWNLOADS, async (route) => {
    if (!route.request().headers().range) await held;
    await route.continue().catch(() => {});
  });
  return release;
}
