package dev.pushledger.sdk;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code pushledger serve} on a free port, against one database made for this JVM
 * ({@code DATABASE_URL} names the cluster; {@code pushledger migrate} and {@code keys create}
 * prepare it). Stored rows are counted with {@code psql}. Tests tell their events apart by
 * installation id, so they share the database.
 */
final class IngestServer implements AutoCloseable {
    private static final String BIN = requireEnv("PUSHLEDGER_BIN");
    private static Database database;

    /** The database and its keys, made once per JVM. */
    static final class Database {
        final String url;
        final String telemetryKey;
        final String sendsKey;

        Database(String url, String telemetryKey, String sendsKey) {
            this.url = url;
            this.telemetryKey = telemetryKey;
            this.sendsKey = sendsKey;
        }
    }

    static synchronized Database database() throws IOException {
        if (database != null) return database;
        String admin = requireEnv("DATABASE_URL");
        String name = "pl_android_" + UUID.randomUUID().toString().substring(0, 8);
        run(new String[] {"psql", admin, "-v", "ON_ERROR_STOP=1", "-qc", "create database " + name}, null);
        URI u = URI.create(admin);
        String url = u.getScheme() + "://" + u.getRawAuthority() + "/" + name + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        run(new String[] {BIN, "migrate", "--log-level", "warning"}, url);
        String telemetry = run(new String[] {BIN, "keys", "create", "--app", Fixtures.APP, "--scope", "telemetry", "--log-level", "warning"}, url).trim();
        String sends = run(new String[] {BIN, "keys", "create", "--app", Fixtures.APP, "--scope", "sends", "--log-level", "warning"}, url).trim();
        database = new Database(url, telemetry, sends);
        return database;
    }

    final Database db;
    final int port;
    private Process process;
    private final File log;

    IngestServer() throws IOException {
        db = database();
        port = freePort();
        log = File.createTempFile("serve-" + port + "-", ".log");
        start();
    }

    /**
     * A port free now on 127.0.0.1 below the kernel's ephemeral range, scanned from a random point:
     * the rule of scripts/free-port.sh (a client's outgoing connection can hold an ephemeral port,
     * and the server then cannot bind it although nothing listens there).
     */
    static int freePort() throws IOException {
        int low = 20000;
        int high = 32767;
        // Read line by line: readAllBytes trusts the size procfs reports and stops short.
        try (java.io.BufferedReader reader = java.nio.file.Files.newBufferedReader(
                java.nio.file.Paths.get("/proc/sys/net/ipv4/ip_local_port_range"), StandardCharsets.UTF_8)) {
            String line = reader.readLine();
            int ephemeral = line == null ? 0 : Integer.parseInt(line.trim().split("\\s+")[0]);
            if (ephemeral > low) high = ephemeral - 1;
        } catch (IOException | NumberFormatException e) {
            // Not Linux, or unreadable: the usual range's start.
        }
        int span = high - low + 1;
        int start = new java.util.Random().nextInt(span);
        for (int i = 0; i < span; i++) {
            int candidate = low + (start + i) % span;
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress("127.0.0.1", candidate));
                return candidate;
            } catch (IOException taken) {
                // the next one
            }
        }
        throw new IOException("no free port in " + low + "-" + high);
    }

    String url() { return "http://127.0.0.1:" + port; }

    String key() { return db.telemetryKey; }

    private void start() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(BIN, "serve", "--listen", "127.0.0.1:" + port, "--log-level", "warning");
        builder.environment().put("DATABASE_URL", db.url);
        builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
        process = builder.start();
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline && process.isAlive()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                sleep(50);
            }
        }
        throw new IOException("serve never listened: " + new String(java.nio.file.Files.readAllBytes(log.toPath()), StandardCharsets.UTF_8));
    }

    /** SIGKILL, and a new server on the same port. */
    void killAndRestart() throws IOException {
        kill();
        start();
    }

    /** A new server on the same port after {@link #kill()}. */
    void restart() throws IOException { start(); }

    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        kill();
        log.delete();
    }

    /** Event id → stored rows of that id, over every telemetry table, for one installation. */
    Map<UUID, Integer> stored(UUID installation) throws IOException {
        StringBuilder union = new StringBuilder();
        for (String table : new String[] {"settings_snapshots", "permission_prompts", "experiment_exposures", "notification_receipts",
                "notification_opens", "token_registrations"}) {
            union.append(union.length() == 0 ? "" : " union all ").append("select event_id, installation_id from ").append(table);
        }
        String out = psql("select event_id, count(*) from (" + union + ") s where installation_id = '" + installation + "' group by 1");
        Map<UUID, Integer> counts = new HashMap<>();
        for (String line : out.split("\n")) {
            if (line.isEmpty()) continue;
            String[] parts = line.split("\\|");
            counts.put(UUID.fromString(parts[0]), Integer.parseInt(parts[1]));
        }
        return counts;
    }

    String psql(String sql) throws IOException {
        return run(new String[] {"psql", db.url, "-v", "ON_ERROR_STOP=1", "-XAtqc", sql}, null);
    }

    /** Runs a command to its end; its stdout, or an IOException with its output. */
    static String run(String[] command, String databaseUrl) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(false);
        if (databaseUrl != null) builder.environment().put("DATABASE_URL", databaseUrl);
        String sqlDir = System.getenv("PUSHLEDGER_SQL_DIR");
        if (sqlDir != null) builder.environment().put("PUSHLEDGER_SQL_DIR", sqlDir);
        Process p = builder.start();
        byte[] out = Streams.readAll(p.getInputStream());
        byte[] err = Streams.readAll(p.getErrorStream());
        try {
            if (p.waitFor() != 0) {
                throw new IOException(String.join(" ", command[0], command[1]) + " exited " + p.exitValue() + ": " + new String(err, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    static String requireEnv(String name) {
        String value = System.getenv(name);
        if (value == null || value.isEmpty()) throw new IllegalStateException(name + " is not set (run the suite with scripts/android.sh test)");
        return value;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n")) if (!line.isEmpty()) lines.add(line);
        return lines;
    }
}
