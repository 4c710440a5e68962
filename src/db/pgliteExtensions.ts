import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/**
 * The extensions every PGlite instance is created with: the migrations use them (pg_trgm for the
 * portal's link search, migrations/0029_link_search_trigram.sql), so a folder made with them cannot
 * be opened without them. Every place that creates a PGlite passes these.
 */
export const PGLITE_EXTENSIONS = { pg_trgm };
