/**
 * Text that reaches a client (an error message, a failed job's errorMessage, a webhook payload)
 * must not name the server's files or its storage: tools such as ffprobe and the blob store put
 * both in their messages. This replaces absolute paths with `<file>` and blob keys with
 * `<stored file>`, and keeps the rest of the message.
 */
const STORAGE_KEY = /["']?(?<![\w/.-])(uploads|jobs|tmp|work)\/[\w.-]+(\/[\w.-]+)*["']?/g;
/** Two or more segments after a leading slash or a Windows drive: `/tmp/x/in_1.part`, `C:\data\x`. */
const ABSOLUTE_PATH = /(?:[A-Za-z]:\\|(?<![\w.:/])\/)[^\s'":]*(?:[/\\][^\s'":]+)+/g;

export function scrubInternals(text: string): string {
  return text.replace(ABSOLUTE_PATH, '<file>').replace(STORAGE_KEY, '<stored file>');
}
