/**
 * PostgreSQL's shared buffers for PGlite in a data folder, on its own so that the configuration can
 * read NAABA_PGLITE_BUFFERS_MB without loading PGlite (which has no place in a function's bundle).
 *
 * The local server and `naaba serve` keep their database in a data folder, where PGlite's default is
 * 128 MB. A recall at 50,000 memories in one partition reads its nearest cells' 2,000 memories
 * (`FUSION.cellRows`) by their index, scattered over the heap; at 128 MB those pages kept falling
 * out, and each miss is a read from the file. Hybrid p50 at 50,000 over p50 at 500 (`npm run
 * bench:partition -- --engine pglite`) was 2.53–2.63 at 128 MB, 2.08–2.11 at 256 MB and 2.09–2.13 at
 * 512 MB. The buffers are resident from the moment the database opens: an idle server holds about
 * 150 MB more than at the default with 256 MB, 390 MB more with 512 MB (decision 0123). A smaller
 * machine can lower it; a database in memory (the tests) keeps PGlite's default.
 */
export const PGLITE_BUFFERS_MB = { default: 256, min: 16, max: 1024 } as const;
