/**
 * Starts the gateway: `pnpm start` from the repository root. How V8 sizes
 * the heap is set here, before anything else is loaded (serve.ts is
 * imported after it: a static import would be loaded, parsed and compiled
 * first).
 *
 * Under load much of what a request allocates outlives a young-generation
 * collection; by default V8 then lets the old generation grow to several
 * times what is live before collecting it (about 4x here: 145 MB for 36 MB
 * live during batches). Growing by half keeps the resident size near what
 * is in use, at little CPU cost, without capping the heap as
 * --max-old-space-size would.
 *
 * Starting allocates tens of MB of long-lived objects in a burst (the
 * modules, the route declarations and their schemas). V8 reads a burst that
 * survives as a reason to double the young generation, up to 16 MB a
 * semi-space, and keeps the grown size while idle: on PostgreSQL the
 * service held 128 MB when ready, about 100 MB with the young generation
 * kept at its initial size (bench/src/embedded-memory.ts). So it keeps that
 * size until the service listens; serve.ts then gives V8 its default growth
 * back, so what the service does under load is unchanged.
 */
import { setFlagsFromString } from 'node:v8'

setFlagsFromString('--heap-growing-percent=50')
setFlagsFromString('--semi-space-growth-factor=1')
await import('./serve.js')
