-- The portal's link search (src/paymentLinks/sql.ts, searchLinks) finds a text inside the description
-- with ILIKE '%text%', which no btree can serve: on 200,000 links of one merchant a text only a few
-- old links hold read every one of them (docs/performance.md, Link search). A trigram index serves
-- ILIKE for a text of three characters or more; the exact reference is found by the primary key.
--
-- A plain CREATE INDEX, not CONCURRENTLY: the migration runner (src/db/migrate.ts) runs each file in
-- a transaction, where CONCURRENTLY is refused. It blocks writes to payment_links (reads go on)
-- while it builds, once, as the new version starts: 1.3-2.3 s for 200,000 links on PostgreSQL, 7.5 s
-- on the embedded database, which serves nothing until its migrations are done (docs/performance.md,
-- Link search). The index keeps GIN's fast update: a new link's trigrams wait in a pending list that
-- a vacuum merges, instead of costing each create (20,000 rows each holding a random 32-character
-- word: 0.5 s with it, 6.9 s without).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX payment_links_description_trgm_idx ON payment_links USING gin (description gin_trgm_ops);
