// The business profile (what payers see of a business): GET/PATCH /api/business and the logo, PUT/DELETE /api/business/logo.
// The name payers see defaults to the business's own; a brand colour too pale for a button on white is
// refused with its contrast; the logo is judged by its bytes (SVG and mislabelled files refused) and
// re-served with the type read from them and nosniff (what it is redrawn as: business-logo.test.ts).
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { PNG_1X1 } from '../support/images.js';
import { useService } from '../support/service.js';

const t = useService();

describe('GET /api/business', () => {
  it('shows the business name as the display name until one is set, Malaysia time and English by default', async () => {
    const { response, data } = await t.a.client.GET('/business');
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({
      id: t.a.business.id,
      name: t.a.business.name,
      display_name: t.a.business.name,
      logo: null,
      brand_color: null,
      button_text_color: null,
      website_url: null,
      time_zone: 'Asia/Kuala_Lumpur',
      default_locale: 'en',
      updated_at: null,
    });
  });
});

describe('PATCH /api/business', () => {
  it('ignores what a client may not set (the id, the logo, the button colour)', async () => {
    const { response, data } = await t.a.client.PATCH('/business', {
      body: { id: t.b.business.id, logo: { url: 'https://evil.example.com/x.svg' }, button_text_color: '#ffffff' } as never,
    });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ id: t.a.business.id, name: t.a.business.name, logo: null, button_text_color: null });
  });

  it("renames the business: a name another business has, a number alone, a blank or a long one is refused on its field, and B's name stays B's", async () => {
    const refused = async (name: unknown) => {
      const { response, error } = await t.a.client.PATCH('/business', { body: { name } as never });
      expect(response.status, JSON.stringify(name)).toBe(422);
      return (error as { errors: Record<string, string[]> }).errors;
    };
    expect(await refused(t.b.business.name)).toEqual({ name: ['The name has already been taken.'] });
    expect(await refused(` ${t.b.business.name} `)).toEqual({ name: ['The name has already been taken.'] });
    expect(await refused('2024')).toEqual({ name: ['The name must not be a number alone.'] });
    expect(await refused('   ')).toEqual({ name: ['The name must be a string.'] });
    expect(await refused('x'.repeat(201))).toEqual({ name: ['The name must not be greater than 200 characters.'] });
    expect((await t.a.client.GET('/business')).data!.data.name).toBe(t.a.business.name);

    const renamed = await t.a.client.PATCH('/business', { body: { name: '  Kedai Kopi Ah Seng Sdn Bhd ' } });
    expect(renamed.response.status).toBe(200);
    // The display name follows the own name while none is set.
    expect(renamed.data!.data).toMatchObject({ name: 'Kedai Kopi Ah Seng Sdn Bhd', display_name: 'Kedai Kopi Ah Seng Sdn Bhd' });
    expect((await t.b.client.GET('/business')).data!.data.name).toBe(t.b.business.name);
    // The name A had is free again, for A or anyone.
    const back = await t.a.client.PATCH('/business', { body: { name: t.a.business.name } });
    expect(back.data!.data.name).toBe(t.a.business.name);
  });

  it('changes only the fields given, and null gives the business name back', async () => {
    const first = await t.a.client.PATCH('/business', {
      body: {
        display_name: 'Kedai Kopi Ah Seng',
        support_email: 'hello@ahseng.example.com',
        support_phone: '+60 3-1234 5678',
        website_url: 'https://ahseng.example.com/',
        default_locale: 'ms',
        time_zone: 'Asia/Singapore',
      },
    });
    expect(first.response.status).toBe(200);
    expect(first.data!.data).toMatchObject({
      display_name: 'Kedai Kopi Ah Seng',
      default_locale: 'ms',
      time_zone: 'Asia/Singapore',
      support_phone: '+60 3-1234 5678',
      website_url: 'https://ahseng.example.com/',
    });
    const second = await t.a.client.PATCH('/business', { body: { brand_color: '#0B6E4F' } });
    expect(second.data!.data).toMatchObject({ display_name: 'Kedai Kopi Ah Seng', brand_color: '#0b6e4f', button_text_color: '#ffffff' });
    expect(second.data!.data.updated_at).toMatch(/Z$/);
    const cleared = await t.a.client.PATCH('/business', { body: { display_name: null, website_url: null } });
    expect(cleared.data!.data.display_name).toBe(t.a.business.name);
    expect(cleared.data!.data.website_url).toBeNull();
    // Another business is untouched.
    expect((await t.b.client.GET('/business')).data!.data.display_name).toBe(t.b.business.name);
  });

  it('gives a mid-tone colour dark button text, so both reach WCAG AA', async () => {
    const { data } = await t.a.client.PATCH('/business', { body: { brand_color: '#e07000' } });
    expect(data!.data).toMatchObject({ brand_color: '#e07000', button_text_color: '#000000' });
  });

  it('refuses a colour too pale to stand out on white, saying why, and other bad values, Laravel-style', async () => {
    const { response, error } = await t.a.client.PATCH('/business', {
      body: { brand_color: '#ffd400', time_zone: 'Mars/Olympus', default_locale: 'fr' as never, support_email: 'nope' },
    });
    expect(response.status).toBe(422);
    const errors = (error as { errors: Record<string, string[]> }).errors;
    expect(errors.brand_color![0]).toMatch(/contrast of at least 3:1 against the white page.*#ffd400 has 1\.\d\d:1/);
    expect(errors.time_zone).toEqual(['The time zone must be a valid zone.']);
    expect(errors.default_locale).toBeDefined();
    expect(errors.support_email).toBeDefined();
    const bad = await t.a.client.PATCH('/business', { body: { brand_color: 'blue' } });
    expect(bad.response.status).toBe(422);
    // A website payers are sent to is a web address, never a script or another scheme.
    for (const website_url of ['javascript:alert(1)', 'ftp://ahseng.example.com/', 'ahseng.example.com', 'https://ahseng.example.com/a b']) {
      const refused = await t.a.client.PATCH('/business', { body: { website_url } });
      expect(refused.response.status, website_url).toBe(422);
      expect(Object.keys((refused.error as { errors: Record<string, string[]> }).errors)).toEqual(['website_url']);
    }
  });
});

describe('the logo', () => {
  it('is stored from its bytes and served with their own type and nosniff, then removed', async () => {
    const put = await t.a.client.PUT('/business/logo', { body: { image: PNG_1X1.toString('base64') } });
    expect(put.response.status).toBe(200);
    const logo = put.data!.data.logo!;
    expect(logo.content_type).toBe('image/png');
    const served = await fetch(logo.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    const image = PNG.sync.read(Buffer.from(await served.arrayBuffer()));
    expect([image.width, image.height]).toEqual([1, 1]);

    const removed = await t.a.client.DELETE('/business/logo');
    expect(removed.data!.data.logo).toBeNull();
    expect((await fetch(logo.url)).status).toBe(404);
  });

  it('refuses SVG, a text file named like an image, bad base64 and anything over 256 KB', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    for (const image of [svg.toString('base64'), Buffer.from('GIF89a not ours').toString('base64')]) {
      const { response, error } = await t.a.client.PUT('/business/logo', { body: { image } });
      expect(response.status).toBe(422);
      expect(error).toEqual({ message: 'The given data was invalid.', errors: { image: ['The image must be a file of type: png, jpeg, webp.'] } });
    }
    const notBase64 = await t.a.client.PUT('/business/logo', { body: { image: 'not base64!' } });
    expect((notBase64.error as { errors: object }).errors).toEqual({ image: ['The image must be a valid base64 string.'] });
    const exactly = Buffer.concat([PNG_1X1, Buffer.alloc(256 * 1024 - PNG_1X1.length)]);
    const fits = await t.a.client.PUT('/business/logo', { body: { image: exactly.toString('base64') } });
    expect(fits.response.status).toBe(200);
    await t.a.client.DELETE('/business/logo');
    const big = Buffer.concat([exactly, Buffer.alloc(1)]);
    const tooBig = await t.a.client.PUT('/business/logo', { body: { image: big.toString('base64') } });
    expect((tooBig.error as { errors: object }).errors).toEqual({ image: ['The image must not be greater than 256 kilobytes.'] });
    expect((await t.a.client.GET('/business')).data!.data.logo).toBeNull();
  });

  it('is served only while it is the business’s current logo', async () => {
    const put = await t.a.client.PUT('/business/logo', { body: { image: PNG_1X1.toString('base64') } });
    const url = new URL(put.data!.data.logo!.url);
    const other = url.pathname.replace(/-[0-9a-f]{16}$/, '-0000000000000000');
    expect((await fetch(new URL(other, url))).status).toBe(404);
    expect((await fetch(new URL('/assets/logos/../../etc', url))).status).toBe(404);
  });
});
