// The floor of the scale bench's stalls: the least work any Node server must do to answer a page of
// the seeded business's payments, with no framework, validation or formatting. A bare node:http
// server reads the page's rows through the same driver from the same database (better-sqlite3 on
// the service's file, node-postgres on its database) and writes them as JSON. The bench runs it with
// the same event-loop probe (loop-delay.ts), connections and duration as the service, so the two
// stalls are measured alike on the same machine at the same moment: what the floor stalls, no
// service written in Node on this machine can stall less.
// Usage (by scale.ts): node --import tsx --import loop-delay.ts scale-floor.ts <database url> <port>
import { createServer } from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';

const [databaseUrl, port] = process.argv.slice(2) as [string, string];

/** The seeded business's payments, newest first, `offset` rows in: the statement the service's page runs, without its filters. */
function pageReader(): (businessId: number, offset: number) => Promise<unknown[]> {
  const columns = '*';
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    db.pragma('query_only = ON');
    const page = db.prepare(
      `select ${columns} from payments indexed by payments_page_index where business_id = ? order by created_at desc, _id desc limit 100 offset ?`,
    );
    return async (businessId, offset) => page.all(businessId, offset);
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  return async (businessId, offset) =>
    (await pool.query(`select ${columns} from payments where business_id = $1 order by created_at desc, _id desc limit 100 offset $2`, [businessId, offset])).rows;
}

const read = pageReader();
createServer((request, response) => {
  const query = new URL(request.url ?? '/', 'http://floor').searchParams;
  read(Number(query.get('business') ?? 1), Number(query.get('offset') ?? 0)).then(
    (rows) => {
      const body = JSON.stringify({ data: rows });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    },
    (error: Error) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(error.message);
    },
  );
}).listen(Number(port), '127.0.0.1', () => console.log('floor listening'));
