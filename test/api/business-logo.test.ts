// The logo is decoded and drawn again (the security review's note on logos): what the service
// keeps and serves under an image type is an image it drew itself, never the bytes uploaded. Each
// accepted type comes back an image of that type and size without the metadata it carried; bytes that
// only start like an image (HTML behind a PNG signature, a truncated file) are refused, and so is a
// decompression bomb (huge dimensions in a tiny file), from its header, before anything is decoded.
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { logoPath } from '../../server/domain/payer-urls.js';
import { redrawLogosKeptAsUploaded } from '../../server/usecases/merchant/business-profile.js';
import { useService } from '../support/service.js';

const t = useService();

const HTML = '<html><body><script>fetch("/api/auth/me")</script></body></html>';
const UNREADABLE = 'The image could not be read: it must be a whole png, jpeg or webp file.';
const TOO_LARGE = 'The image must be at most 4096 pixels wide and 4096 pixels high.';

type Format = 'png' | 'jpeg' | 'webp';

/** A `width` x `height` image of `format`, half-transparent where the format allows, with `note` in its EXIF. */
function image(format: Format, width: number, height: number, note = 'plain'): Promise<Buffer> {
  const drawn = sharp({ create: { width, height, channels: 4, background: { r: 11, g: 110, b: 79, alpha: 0.5 } } });
  return drawn[format]()
    .withExif({ IFD0: { ImageDescription: note } })
    .toBuffer();
}

async function upload(bytes: Buffer) {
  return t.a.client.PUT('/business/logo', { body: { image: bytes.toString('base64') } });
}

/** The logo as a payer's browser gets it. */
async function served(url: string): Promise<{ type: string | null; bytes: Buffer }> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return { type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

async function expectRefused(bytes: Buffer, message: string) {
  const { response, error } = await upload(bytes);
  expect(response.status).toBe(422);
  expect(error).toEqual({ message: 'The given data was invalid.', errors: { image: [message] } });
}

/** A PNG of `width` x `height` whose data is a few rows of a grey image: a header that asks for far more than the file holds. */
function pngClaiming(width: number, height: number): Buffer {
  const crc = (bytes: Buffer) => {
    let c = ~0;
    for (const byte of bytes) {
      c ^= byte;
      for (let k = 0; k < 8; k += 1) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return ~c >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const frame = Buffer.alloc(8);
    frame.writeUInt32BE(data.length, 0);
    frame.writeUInt32BE(crc(typed), 4);
    return Buffer.concat([frame.subarray(0, 4), typed, frame.subarray(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // 8 bits a sample, grey (colour type 0), no interlace
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(4 * (width + 1)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('each accepted type, drawn again', () => {
  it.each([
    ['png', 'image/png', 64, 40],
    ['jpeg', 'image/jpeg', 80, 60],
    ['webp', 'image/webp', 40, 30],
  ] as const)('a %s comes back an image of its type and size, without the metadata it carried', async (format, type, width, height) => {
    const uploaded = await image(format, width, height, `Taken at 3.1390 N, 101.6869 E by ${format}`);
    expect(uploaded.includes('101.6869')).toBe(true);
    const { response, data } = await upload(uploaded);
    expect(response.status).toBe(200);
    expect(data!.data.logo!.content_type).toBe(type);
    const logo = await served(data!.data.logo!.url);
    expect(logo.type).toBe(type);
    const decoded = await sharp(logo.bytes, { failOn: 'warning' }).metadata();
    expect({ format: decoded.format, width: decoded.width, height: decoded.height, exif: decoded.exif }).toEqual({ format, width, height, exif: undefined });
    // Every pixel decodes (not just the header).
    expect((await sharp(logo.bytes, { failOn: 'warning' }).raw().toBuffer()).length).toBe(width * height * decoded.channels!);
    expect(logo.bytes.includes('101.6869')).toBe(false);
  });

  it('up to 4096 pixels a side; one more is refused from the header', async () => {
    expect((await upload(await image('png', 4096, 2))).response.status).toBe(200);
    await expectRefused(await image('png', 4097, 2), TOO_LARGE);
    await expectRefused(await image('jpeg', 2, 4097), TOO_LARGE);
  });
});

describe('what only starts like an image', () => {
  it('a PNG with an HTML page after its end comes out a clean PNG: the page is not served', async () => {
    const png = await image('png', 16, 16);
    const { response, data } = await upload(Buffer.concat([png, Buffer.from(HTML)]));
    expect(response.status).toBe(200);
    const logo = await served(data!.data.logo!.url);
    expect(logo.bytes.includes('<script')).toBe(false);
    expect(logo.bytes.includes('<html')).toBe(false);
    expect(await sharp(logo.bytes, { failOn: 'warning' }).metadata()).toMatchObject({ format: 'png', width: 16, height: 16 });
  });

  it('a PNG signature followed by HTML is refused', async () => {
    await expectRefused(Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(HTML)]), UNREADABLE);
  });

  it('JPEG and WebP signatures followed by HTML are refused', async () => {
    await expectRefused(Buffer.concat([Buffer.from('ffd8ffe0', 'hex'), Buffer.from(HTML)]), UNREADABLE);
    await expectRefused(Buffer.concat([Buffer.from('RIFF\x00\x01\x00\x00WEBPVP8 ', 'latin1'), Buffer.from(HTML)]), UNREADABLE);
  });

  it.each(['png', 'jpeg', 'webp'] as const)('a truncated %s is refused', async (format) => {
    // Large enough that the cut falls in the image's data, not in its header.
    const noise = sharp({ create: { width: 256, height: 256, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } });
    const whole = await noise[format]().toBuffer();
    await expectRefused(whole.subarray(0, Math.floor(whole.length / 2)), UNREADABLE);
  });

  it('a decompression bomb, 50,000 x 50,000 pixels claimed by a file of a few hundred bytes, is refused at once', async () => {
    const bomb = pngClaiming(50_000, 50_000);
    expect(bomb.length).toBeLessThan(1024);
    const started = performance.now();
    await expectRefused(bomb, TOO_LARGE);
    expect(performance.now() - started).toBeLessThan(5_000);
    // And one within the sides, whose data stops short of what its header claims, is unreadable.
    await expectRefused(pngClaiming(4000, 4000), UNREADABLE);
  });

  it('a refused logo leaves the one before it in place', async () => {
    const { data } = await upload(await image('png', 8, 8));
    const before = data!.data.logo!.url;
    await expectRefused(Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(HTML)]), UNREADABLE);
    expect((await t.a.client.GET('/business')).data!.data.logo!.url).toBe(before);
  });
});

describe('logos an earlier version kept as uploaded', () => {
  /** A logo stored as an earlier version stored it: the upload's own bytes, not drawn again. */
  async function plant(businessId: number, bytes: Buffer): Promise<string> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await t.sql('business_logos').where({ business_id: businessId }).delete();
    await t
      .sql('business_logos')
      .insert({ business_id: businessId, content_type: 'image/png', sha256, bytes, redrawn: false, created_at: new Date().toISOString() });
    return sha256;
  }

  it('are not served until drawn again; then a whole image is served clean, and bytes that are no image are removed', async () => {
    const polyglot = Buffer.concat([await image('png', 12, 12), Buffer.from(HTML)]);
    const kept = await plant(t.a.business.id, polyglot);
    await plant(t.b.business.id, Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(HTML)]));
    // Not drawn yet: no logo in the profile, and its address answers nothing.
    expect((await t.a.client.GET('/business')).data!.data.logo).toBeNull();
    expect((await fetch(`${t.url}${logoPath(t.a.business.id, kept)}`)).status).toBe(404);

    const warned: string[] = [];
    const done = await redrawLogosKeptAsUploaded(t.service.context, (_fields, message) => warned.push(message));
    expect(done).toEqual({ redrawn: 1, removed: 1 });
    expect(warned).toHaveLength(1);
    const logo = (await t.a.client.GET('/business')).data!.data.logo!;
    const drawn = await served(logo.url);
    expect(drawn.bytes.includes('<script')).toBe(false);
    expect(await sharp(drawn.bytes, { failOn: 'warning' }).metadata()).toMatchObject({ format: 'png', width: 12, height: 12 });
    expect((await t.b.client.GET('/business')).data!.data.logo).toBeNull();
    expect(await t.sql('business_logos').where({ business_id: t.b.business.id })).toEqual([]);
    // Done once: nothing is left to draw.
    expect(await redrawLogosKeptAsUploaded(t.service.context, () => {})).toEqual({ redrawn: 0, removed: 0 });
  });
});
