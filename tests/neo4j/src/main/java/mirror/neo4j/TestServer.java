package mirror.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * mirror's test Neo4j: Neo4j Community embedded, with only the Bolt connector, on
 * 127.0.0.1.
 *
 * <p>Usage: {@code TestServer [DATA_DIR]}. Without a directory the data goes to a fresh
 * temporary directory that is deleted at shutdown; with one, the directory is used as it is
 * (so a server killed with SIGKILL can be started again on its data and recovers).
 *
 * <p>Environment: {@code NEO4J_PORT} (default 0: a free port), {@code NEO4J_PASSWORD} (when
 * set, authentication is on and user {@code neo4j} has that password; otherwise auth is off),
 * {@code NEO4J_PAGECACHE_MB} (default 64), {@code NEO4J_CONF_FILE} (a file of
 * {@code neo4j.conf} settings, e.g. {@code db.tx_log.rotation.retention_policy=2 files}
 * for a long load on a small disk; the settings above take precedence).
 *
 * <p>Prints exactly one line {@code NEO4J_READY bolt://127.0.0.1:PORT} on stdout once Bolt
 * accepts connections. Shuts down cleanly on SIGTERM or when stdin reaches end of file, so a
 * test that dies never leaves a JVM behind.
 */
public final class TestServer {
    private TestServer() {}

    public static void main(String[] args) throws Exception {
        final Path home;
        final boolean temporary;
        if (args.length > 0) {
            home = Path.of(args[0]).toAbsolutePath();
            Files.createDirectories(home);
            temporary = false;
        } else {
            home = Files.createTempDirectory("mirror-neo4j-");
            temporary = true;
        }
        System.err.println("mirror test Neo4j: data in " + home + (temporary ? " (deleted at shutdown)" : ""));
        int port = Integer.parseInt(envOr("NEO4J_PORT", "0"));
        long pageCacheMb = Long.parseLong(envOr("NEO4J_PAGECACHE_MB", "64"));
        String password = System.getenv("NEO4J_PASSWORD");
        boolean auth = password != null && !password.isEmpty();

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home);
        String confFile = System.getenv("NEO4J_CONF_FILE");
        if (confFile != null && !confFile.isEmpty()) {
            // Read first, so that the settings below (Bolt on 127.0.0.1, auth, page cache)
            // are never changed by it.
            builder.loadPropertiesFromFile(Path.of(confFile));
        }
        DatabaseManagementService dbms = builder
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(GraphDatabaseSettings.auth_enabled, auth)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                .build();

        Thread shutdown = new Thread(() -> {
            dbms.shutdown();
            if (temporary) {
                deleteTree(home);
            }
            System.err.println("mirror test Neo4j: stopped cleanly");
        }, "mirror-neo4j-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdown);

        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        if (auth) {
            // The embedded DBMS creates user neo4j with the default password and a forced
            // change; set the given one instead (a parameter, never a literal).
            dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                    java.util.Map.of("password", password));
        }
        var ports = ((GraphDatabaseAPI) db).getDependencyResolver()
                .resolveDependency(ConnectorPortRegister.class);
        var bound = ports.getLocalAddress(ConnectorType.BOLT);
        waitForBolt(bound.getHost(), bound.getPort());
        System.out.println("NEO4J_READY bolt://127.0.0.1:" + bound.getPort());
        System.out.flush();

        // Stop when whoever started us goes away (stdin closed) or on SIGTERM (the hook).
        InputStream in = System.in;
        byte[] buf = new byte[256];
        try {
            while (in.read(buf) >= 0) {
                // Input is ignored; only its end matters.
            }
        } catch (IOException e) {
            // A broken stdin counts as closed.
        }
        System.exit(0);
    }

    private static String envOr(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? fallback : v;
    }

    private static void waitForBolt(String host, int port) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 500);
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("Bolt did not accept connections on port " + port);
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + root + ": " + e);
        }
    }
}
