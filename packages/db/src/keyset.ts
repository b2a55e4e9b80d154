type FieldIs<Field extends string, Value> = { [K in Field]: Value };

/** The Prisma `where` of {@link olderThanCursor}: rows after the cursor, newest first. */
export interface OlderThanCursor<Time extends string, Id extends string, IdValue> {
  AND: [
    FieldIs<Time, { lte: Date }>,
    { OR: [FieldIs<Time, { lt: Date }>, FieldIs<Time, Date> & FieldIs<Id, { lt: IdValue }>] },
  ];
}

/**
 * The rows after the cursor's row in a list ordered `time DESC, id DESC` (the next keyset page),
 * as a Prisma `where` to spread into the list's own (it sets only `AND`):
 * `time <= at AND (time < at OR (time = at AND id < cursor's id))`.
 *
 * The first bound follows from the second, but it is the one PostgreSQL can use as an index
 * condition on (…, time, id): with the OR alone it reads the index from the newest row
 * down to the cursor and filters every row in between (docs/benchmarks.md#scale: a page days back
 * in 3 M messages, p99 490–605 ms without the bound, 13–27 ms with it).
 */
export function olderThanCursor<Time extends string, Id extends string, IdValue>(
  time: Time,
  id: Id,
  cursor: { at: Date; id: IdValue },
): OlderThanCursor<Time, Id, IdValue> {
  return {
    AND: [
      fieldIs(time, { lte: cursor.at }),
      {
        OR: [
          fieldIs(time, { lt: cursor.at }),
          { ...fieldIs(time, cursor.at), ...fieldIs(id, { lt: cursor.id }) },
        ],
      },
    ],
  };
}

const fieldIs = <Field extends string, Value>(field: Field, value: Value) =>
  ({ [field]: value }) as FieldIs<Field, Value>;
