export { GSM7_CHARACTERS } from "./gsm7-alphabet";
export { countGsm7Septets, decodeGsm7, encodeGsm7, isGsm7, NotGsm7Error } from "./gsm7";
export { fillBitsAfterUdh, packSeptets, unpackSeptets } from "./septet-packing";
export { decodeUcs2, encodeUcs2 } from "./ucs2";
export { concatUdh, parseUdh, splitUdh, type ConcatInfo } from "./udh";
export { SEGMENT_LIMITS, type SmsEncoding } from "./segment-plan";
export { analyzeText, splitMessage, type SmsPart, type SplitOptions, type TextAnalysis } from "./segment";
export { DATA_CODING, decodeShortMessage, UnsupportedDataCodingError } from "./smpp-data-coding";
export { checkText, InvalidTextError } from "./strict-text";
export {
  decodeInboundText,
  inboundEncodingOf,
  type DecodedInboundText,
  type InboundEncoding,
} from "./inbound-text";
