package dev.pushledger.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jetbrains.annotations.NotNull;

/**
 * The default transport: {@link HttpURLConnection}, no caches, no cookies. The body is buffered,
 * not streamed in fixed-length mode: the JDK's implementation turns a 401 answer to a streamed
 * request into an {@code HttpRetryException} and loses its body (bodies are at most 1 MiB).
 */
public final class HttpUrlConnectionTransport implements PushLedgerTransport {
    @Override
    public @NotNull Response send(@NotNull Request request) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(request.url).openConnection();
        try {
            connection.setRequestMethod("POST");
            connection.setConnectTimeout(request.timeoutMillis);
            connection.setReadTimeout(request.timeoutMillis);
            connection.setUseCaches(false);
            connection.setInstanceFollowRedirects(false);
            connection.setDoOutput(true);
            for (Map.Entry<String, String> header : request.headers.entrySet()) {
                connection.setRequestProperty(header.getKey(), header.getValue());
            }
            try (OutputStream out = connection.getOutputStream()) {
                out.write(request.body);
            }
            int status = connection.getResponseCode();
            Map<String, String> headers = new HashMap<>();
            for (Map.Entry<String, List<String>> h : connection.getHeaderFields().entrySet()) {
                if (h.getKey() != null && !h.getValue().isEmpty()) headers.put(h.getKey(), h.getValue().get(0));
            }
            InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            return new Response(status, headers, in == null ? new byte[0] : Streams.readAll(in));
        } finally {
            connection.disconnect();
        }
    }
}
