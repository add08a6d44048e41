package dev.pushledger.sdk;

import java.io.File;
import java.io.FileOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/**
 * The on-disk journal: one file per event, published by write + fsync + rename + directory
 * fsync, so any number of processes record without a lock and a SIGKILL leaves either the
 * whole event or nothing. Uploading and pruning happen under one lock (a {@link FileLock}
 * between processes plus a semaphore within one, since a second {@code tryLock} in the same
 * process throws), so one flusher at a time removes files, and only after the server answered
 * for them. Layout under {@code <storage>/PushLedger/}, the same as PushLedgerKit's:
 * {@code installation-id}, {@code events/}, {@code incoming/} (files being written),
 * {@code flush.lock}, {@code installation.lock}, {@code dropped-count}.
 */
final class Journal {
    /** One journalled event: {@code <16 hex digits of µs>-<event id>.event}, so names sort in record order. */
    static final class Entry {
        final String name;
        final long bytes;

        Entry(String name, long bytes) {
            this.name = name;
            this.bytes = bytes;
        }

        @Nullable UUID eventId() {
            int dash = name.indexOf('-');
            return dash < 0 || !name.endsWith(".event") ? null : FieldReader.uuid(name.substring(dash + 1, name.length() - 6));
        }
    }

    /** An entry's two lines: the batch context (JSON) and the event's JSON text. */
    static final class Record {
        final String context;
        final String event;

        Record(String context, String event) {
            this.context = context;
            this.event = event;
        }
    }

    /** Held while flushing; released by {@link #close()} or by the kernel when the process dies. */
    static final class Lock implements AutoCloseable {
        private final Semaphore local;
        private final RandomAccessFile file;
        private final FileLock lock;

        Lock(Semaphore local, RandomAccessFile file, FileLock lock) {
            this.local = local;
            this.file = file;
            this.lock = lock;
        }

        @Override
        public void close() {
            try {
                lock.release();
                file.close();
            } catch (IOException ignored) {
                // Closing the file releases the lock in any case.
            } finally {
                local.release();
            }
        }
    }

    private static final long[] LAST_NAME = {0};
    private static final ConcurrentHashMap<String, Semaphore> LOCAL = new ConcurrentHashMap<>();

    final File root;
    final File events;
    final File incoming;
    private final DirectorySync directorySync;
    private final String key;

    Journal(@NotNull File storageDirectory, @NotNull DirectorySync directorySync) throws PushLedgerException {
        root = new File(storageDirectory, "PushLedger");
        events = new File(root, "events");
        incoming = new File(root, "incoming");
        this.directorySync = directorySync;
        for (File directory : new File[] {root, events, incoming}) {
            if (!directory.isDirectory() && !directory.mkdirs() && !directory.isDirectory()) {
                throw new PushLedgerException("storage", "journal mkdir failed at " + directory);
            }
        }
        String canonical;
        try {
            canonical = root.getCanonicalPath();
        } catch (IOException e) {
            canonical = root.getAbsolutePath();
        }
        key = canonical;
    }

    /** The directory's installation id: minted by the first process that asks, kept for ever. */
    @NotNull UUID installationId() throws PushLedgerException {
        File file = new File(root, "installation-id");
        UUID existing = readUuid(file);
        if (existing != null) return existing;
        Lock lock = lock("installation.lock", Long.MAX_VALUE);
        try {
            existing = readUuid(file);
            if (existing != null) return existing;
            UUID minted = UUID.randomUUID();
            publish(minted.toString().getBytes(StandardCharsets.UTF_8), file, root);
            return minted;
        } finally {
            lock.close();
        }
    }

    /**
     * Publishes one event; returns once it is durable. {@code at} has millisecond precision, so
     * within one millisecond the name's microseconds count up: a process's events keep their
     * record order.
     */
    void append(@NotNull UUID eventId, long atMicros, @NotNull String context, @NotNull String event) throws PushLedgerException {
        long micros = Math.max(0, atMicros);
        synchronized (LAST_NAME) {
            if (micros <= LAST_NAME[0] && micros / 1000 == LAST_NAME[0] / 1000) micros = LAST_NAME[0] + 1;
            LAST_NAME[0] = micros;
        }
        String hex = Long.toHexString(micros);
        StringBuilder name = new StringBuilder();
        for (int i = hex.length(); i < 16; i++) name.append('0');
        name.append(hex).append('-').append(eventId).append(".event");
        byte[] bytes = (context + "\n" + event + "\n").getBytes(StandardCharsets.UTF_8);
        publish(bytes, new File(events, name.toString()), events);
    }

    /** The events journalled now, oldest first. */
    @NotNull List<Entry> entries() {
        String[] names = events.list();
        if (names == null) return new ArrayList<>();
        Arrays.sort(names);
        List<Entry> entries = new ArrayList<>(names.length);
        for (String name : names) {
            if (name.endsWith(".event")) entries.add(new Entry(name, new File(events, name).length()));
        }
        return entries;
    }

    /** The entry's record; null when the file is gone or is not a journal record. */
    @Nullable Record read(@NotNull Entry entry) {
        byte[] data;
        try {
            data = Streams.readAll(new FileInputStream(new File(events, entry.name)));
        } catch (IOException e) {
            return null;
        }
        String text = new String(data, StandardCharsets.UTF_8);
        String[] lines = text.split("\n");
        if (lines.length != 2 || !text.endsWith("\n") || !lines[0].startsWith("{") || !lines[1].startsWith("{")) return null;
        return new Record(lines[0], lines[1]);
    }

    boolean contains(@NotNull Entry entry) { return new File(events, entry.name).exists(); }

    /** Removes answered (or unreadable) entries, durably. */
    void remove(@NotNull List<Entry> entries) throws PushLedgerException {
        if (entries.isEmpty()) return;
        for (Entry entry : entries) {
            File file = new File(events, entry.name);
            if (!file.delete() && file.exists()) throw new PushLedgerException("storage", "journal delete failed at " + file);
        }
        syncDirectory(events);
    }

    /** The flush lock, waiting at most {@code waitMillis}; null when another flusher kept it. */
    @Nullable Lock tryFlushLock(long waitMillis) throws PushLedgerException {
        return lockWithin("flush.lock", waitMillis);
    }

    /**
     * Under the flush lock: drops the oldest entries past either cap and adds them to the
     * persistent drop count; removes {@code incoming/} files of writers killed over an hour ago.
     */
    int prune(int maxEvents, long maxBytes, long nowMillis) throws PushLedgerException {
        List<Entry> all = entries();
        long total = 0;
        for (Entry e : all) total += e.bytes;
        List<Entry> drop = new ArrayList<>();
        for (Entry e : all) {
            if (all.size() - drop.size() <= maxEvents && total <= maxBytes) break;
            drop.add(e);
            total -= e.bytes;
        }
        remove(drop);
        if (!drop.isEmpty()) {
            publish(Long.toString(droppedCount() + drop.size()).getBytes(StandardCharsets.UTF_8), new File(root, "dropped-count"), root);
        }
        File[] partial = incoming.listFiles();
        if (partial != null) {
            for (File file : partial) {
                if (nowMillis - file.lastModified() > 3_600_000L) file.delete();
            }
        }
        return drop.size();
    }

    /** A small state file of the directory ({@code token-recorded}, {@code opened}); null when absent or unreadable. */
    @Nullable String readState(@NotNull String name) {
        try {
            return new String(Streams.readAll(new FileInputStream(new File(root, name))), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    /** Replaces a state file durably (whole or not at all). */
    void writeState(@NotNull String name, @NotNull String text) throws PushLedgerException {
        publish(text.getBytes(StandardCharsets.UTF_8), new File(root, name), root);
    }

    /** The directory's lock for read-modify-write of a state file across processes. */
    @NotNull Lock stateLock() throws PushLedgerException { return lock("state.lock", Long.MAX_VALUE); }

    /** Whether recording is switched off on this directory: one marker file, so every process agrees. */
    boolean disabled() { return new File(root, "disabled").exists(); }

    /** Writes or removes the marker, durably. */
    void setDisabled(boolean disabled) throws PushLedgerException {
        File marker = new File(root, "disabled");
        if (disabled) {
            if (!marker.exists()) publish(new byte[0], marker, root);
        } else if (marker.exists()) {
            if (!marker.delete() && marker.exists()) throw new PushLedgerException("storage", "delete failed at "
                    + marker);
            syncDirectory(root);
        }
    }

    /** Events dropped by the cap since the directory was created. */
    long droppedCount() {
        try {
            byte[] data = Streams.readAll(new FileInputStream(new File(root, "dropped-count")));
            return Long.parseLong(new String(data, StandardCharsets.UTF_8).trim());
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    // Durable files.

    /**
     * Writes {@code bytes} to a new file in {@code incoming/}, fsyncs it, renames it to
     * {@code target} and fsyncs {@code directory}: afterwards {@code target} exists with all of
     * {@code bytes}, or (after a crash before the rename) not at all.
     */
    private void publish(byte[] bytes, File target, File directory) throws PushLedgerException {
        File temporary = new File(incoming, UUID.randomUUID() + ".partial");
        try {
            try (FileOutputStream out = new FileOutputStream(temporary)) {
                out.write(bytes);
                out.getFD().sync();
            }
            if (!temporary.renameTo(target)) throw new IOException("rename to " + target + " failed");
            syncDirectory(directory);
        } catch (IOException e) {
            temporary.delete();
            throw new PushLedgerException("storage", "journal write failed at " + target + ": " + e.getMessage(), e);
        }
    }

    private void syncDirectory(File directory) throws PushLedgerException {
        try {
            directorySync.sync(directory);
        } catch (IOException e) {
            throw new PushLedgerException("storage", "journal fsync failed at " + directory + ": " + e.getMessage(), e);
        }
    }

    private @Nullable UUID readUuid(File file) {
        try {
            byte[] data = Streams.readAll(new FileInputStream(file));
            return FieldReader.uuid(new String(data, StandardCharsets.UTF_8).trim());
        } catch (IOException e) {
            return null;
        }
    }

    private Lock lock(String name, long waitMillis) throws PushLedgerException {
        Lock lock = lockWithin(name, waitMillis);
        if (lock == null) throw new PushLedgerException("storage", "journal lock " + name + " not free");
        return lock;
    }

    /** The semaphore of this directory and lock name within the process, then the file lock. */
    private @Nullable Lock lockWithin(String name, long waitMillis) throws PushLedgerException {
        long deadline = waitMillis == Long.MAX_VALUE ? Long.MAX_VALUE : System.currentTimeMillis() + waitMillis;
        Semaphore local = new Semaphore(1);
        Semaphore existing = LOCAL.putIfAbsent(key + "/" + name, local);
        if (existing != null) local = existing;
        try {
            while (true) {
                long left = deadline - System.currentTimeMillis();
                if (local.tryAcquire(Math.max(0, Math.min(left, 20)), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    RandomAccessFile file = null;
                    try {
                        file = new RandomAccessFile(new File(root, name), "rw");
                        FileLock lock = file.getChannel().tryLock();
                        if (lock != null) return new Lock(local, file, lock);
                        file.close();
                    } catch (IOException e) {
                        if (file != null) try { file.close(); } catch (IOException ignored) { /* already failing */ }
                        local.release();
                        throw new PushLedgerException("storage", "journal lock failed at " + name + ": " + e.getMessage(), e);
                    }
                    local.release();
                    Thread.sleep(20);
                }
                if (System.currentTimeMillis() >= deadline) return null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
