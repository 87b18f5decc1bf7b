import { ListObjectsV2Command, type ListObjectsV2CommandOutput } from '@aws-sdk/client-s3';

/**
 * The folders right under `prefix` (S3's common prefixes with a `/` delimiter), every page of
 * them, each without the prefix and the trailing slash. `send` runs one listing call (bounded by
 * the store's timeout).
 */
export async function listFolders(
  send: (list: ListObjectsV2Command) => Promise<ListObjectsV2CommandOutput>,
  bucket: string,
  prefix: string,
): Promise<string[]> {
  const folders: string[] = [];
  let token: string | undefined;
  do {
    const page = await send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }),
    );
    for (const p of page.CommonPrefixes ?? []) {
      if (p.Prefix?.startsWith(prefix)) folders.push(p.Prefix.slice(prefix.length, -1));
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return folders;
}
