/**
 * `= any(array(select …))` over the uuids of a JSON array bound as one value (`$1::jsonb`, `?::jsonb`):
 * `id ${uuidInJson('$1::jsonb')}`. The planner cannot look into the array, so it estimates a few elements
 * and takes the primary key's index, and a kept generic plan stays right whatever the list's length.
 * Written as `id in (select jsonb_array_elements_text(…))`, PostgreSQL estimated 100 ids and hash-joined
 * them against a scan of the whole table while it was small: on webhook_deliveries at 1,564 rows the
 * claim of one delivery read 87 pages twice, 0.93 ms against 0.10 ms with this form.
 */
export const uuidInJson = (json: string) => `= any(array(select jsonb_array_elements_text(${json})::uuid))`;

/** Like uuidInJson, for the `id` field of the objects of a JSON array (`[{"id": …, …}, …]`). */
export const idFieldInJson = (json: string) => `= any(array(select (r ->> 'id')::uuid from jsonb_array_elements(${json}) as r))`;
