// What a merchant's brand may look like on its payer pages: a colour whose button reads (WCAG 2.2 AA)
// and a logo that is an image of a kind browsers show, judged by its bytes rather than by its name
// (and then decoded and drawn again: usecases/merchant/logo-image.ts).

/** `#RRGGBB`, lower case; `#RGB` is widened. */
export function normaliseHexColour(value: string): string | undefined {
  const match = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.exec(value);
  if (!match) return undefined;
  const hex = match[1]!.toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

/** WCAG 2.x relative luminance of `#rrggbb`. */
export function relativeLuminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Text on a button needs 4.5:1 (SC 1.4.3); the button against the white page needs 3:1 (SC 1.4.11). */
export const TEXT_CONTRAST = 4.5;
export const COMPONENT_CONTRAST = 3;
const WHITE = '#ffffff';
const INK = '#000000';

export type BrandColourCheck = { ok: true; colour: string; text: string } | { ok: false; reason: string };

/**
 * The button colours for a brand colour: white text when it reads, otherwise dark text. Every colour
 * has one of the two at 4.5:1, so what refuses a colour is a button too pale to stand out on white.
 */
export function brandColours(value: string): BrandColourCheck {
  const colour = normaliseHexColour(value);
  if (!colour) return { ok: false, reason: 'The brand color must be a hex color such as #1f5eff.' };
  const onWhite = contrastRatio(colour, WHITE);
  if (onWhite < COMPONENT_CONTRAST) {
    return {
      ok: false,
      reason: `The brand color must have a contrast of at least 3:1 against the white page (WCAG 2.2 AA, non-text contrast); ${colour} has ${onWhite.toFixed(2)}:1. Choose a darker shade.`,
    };
  }
  const text = onWhite >= TEXT_CONTRAST ? WHITE : INK;
  return { ok: true, colour, text };
}

export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';
export const LOGO_MAX_BYTES = 256 * 1024;
/** The widest and tallest a logo may be, in pixels: a logo shows at a few hundred; more is a decompression bomb's kind of header. */
export const LOGO_MAX_SIDE = 4096;

/** The image type the bytes start with, or undefined: SVG (a document that can carry script) never is one. */
export function sniffLogoType(bytes: Uint8Array): LogoType | undefined {
  const starts = (offset: number, ...signature: number[]) => signature.every((byte, i) => bytes[offset + i] === byte);
  if (starts(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0, 0x52, 0x49, 0x46, 0x46) && starts(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}
