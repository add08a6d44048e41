package dev.pushledger.sdk;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * A {@code notification_settings} snapshot of an Android device: what the OS says now. Built
 * with {@link #builder(boolean)}; every field but {@code notifications_enabled} is optional
 * and left out when not set.
 */
public final class AndroidSettings {
    /** One notification channel: its id, importance and, when it has one, its group. */
    public static final class Channel {
        public final @NotNull String id;
        /** {@code NotificationChannel} importance: -1000 unspecified, 0 none (blocked), 1 min … 5 max. */
        public final int importance;
        public final @Nullable String group;
        /** Whether the channel's group is blocked (API 28+); null when unknown. */
        public final @Nullable Boolean groupBlocked;

        Channel(@NotNull String id, int importance, @Nullable String group, @Nullable Boolean groupBlocked) {
            this.id = id;
            this.importance = importance;
            this.group = group;
            this.groupBlocked = groupBlocked;
        }

        /** Blocked as the reports count it: importance none, or its group blocked. */
        public boolean isBlocked() { return importance == 0 || Boolean.TRUE.equals(groupBlocked); }
    }

    public final boolean notificationsEnabled;
    public final @Nullable PostNotifications postNotifications;
    /** Null when the snapshot carries no channel list (below API 26 there are no channels). */
    public final @Nullable List<Channel> channels;
    public final @Nullable StandbyBucket standbyBucket;
    public final @Nullable Boolean backgroundRestricted;
    public final @Nullable Boolean ignoringBatteryOptimizations;
    public final @Nullable Boolean forceStoppedBeforeStart;

    private AndroidSettings(Builder b) {
        this(b.notificationsEnabled, b.postNotifications, b.channels, b.standbyBucket, b.backgroundRestricted,
            b.ignoringBatteryOptimizations, b.forceStoppedBeforeStart);
    }

    private AndroidSettings(boolean notificationsEnabled, @Nullable PostNotifications postNotifications,
            @Nullable List<Channel> channels,
            @Nullable StandbyBucket standbyBucket, @Nullable Boolean backgroundRestricted,
                    @Nullable Boolean ignoringBatteryOptimizations,
            @Nullable Boolean forceStoppedBeforeStart) {
        this.notificationsEnabled = notificationsEnabled;
        this.postNotifications = postNotifications;
        this.channels = channels == null ? null : Collections.unmodifiableList(new ArrayList<>(channels));
        this.standbyBucket = standbyBucket;
        this.backgroundRestricted = backgroundRestricted;
        this.ignoringBatteryOptimizations = ignoringBatteryOptimizations;
        this.forceStoppedBeforeStart = forceStoppedBeforeStart;
    }

    /** The same snapshot with another channel list. */
    @NotNull AndroidSettings withChannels(@NotNull List<Channel> list) {
        return new AndroidSettings(notificationsEnabled, postNotifications, list, standbyBucket, backgroundRestricted,
            ignoringBatteryOptimizations, forceStoppedBeforeStart);
    }

    /**
     * The channels whose entries fit in {@code budgetBytes} of the list's text, blocked ones first
     * (a blocked channel is the fact the reports read: a send to it counts as blocked, while a
     * channel left out reads as one the app has not created), each group in the app's order. The
     * server limits an event to 32 KiB; an entry takes 30 to 600 bytes, so a few hundred channels
     * fit and only apps with more lose the unblocked rest.
     */
    @NotNull List<Channel> channelsWithin(long budgetBytes) {
        List<Channel> kept = new ArrayList<>();
        if (channels == null) return kept;
        long left = budgetBytes;
        for (boolean blocked : new boolean[] {true, false}) {
            for (Channel c : channels) {
                if (c.isBlocked() != blocked) continue;
                long cost;
                try {
                    cost = FieldReader.utf8(entry(c).toString()) + (kept.isEmpty() ? 0 : 1);
                } catch (JSONException e) {
                    continue;
                }
                if (cost > left) continue;
                kept.add(c);
                left -= cost;
            }
        }
        List<Channel> ordered = new ArrayList<>(channels);
        ordered.retainAll(kept);
        return ordered;
    }

    /** {@code notificationsEnabled}: {@code NotificationManagerCompat.areNotificationsEnabled()}. */
    public static @NotNull Builder builder(boolean notificationsEnabled) { return new Builder(notificationsEnabled); }

    /** Builds a snapshot; each setter returns the builder. */
    public static final class Builder {
        private final boolean notificationsEnabled;
        private @Nullable PostNotifications postNotifications;
        private @Nullable List<Channel> channels;
        private @Nullable StandbyBucket standbyBucket;
        private @Nullable Boolean backgroundRestricted;
        private @Nullable Boolean ignoringBatteryOptimizations;
        private @Nullable Boolean forceStoppedBeforeStart;

        private Builder(boolean notificationsEnabled) { this.notificationsEnabled = notificationsEnabled; }

        /** The runtime permission state ({@link PostNotifications#of(int, boolean)}). */
        public @NotNull Builder postNotifications(@Nullable PostNotifications state) {
            postNotifications = state;
            return this;
        }

        /** A channel without a group. */
        public @NotNull Builder channel(@NotNull String id, int importance) {
            return channel(id, importance, null, null);
        }

        /** A channel in {@code group} (null: none), with the group's blocked state when known. */
        public @NotNull Builder channel(@NotNull String id, int importance, @Nullable String group, @Nullable Boolean groupBlocked) {
            if (channels == null) channels = new ArrayList<>();
            channels.add(new Channel(id, importance, group, groupBlocked));
            return this;
        }

        /**
         * A channel as {@code NotificationChannel} gives it, its group's blocked state looked up in
         * {@code groupsBlocked} (group id to {@code NotificationChannelGroup.isBlocked()}, API 28+;
         * a group missing there is reported without a blocked state).
         */
        public @NotNull Builder channelInGroups(@NotNull String id, int importance, @Nullable String group, @NotNull java.util.Map<String, Boolean> groupsBlocked) {
            return channel(id, importance, group, group == null ? null : groupsBlocked.get(group));
        }

        /** Sends an empty channel list (the app has created none yet) rather than none at all. */
        public @NotNull Builder noChannels() {
            if (channels == null) channels = new ArrayList<>();
            return this;
        }

        public @NotNull Builder standbyBucket(@Nullable StandbyBucket bucket) {
            standbyBucket = bucket;
            return this;
        }

        /** {@code ActivityManager.isBackgroundRestricted()} (API 28+). */
        public @NotNull Builder backgroundRestricted(@Nullable Boolean restricted) {
            backgroundRestricted = restricted;
            return this;
        }

        /** {@code PowerManager.isIgnoringBatteryOptimizations(packageName)} (API 23+). */
        public @NotNull Builder ignoringBatteryOptimizations(@Nullable Boolean ignoring) {
            ignoringBatteryOptimizations = ignoring;
            return this;
        }

        /**
         * {@code ApplicationStartInfo.wasForceStopped()} of the latest start (API 35+). Set it only
         * on the first snapshot after the process started ({@link ProcessStart} keeps track).
         */
        public @NotNull Builder forceStoppedBeforeStart(@Nullable Boolean forceStopped) {
            forceStoppedBeforeStart = forceStopped;
            return this;
        }

        public @NotNull AndroidSettings build() { return new AndroidSettings(this); }
    }

    private static JSONObject entry(Channel c) throws JSONException {
        JSONObject entry = new JSONObject();
        entry.put("id", c.id);
        entry.put("importance", c.importance);
        if (c.group != null) entry.put("group", c.group);
        if (c.groupBlocked != null) entry.put("group_blocked", c.groupBlocked.booleanValue());
        return entry;
    }

    /** The snapshot's contract fields, in the contract's order. */
    void writeTo(@NotNull JSONObject o) throws JSONException {
        o.put("notifications_enabled", notificationsEnabled);
        if (postNotifications != null) o.put("post_notifications", postNotifications.wire());
        if (channels != null) {
            JSONArray list = new JSONArray();
            for (Channel c : channels) list.put(entry(c));
            o.put("channels", list);
        }
        if (standbyBucket != null) o.put("standby_bucket", standbyBucket.wire());
        if (backgroundRestricted != null) o.put("background_restricted", backgroundRestricted.booleanValue());
        if (ignoringBatteryOptimizations != null) o.put("ignoring_battery_optimizations", ignoringBatteryOptimizations.booleanValue());
        if (forceStoppedBeforeStart != null) o.put("force_stopped_before_start", forceStoppedBeforeStart.booleanValue());
    }
}
