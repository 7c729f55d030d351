// The QR code operations answer an image rather than the envelope: SVG unless the caller prefers PNG.
import { qrPng, qrSvg } from '../qr.js';

export interface QrImage {
  body: string | Buffer;
  headers: Record<string, string>;
}

/**
 * The code of `url` as the caller's Accept prefers (PNG only when asked for ahead of SVG), at the
 * `size` it asked for (the contract bounds it) or the default one.
 */
export async function qrImage(url: string, accepts: (...types: string[]) => string | false, size: number | undefined): Promise<QrImage> {
  const png = accepts('image/svg+xml', 'image/png') === 'image/png';
  return {
    body: png ? await qrPng(url, size) : await qrSvg(url, size),
    headers: {
      'Content-Type': png ? 'image/png' : 'image/svg+xml',
      // The code is the business's (its link) and depends on Accept: no shared cache may keep it,
      // and a cache keyed by URL alone would answer a PNG request with the SVG.
      'Cache-Control': 'private, max-age=300',
      Vary: 'Accept',
    },
  };
}
