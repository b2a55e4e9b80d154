export * from "./api-keys";
export { issueApiKey, revokeApiKey, type IssuedApiKey } from "./api-key-store";
export { createApiKeyDirectory, type ApiKeyDirectory, type AuthContext } from "./api-key-directory";
export { hashPassword, verifyPassword, decoyPasswordHash } from "@sms/passwords";
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
