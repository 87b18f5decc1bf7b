import { uploadFile } from './jobs.ts';

/**
 * One API process seen with one key: `api` sends JSON bodies and the bearer header (a `key` in its
 * options is ignored: the client's own is sent), the rest are the calls the job tests make.
 */
export function apiClient(base: string, key: string) {
  const api = (path: string, init: RequestInit & { json?: unknown; key?: string } = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
      body: init.json ? JSON.stringify(init.json) : init.body,
    });
  const client = {
    base,
    api,
    /** Uploads `file` (POST /v1/upload and its signed PUT) and creates a separation job of it. */
    async createJob(file: string, options: Record<string, unknown>): Promise<string> {
      const uploadKey = await uploadFile(client, key, file, file.split('/').at(-1) ?? 'input');
      const res = await api('/v1/jobs', { method: 'POST', json: { uploadKey, ...options } });
      if (res.status !== 201) throw new Error(`POST /v1/jobs at ${base}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    },
    async job(id: string): Promise<any> {
      const res = await api(`/v1/jobs/${id}`);
      if (res.status !== 200) throw new Error(`GET /v1/jobs/${id} at ${base}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    /** Polls the job until it is COMPLETED or FAILED. */
    async ended(id: string): Promise<any> {
      for (;;) {
        const job = await client.job(id);
        if (job.status === 'COMPLETED' || job.status === 'FAILED') return job;
        await new Promise((r) => setTimeout(r, 300));
      }
    },
  };
  return client;
}
