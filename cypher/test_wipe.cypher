// Tests only: empties the database (point MIRROR_NEO4J_URI at a throwaway Neo4j).
MATCH (n)
DETACH DELETE n
