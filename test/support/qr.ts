// Reads QR codes back the way a phone would, so tests check what a code holds rather than how it is
// drawn: PNGs through pngjs, SVGs (as qrcode draws them) rasterised here, both decoded by jsQR.
import jsqr from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS with types that declare an ES default export: under NodeNext that is `.default`.
const jsQR = jsqr.default;

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The text a PNG QR code holds, or null when jsQR finds no code in it. */
export function decodePng(bytes: Buffer): string | null {
  const image = PNG.sync.read(bytes);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

const PIXELS_PER_MODULE = 4;

/**
 * The text an SVG QR code holds. qrcode draws the dark modules as one stroked path of `M x y` (a
 * row's first run), `m dx 0` (skip light modules) and `h n` (n dark modules), each at half a module
 * below the row's top; anything else in the path fails the test, as a drawing we cannot read.
 */
export function decodeSvg(svg: string): string | null {
  const size = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const path = /<path stroke="#000000" d="([^"]*)"/.exec(svg)?.[1];
  if (!size || path === undefined) throw new Error(`not an SVG QR code as qrcode draws it: ${svg.slice(0, 200)}`);
  const dark = new Set<string>();
  let x = 0;
  let y = 0;
  for (const [, command, args] of path.matchAll(/([A-Za-z])([^A-Za-z]*)/g)) {
    const numbers = args!
      .trim()
      .split(/[\s,]+/)
      .map(Number);
    if (command === 'M') [x, y] = [numbers[0]!, numbers[1]! - 0.5];
    else if (command === 'm') [x, y] = [x + numbers[0]!, y + numbers[1]!];
    else if (command === 'h') for (const end = x + numbers[0]!; x < end; x += 1) dark.add(`${x},${y}`);
    else throw new Error(`unexpected path command ${command} in ${path.slice(0, 200)}`);
  }
  const width = size * PIXELS_PER_MODULE;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  for (let py = 0; py < width; py += 1) {
    for (let px = 0; px < width; px += 1) {
      if (!dark.has(`${Math.floor(px / PIXELS_PER_MODULE)},${Math.floor(py / PIXELS_PER_MODULE)}`)) continue;
      pixels.fill(0, (py * width + px) * 4, (py * width + px) * 4 + 3);
    }
  }
  return jsQR(pixels, width, width)?.data ?? null;
}
