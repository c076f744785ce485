/**
 * Comments on posts and pages: the cms/v2 comments routes (routes.ts), the
 * moderation rules (moderation.ts), their rendering (render.ts) and tables
 * (schema.ts; core migration 0008 with their lifecycle events).
 */
export { commentRoutes } from './routes.js'
