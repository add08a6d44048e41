package dev.pushledger.sdk;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.json.JSONTokener;

/**
 * The server's judgement of a {@code POST /v1/telemetry} body, on the device: the same checks in
 * the same order with the same codes and messages (docs/contract.md). {@code record} runs it on
 * every event before journalling it; an app's CI can run it on its own bodies. Every file of
 * docs/contract/vectors is judged by this and by the server, and the two must agree.
 *
 * <p>Event sizes are measured on org.json's serialization of each event, which is the text the
 * SDK sends. Two things org.json cannot see are not judged: a repeated key (org.json keeps the
 * last copy; the server refuses it) and a number's spelling beyond integer or not.
 */
public final class TelemetryValidator {
    private TelemetryValidator() {}

    static final Set<String> TYPES = new HashSet<>(Arrays.asList(
        "notification_settings", "permission_prompt", "experiment_exposure", "push_token", "notification_received",
        "notification_opened", "notification_dismissed"));
    /** The browser's platform and push provider (contract v1.3): the SDK never writes them, but judges them. */
    static final String WEB = "web", WEBPUSH = "webpush";
    private static final List<String> PLATFORMS = Arrays.asList("ios", "android", WEB);
    private static final List<String> BROWSERS = Arrays.asList("chrome", "edge", "firefox", "safari", "samsung", "opera", "other");
    private static final List<String> AUTHORIZATION = Arrays.asList("not_determined", "denied", "authorized", "provisional", "ephemeral");
    private static final List<String> SETTING = Arrays.asList("enabled", "disabled", "not_supported");
    private static final List<String> ALERT_STYLE = Arrays.asList("none", "banner", "alert");
    private static final String[] IOS_SETTINGS = {
        "alert_setting", "sound_setting", "badge_setting", "lock_screen_setting", "notification_center_setting",
        "time_sensitive_setting", "scheduled_delivery_setting"};
    /** The Notification API's three states; {@code provisional} and {@code ephemeral} are iOS's. */
    private static final List<String> WEB_AUTHORIZATION = Arrays.asList("authorized", "denied", "not_determined");
    private static final List<String> PUSH_PERMISSION = Arrays.asList("granted", "denied", "prompt");
    private static final List<String> DISPLAY_MODE = Arrays.asList("browser", "standalone");
    private static final List<String> SUBSCRIPTION = Arrays.asList("active", "none", "expired");
    /** A prompt's results on web: {@code provisional} is an iOS answer. */
    private static final List<String> WEB_PROMPT_RESULTS = without(Wire.words(PromptResult.class), Wire.of(PromptResult.PROVISIONAL));
    private static final List<String> WEB_PROVIDERS = Collections.singletonList(WEBPUSH);
    private static final Set<Long> IMPORTANCES = new HashSet<>(Arrays.asList(-1000L, 0L, 1L, 2L, 3L, 4L, 5L));
    private static final int MAX_ECHOED_EVENT_ID = 128;

    /** One refused event of a 200 answer. */
    public static final class Rejection {
        public final int index;
        /** The event's {@code event_id} text when it had one, even a malformed one. */
        public final @Nullable String eventId;
        public final @NotNull String code;
        public final @NotNull String message;

        Rejection(int index, @Nullable String eventId, @NotNull String code, @NotNull String message) {
            this.index = index;
            this.eventId = eventId;
            this.code = code;
            this.message = message;
        }
    }

    /** The answer the server would give: a status, and its body's fields. */
    public static final class Verdict {
        public final int status;
        /** The request's error code (null for 200). */
        public final @Nullable String code;
        public final @Nullable String message;
        public final int accepted;
        /** Later copies of an event id within the request (nothing stored is known here). */
        public final int duplicates;
        public final @NotNull List<Rejection> rejected;

        Verdict(int status, @Nullable String code, @Nullable String message, int accepted, int duplicates, List<Rejection> rejected) {
            this.status = status;
            this.code = code;
            this.message = message;
            this.accepted = accepted;
            this.duplicates = duplicates;
            this.rejected = Collections.unmodifiableList(rejected);
        }

        static Verdict refused(int status, String code, String message) {
            return new Verdict(status, code, message, 0, 0, new ArrayList<Rejection>());
        }

        /** The answer's body as the server writes it. */
        public @NotNull JSONObject answer() {
            try {
                JSONObject o = new JSONObject();
                if (status != 200) return o.put("error", code).put("message", message);
                JSONArray list = new JSONArray();
                for (Rejection r : rejected) {
                    list.put(new JSONObject().put("index", r.index).put("event_id", r.eventId == null ? JSONObject.NULL : r.eventId)
                        .put("error", r.code).put("message", r.message));
                }
                return o.put("accepted", accepted).put("duplicates", duplicates).put("rejected", list);
            } catch (JSONException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Judges {@code body} as the server would when the key belongs to {@code keyAppId} and the
     * request arrives at {@code receivedAtMillis}.
     */
    public static @NotNull Verdict validate(@NotNull String body, @NotNull String keyAppId, long receivedAtMillis, @NotNull IngestLimits limits) {
        Object document;
        try {
            JSONTokener tokener = new JSONTokener(body);
            document = tokener.nextValue();
            if (tokener.nextClean() != '\0') throw new JSONException("text after the JSON value");
        } catch (JSONException e) {
            return Verdict.refused(400, "invalid_json", "the body is not JSON: " + e.getMessage());
        }
        if (!(document instanceof JSONObject)) {
            return Verdict.refused(400, "invalid_field", "the body must be a JSON object, got " + FieldReader.kind(document));
        }
        FieldReader r = new FieldReader((JSONObject) document, "");
        String appId = r.string("app_id", true, FieldReader.APP_ID);
        r.uuid("installation_id", true);
        String platform = r.choice("platform", true, PLATFORMS);
        r.string("app_version", false, FieldReader.VERSION);
        r.string("os_version", false, FieldReader.VERSION);
        r.integer("sdk_int", false, 1, 1000); // judged on every platform; its value is ignored on web
        Long sentAt = r.time("sent_at", false);
        // Web only (contract v1.3): required there, ignored elsewhere like the other platforms' fields.
        if (WEB.equals(platform)) {
            r.choice("browser", true, BROWSERS);
            r.string("browser_version", true, FieldReader.VERSION);
        }
        JSONArray events = r.array("events", true);
        String[] failure = r.failure();
        if (failure != null) return Verdict.refused(400, failure[0], failure[1]);
        if (!keyAppId.equals(appId)) return Verdict.refused(403, "app_mismatch", "the batch's app_id is not the app of this key");
        if (events.length() > limits.maxEventsPerRequest) {
            return Verdict.refused(413, "too_many_events",
                "the request has " + events.length() + " events, at most " + limits.maxEventsPerRequest + " are allowed");
        }
        long receivedAt = receivedAtMillis * 1000;
        List<Rejection> rejected = new ArrayList<>();
        Set<UUID> seen = new HashSet<>();
        int accepted = 0, duplicates = 0;
        for (int index = 0; index < events.length(); index++) {
            Object value = events.opt(index);
            Object[] outcome = event(value, platform, sentAt, receivedAt, limits);
            if (outcome[0] instanceof UUID) {
                if (seen.add((UUID) outcome[0])) accepted++;
                else duplicates++;
            } else {
                rejected.add(new Rejection(index, eventIdText(value), (String) outcome[0], (String) outcome[1]));
            }
        }
        return new Verdict(200, null, null, accepted, duplicates, rejected);
    }

    /** {eventId} for a valid event, else {code, message}. */
    private static Object[] event(@Nullable Object value, String platform, @Nullable Long sentAt, long receivedAt, IngestLimits limits) {
        int bytes = FieldReader.utf8(serialized(value));
        if (bytes > limits.maxEventBytes) {
            return new Object[] {"too_large", "the event is " + bytes + " bytes, at most " + limits.maxEventBytes + " are allowed"};
        }
        if (!(value instanceof JSONObject)) {
            return new Object[] {"invalid_field", "invalid field \"event\": expected a JSON object, got " + FieldReader.kind(value)};
        }
        JSONObject object = (JSONObject) value;
        Object type = object.opt("type");
        if (type instanceof String && !TYPES.contains(type)) return new Object[] {"unknown_type", "unknown event type" + quoted((String) type)};
        FieldReader r = new FieldReader(object, "");
        UUID eventId = r.uuid("event_id", true);
        String name = r.read("type", true, "an event type name", v -> v instanceof String ? (String) v : null);
        Long at = r.time("at", true);
        if (name != null) payload(name, platform, r);
        String[] failure = r.failure();
        if (failure != null) return new Object[] {failure[0], failure[1]};
        long occurredAt = sentAt == null ? at : receivedAt - (sentAt - at);
        if (occurredAt < receivedAt - limits.maxAgeMillis * 1000) return new Object[] {"too_old", timeMessage(occurredAt, limits.maxAgeMillis, "before")};
        if (occurredAt > receivedAt + limits.maxFutureMillis * 1000) return new Object[] {"in_future", timeMessage(occurredAt, limits.maxFutureMillis, "after")};
        return new Object[] {eventId};
    }

    /** Reads a known type's fields, noting failures in {@code r}. */
    private static void payload(String type, String platform, FieldReader r) {
        switch (type) {
            case "notification_settings":
                settings(platform, r);
                break;
            case "permission_prompt":
                r.slug("placement", true);
                r.choice("prompt", true, Wire.words(PromptKind.class));
                r.choice("result", true, platform.equals(WEB) ? WEB_PROMPT_RESULTS : Wire.words(PromptResult.class));
                break;
            case "experiment_exposure":
                r.slug("experiment", true);
                r.slug("variant", true);
                break;
            case "push_token":
                pushToken(platform, r);
                break;
            case "notification_received":
                receipt(r);
                r.bool("displayed", false);
                break;
            case "notification_dismissed": // a receipt of a displayed notification
                receipt(r);
                break;
            default: // notification_opened
                r.uuid("notification_id", true);
                r.string("action", true, FieldReader.IDENTIFIER);
                r.string("link", false, FieldReader.LINK);
                r.choice("landed", false, Wire.words(Landing.class));
        }
    }

    /** The envelope's platform decides which fields count; the other platforms' are ignored. */
    private static void settings(String platform, FieldReader r) {
        switch (platform) {
            case "ios":
                r.choice("authorization_status", true, AUTHORIZATION);
                for (String key : IOS_SETTINGS) r.choice(key, false, SETTING);
                r.choice("alert_style", false, ALERT_STYLE);
                r.bool("low_power_mode", false);
                break;
            case WEB:
                r.choice("authorization_status", true, WEB_AUTHORIZATION);
                r.choice("push_permission_state", false, PUSH_PERMISSION);
                r.choice("display_mode", false, DISPLAY_MODE);
                r.choice("subscription", false, SUBSCRIPTION);
                break;
            default: // android
                r.bool("notifications_enabled", true);
                r.choice("post_notifications", false, Wire.words(PostNotifications.class));
                JSONArray channels = r.array("channels", false);
                if (channels != null) channels(channels, r);
                r.choice("standby_bucket", false, Wire.words(StandbyBucket.class));
                r.bool("background_restricted", false);
                r.bool("ignoring_battery_optimizations", false);
                r.bool("force_stopped_before_start", false);
        }
    }

    /**
     * A {@code webpush} token belongs to a web envelope and the others to an app's; {@code environment}
     * is an APNs notion, ignored for FCM and Web Push.
     */
    private static void pushToken(String platform, FieldReader r) {
        List<String> providers = platform.equals(WEB) ? WEB_PROVIDERS : Wire.words(PushProvider.class);
        String provider = r.read("provider", true, FieldReader.join(providers, " or ") + " on platform " + platform,
            v -> v instanceof String && providers.contains(v) ? (String) v : null);
        r.token("token", true, provider);
        if ("apns".equals(provider)) r.choice("environment", false, Wire.words(ApnsEnvironment.class));
    }

    /** The fields {@code notification_received} and {@code notification_dismissed} share. */
    private static void receipt(FieldReader r) {
        r.uuid("notification_id", true);
        r.string("channel", false, FieldReader.LABEL);
    }

    private static List<String> without(List<String> words, String word) {
        List<String> rest = new ArrayList<>(words);
        rest.remove(word);
        return Collections.unmodifiableList(rest);
    }

    private static void channels(JSONArray list, FieldReader r) {
        for (int index = 0; index < list.length(); index++) {
            Object element = list.opt(index);
            if (!(element instanceof JSONObject)) {
                r.noteInvalid("channels[" + index + "]", "expected an object, got " + FieldReader.kind(element));
                continue;
            }
            FieldReader c = new FieldReader((JSONObject) element, "channels[" + index + "].");
            c.string("id", true, FieldReader.LABEL);
            c.read("importance", true, "one of -1000, 0, 1, 2, 3, 4, 5", v -> {
                Long n = FieldReader.integer(v);
                return n != null && IMPORTANCES.contains(n) ? n : null;
            });
            c.string("group", false, FieldReader.LABEL);
            c.bool("group_blocked", false);
            r.merge(c);
        }
    }

    /** The element's text as org.json writes it inside the body. */
    static @NotNull String serialized(@Nullable Object value) {
        String wrapped = new JSONArray().put(value == null ? JSONObject.NULL : value).toString();
        return wrapped.substring(1, wrapped.length() - 1);
    }

    private static String timeMessage(long micros, long windowMillis, String side) {
        long seconds = windowMillis / 1000;
        String window = seconds >= 86_400 && seconds % 86_400 == 0
            ? (seconds == 86_400 ? "1 day" : seconds / 86_400 + " days") : seconds + " seconds";
        return "the event time (skew-corrected) " + Rfc3339.format(micros) + " is more than " + window + " " + side
            + " the server's receive time";
    }

    private static String quoted(String text) {
        if (FieldReader.utf8(text) > 64) return "";
        for (int k = 0; k < text.length(); k++) {
            char c = text.charAt(k);
            if (c < 0x20 || c >= 0x7F || c == '"') return "";
        }
        return " \"" + text + "\"";
    }

    /** The event's {@code event_id} when it is a string, cut to 128 UTF-8 bytes. */
    private static @Nullable String eventIdText(@Nullable Object value) {
        if (!(value instanceof JSONObject)) return null;
        Object id = ((JSONObject) value).opt("event_id");
        if (!(id instanceof String)) return null;
        String text = ((String) id).replace('\u0000', '\uFFFD');
        if (FieldReader.utf8(text) <= MAX_ECHOED_EVENT_ID) return text;
        int end = 0, bytes = 0;
        while (end < text.length()) {
            int cp = text.codePointAt(end);
            int width = FieldReader.utf8(new String(Character.toChars(cp)));
            if (bytes + width > MAX_ECHOED_EVENT_ID) break;
            bytes += width;
            end += Character.charCount(cp);
        }
        return text.substring(0, end);
    }
}
