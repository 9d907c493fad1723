// The authorization room: MCP's authorization (2025-11-25 basic/authorization) as the grader plays,
// records and verifies it. The player serves a recorded authorization server beside the MCP session
// (server.ts) and holds the client's requests to the spec's rules (requests.ts); the recorder makes a
// live flow portable (recording.ts, roles.ts), and `record --script`'s client authorizes as a course
// client would (scripted-client.ts); verify runs a recorded flow again (verify-client.ts).
// The cassette's vocabulary of it (the placeholders) is harness/cassette/format/placeholders.ts.
export { AUTHORIZATION_PATH, AuthorizationServer, type CredentialsRefusal } from './server.ts';
export { AuthRecording } from './recording.ts';
export { Roles } from './roles.ts';
export { AuthClient } from './verify-client.ts';
export { s256 } from './oauth.ts';
export { REDIRECT_URL, scriptOAuth } from './scripted-client.ts';
