#!/usr/bin/env node
// The container's HEALTHCHECK: the API answers /healthz on this container's PORT. Exits 0 when it
// does, 1 otherwise. (A `worker` container serves no HTTP; compose.yaml turns the check off there.)
const port = process.env.PORT || '8080';
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
