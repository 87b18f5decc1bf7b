import { assertBlobKey } from './blob-key.ts';
import type { UrlSigner } from './url-signer.ts';

/**
 * Signed download URLs that this API serves itself (disk adapter):
 * `${publicUrl}/v1/blobs/<key>?exp=<unix seconds>&name=<file name>&ct=<content type>&sig=<hex>`.
 * The signature covers the method, the key, the expiry, the file name and the content type, so none
 * of them can be changed without invalidating it (`src/http/routes/blobs.ts` checks it).
 */
export const BLOB_ROUTE_PREFIX = '/v1/blobs/';

export interface DownloadGrant {
  key: string;
  /** Expiry, Unix seconds. */
  exp: number;
  fileName: string;
  contentType: string;
}

function signedFields(g: DownloadGrant): Record<string, string> {
  return { method: 'GET', key: g.key, exp: String(g.exp), name: g.fileName, ct: g.contentType };
}

export function buildDownloadUrl(publicUrl: string, signer: UrlSigner, grant: DownloadGrant): string {
  assertBlobKey(grant.key);
  const query = new URLSearchParams({
    exp: String(grant.exp),
    name: grant.fileName,
    ct: grant.contentType,
    sig: signer.sign(signedFields(grant)),
  });
  // Key segments are [A-Za-z0-9._-] only, so the key needs no escaping in the path.
  return `${publicUrl.replace(/\/+$/, '')}${BLOB_ROUTE_PREFIX}${grant.key}?${query.toString().replace(/\+/g, '%20')}`;
}

export type DownloadCheck = { ok: true; grant: DownloadGrant } | { ok: false; reason: 'invalid-signature' | 'expired' };

/**
 * Checks the query of a download request for `key`. The signature is checked before the expiry, so
 * a tampered URL is reported as tampered even when it is also old.
 */
export function verifyDownloadQuery(
  signer: UrlSigner,
  key: string,
  query: Record<string, unknown>,
  nowMs: number = Date.now(),
): DownloadCheck {
  const { exp, name, ct, sig } = query;
  if (typeof exp !== 'string' || typeof name !== 'string' || typeof ct !== 'string' || typeof sig !== 'string') {
    return { ok: false, reason: 'invalid-signature' };
  }
  if (!/^\d{1,12}$/.test(exp)) return { ok: false, reason: 'invalid-signature' };
  const grant: DownloadGrant = { key, exp: Number(exp), fileName: name, contentType: ct };
  if (!signer.verify(signedFields(grant), sig)) return { ok: false, reason: 'invalid-signature' };
  if (nowMs >= grant.exp * 1000) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}
