import type { Knex } from 'knex';

// Live (not deleted) records per business, so an unfiltered list page knows its total without
// counting the table: COUNT(*) over a business's million payment links grew with the table, a
// lookup here does not. Triggers keep the counts, whatever code or tool writes the rows.
const TABLES = ['payment_links', 'open_payment_links'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('record_counts', (table) => {
    table.integer('business_id').notNullable().references('id').inTable('businesses');
    table.string('kind', 40).notNullable();
    table.bigInteger('live').notNullable();
    table.primary(['business_id', 'kind']);
  });
  for (const name of TABLES) {
    await knex.raw(
      `insert into record_counts (business_id, kind, live) select business_id, ?, count(*) from ${name} where deleted_at is null group by business_id`,
      [name],
    );
  }
  const bump = (name: string, row: 'new' | 'old', delta: number) =>
    `insert into record_counts (business_id, kind, live) values (${row}.business_id, '${name}', ${delta})
     on conflict (business_id, kind) do update set live = record_counts.live + excluded.live`;
  if (knex.client.config.client === 'pg') {
    for (const name of TABLES) {
      await knex.raw(`
        create function ${name}_count() returns trigger language plpgsql as $$
        begin
          if tg_op = 'INSERT' and new.deleted_at is null then ${bump(name, 'new', 1)};
          elsif tg_op = 'UPDATE' and old.deleted_at is null and new.deleted_at is not null then ${bump(name, 'old', -1)};
          elsif tg_op = 'UPDATE' and old.deleted_at is not null and new.deleted_at is null then ${bump(name, 'new', 1)};
          elsif tg_op = 'DELETE' and old.deleted_at is null then ${bump(name, 'old', -1)};
          end if;
          return null;
        end $$`);
      await knex.raw(`create trigger ${name}_count after insert or update of deleted_at or delete on ${name} for each row execute function ${name}_count()`);
    }
  } else {
    for (const name of TABLES) {
      await knex.raw(`create trigger ${name}_count_insert after insert on ${name} when new.deleted_at is null begin ${bump(name, 'new', 1)}; end`);
      await knex.raw(
        `create trigger ${name}_count_delete_soft after update of deleted_at on ${name} when old.deleted_at is null and new.deleted_at is not null begin ${bump(name, 'old', -1)}; end`,
      );
      await knex.raw(
        `create trigger ${name}_count_restore after update of deleted_at on ${name} when old.deleted_at is not null and new.deleted_at is null begin ${bump(name, 'new', 1)}; end`,
      );
      await knex.raw(`create trigger ${name}_count_delete after delete on ${name} when old.deleted_at is null begin ${bump(name, 'old', -1)}; end`);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const name of TABLES) {
    if (knex.client.config.client === 'pg') {
      await knex.raw(`drop trigger if exists ${name}_count on ${name}`);
      await knex.raw(`drop function if exists ${name}_count()`);
    } else {
      for (const suffix of ['insert', 'delete_soft', 'restore', 'delete']) await knex.raw(`drop trigger if exists ${name}_count_${suffix}`);
    }
  }
  await knex.schema.dropTableIfExists('record_counts');
}
