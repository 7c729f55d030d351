// A business's logo as the service keeps and serves it: never the bytes uploaded, but the image they
// hold, decoded and encoded again by sharp (libvips, which works in libuv's worker threads, so the
// event loop goes on meanwhile), in the type it came in, without its metadata. Whatever else an upload
// carried (HTML after a PNG's end, a script in a comment, a camera's EXIF with a place) is gone, and
// what does not decode whole is refused.
import type { Sharp } from 'sharp';
import { LOGO_MAX_SIDE, type LogoType } from '../../domain/brand.js';

export type RedrawnLogo = { ok: true; bytes: Buffer; width: number; height: number } | { ok: false; problem: 'unreadable' | 'too-large' };

const FORMATS: Record<LogoType, 'png' | 'jpeg' | 'webp'> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

let loading: Promise<typeof import('sharp')> | undefined;

/** sharp and its libvips, loaded by the first logo rather than at start-up; no cache of decoded images kept between logos. */
function loadSharp(): Promise<typeof import('sharp')> {
  loading ??= import('sharp').then((module) => {
    module.default.cache(false);
    return module;
  });
  return loading;
}

function encoded(image: Sharp, format: 'png' | 'jpeg' | 'webp'): Sharp {
  if (format === 'png') return image.png();
  if (format === 'jpeg') return image.jpeg({ quality: 90 });
  return image.webp({ quality: 90, alphaQuality: 100 });
}

/**
 * The logo in `bytes` (whose first bytes said `type`) drawn again: 'unreadable' when it is not one
 * whole image of that type (truncated, corrupt, something else behind the signature), 'too-large' when
 * a side is over LOGO_MAX_SIDE pixels, which its header says before anything is decoded (a
 * decompression bomb: huge dimensions in a small file).
 */
export async function redrawLogo(bytes: Buffer, type: LogoType): Promise<RedrawnLogo> {
  const { default: sharp } = await loadSharp();
  const format = FORMATS[type];
  try {
    // The header alone, whatever size it claims (a limit here would make a bomb merely unreadable).
    const header = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (header.format !== format || !header.width || !header.height) return { ok: false, problem: 'unreadable' };
    if (header.width > LOGO_MAX_SIDE || header.height > LOGO_MAX_SIDE) return { ok: false, problem: 'too-large' };
    // failOn 'warning': a truncated image or trailing damage is refused, not drawn in part.
    const image = sharp(bytes, { failOn: 'warning', limitInputPixels: LOGO_MAX_SIDE * LOGO_MAX_SIDE, animated: false });
    // Turned as its EXIF says before the EXIF goes, so it shows as it did; sharp writes no metadata unless asked.
    const { data, info } = await encoded(image.autoOrient(), format).toBuffer({ resolveWithObject: true });
    return { ok: true, bytes: data, width: info.width, height: info.height };
  } catch {
    return { ok: false, problem: 'unreadable' };
  }
}
