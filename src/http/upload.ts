import { defineRoute } from '../routing/route.ts';
import { UploadGrant, UploadGrantRequest } from '../contract/upload.ts';
import { grantUpload } from '../uploads/grant.ts';
import type { Runtime } from '../runtime.ts';

export function uploadGrantRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/upload',
      summary: 'Get a signed URL to upload an audio file',
      description:
        'PUT the raw file to `uploadUrl` with the granted Content-Type within 15 minutes, then pass `uploadKey` to a job.',
      tag: 'Uploads',
      auth: 'apiKey',
      body: UploadGrantRequest,
      status: 200,
      response: UploadGrant,
      errors: ['VALIDATION_ERROR', 'UNSUPPORTED_FORMAT'],
      handler: ({ body, auth }) => grantUpload(rt, auth.accountId, body),
    }),
  ];
}
