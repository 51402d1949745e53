// Selects PostgreSQL (TEST_DATABASE_URL) for the test files of this Jest project.
process.env.TEST_DB_KIND = 'postgresql';
