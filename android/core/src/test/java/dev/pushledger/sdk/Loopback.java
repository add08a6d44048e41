package dev.pushledger.sdk;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import org.json.JSONObject;

/**
 * A scripted ingest endpoint on 127.0.0.1 (the JDK's own HTTP server), for the statuses the real
 * server cannot be made to answer on demand. Each request's gunzipped body is kept.
 */
final class Loopback implements AutoCloseable {
    /** One request as it arrived. */
    static final class Request {
        final Map<String, List<String>> headers;
        final JSONObject body;

        Request(Map<String, List<String>> headers, JSONObject body) {
            this.headers = headers;
            this.body = body;
        }

        int events() { return body.optJSONArray("events").length(); }
    }

    /** The answer to one request. */
    static final class Answer {
        final int status;
        final String contentType;
        final String body;
        final String retryAfter;

        Answer(int status, String contentType, String body, String retryAfter) {
            this.status = status;
            this.contentType = contentType;
            this.body = body;
            this.retryAfter = retryAfter;
        }

        static Answer ok(Request r) {
            return new Answer(200, "application/json", "{\"accepted\":" + r.events()
                    + ",\"duplicates\":0,\"rejected\":[]}", null);
        }

        /** PushLedger's own error answer. */
        static Answer error(int status, String code) {
            return new Answer(status, "application/json", "{\"error\":\"" + code + "\",\"message\":\"scripted "
                    + status + "\"}", null);
        }

        /** A proxy's or firewall's page. */
        static Answer html(int status) {
            return new Answer(status, "text/html", "<html><body>" + status + " from a proxy</body></html>", null);
        }
    }

    interface Script { Answer answer(Request request, int number); }

    private final HttpServer server;
    final List<Request> requests = Collections.synchronizedList(new ArrayList<Request>());

    Loopback(Script script) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/telemetry", exchange -> {
            byte[] raw = Streams.readAll(new GZIPInputStream(exchange.getRequestBody()));
            Request request;
            try {
                request = new Request(exchange.getRequestHeaders(), new JSONObject(new String(raw, StandardCharsets.UTF_8)));
            } catch (org.json.JSONException e) {
                throw new IOException("the SDK sent a body that is not a JSON object", e);
            }
            int number;
            synchronized (requests) {
                requests.add(request);
                number = requests.size();
            }
            Answer answer = script.answer(request, number);
            if (answer.retryAfter != null) exchange.getResponseHeaders().add("Retry-After", answer.retryAfter);
            if (answer.contentType != null) exchange.getResponseHeaders().add("Content-Type", answer.contentType);
            byte[] body = answer.body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.status, body.length == 0 ? -1 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    String url() { return "http://127.0.0.1:" + server.getAddress().getPort(); }

    @Override
    public void close() { server.stop(0); }
}
