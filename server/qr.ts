// QR codes of the links payers open: the API's images and the printable poster draw them with the
// same options, so a code scans the same wherever it was printed from.
//
// An image depends only on the text it holds (a link's payment_url, which never changes), its type and
// its size, and drawing one costs far more than serving a page (a PNG most of all), so each is drawn
// once and kept, in a cache bounded by bytes. Keeping one never outlives what it shows: the cache is
// asked only after the link has been found live (the API's 404 and the poster's refusal come first).
import { LRUCache } from 'lru-cache';

// Level M still scans with about 15% of the symbol smudged or covered, the usual choice for print;
// scanners need the 4-module quiet zone the standard asks for to find the code on a busy page.
const OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;

/**
 * The sizes (width and height, in pixels) a caller may ask for. The smallest still gives every module
 * of a long link's code two pixels; drawing a PNG grows with its area, so the largest keeps one
 * drawing short of a stall (a larger print takes the SVG, which scales without loss).
 */
export const QR_SIZE = { min: 128, max: 512 } as const;

/** What the cache holds at most: thousands of codes, each a few kilobytes. */
const CACHE_BYTES = 16 * 1024 * 1024;

type Kind = 'svg' | 'png';

interface Drawing {
  text: string;
  kind: Kind;
  size: number | undefined;
}

const drawings = new LRUCache<string, string | Buffer, Drawing>({
  maxSize: CACHE_BYTES,
  sizeCalculation: (image) => Math.max(1, typeof image === 'string' ? Buffer.byteLength(image) : image.length),
  // Requests for an image being drawn wait for that drawing rather than starting their own.
  fetchMethod: (_key, _stale, { context }) => draw(context),
});

/** qrcode, loaded with the first code drawn (or by the warm-up once listening): every start would pay for the module. */
export const loadQrCode = () => import('qrcode');

async function draw({ text, kind, size }: Drawing): Promise<string | Buffer> {
  const { default: QRCode } = await loadQrCode();
  const sized = size === undefined ? {} : { width: size };
  if (kind === 'svg') return QRCode.toString(text, { ...OPTIONS, type: 'svg', ...sized });
  // 8 pixels per module by default: whole pixels keep every module's edges sharp.
  return QRCode.toBuffer(text, { ...OPTIONS, type: 'png', scale: 8, ...sized });
}

async function image(text: string, kind: Kind, size: number | undefined): Promise<string | Buffer> {
  if (size !== undefined && !(Number.isInteger(size) && size >= QR_SIZE.min && size <= QR_SIZE.max)) {
    throw new RangeError(`a QR code is ${QR_SIZE.min} to ${QR_SIZE.max} pixels, not ${size}`);
  }
  const drawn = await drawings.fetch(`${kind}:${size ?? ''}:${text}`, { context: { text, kind, size } });
  return drawn!;
}

/**
 * An SVG document of the code, sized by its viewBox (in modules) so it fills whatever holds it; with
 * `size`, it also says its width and height in pixels.
 */
export async function qrSvg(text: string, size?: number): Promise<string> {
  return (await image(text, 'svg', size)) as string;
}

/** A PNG of the code, 8 pixels per module, or `size` pixels wide and high. */
export async function qrPng(text: string, size?: number): Promise<Buffer> {
  return (await image(text, 'png', size)) as Buffer;
}
