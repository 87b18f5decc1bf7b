import { z } from 'zod';
import { Timestamp } from './common.ts';

export const UploadGrantRequest = z.object({
  filename: z.string().trim().min(1).max(255),
  contentType: z.string().trim().min(1).max(100).optional(),
  fileSizeBytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().meta({
    description:
      "Optional: the file's exact size in bytes. Above the limit, the grant is refused (FILE_TOO_LARGE). In scale-out with S3 storage, given it, uploadUrl is a presigned S3 PUT with that size bound into its signature (S3 refuses a body of any other size); without it, uploadUrl is this API's own upload route.",
  }),
});

export const UploadGrant = z
  .object({
    uploadUrl: z.string().meta({
      description:
        "Where to PUT the file (15 minutes). This API's signed route, which probes the file as it arrives; or, in scale-out with S3 storage and fileSizeBytes given, a presigned S3 PUT (Content-Type and size signed), the file then probed and measured by the worker when its job starts.",
    }),
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
