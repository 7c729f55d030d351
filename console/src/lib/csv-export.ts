// The payments export as the console downloads it: GET /api/payments with Accept: text/csv (the same
// filters), read as a stream so the page can show how many lines have come, then saved as a file.
export interface ExportProgress {
  bytes: number;
  lines: number;
}

/** Counts the line ends of a chunk of CSV (RFC 4180: CRLF), quoted line breaks included: a progress figure, not a parse. */
export function countLines(chunk: Uint8Array): number {
  let lines = 0;
  for (const byte of chunk) if (byte === 10) lines += 1;
  return lines;
}

export async function readWithProgress(response: Response, onProgress: (progress: ExportProgress) => void): Promise<Blob> {
  if (!response.body) return response.blob();
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  const progress: ExportProgress = { bytes: 0, lines: 0 };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    progress.bytes += value.byteLength;
    progress.lines += countLines(value);
    onProgress({ ...progress });
  }
  return new Blob(parts as Uint8Array<ArrayBuffer>[], { type: 'text/csv' });
}
