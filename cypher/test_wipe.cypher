// Empties the database, in transactions of 10,000 nodes (tests and `mirror bench ingest
// --store neo4j`, which runs only on a database that held nothing of mirror's).
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS
