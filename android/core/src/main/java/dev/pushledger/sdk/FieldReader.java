package dev.pushledger.sdk;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Reads the fields of one JSON object the way the server does and remembers the first missing
 * and the first invalid field, so every {@code missing_field} wins over any {@code invalid_field}
 * whatever order fields are read in. Absent and null are the same.
 */
final class FieldReader {
    /** Longest free strings in UTF-8 bytes, as the server has them. */
    static final int APP_ID = 255, LABEL = 255, IDENTIFIER = 255, VERSION = 128, LINK = 4096;

    private final JSONObject object;
    private final String path;
    private @Nullable String firstMissing;
    private @Nullable String firstInvalid;

    FieldReader(@NotNull JSONObject object, @NotNull String path) {
        this.object = object;
        this.path = path;
    }

    boolean hasFailure() { return firstMissing != null || firstInvalid != null; }

    /** {code, message} of the first failure by the contract's order, or null. */
    String @Nullable [] failure() {
        if (firstMissing != null) return new String[] {"missing_field", firstMissing};
        if (firstInvalid != null) return new String[] {"invalid_field", firstInvalid};
        return null;
    }

    void noteInvalid(String key, String problem) {
        if (firstInvalid == null) firstInvalid = "invalid field \"" + path + key + "\": " + problem;
    }

    void merge(FieldReader nested) {
        if (firstMissing == null) firstMissing = nested.firstMissing;
        if (firstInvalid == null) firstInvalid = nested.firstInvalid;
    }

    interface Convert<T> { @Nullable T apply(@NotNull Object value); }

    /** The value converted, or null (noting a missing or an invalid field). */
    <T> @Nullable T read(String key, boolean required, String expected, Convert<T> convert) {
        Object value = object.opt(key);
        if (value == null || value == JSONObject.NULL) {
            if (required && firstMissing == null) firstMissing = "missing field \"" + path + key + "\"";
            return null;
        }
        T converted = convert.apply(value);
        if (converted != null) return converted;
        noteInvalid(key, value instanceof String ? "expected " + expected : "expected " + expected + ", got " + kind(value));
        return null;
    }

    @Nullable String string(String key, boolean required, int maxBytes) {
        String text = read(key, required, "a string", v -> v instanceof String ? (String) v : null);
        if (text == null) return null;
        String problem = stringProblem(text, maxBytes);
        if (problem != null) {
            noteInvalid(key, problem);
            return null;
        }
        return text;
    }

    static @Nullable String stringProblem(String text, int maxBytes) {
        int count = utf8(text);
        if (count == 0) return "expected a non-empty string";
        if (count > maxBytes) return "expected at most " + maxBytes + " bytes, got " + count;
        if (text.indexOf('\u0000') >= 0) return "must not contain U+0000";
        return null;
    }

    @Nullable UUID uuid(String key, boolean required) {
        return read(key, required, "a UUID (8-4-4-4-12 hex)", v -> v instanceof String ? uuid((String) v) : null);
    }

    /** Microseconds since 1970. */
    @Nullable Long time(String key, boolean required) {
        return read(key, required, "an RFC 3339 time such as 2026-11-30T10:00:05.120Z",
            v -> v instanceof String ? Rfc3339.parse((String) v) : null);
    }

    @Nullable Boolean bool(String key, boolean required) {
        return read(key, required, "true or false", v -> v instanceof Boolean ? (Boolean) v : null);
    }

    /** An integer literal (org.json parses one with a fraction or exponent as a Double) in range. */
    @Nullable Long integer(String key, boolean required, long min, long max) {
        return read(key, required, "an integer from " + min + " to " + max, v -> {
            Long n = integer(v);
            return n != null && n >= min && n <= max ? n : null;
        });
    }

    static @Nullable Long integer(Object v) {
        return v instanceof Integer || v instanceof Long ? ((Number) v).longValue() : null;
    }

    @Nullable String choice(String key, boolean required, List<String> words) {
        return read(key, required, "one of " + join(words), v -> v instanceof String && words.contains(v) ? (String) v : null);
    }

    @Nullable String slug(String key, boolean required) {
        return read(key, required, "a slug of 1 to 64 characters a-z, 0-9 or _", v -> v instanceof String && isSlug((String) v) ? (String) v : null);
    }

    @Nullable JSONArray array(String key, boolean required) {
        return read(key, required, "an array", v -> v instanceof JSONArray ? (JSONArray) v : null);
    }

    /** A token valid for its provider (null provider: only presence is checked). */
    @Nullable String token(String key, boolean required, @Nullable String provider) {
        if (provider == null) return read(key, required, "a string", v -> v instanceof String ? (String) v : null);
        if (provider.equals("apns")) {
            return read(key, required, "an APNs token: hex of even length 64 to 200",
                v -> v instanceof String && isApnsToken((String) v) ? (String) v : null);
        }
        if (provider.equals(TelemetryValidator.WEBPUSH)) {
            return read(key, required, "an https push subscription endpoint (at most 2048 bytes)",
                v -> v instanceof String && isWebPushEndpoint((String) v) ? (String) v : null);
        }
        return read(key, required, "an FCM token: 1 to 4096 printable ASCII characters",
            v -> v instanceof String && isFcmToken((String) v) ? (String) v : null);
    }

    // The contract's formats.

    /** Canonical 8-4-4-4-12 hex, any case. */
    static @Nullable UUID uuid(String s) {
        if (s.length() != 36) return null;
        for (int k = 0; k < 36; k++) {
            char c = s.charAt(k);
            if (k == 8 || k == 13 || k == 18 || k == 23) {
                if (c != '-') return null;
            } else if (!isHex(c)) {
                return null;
            }
        }
        return UUID.fromString(s);
    }

    static boolean isSlug(String s) {
        if (s.isEmpty() || s.length() > 64) return false;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
        }
        return true;
    }

    static boolean isApnsToken(String s) {
        if (s.length() < 64 || s.length() > 200 || s.length() % 2 != 0) return false;
        for (int k = 0; k < s.length(); k++) {
            if (!isHex(s.charAt(k))) return false;
        }
        return true;
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    static boolean isFcmToken(String s) {
        if (s.isEmpty() || s.length() > 4096) return false;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c < 0x20 || c >= 0x7F) return false;
        }
        return true;
    }

    /**
     * A Web Push subscription endpoint (contract v1.3): an absolute {@code https://} URL with a
     * host, 1 to 2,048 bytes of printable ASCII without spaces.
     */
    static boolean isWebPushEndpoint(String s) {
        if (s.isEmpty() || s.length() > 2048) return false;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c <= 0x20 || c >= 0x7F) return false;
        }
        return endpointHost(s) != null;
    }

    /**
     * The lower-cased host of an {@code https://} URL of printable ASCII (without user info or
     * port), as the server finds it; null when it has none.
     */
    static @Nullable String endpointHost(String s) {
        if (s.length() <= 8 || !s.substring(0, 8).toLowerCase(Locale.ROOT).equals("https://")) return null;
        int end = 8;
        while (end < s.length() && "/?#".indexOf(s.charAt(end)) < 0) end++;
        String authority = s.substring(8, end);
        String hostAndPort = authority.substring(authority.lastIndexOf('@') + 1);
        String host;
        if (hostAndPort.startsWith("[")) {
            int close = hostAndPort.indexOf(']');
            if (close < 0) return null;
            host = hostAndPort.substring(0, close + 1);
        } else {
            int colon = hostAndPort.indexOf(':');
            host = colon < 0 ? hostAndPort : hostAndPort.substring(0, colon);
        }
        return host.isEmpty() ? null : host.toLowerCase(Locale.ROOT);
    }

    static int utf8(String s) { return s.getBytes(StandardCharsets.UTF_8).length; }

    static String kind(@Nullable Object v) {
        if (v == null || v == JSONObject.NULL) return "null";
        if (v instanceof Boolean) return "a boolean";
        if (v instanceof Number) return "a number";
        if (v instanceof String) return "a string";
        if (v instanceof JSONArray) return "an array";
        return "an object";
    }

    private static String join(List<String> words) { return join(words, ", "); }

    static String join(List<String> words, String separator) {
        StringBuilder s = new StringBuilder();
        for (String w : words) s.append(s.length() == 0 ? "" : separator).append(w);
        return s.toString();
    }
}
