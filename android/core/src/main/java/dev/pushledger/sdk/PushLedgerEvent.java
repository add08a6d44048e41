package dev.pushledger.sdk;

import java.util.UUID;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * One thing the app reports, in the contract's words. Made with the static factories; checked
 * against the contract when recorded ({@link PushLedger#record(PushLedgerEvent)}).
 */
public final class PushLedgerEvent {
    private final @NotNull String type;
    private final @NotNull Fields fields;
    /** A snapshot's settings, which {@link #fitted} may cap; null for every other type. */
    private final @Nullable AndroidSettings settings;

    /** Writes an event's own fields after {@code event_id}, {@code type} and {@code at}. */
    interface Fields {
        void writeTo(@NotNull JSONObject o) throws JSONException;
    }

    private PushLedgerEvent(@NotNull String type, @NotNull Fields fields) {
        this(type, fields, null);
    }

    private PushLedgerEvent(@NotNull String type, @NotNull Fields fields, @Nullable AndroidSettings settings) {
        this.type = type;
        this.fields = fields;
        this.settings = settings;
    }

    /** The contract's {@code type}, e.g. {@code notification_settings}. */
    public @NotNull String type() { return type; }

    /** What the OS says now: at process start, on every return to the foreground, on a change. */
    public static @NotNull PushLedgerEvent notificationSettings(final @NotNull AndroidSettings settings) {
        return new PushLedgerEvent("notification_settings", settings::writeTo, settings);
    }

    /** The app showed a permission prompt: where ({@code placement}, a slug), which one, and how it ended. */
    public static @NotNull PushLedgerEvent permissionPrompt(
            final @NotNull String placement, final @NotNull PromptKind prompt, final @NotNull PromptResult result) {
        return new PushLedgerEvent("permission_prompt", o -> {
            o.put("placement", placement);
            o.put("prompt", Wire.orNull(prompt));
            o.put("result", Wire.orNull(result));
        });
    }

    /** The installation was assigned to an experiment arm (both slugs {@code [a-z0-9_]{1,64}}). */
    public static @NotNull PushLedgerEvent experimentExposure(final @NotNull String experiment, final @NotNull String variant) {
        return new PushLedgerEvent("experiment_exposure", o -> {
            o.put("experiment", experiment);
            o.put("variant", variant);
        });
    }

    /** The app registered a push token (FCM: the registration token as the SDK gave it). */
    public static @NotNull PushLedgerEvent pushToken(final @NotNull PushProvider provider, final @NotNull String token) {
        return pushToken(provider, token, null);
    }

    /** An APNs token with its environment (production when null); the environment is ignored for FCM. */
    public static @NotNull PushLedgerEvent pushToken(
            final @NotNull PushProvider provider, final @NotNull String token, final @Nullable ApnsEnvironment environment) {
        return new PushLedgerEvent("push_token", o -> {
            o.put("provider", Wire.orNull(provider));
            o.put("token", token);
            // The contract's default written out, so the journal holds what the server stores.
            if (provider == PushProvider.APNS) o.put("environment", (environment == null ? ApnsEnvironment.PRODUCTION : environment).wire());
        });
    }

    /**
     * The notification reached the app: {@code onMessageReceived} ran (a data message) or the app
     * posted it. {@code channel}: the channel it was posted to; {@code displayed}: the app knows it
     * was posted where the user can see it.
     */
    public static @NotNull PushLedgerEvent notificationReceived(
            final @NotNull UUID notificationId, final @Nullable String channel, final @Nullable Boolean displayed) {
        return new PushLedgerEvent("notification_received", o -> {
            o.put("notification_id", Wire.orNull(notificationId));
            if (channel != null) o.put("channel", channel);
            if (displayed != null) o.put("displayed", displayed.booleanValue());
        });
    }

    /**
     * The user tapped the notification ({@code action} is {@code default} for a body tap, else the
     * action's identifier), the link it carried, and where the app actually took the user.
     */
    public static @NotNull PushLedgerEvent notificationOpened(
            final @NotNull UUID notificationId, final @NotNull String action, final @Nullable String link, final @Nullable Landing landed) {
        return new PushLedgerEvent("notification_opened", o -> {
            o.put("notification_id", Wire.orNull(notificationId));
            o.put("action", action);
            if (link != null) o.put("link", link);
            if (landed != null) o.put("landed", Wire.orNull(landed));
        });
    }

    /**
     * {@code text} (this event's {@link #json}) when it is within {@code maxBytes}; for a snapshot
     * over it, the text with its channel list capped to fit ({@link AndroidSettings#channelsWithin}).
     * Any other event is returned as it is (and refused as {@code too_large} by the validator).
     */
    @NotNull String fitted(@NotNull String text, @NotNull UUID eventId, long atMicros, int maxBytes) {
        if (settings == null || settings.channels == null || FieldReader.utf8(text) <= maxBytes) return text;
        AndroidSettings none = settings.withChannels(new java.util.ArrayList<AndroidSettings.Channel>());
        long rest = FieldReader.utf8(notificationSettings(none).json(eventId, atMicros));
        return notificationSettings(settings.withChannels(settings.channelsWithin(maxBytes - rest))).json(eventId,
                atMicros);
    }

    /** Whether recording this event uses up the process's force-stop fact ({@link ProcessStart}). */
    boolean carriesForceStop() { return settings != null && settings.forceStoppedBeforeStart != null; }

    /** The event's JSON text as it is journalled and sent (org.json's serialization). */
    @NotNull String json(@NotNull UUID eventId, long atMicros) {
        try {
            JSONObject o = new JSONObject();
            o.put("event_id", eventId.toString());
            o.put("type", type);
            o.put("at", Rfc3339.format(atMicros));
            fields.writeTo(o);
            return o.toString();
        } catch (JSONException | NullPointerException e) {
            // org.json refuses null names and non-finite numbers; the factories pass neither
            // unless a caller ignored the annotations: report it as the contract would.
            throw new IllegalArgumentException("cannot encode the event: " + e.getMessage(), e);
        }
    }
}
