// QR codes of the links payers open: the API's images and the printable poster draw them with the
// same options, so a code scans the same wherever it was printed from.
import QRCode from 'qrcode';

// Level M still scans with about 15% of the symbol smudged or covered, the usual choice for print;
// scanners need the 4-module quiet zone the standard asks for to find the code on a busy page.
const OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;

/** An SVG document of the code, sized only by its viewBox (in modules) so it fills whatever holds it. */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { ...OPTIONS, type: 'svg' });
}

/** A PNG of the code, 8 pixels per module: whole pixels keep every module's edges sharp. */
export function qrPng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { ...OPTIONS, type: 'png', scale: 8 });
}
