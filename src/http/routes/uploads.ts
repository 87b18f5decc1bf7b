import { defineRoute } from '../../routing/route.ts';
import { UploadGrant, UploadGrantRequest } from '../../contract/upload.ts';
import { grantUpload } from '../../uploads/grant.ts';
import type { Runtime } from '../../runtime.ts';

export function uploadGrantRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/upload',
      summary: 'Get a signed URL to upload an audio file',
      description:
        'PUT the raw file to `uploadUrl` with the granted Content-Type within 15 minutes, then pass `uploadKey` to a job. In scale-out with S3 storage `uploadUrl` is a presigned PUT straight to the bucket (S3 refuses another Content-Type, another size when `fileSizeBytes` was given, or a late PUT with 403); the file is then probed and measured by the worker before anything is separated or charged.',
      tag: 'Uploads',
      auth: 'apiKey',
      body: UploadGrantRequest,
      status: 200,
      response: UploadGrant,
      errors: ['VALIDATION_ERROR', 'UNSUPPORTED_FORMAT', 'FILE_TOO_LARGE'],
      handler: ({ body, auth }) => grantUpload(rt, auth.accountId, body),
    }),
  ];
}
