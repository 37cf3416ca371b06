/** How the client verbs show refs and values: the shared helpers of @world/why (world-spec §7.3). */
export { isoTime, preview, refHex, shortRef } from '@world/why';
