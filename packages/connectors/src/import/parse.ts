/** Export files: a JSON array, or JSON Lines (one object per line). */

export interface ParsedExport {
  /** Objects with their position in the file (array index, or 0-based line among non-blank lines). */
  objects: { index: number; value: unknown }[];
  /** Entries that are not JSON at all (a broken line); a broken array fails as a whole. */
  errors: { index: number; message: string }[];
}

export class ExportFormatError extends Error {
  override name = 'ExportFormatError';
}

export function parseExportText(text: string): ParsedExport {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trimStart().startsWith('[')) {
    let values: unknown;
    try {
      values = JSON.parse(body);
    } catch (err) {
      throw new ExportFormatError(`the file starts like a JSON array but does not parse: ${(err as Error).message}`);
    }
    if (!Array.isArray(values)) throw new ExportFormatError('expected a JSON array of objects');
    return { objects: values.map((value, index) => ({ index, value })), errors: [] };
  }
  const out: ParsedExport = { objects: [], errors: [] };
  let index = 0;
  for (const line of body.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.objects.push({ index, value: JSON.parse(line) });
    } catch (err) {
      out.errors.push({ index, message: `line is not JSON: ${(err as Error).message}` });
    }
    index++;
  }
  return out;
}
