import type { z } from 'zod';
import { defineRoute } from '../routing/route.ts';
import { IdParams, OffsetListQuery } from '../contract/common.ts';
import { ApiError } from '../domain/errors.ts';
import { findAccountJob, listJobs, type JobRow } from '../store/jobs.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { Db } from '../store/schema.ts';
import { pollingHints } from './polling.ts';

export interface MediaReadRoutes {
  kind: 'video' | 'track';
  /** `/v1/video-jobs`, or the hosted name of the same resource. */
  path: string;
  tag: string;
  detail: z.ZodType;
  list: z.ZodType;
  present(row: JobRow, store: BlobStore): Promise<unknown>;
}

/** List and read of video or track jobs under one path (the contract's name or the hosted one). */
export function mediaReadRoutes(deps: { db: Db; store: BlobStore }, o: MediaReadRoutes) {
  return [
    defineRoute({
      method: 'GET',
      url: o.path,
      summary: `List ${o.kind} jobs, newest first`,
      tag: o.tag,
      auth: 'apiKey',
      query: OffsetListQuery,
      status: 200,
      response: o.list,
      errors: ['VALIDATION_ERROR'],
      handler: async ({ query, auth }) => {
        const { rows, total, hasMore } = await listJobs(deps.db, { accountId: auth.accountId, kind: o.kind, ...query });
        return {
          jobs: await Promise.all(rows.map((row) => o.present(row, deps.store))),
          pagination: { total, limit: query.limit, offset: query.offset, hasMore },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${o.path}/:id`,
      summary: `Get a ${o.kind} job; outputs carry fresh 1-hour download URLs`,
      tag: o.tag,
      auth: 'apiKey',
      rateBucket: 'poll',
      params: IdParams,
      status: 200,
      response: o.detail,
      errors: ['JOB_NOT_FOUND'],
      handler: async ({ params, auth, request, reply }) => {
        const row = await findAccountJob(deps.db, auth.accountId, o.kind, params.id);
        if (!row) throw new ApiError('JOB_NOT_FOUND', `No ${o.kind} job '${params.id}'.`);
        return pollingHints(request, reply, row, await o.present(row, deps.store));
      },
    }),
  ];
}
