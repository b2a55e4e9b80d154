export * from "./api-keys";
export { createApiKeyDirectory, type ApiKeyDirectory, type AuthContext } from "./api-key-directory";
export * from "./smpp-passwords";
