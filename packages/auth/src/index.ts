export * from "./api-keys";
export { clientBucket } from "./client-bucket";
export { issueApiKey, revokeApiKey, type IssuedApiKey } from "./api-key-store";
export {
  API_KEYS_CHANGED_CHANNEL,
  createApiKeyDirectory,
  type ApiKeyDirectory,
  type AuthContext,
  type SqlClient,
} from "./api-key-directory";
export * from "./passwords";
export * from "./smpp-passwords";
export { resetSmppPassword } from "./smpp-credentials";
export {
  DashboardInviteError,
  generateSecretToken,
  hashSecretToken,
  INVITE_TTL_MS,
  inviteDashboardUser,
  isValidEmail,
  normalizeEmail,
} from "./dashboard-users";
