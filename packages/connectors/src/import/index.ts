export { importGitHubExport, type ImportResult } from './github.js';
export { ExportFormatError, parseExportText, type ParsedExport } from './parse.js';
