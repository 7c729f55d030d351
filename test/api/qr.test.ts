// The QR codes of payment links and open links: an image of the link's payment_url, SVG unless the
// caller prefers PNG, read back here as a phone would read it. Everything else is as for the link's
// own GET: the bearer key first, another business's, unknown or deleted link a JSON 404, the rate
// limit headers, and every answer as openapi.yaml declares it (the typed clients check that). A size
// may be asked within bounds; each image is drawn once and kept (counted through qrcode itself).
import QRCode from 'qrcode';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GOOD_CARD, submitPage } from '../support/payer.js';
import { PNG } from 'pngjs';
import { decodePng, decodeSvg, PNG_SIGNATURE } from '../support/qr.js';
import { raw, withService, type Tenant, useService } from '../support/service.js';
import * as create from '../support/factories.js';

interface Link {
  _id: string;
  payment_url: string;
}

interface Kind {
  name: string;
  /** Under /api, without the id. */
  collection: string;
  notFound: string;
  create(tenant: Tenant): Promise<Link>;
  /** GET .../qr through the tenant's typed client, as text or as bytes. */
  qr(tenant: Tenant, id: string, accept?: string, size?: number): Promise<{ status: number; headers: Headers; text: string; bytes: Buffer; error: unknown }>;
  remove(tenant: Tenant, id: string): Promise<number>;
}

/** Answers of the typed client, read whole: its conformance check has already run on them. */
async function read(result: { response: Response; data?: unknown; error?: unknown }) {
  const bytes = result.data instanceof ArrayBuffer ? Buffer.from(result.data) : Buffer.alloc(0);
  return { status: result.response.status, headers: result.response.headers, text: bytes.toString('utf8'), bytes, error: result.error };
}

const KINDS: Kind[] = [
  {
    name: 'payment link',
    collection: '/payment-links',
    notFound: 'Payment link not found.',
    async create(tenant) {
      return create.paymentLink(tenant, { title: 'Invoice 7' });
    },
    async qr(tenant, id, accept, size) {
      return read(
        await tenant.client.GET('/payment-links/{payment_link_id}/qr', {
          params: { path: { payment_link_id: id }, query: size === undefined ? {} : { size } },
          headers: accept === undefined ? {} : { accept },
          parseAs: 'arrayBuffer',
        }),
      );
    },
    async remove(tenant, id) {
      return (await tenant.client.DELETE('/payment-links/{payment_link_id}', { params: { path: { payment_link_id: id } } })).response.status;
    },
  },
  {
    name: 'open payment link',
    collection: '/open-payment-links',
    notFound: 'Open payment link not found.',
    async create(tenant) {
      return create.openLink(tenant, { minimum_amount: '10.00' });
    },
    async qr(tenant, id, accept, size) {
      return read(
        await tenant.client.GET('/open-payment-links/{open_payment_link_id}/qr', {
          params: { path: { open_payment_link_id: id }, query: size === undefined ? {} : { size } },
          headers: accept === undefined ? {} : { accept },
          parseAs: 'arrayBuffer',
        }),
      );
    },
    async remove(tenant, id) {
      return (await tenant.client.DELETE('/open-payment-links/{open_payment_link_id}', { params: { path: { open_payment_link_id: id } } })).response.status;
    },
  },
];

const t = useService();

describe.each(KINDS)('GET /api$collection/{id}/qr', (kind) => {
  let link: Link;
  beforeAll(async () => {
    link = await kind.create(t.a);
  });

  it('is an SVG by default (the client sends Accept: application/json) that holds exactly the payment_url', async () => {
    const answer = await kind.qr(t.a, link._id);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/svg+xml');
    expect(answer.headers.get('cache-control')).toBe('private, max-age=300');
    expect(answer.headers.get('vary')).toBe('Accept');
    expect(answer.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
    expect(answer.text).not.toMatch(/<script|\son\w+=/i);
    expect(decodeSvg(answer.text)).toBe(link.payment_url);
  });

  it('is a PNG when Accept asks for image/png, holding the same payment_url', async () => {
    const answer = await kind.qr(t.a, link._id, 'image/png');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/png');
    expect(answer.bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(decodePng(answer.bytes)).toBe(link.payment_url);
  });

  it("follows the Accept header's preferences, SVG when it names neither or both alike", async () => {
    const typeFor = async (accept?: string) => {
      const answer = await raw(`${t.apiUrl}${kind.collection}/${link._id}/qr`, { key: t.a.key, headers: accept === undefined ? {} : { accept } });
      expect(answer.status, accept).toBe(200);
      return answer.contentType;
    };
    expect(await typeFor()).toBe('image/svg+xml');
    expect(await typeFor('*/*')).toBe('image/svg+xml');
    expect(await typeFor('image/*')).toBe('image/svg+xml');
    expect(await typeFor('application/json')).toBe('image/svg+xml');
    expect(await typeFor('image/svg+xml')).toBe('image/svg+xml');
    expect(await typeFor('image/png, image/svg+xml')).toBe('image/png');
    expect(await typeFor('image/svg+xml;q=0.5, image/png')).toBe('image/png');
    expect(await typeFor('image/png;q=0.5, image/svg+xml')).toBe('image/svg+xml');
    expect(await typeFor('image/png;q=0.9, */*;q=0.1')).toBe('image/png');
  });

  it('answers HEAD with the headers of the GET and no body', async () => {
    const answer = await raw(`${t.apiUrl}${kind.collection}/${link._id}/qr`, { key: t.a.key, method: 'HEAD', headers: { accept: 'image/png' } });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('image/png');
    expect(answer.bytes.length).toBe(0);
  });

  it("is a JSON 404 for another business's link, as the link's own GET is, whatever Accept asks for", async () => {
    for (const accept of [undefined, 'image/png']) {
      const answer = await kind.qr(t.b, link._id, accept);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.error).toEqual({ message: kind.notFound });
    }
    const viaRaw = await raw(`${t.apiUrl}${kind.collection}/${link._id}/qr`, { key: t.b.key, headers: { accept: 'image/png' } });
    expect(viaRaw.status).toBe(404);
    expect(viaRaw.body).toEqual({ message: kind.notFound });
  });

  it('is a 404 for unknown and malformed ids', async () => {
    for (const id of ['0123456789abcdef01234567', 'nope', 'f'.repeat(25), '%3Cscript%3E']) {
      const answer = await raw(`${t.apiUrl}${kind.collection}/${id}/qr`, { key: t.a.key, headers: { accept: 'image/png' } });
      expect(answer.status, id).toBe(404);
      expect(answer.body, id).toEqual({ message: kind.notFound });
    }
  });

  it('is a 404 once the link is deleted', async () => {
    const doomed = await kind.create(t.a);
    expect((await kind.qr(t.a, doomed._id)).status).toBe(200);
    expect(await kind.remove(t.a, doomed._id)).toBe(200);
    const answer = await raw(`${t.apiUrl}${kind.collection}/${doomed._id}/qr`, { key: t.a.key });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: kind.notFound });
  });

  it('is a 401 without a valid key, before anything else', async () => {
    for (const key of [undefined, 'sk_not_a_key', t.b.key.slice(0, -1) + (t.b.key.endsWith('A') ? 'B' : 'A')]) {
      const answer = await raw(`${t.apiUrl}${kind.collection}/${link._id}/qr`, { key, headers: { accept: 'image/png' } });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ message: 'Unauthenticated.' });
    }
    const typed = await kind.qr({ ...t.a, client: t.clientFor(`sk_${'x'.repeat(43)}`) }, link._id, 'image/png');
    expect(typed.status).toBe(401);
    expect(typed.error).toEqual({ message: 'Unauthenticated.' });
  });

  it('carries the rate limit headers, and refuses query parameters it does not take (422)', async () => {
    const answer = await raw(`${t.apiUrl}${kind.collection}/${link._id}/qr`, { key: t.a.key });
    expect(Number(answer.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    expect(answer.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(answer.headers.get('x-request-id')).toBeTruthy();
    const refused = await raw(`${t.apiUrl}${kind.collection}/${link._id}/qr?scale=10`, { key: t.a.key });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ message: 'The given data was invalid.', errors: { scale: [expect.any(String)] } });
  });

  it('is drawn at the size asked for, 128 to 512 pixels, in both types, and still holds the payment_url', async () => {
    for (const size of [128, 300, 512]) {
      const png = await kind.qr(t.a, link._id, 'image/png', size);
      expect(png.status).toBe(200);
      const image = PNG.sync.read(png.bytes);
      expect([image.width, image.height]).toEqual([size, size]);
      expect(decodePng(png.bytes)).toBe(link.payment_url);
      const svg = await kind.qr(t.a, link._id, undefined, size);
      expect(svg.text).toMatch(new RegExp(`^<svg xmlns="http://www\\.w3\\.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 \\d+ \\d+"`));
      expect(decodeSvg(svg.text)).toBe(link.payment_url);
    }
  });

  it("refuses a size out of bounds or not whole with Laravel's texts (422), whatever Accept asks for", async () => {
    const cases: [string, string][] = [
      ['127', 'The size must be at least 128.'],
      ['0', 'The size must be at least 128.'],
      ['513', 'The size must not be greater than 512.'],
      ['100000', 'The size must not be greater than 512.'],
      ['256.5', 'The size must be an integer.'],
      ['abc', 'The size must be an integer.'],
    ];
    for (const [size, message] of cases) {
      for (const accept of ['image/png', 'image/svg+xml']) {
        const answer = await raw(`${t.apiUrl}${kind.collection}/${link._id}/qr?size=${size}`, { key: t.a.key, headers: { accept } });
        expect(answer.status, `${size} ${accept}`).toBe(422);
        expect(answer.body).toEqual({ message: 'The given data was invalid.', errors: { size: [message] } });
      }
    }
  });
});

describe('each image is drawn once', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each(KINDS)('a second request for the same $name, type and size is answered without drawing it again', async (kind) => {
    const pngs = vi.spyOn(QRCode, 'toBuffer');
    const svgs = vi.spyOn(QRCode, 'toString');
    const link = await kind.create(t.a);
    const first = await kind.qr(t.a, link._id, 'image/png');
    const second = await kind.qr(t.a, link._id, 'image/png');
    expect(pngs).toHaveBeenCalledTimes(1);
    expect(second.bytes).toEqual(first.bytes);
    // Asked for at once, still one drawing.
    await Promise.all(Array.from({ length: 5 }, () => kind.qr(t.a, link._id, 'image/png', 256)));
    expect(pngs).toHaveBeenCalledTimes(2);
    await kind.qr(t.a, link._id);
    await kind.qr(t.a, link._id);
    await kind.qr(t.a, link._id, undefined, 256);
    expect(svgs).toHaveBeenCalledTimes(2);
    expect(pngs).toHaveBeenCalledTimes(2);
    // Another link is another image.
    const other = await kind.create(t.a);
    expect(decodePng((await kind.qr(t.a, other._id, 'image/png')).bytes)).toBe(other.payment_url);
    expect(pngs).toHaveBeenCalledTimes(3);
    // A deleted link's image is kept no use: the link is looked up first, and is gone.
    expect(await kind.remove(t.a, link._id)).toBe(200);
    for (const accept of ['image/png', 'image/svg+xml']) {
      const answer = await raw(`${t.apiUrl}${kind.collection}/${link._id}/qr`, { key: t.a.key, headers: { accept } });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ message: kind.notFound });
    }
  });
});

describe('the codes', () => {
  it('stay for a paid payment link, whose page then tells the payer it is paid', async () => {
    const link = await KINDS[0]!.create(t.a);
    expect((await submitPage(t.url, link.payment_url, { name: 'Ali', ...GOOD_CARD })).status).toBe(303);
    const answer = await KINDS[0]!.qr(t.a, link._id);
    expect(answer.status).toBe(200);
    expect(decodeSvg(answer.text)).toBe(link.payment_url);
  });

  it('hold the address as PUBLIC_URL gives it', async () => {
    await withService({ publicUrl: 'https://pay.example.com' }, async (other) => {
      const link = await create.paymentLink(other.a, { title: 'Invoice 8' });
      expect(link.payment_url).toBe(`https://pay.example.com/payment/pay?id=${link._id}`);
      const answer = await KINDS[0]!.qr(other.a, link._id, 'image/png');
      expect(decodePng(answer.bytes)).toBe(link.payment_url);
    });
  });
});
