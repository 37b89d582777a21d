const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a well-formed uuid (any case): anything else can name no row, and would fail PostgreSQL's cast. */
export const isUuid = (text: string): boolean => UUID.test(text);
