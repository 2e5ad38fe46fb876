/**
 * Waits before each repeat of a call whose answer was lost on the way (the connection refused
 * or cut, the body cut off, a gateway answering for a server that is down), for the BFF's API
 * (bff-client.ts) and the sign-in's renewal (team-sign-in.ts). What makes each repeat safe is
 * said where it is made.
 */
export const REPEAT_DELAYS_MS = [500, 2_000];

/** A gateway's answer while the server behind it is down or restarting; the server's own errors explain themselves in their body. */
export const GATEWAY_STATUSES = new Set([502, 503, 504]);
