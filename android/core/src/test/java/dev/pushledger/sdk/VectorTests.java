package dev.pushledger.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every file of docs/contract/vectors, judged by the core's validator and by the real server's
 * {@code ?dry_run=true}: both must give the vector's answer, and each other's. Vectors about what
 * the SDK never judges (sends, key scopes, content types) are checked against the server only.
 */
class VectorTests {
    private static final File DIRECTORY = new File(System.getProperty("pushledger.vectors", "docs/contract/vectors"));
    private static final Pattern TIME = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z");
    private static IngestServer server;

    @BeforeAll
    static void start() throws Exception { server = new IngestServer(); }

    @AfterAll
    static void stop() { server.close(); }

    @Test
    void everyVectorGetsTheSameAnswerFromTheCoreAndTheServer() throws Exception {
        File[] files = DIRECTORY.listFiles((dir, name) -> name.endsWith(".json"));
        assertTrue(files != null && files.length >= 15, "the vectors are at " + DIRECTORY.getAbsolutePath());
        Arrays.sort(files);
        int judged = 0;
        List<String> failures = new ArrayList<>();
        for (File file : files) {
            long now = System.currentTimeMillis();
            JSONObject vector = new JSONObject(fill(new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8), now));
            String body = vector.has("body_text") ? vector.getString("body_text") : body(vector.getJSONObject("body"));
            String path = vector.getString("path"), key = vector.getString("key"), type = vector.getString("content_type");
            JSONObject expect = vector.getJSONObject("expect");
            Object[] answer = post(path + "?dry_run=true", key, type, body);
            int status = (Integer) answer[0];
            JSONObject served = (JSONObject) answer[1];
            if (status != expect.getInt("status") || !matches(served, expect.get("body"))) {
                failures.add(file.getName() + ": the server answered " + status + " " + served);
            }
            boolean core = path.equals("/v1/telemetry") && key.equals("telemetry") && type.equals("application/json");
            if (!core) continue;
            judged++;
            TelemetryValidator.Verdict verdict = TelemetryValidator.validate(body, Fixtures.APP, now, IngestLimits.defaults());
            JSONObject mine = verdict.answer();
            boolean syntax = "invalid_json".equals(verdict.code);
            // The JSON parsers word their syntax errors differently; the code is what counts.
            if (verdict.status != expect.getInt("status")
                || !(syntax ? mine.getString("error").equals(expect.getJSONObject("body").getString("error")) : matches(mine, expect.get("body")))) {
                failures.add(file.getName() + ": the core said " + verdict.status + " " + mine);
            }
            boolean agree = verdict.status == status && (syntax
                ? mine.getString("error").equals(served.getString("error"))
                : masked(mine).equals(masked(served)));
            if (!agree) failures.add(file.getName() + ": core " + mine + " vs server " + served);
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
        assertTrue(judged >= 10, "the core judged " + judged + " vectors");
    }

    @Test
    void theServerGivesTheWebCasesTheirAnswers() throws Exception {
        List<String> failures = new ArrayList<>();
        for (WebCases.Case c : WebCases.all(System.currentTimeMillis())) {
            Object[] answer = post("/v1/telemetry?dry_run=true", "telemetry", "application/json", c.body);
            String served = WebCases.summary((Integer) answer[0], (JSONObject) answer[1]);
            if (!served.equals(c.expected)) failures.add(c.body + "\n  expected " + c.expected + "\n  the server said " + served);
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void theAndroidVectorCarriesEveryTypeAndTheDeviceState() throws Exception {
        String text = new String(Files.readAllBytes(new File(DIRECTORY, "telemetry-every-type-android.json").toPath()), StandardCharsets.UTF_8);
        // Every type the SDK records (the validator also knows notification_dismissed, which the SDK does not record).
        for (PushLedgerEvent event : Fixtures.everyType(UUID.randomUUID())) {
            assertTrue(TelemetryValidator.TYPES.contains(event.type()), event.type());
            assertTrue(text.contains("\"type\": \"" + event.type() + "\""), event.type());
        }
        for (String field : new String[] {"standby_bucket", "background_restricted", "ignoring_battery_optimizations", "force_stopped_before_start",
                "group_blocked", "post_notifications"}) {
            assertTrue(text.contains("\"" + field + "\""), field);
        }
    }

    /** The vector's placeholders filled: times, and one fresh UUID per {{id:NAME}}. */
    static String fill(String text, long now) {
        text = text.replace("{{now}}", Rfc3339.format(now * 1000)).replace("{{now-31d}}", Rfc3339.format((now - 31L * 86_400_000) * 1000))
            .replace("{{now+2d}}", Rfc3339.format((now + 2L * 86_400_000) * 1000));
        Map<String, String> ids = new HashMap<>();
        Matcher m = Pattern.compile("\\{\\{id:[a-z0-9_]+\\}\\}").matcher(text);
        StringBuffer out = new StringBuffer();
        while (m.find()) {
            String id = ids.get(m.group());
            if (id == null) ids.put(m.group(), id = UUID.randomUUID().toString());
            m.appendReplacement(out, id);
        }
        return m.appendTail(out).toString();
    }

    /**
     * org.json's text of the body, which is what the SDK sends. org.json writes 4.0 as 4, so a
     * vector whose meaning rests on a fractional number must not be judged through it.
     */
    static String body(JSONObject body) {
        assertNoFractions(body);
        return body.toString();
    }

    private static void assertNoFractions(Object value) {
        if (value instanceof Double) fail("a vector with a fractional number cannot be sent through org.json: " + value);
        if (value instanceof JSONObject) {
            JSONObject o = (JSONObject) value;
            for (Iterator<String> keys = o.keys(); keys.hasNext(); ) assertNoFractions(o.opt(keys.next()));
        }
        if (value instanceof JSONArray) {
            JSONArray a = (JSONArray) value;
            for (int i = 0; i < a.length(); i++) assertNoFractions(a.opt(i));
        }
    }

    /** {status, body} of a POST as the vector describes it (no body streaming, so a 401's body is kept). */
    private static Object[] post(String path, String key, String type, String body) throws Exception {
        HttpURLConnection c = (HttpURLConnection) new URL(server.url() + path).openConnection();
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", type);
        if (key.equals("telemetry")) c.setRequestProperty("Authorization", "Bearer " + server.db.telemetryKey);
        if (key.equals("sends")) c.setRequestProperty("Authorization", "Bearer " + server.db.sendsKey);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
        int status = c.getResponseCode();
        byte[] answer = Streams.readAll(status >= 400 ? c.getErrorStream() : c.getInputStream());
        return new Object[] {status, new JSONObject(new String(answer, StandardCharsets.UTF_8))};
    }

    /** The answer equals the expectation, where an expected string may hold {{time}} or {{int}}. */
    static boolean matches(Object actual, Object expected) throws Exception {
        if (expected instanceof JSONObject) {
            if (!(actual instanceof JSONObject) || ((JSONObject) actual).length() != ((JSONObject) expected).length()) return false;
            for (Iterator<String> keys = ((JSONObject) expected).keys(); keys.hasNext(); ) {
                String key = keys.next();
                if (!((JSONObject) actual).has(key) || !matches(((JSONObject) actual).get(key), ((JSONObject) expected).get(key))) return false;
            }
            return true;
        }
        if (expected instanceof JSONArray) {
            if (!(actual instanceof JSONArray) || ((JSONArray) actual).length() != ((JSONArray) expected).length()) return false;
            for (int i = 0; i < ((JSONArray) expected).length(); i++) {
                if (!matches(((JSONArray) actual).get(i), ((JSONArray) expected).get(i))) return false;
            }
            return true;
        }
        if (expected instanceof String && ((String) expected).contains("{{") && actual instanceof String) {
            String pattern = Pattern.quote((String) expected).replace("{{time}}", "\\E\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z\\Q")
                .replace("{{int}}", "\\E[0-9]+\\Q");
            return ((String) actual).matches(pattern);
        }
        if (expected instanceof Number && actual instanceof Number) return ((Number) expected).longValue() == ((Number) actual).longValue();
        return expected.equals(actual);
    }

    /** The answer as text with times masked: the two receive times differ by milliseconds. */
    private static String masked(JSONObject answer) throws Exception {
        return TIME.matcher(canonical(answer)).replaceAll("{{time}}");
    }

    private static String canonical(Object value) throws Exception {
        if (value instanceof JSONObject) {
            List<String> keys = new ArrayList<>();
            for (Iterator<String> k = ((JSONObject) value).keys(); k.hasNext(); ) keys.add(k.next());
            java.util.Collections.sort(keys);
            StringBuilder s = new StringBuilder("{");
            for (String key : keys) s.append(key).append('=').append(canonical(((JSONObject) value).get(key))).append(';');
            return s.append('}').toString();
        }
        if (value instanceof JSONArray) {
            StringBuilder s = new StringBuilder("[");
            for (int i = 0; i < ((JSONArray) value).length(); i++) s.append(canonical(((JSONArray) value).get(i))).append(',');
            return s.append(']').toString();
        }
        return String.valueOf(value);
    }
}
