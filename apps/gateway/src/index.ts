export { buildApp, isStoreUnavailable, storeErrorToRest } from './app.js'
export { loadSettings, type Settings } from './settings.js'
export { profiles, namespacesOf, type Profile } from './profiles.js'
