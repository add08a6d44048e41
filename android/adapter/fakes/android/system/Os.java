package android.system;

import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.pushledger.fakes.Api;

/** Fake: a directory fsync done with the JVM's own, counted (the SDK uses it below API 26). */
public final class Os {
    private static final Map<FileDescriptor, FileChannel> OPEN = new IdentityHashMap<>();
    public static final AtomicInteger FSYNCS = new AtomicInteger();

    private Os() {}

    public static FileDescriptor open(String path, int flags, int mode) throws ErrnoException {
        Api.since(21, "Os.open");
        try {
            FileDescriptor fd = new FileDescriptor();
            synchronized (OPEN) {
                OPEN.put(fd, FileChannel.open(Paths.get(path), StandardOpenOption.READ));
            }
            return fd;
        } catch (IOException e) {
            throw new ErrnoException("open", 2);
        }
    }

    public static void fsync(FileDescriptor fd) throws ErrnoException {
        FileChannel channel;
        synchronized (OPEN) {
            channel = OPEN.get(fd);
        }
        if (channel == null) throw new ErrnoException("fsync", 9);
        try {
            channel.force(true);
            FSYNCS.incrementAndGet();
        } catch (IOException e) {
            throw new ErrnoException("fsync", 5);
        }
    }

    public static void close(FileDescriptor fd) throws ErrnoException {
        FileChannel channel;
        synchronized (OPEN) {
            channel = OPEN.remove(fd);
        }
        if (channel == null) throw new ErrnoException("close", 9);
        try {
            channel.close();
        } catch (IOException e) {
            throw new ErrnoException("close", 5);
        }
    }
}
