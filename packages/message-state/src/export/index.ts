export {
  EXPORT_MAX_DAYS,
  exportFileName,
  exportRangeProblem,
  writeMessageExport,
  type ExportRange,
  type ExportSink,
} from "./export";
