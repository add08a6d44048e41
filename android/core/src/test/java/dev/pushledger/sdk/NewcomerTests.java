package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The program of src/newcomer (written from the guide alone) compiled against the jar and
 * org.json only, then run as several processes recording into one directory and flushing,
 * SIGKILLed and restarted at random moments while the server is SIGKILLed and restarted too:
 * every event whose {@code record} returned is stored exactly once.
 */
class NewcomerTests {
    private static final String JAR = System.getProperty("pushledger.jar");
    private static final String JSON = System.getProperty("pushledger.json");
    private static final File SOURCE = new File(System.getProperty("pushledger.newcomer", "android/core/src/newcomer"), "Newcomer.java");

    /** One run of the newcomer program; its printed event ids are collected as they come. */
    static final class Run {
        final Process process;
        final List<UUID> recorded = Collections.synchronizedList(new ArrayList<UUID>());
        final File stderr;
        private final Thread reader;

        Run(File classes, File directory, String url, String key, int count) throws IOException {
            stderr = File.createTempFile("newcomer-", ".log");
            process = new ProcessBuilder("java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes + File.pathSeparator + JAR + File.pathSeparator + JSON,
                "Newcomer", directory.getPath(), url, key, Integer.toString(count), "8")
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr)).start();
            reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        // A line cut by the kill is not a whole id: that record had not returned to the program.
                        if (line.length() == 36) recorded.add(UUID.fromString(line));
                    }
                } catch (IOException ignored) {
                    // The process was killed.
                }
            });
            reader.start();
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            reader.join(5_000);
        }

        boolean finish(long millis) throws InterruptedException {
            boolean done = process.waitFor(millis, TimeUnit.MILLISECONDS);
            reader.join(5_000);
            return done;
        }

        String log() throws IOException { return new String(Files.readAllBytes(stderr.toPath()), StandardCharsets.UTF_8); }
    }

    /** Events per writer, 8 ms apart: a writer records for about 3 s (longer while its flushes wait out an outage). */
    private static final int WRITES = 300;

    @Test
    @Timeout(180)
    void severalKilledProcessesAndAKilledServerStoreEveryRecordedEventOnce() throws Exception {
        File classes = Files.createTempDirectory("newcomer-classes").toFile();
        Process javac = new ProcessBuilder("javac", "-Xlint:all", "-Werror", "-d", classes.getPath(), "-cp", JAR + File.pathSeparator + JSON,
            SOURCE.getPath()).redirectErrorStream(true).start();
        String output = new String(Streams.readAll(javac.getInputStream()), StandardCharsets.UTF_8);
        assertEquals(0, javac.waitFor(), "the guide's program compiles against the jar and org.json alone: " + output);

        Random random = new Random();
        File directory = Fixtures.directory();
        List<Run> runs = new ArrayList<>();
        int killed = 0, serverKills = 0;
        try (IngestServer server = new IngestServer()) {
            for (int i = 0; i < 3; i++) runs.add(new Run(classes, directory, server.url(), server.key(), WRITES));
            // Chaos at random moments: writers killed mid-way (each replaced by a new one) and two
            // server outages, the first shorter than a flush's retries, the second outlasting them.
            for (String step : new String[] {"writer", "server", "writer", "writer", "server", "writer"}) {
                Thread.sleep(300 + random.nextInt(600));
                if (step.equals("server")) {
                    server.kill();
                    Thread.sleep(serverKills == 0 ? 700 : 4_500);
                    server.restart();
                    serverKills++;
                    continue;
                }
                List<Run> alive = new ArrayList<>();
                for (Run run : runs) if (run.process.isAlive() && !run.recorded.isEmpty()) alive.add(run);
                Run victim;
                if (alive.isEmpty()) {
                    victim = new Run(classes, directory, server.url(), server.key(), WRITES);
                    runs.add(victim);
                    int before = 20 + random.nextInt(50);
                    for (int wait = 0; wait < 100 && victim.recorded.size() < before; wait++) Thread.sleep(50);
                } else {
                    victim = alive.get(random.nextInt(alive.size()));
                }
                victim.kill();
                killed++;
                runs.add(new Run(classes, directory, server.url(), server.key(), WRITES));
            }
            for (Run run : runs) assertTrue(run.finish(90_000), "a writer finished: " + run.log());
            // Whatever the killed ones left in the journal, one more flush delivers.
            PushLedger authorized = new PushLedger(Fixtures.config(server.url(), server.key(), directory, new Fixtures.Log()).build());
            authorized.flush();
            assertEquals(0, authorized.pendingCount());

            Set<UUID> recorded = new HashSet<>();
            StringBuilder logs = new StringBuilder();
            for (Run run : runs) {
                recorded.addAll(run.recorded);
                logs.append(run.log());
            }
            Map<UUID, Integer> stored = server.stored(authorized.installationId());
            List<UUID> missing = new ArrayList<>(), twice = new ArrayList<>();
            for (UUID id : recorded) if (!stored.containsKey(id)) missing.add(id);
            for (Map.Entry<UUID, Integer> e : stored.entrySet()) if (e.getValue() != 1) twice.add(e.getKey());
            assertTrue(missing.isEmpty(), missing.size() + " recorded events were not stored");
            assertTrue(twice.isEmpty(), twice.size() + " events were stored more than once");
            // A killed writer may have journalled one event it never got to print.
            assertTrue(stored.size() - recorded.size() <= killed, stored.size() + " stored, " + recorded.size() + " printed, " + killed + " kills");
            assertEquals(4, killed);
            assertEquals(2, serverKills);
            assertTrue(recorded.size() >= 300, "recorded " + recorded.size());
            assertTrue(logs.toString().contains("msg=\"upload retry\"") && logs.toString().contains("reason=\"network: "),
                "some upload met the dead server and was retried");
            assertTrue(logs.toString().contains("flush incomplete: "), "some flush gave up while the server was down, keeping its events");
            assertTrue(logs.toString().contains("flushed: "), "the writers flushed");
        }
    }
}
