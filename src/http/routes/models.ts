import { defineRoute } from '../../routing/route.ts';
import { ModelList } from '../../contract/models.ts';
import { installedModels } from '../../jobs/installed-models.ts';
import type { Runtime } from '../../runtime.ts';

export function modelRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/models',
      summary: 'List the installed separation models',
      description:
        'The models a stem job may name in `model`, with their family, the stems they separate and the output types and tiers each serves. A job that names none gets the server’s choice.',
      tag: 'Stem jobs',
      auth: 'apiKey',
      status: 200,
      response: ModelList,
      handler: async () => ({ models: await installedModels(rt) }),
    }),
  ];
}
