#!/usr/bin/env node
// The rule of docs/architecture.md, "How routes reach data": a route (src/http/routes/,
// src/dashboard/routes/) may read from store/ (lookups and lists, constants, types), but every
// change goes through a service (jobs/, uploads/, webhooks/, accounts/) that owns the rule and the
// transaction. Run by `npm run lint`; dependency-cruiser checks folders, this checks what is imported.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const ROUTE_DIRS = ['src/http/routes', 'src/dashboard/routes'];
/** Names a route may import from store/: reads, constants and types. */
const READ = /^(find|list|get|search|count|read|ping|queue|charged|measured|held)[A-Z]|^[A-Z][A-Z0-9_]*$/;

const problems = [];
for (const dir of ROUTE_DIRS) {
  for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.ts'))) {
    const path = join(root, dir, file);
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/gms)) {
      if (m[1] || !/\/store\//.test(m[3])) continue;
      for (const raw of m[2].split(',')) {
        const name = raw.trim();
        if (!name || name.startsWith('type ')) continue;
        const imported = name.split(/\s+as\s+/)[0];
        if (!READ.test(imported))
          problems.push(`${relative(root, path)}: '${imported}' from ${m[3]} changes data: call a service`);
      }
    }
  }
}
if (problems.length > 0) {
  console.error(
    `Routes reach changes through services (docs/architecture.md, "How routes reach data"):\n  ${problems.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(`route data access: ok (${ROUTE_DIRS.join(', ')})`);
