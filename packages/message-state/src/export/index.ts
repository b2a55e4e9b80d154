export {
  EXPORT_MAX_DAYS,
  exportFileName,
  exportRangeProblem,
  writeMessageExport,
  type ExportRange,
  type ExportSink,
} from "./export";
export {
  createMessageExports,
  EXPORT_RETRY_AFTER_SECONDS,
  exportsPerAccountSetting,
  type ExportResponse,
  type MessageExportOptions,
  type MessageExports,
} from "./message-exports";
