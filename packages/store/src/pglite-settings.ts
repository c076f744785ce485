/**
 * PostgreSQL settings of the embedded database, after PGlite's own. Its
 * defaults (from initdb) are a server's: 128 MB of shared buffers and 64 MB
 * of maintenance memory, all inside the WebAssembly heap of the service's
 * process, which never gives memory back. A single-process database with one
 * connection needs far less. (A module of its own: the templates name the
 * build by them without loading the driver.)
 */
export const pgliteSettings: readonly string[] = [
  'shared_buffers=16MB',
  'temp_buffers=4MB',
  'wal_buffers=512kB',
  'work_mem=4MB',
  'maintenance_work_mem=16MB',
]
