package dev.pushledger.sdk;

import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/**
 * How requests leave the device. {@link HttpUrlConnectionTransport} unless the app passes its
 * own (OkHttp, a test double). Throwing means no answer came (a network error): the events stay.
 */
public interface PushLedgerTransport {
    /** One POST the uploader makes. */
    final class Request {
        public final @NotNull String url;
        /** Header names as sent: Authorization, Content-Type, Content-Encoding, X-PushLedger-SDK. */
        public final @NotNull Map<String, String> headers;
        public final byte @NotNull [] body;
        public final int timeoutMillis;

        public Request(@NotNull String url, @NotNull Map<String, String> headers, byte @NotNull [] body, int timeoutMillis) {
            this.url = url;
            this.headers = Collections.unmodifiableMap(new HashMap<>(headers));
            this.body = body;
            this.timeoutMillis = timeoutMillis;
        }
    }

    /** One answer; header names lower-cased. */
    final class Response {
        public final int status;
        public final @NotNull Map<String, String> headers;
        public final byte @NotNull [] body;

        public Response(int status, @NotNull Map<String, String> headers, byte @NotNull [] body) {
            this.status = status;
            Map<String, String> lower = new HashMap<>();
            for (Map.Entry<String, String> h : headers.entrySet()) {
                if (h.getKey() != null && h.getValue() != null) lower.put(h.getKey().toLowerCase(Locale.ROOT), h.getValue());
            }
            this.headers = Collections.unmodifiableMap(lower);
            this.body = body;
        }

        public @Nullable String header(@NotNull String name) { return headers.get(name.toLowerCase(Locale.ROOT)); }
    }

    @NotNull Response send(@NotNull Request request) throws IOException;
}
