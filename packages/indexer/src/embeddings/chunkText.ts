// Splits long content (build logs, long PR bodies) into pieces an embedder can take whole:
// paragraphs first, then lines, then words, and a hard cut only for a single overlong word.
export interface ChunkTextOptions {
  /** Longest chunk, in characters. Default 500: about the 128 tokens the offline model reads. */
  maxChars?: number;
  /** Characters carried over from the end of one chunk to the start of the next. Default 0. */
  overlap?: number;
}

interface Piece {
  /** What joined this piece to the one before it in the source. */
  separator: string;
  text: string;
}

function splitWords(line: string, limit: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > limit) {
    const space = rest.lastIndexOf(' ', limit);
    const cut = space > 0 ? space : limit;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) out.push(rest);
  return out;
}

function splitPieces(text: string, limit: number): Piece[] {
  const pieces: Piece[] = [];
  for (const paragraph of text.split(/\n[ \t]*\n\s*/)) {
    if (!paragraph.trim()) continue;
    const lines = paragraph.length <= limit ? [paragraph] : paragraph.split('\n');
    lines.forEach((line, lineIndex) => {
      splitWords(line, limit).forEach((part, partIndex) => {
        const separator = partIndex > 0 ? ' ' : lineIndex > 0 ? '\n' : '\n\n';
        pieces.push({ separator, text: part });
      });
    });
  }
  return pieces;
}

/** The end of a chunk, at most `overlap` characters: whole lines when it spans a line break, else whole words. */
function tail(chunk: string, overlap: number): string {
  if (overlap === 0) return '';
  const end = chunk.slice(-overlap);
  const newline = end.indexOf('\n');
  if (newline >= 0) return end.slice(newline + 1).trim();
  const space = end.search(/\s/);
  return (space >= 0 ? end.slice(space + 1) : end).trim();
}

export function chunkText(text: string, options: ChunkTextOptions = {}): string[] {
  const maxChars = options.maxChars ?? 500;
  const overlap = options.overlap ?? 0;
  if (!Number.isInteger(maxChars) || maxChars < 16) throw new Error(`maxChars must be an integer >= 16, got ${maxChars}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > maxChars / 2) {
    throw new Error(`overlap must be an integer between 0 and maxChars / 2, got ${overlap}`);
  }
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (!normalized) return [];
  if (normalized.length <= maxChars) return [normalized];

  // Leave room for the carried-over tail and the newline that joins it.
  const limit = overlap > 0 ? maxChars - overlap - 1 : maxChars;
  const chunks: string[] = [];
  let current = '';
  for (const piece of splitPieces(normalized, limit)) {
    const joined = current ? current + piece.separator + piece.text : piece.text;
    if (joined.length <= maxChars) {
      current = joined;
      continue;
    }
    chunks.push(current);
    const carried = tail(current, overlap);
    current = carried ? `${carried}\n${piece.text}` : piece.text;
  }
  if (current) chunks.push(current);
  return chunks;
}
