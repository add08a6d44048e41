package dev.pushledger.sdk;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

import org.jetbrains.annotations.NotNull;

/** fsync of a directory through {@link FileChannel#force(boolean)} (JVM; Android API 26+). */
public final class NioDirectorySync implements DirectorySync {
    @Override
    public void sync(@NotNull File directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory.toPath(), StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
