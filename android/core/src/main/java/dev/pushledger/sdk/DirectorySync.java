package dev.pushledger.sdk;

import java.io.File;
import java.io.IOException;

import org.jetbrains.annotations.NotNull;

/**
 * Makes the renames and deletions in a directory durable (fsync of the directory). The core's
 * default uses java.nio.file ({@link NioDirectorySync}, Android API 26+); the Android adapter
 * passes one over {@code android.system.Os} on older devices.
 */
public interface DirectorySync {
    void sync(@NotNull File directory) throws IOException;
}
