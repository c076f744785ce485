export { buildApp, storeErrorToRest } from './app.js'
export { loadSettings, type Settings } from './settings.js'
export { loadProfiles, namespacesOf, profileFile, profiles, type Profile } from './profiles.js'
