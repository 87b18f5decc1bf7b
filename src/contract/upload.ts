import { z } from 'zod';
import { Timestamp } from './common.ts';

export const UploadGrantRequest = z.object({
  filename: z.string().trim().min(1).max(255),
  contentType: z.string().trim().min(1).max(100).optional(),
  /**
   * The file's exact size, when the client knows it: a larger one than the limit is refused here,
   * and where uploads go straight to S3 the size is bound into the URL's signature.
   */
  fileSizeBytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
});

export const UploadGrant = z
  .object({
    uploadUrl: z.string(),
    uploadKey: z.string(),
    expiresAt: Timestamp,
    maxFileSizeBytes: z.number().int(),
    maxFileSizeMb: z.number().int(),
    contentType: z.string(),
    instructions: z.object({ step1: z.string(), step2: z.string(), note: z.string() }),
  })
  .meta({ id: 'UploadGrant' });

/** Answer to the signed PUT and to POST /files/upload: what was stored; `durationSeconds` is the decoded length (what jobs bill). */
export const UploadedFile = z
  .object({
    uploadKey: z.string(),
    fileName: z.string(),
    fileSizeBytes: z.number().int(),
    contentType: z.string(),
    durationSeconds: z.number(),
    expiresAt: Timestamp,
  })
  .meta({ id: 'UploadedFile' });
