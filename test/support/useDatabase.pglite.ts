// Selects the embedded PGlite database for the test files of this Jest project.
process.env.TEST_DB_KIND = 'pglite';
