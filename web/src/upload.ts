import type { UploadGrantBody, UploadGrantRequestBody } from '../../src/contract/dashboard.ts';
import { ApiError, api } from './api.ts';

/**
 * The API's signed-upload flow: ask for a grant, then PUT the file to its URL (this site's signed
 * route, or in scale-out a presigned S3 URL, which the CSP's connect-src allows and whose bucket
 * needs a CORS rule, docs/deploy.md). XHR rather than fetch because only XHR reports upload progress.
 */
export async function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<string> {
  // The size lets the grant refuse an oversized file at once, and is signed into an S3 upload URL.
  const request: UploadGrantRequestBody = {
    filename: file.name,
    contentType: file.type || undefined,
    fileSizeBytes: file.size > 0 ? file.size : undefined,
  };
  const grant = await api<UploadGrantBody>('POST', '/uploads', request);
  if (file.size > grant.maxFileSizeBytes) {
    throw new ApiError(413, 'FILE_TOO_LARGE', `The file is larger than ${grant.maxFileSizeMb} MB.`);
  }
  await new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', grant.uploadUrl);
    xhr.setRequestHeader('content-type', grant.contentType || file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve();
        return;
      }
      let code = 'UPLOAD_FAILED';
      let message = `The upload failed (HTTP ${xhr.status}).`;
      try {
        const body = JSON.parse(xhr.responseText) as { error?: { code: string; message: string } };
        if (body.error) ({ code, message } = body.error);
      } catch {
        // Keep the generic message.
      }
      reject(new ApiError(xhr.status, code, message));
    };
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK_ERROR', 'The upload was interrupted.'));
    xhr.send(file);
  });
  return grant.uploadKey;
}
