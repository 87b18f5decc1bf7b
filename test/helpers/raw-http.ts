import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** The status line and the headers, as sent. */
  headers: string;
  body: string;
}

/**
 * Sends raw bytes (Latin-1) on a new connection to `base` and reads the whole answer until the
 * server closes: for requests no HTTP client would send.
 */
export function rawHttp(base: string, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const sock = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('error', reject);
    sock.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body });
    });
    sock.end(Buffer.from(bytes, 'latin1'));
  });
}

/** The `error.code` of an answer in the contract's body (JSON, with a code and a message). */
export function contractCode(res: RawAnswer): string {
  if (!/content-type: application\/json/i.test(res.headers)) throw new Error(`not JSON: ${res.headers}`);
  const body = JSON.parse(res.body) as { error: { code: string; message: string } };
  if (typeof body.error.message !== 'string') throw new Error(`no message: ${res.body}`);
  return body.error.code;
}
