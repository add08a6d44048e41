package dev.pushledger.sdk.android;

import android.system.ErrnoException;
import android.system.Os;
import android.system.OsConstants;

import androidx.annotation.NonNull;

import java.io.File;
import java.io.FileDescriptor;
import java.io.IOException;

import dev.pushledger.sdk.DirectorySync;

/** Directory fsync through {@code android.system.Os} (API 21+), for devices below API 26 where java.nio.file is missing. */
final class OsDirectorySync implements DirectorySync {
    @Override
    public void sync(@NonNull File directory) throws IOException {
        try {
            FileDescriptor fd = Os.open(directory.getPath(), OsConstants.O_RDONLY, 0);
            try {
                Os.fsync(fd);
            } finally {
                Os.close(fd);
            }
        } catch (ErrnoException e) {
            throw new IOException("fsync of " + directory + " failed: " + e.getMessage(), e);
        }
    }
}
