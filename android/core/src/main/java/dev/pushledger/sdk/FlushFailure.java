package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/** Why a flush stopped before the journal was empty. Every kind keeps the events. */
public final class FlushFailure {
    public enum Kind {
        /** 401/403: the key is unknown, revoked, of the wrong scope or app (a new key fixes it). */
        UNAUTHORIZED,
        /** 429, 503, other 5xx: retried with backoff, still failing. */
        UNAVAILABLE,
        /** No answer: connection refused, timeout, TLS … */
        NETWORK,
        /** An answer the SDK cannot act on (404, 415 …): most likely a wrong base URL. */
        UNEXPECTED,
        /** Another process or thread held the journal's flush lock for the whole wait. */
        BUSY
    }

    public final @NotNull Kind kind;
    /** The HTTP status (0 without an answer). */
    public final int status;
    /** The server's error code, or {@code http_<status>}; for NETWORK the exception's text. */
    public final @Nullable String code;

    FlushFailure(@NotNull Kind kind, int status, @Nullable String code) {
        this.kind = kind;
        this.status = status;
        this.code = code;
    }

    @Override
    public String toString() {
        switch (kind) {
            case UNAUTHORIZED: return "HTTP " + status + " " + code + ": check the telemetry key";
            case UNAVAILABLE: return "HTTP " + status + " " + code + ": server unavailable, will retry";
            case NETWORK: return "network: " + code;
            case UNEXPECTED: return "HTTP " + status + " " + code + ": check the base URL";
            default: return "another process is flushing this journal";
        }
    }
}
