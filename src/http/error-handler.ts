import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { answerOf } from './error-table.ts';

/** Maps Fastify's own error codes onto the catalog. */
const FASTIFY_CODES: Record<string, ApiError['code']> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'REQUEST_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_JSON',
  FST_ERR_VALIDATION: 'VALIDATION_ERROR',
};

/**
 * The one place an error becomes an HTTP answer: `{"error":{"code","message"}}` with the real status.
 * Errors of the domain are looked up in `error-table.ts`; the framework's own by their codes here.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    let apiErr: ApiError;
    const known = answerOf(err);
    if (known) {
      apiErr = known.answer;
      if (known.log) request.log.error({ err }, known.log);
    } else if ('code' in err && typeof err.code === 'string' && FASTIFY_CODES[err.code]) {
      const code = FASTIFY_CODES[err.code]!;
      apiErr = new ApiError(
        code,
        code === 'INVALID_JSON' ? `The request body is not valid JSON: ${err.message}` : undefined,
      );
    } else if ((err as FastifyError).statusCode && (err as FastifyError).statusCode! < 500) {
      apiErr = new ApiError('VALIDATION_ERROR', err.message);
    } else {
      request.log.error({ err }, 'unhandled error');
      apiErr = new ApiError('INTERNAL_ERROR');
    }
    for (const [k, v] of Object.entries(apiErr.headers)) reply.header(k, v);
    reply.code(apiErr.status).send(apiErr.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const e = new ApiError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`);
    reply.code(e.status).send(e.toBody());
  });
}
