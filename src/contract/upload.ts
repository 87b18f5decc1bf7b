import { z } from 'zod';
import { Timestamp } from './common.ts';

export const UploadGrantRequest = z.object({
  filename: z.string().trim().min(1).max(255),
  contentType: z.string().trim().min(1).max(100).optional(),
  fileSizeBytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().meta({
    description:
      "Optional: the file's exact size in bytes. Above the limit, the grant is refused (FILE_TOO_LARGE); where uploadUrl points at S3, it is bound into the URL's signature, so S3 refuses a body of any other size.",
  }),
});

export const UploadGrant = z
  .object({
    uploadUrl: z.string().meta({
      description:
        "Where to PUT the file (15 minutes). Embedded: this API's signed route, which probes the file as it arrives. Scale-out with S3 storage: a presigned S3 PUT (Content-Type signed, and the size when fileSizeBytes was given); the file is probed and measured by the worker when its job starts.",
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
