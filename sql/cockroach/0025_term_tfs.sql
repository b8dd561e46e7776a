-- naaba 0025 (CockroachDB): each memory keeps how often each of its terms occurs in it (decision
-- 0167); the PostgreSQL twin is ../postgres/0028_term_tfs.sql, where it lets memory_terms_ranked be
-- the postings' only index (../postgres/0029_term_ranked_key.sql). Here memory_terms keeps its
-- primary key (partition, term, memory), which is the table itself, and every statement finds a
-- posting by it: the column is written with `terms` by the same statements, read by none, and the
-- memories already there are not filled. An expansion; an added nullable column is written by
-- the schema changer online, without a rewrite of the primary index's key. Safe to run again.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS term_tfs INT4[];
