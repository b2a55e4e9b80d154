export { generateCode, hashCode } from "./code";
export { checkTemplate, DEFAULT_TEMPLATE, redactTemplate, renderTemplate } from "./template";
export { openOtpText, sealOtpText } from "./sealed-text";
export {
  createSendLimiter,
  type SendLimiter,
  type SendLimitOptions,
  type SendLimitDecision,
} from "./send-limit";
export {
  createPumpingGuard,
  type PumpingDecision,
  type PumpingGuard,
  type PumpingGuardOptions,
} from "./pumping-guard";
export { checkCode, expireDueOtps, findOtp, type OtpRecord, type OtpStatus } from "./otp.sql";
export {
  effectiveStatus,
  OtpService,
  type OtpOptions,
  type OtpView,
  type SendOtpRequest,
  type VerifyResult,
} from "./otp-service";
