#!/usr/bin/env node
// The container's HEALTHCHECK: the API answers /healthz on this container's PORT, or on the port
// given as the argument (a `worker` answers on its METRICS_PORT: compose.yaml passes it). Exits 0
// when it does, 1 otherwise.
const port = process.argv[2] || process.env.PORT || '8080';
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
