package dev.pushledger.sdk;

import java.io.File;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/**
 * Everything a ledger needs. Only the four arguments of {@link #builder} have no default; the
 * platform is always {@code android}.
 */
public final class PushLedgerConfig {
    public final @NotNull String appId;
    /** The ingest server's base URL; {@code /v1/telemetry} is appended. */
    public final @NotNull String baseUrl;
    /** A {@code telemetry}-scoped key: it ships inside the app and can only write telemetry. */
    final @NotNull String telemetryKey;
    /** The journal's directory: on Android {@code Context.getNoBackupFilesDir()}, so Auto Backup never clones the installation id. */
    public final @NotNull File storageDir;
    public final @Nullable String appVersion;
    public final @Nullable String osVersion;
    public final @Nullable Integer sdkInt;
    public final int maxJournalEvents;
    public final long maxJournalBytes;
    public final @NotNull IngestLimits limits;
    public final int maxBatchEvents;
    public final @NotNull RetryPolicy retry;
    public final long lockWaitMillis;
    public final int requestTimeoutMillis;
    public final @NotNull PushLedgerLogger logger;
    public final @NotNull PushLedgerTransport transport;
    public final @NotNull DirectorySync directorySync;
    public final @NotNull Clock clock;

    private PushLedgerConfig(Builder b) {
        appId = b.appId;
        baseUrl = b.baseUrl;
        telemetryKey = b.telemetryKey;
        storageDir = b.storageDir;
        appVersion = bounded(b.appVersion);
        osVersion = bounded(b.osVersion);
        sdkInt = b.sdkInt != null && b.sdkInt >= 1 && b.sdkInt <= 1000 ? b.sdkInt : null;
        maxJournalEvents = b.maxJournalEvents;
        maxJournalBytes = b.maxJournalBytes;
        limits = b.limits;
        maxBatchEvents = b.maxBatchEvents;
        retry = b.retry;
        lockWaitMillis = b.lockWaitMillis;
        requestTimeoutMillis = b.requestTimeoutMillis;
        logger = b.logger;
        transport = b.transport;
        directorySync = b.directorySync;
        clock = b.clock;
    }

    /** Versions the contract would refuse (empty, over 128 bytes) are left out rather than failing every batch. */
    private static @Nullable String bounded(@Nullable String version) {
        return version == null || FieldReader.stringProblem(version, FieldReader.VERSION) != null ? null : version;
    }

    /**
     * {@code appId}: the app as PushLedger knows it (the key's app); {@code baseUrl}: e.g.
     * {@code https://ingest.example.com}; {@code telemetryKey}: a telemetry-scoped key;
     * {@code storageDir}: where the journal and the installation id live.
     */
    public static @NotNull Builder builder(@NotNull String appId, @NotNull String baseUrl, @NotNull String telemetryKey, @NotNull File storageDir) {
        return new Builder(appId, baseUrl, telemetryKey, storageDir);
    }

    /** Sets the optional parts; each setter returns the builder. */
    public static final class Builder {
        private final String appId, baseUrl, telemetryKey;
        private final File storageDir;
        private @Nullable String appVersion, osVersion;
        private @Nullable Integer sdkInt;
        private int maxJournalEvents = 10_000;
        private long maxJournalBytes = 10L << 20;
        private IngestLimits limits = IngestLimits.defaults();
        private int maxBatchEvents = 500;
        private RetryPolicy retry = RetryPolicy.defaults();
        private long lockWaitMillis = 60_000;
        private int requestTimeoutMillis = 30_000;
        private PushLedgerLogger logger = PushLedgerLogger.STDERR;
        private PushLedgerTransport transport = new HttpUrlConnectionTransport();
        private DirectorySync directorySync = new NioDirectorySync();
        private Clock clock = Clock.SYSTEM;

        private Builder(String appId, String baseUrl, String telemetryKey, File storageDir) {
            this.appId = appId;
            this.baseUrl = baseUrl;
            this.telemetryKey = telemetryKey;
            this.storageDir = storageDir;
        }

        /** Recorded with every event ({@code PackageInfo.versionName}). */
        public @NotNull Builder appVersion(@Nullable String version) { appVersion = version; return this; }

        /** Recorded with every event ({@code Build.VERSION.RELEASE}). */
        public @NotNull Builder osVersion(@Nullable String version) { osVersion = version; return this; }

        /** Recorded with every event ({@code Build.VERSION.SDK_INT}). */
        public @NotNull Builder sdkInt(int sdk) { sdkInt = sdk; return this; }

        /** Journal cap: past either bound the oldest events are dropped and counted (10,000 events, 10 MiB). */
        public @NotNull Builder maxJournal(int events, long bytes) { maxJournalEvents = events; maxJournalBytes = bytes; return this; }

        /** The server's limits, when it was configured below the contract's defaults. */
        public @NotNull Builder limits(@NotNull IngestLimits value) { limits = value; return this; }

        /** Events per request (500; never more than the limits allow). */
        public @NotNull Builder maxBatchEvents(int events) { maxBatchEvents = events; return this; }

        /** Retries within one flush on 429, 5xx and network errors. */
        public @NotNull Builder retry(@NotNull RetryPolicy policy) { retry = policy; return this; }

        /** How long a flush waits for another process's flush before giving up ({@code BUSY}); 60 s. */
        public @NotNull Builder lockWaitMillis(long millis) { lockWaitMillis = millis; return this; }

        public @NotNull Builder requestTimeoutMillis(int millis) { requestTimeoutMillis = millis; return this; }

        public @NotNull Builder logger(@NotNull PushLedgerLogger value) { logger = value; return this; }

        public @NotNull Builder transport(@NotNull PushLedgerTransport value) { transport = value; return this; }

        /** Below API 26 the adapter passes an {@code android.system.Os} one. */
        public @NotNull Builder directorySync(@NotNull DirectorySync value) { directorySync = value; return this; }

        /** The device clock (tests move it). */
        public @NotNull Builder clock(@NotNull Clock value) { clock = value; return this; }

        public @NotNull PushLedgerConfig build() { return new PushLedgerConfig(this); }
    }
}
