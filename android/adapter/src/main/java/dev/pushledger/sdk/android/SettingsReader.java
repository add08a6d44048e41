package dev.pushledger.sdk.android;

import android.Manifest;
import android.app.ActivityManager;
import android.app.ApplicationStartInfo;
import android.app.NotificationChannel;
import android.app.NotificationChannelGroup;
import android.app.NotificationManager;
import android.app.usage.UsageStatsManager;
import android.content.Context;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.PowerManager;

import androidx.annotation.NonNull;
import androidx.core.app.NotificationManagerCompat;
import androidx.core.content.ContextCompat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.pushledger.sdk.AndroidSettings;
import dev.pushledger.sdk.PostNotifications;
import dev.pushledger.sdk.ProcessStart;
import dev.pushledger.sdk.StandbyBucket;

/**
 * Reads what the OS says now into the core's {@link AndroidSettings}. Each API is used only from
 * the level it exists at; the mapping rules (words, constants, which fields to leave out) are the
 * core's and are tested on the JVM.
 */
final class SettingsReader {
    private SettingsReader() {}

    static @NonNull AndroidSettings read(@NonNull Context context) {
        int sdk = Build.VERSION.SDK_INT;
        AndroidSettings.Builder b = AndroidSettings.builder(NotificationManagerCompat.from(context).areNotificationsEnabled());
        boolean granted = sdk < 33
            || ContextCompat.checkSelfPermission(context, Manifest.permission.POST_NOTIFICATIONS) == PackageManager.PERMISSION_GRANTED;
        b.postNotifications(PostNotifications.of(sdk, granted));
        if (sdk >= 26) {
            NotificationManager manager = context.getSystemService(NotificationManager.class);
            Map<String, Boolean> groupsBlocked = new HashMap<>();
            if (sdk >= 28) {
                for (NotificationChannelGroup group : manager.getNotificationChannelGroups()) groupsBlocked.put(group.getId(), group.isBlocked());
            }
            List<NotificationChannel> channels = manager.getNotificationChannels();
            b.noChannels();
            for (NotificationChannel channel : channels) {
                b.channelInGroups(channel.getId(), channel.getImportance(), channel.getGroup(), groupsBlocked);
            }
        }
        if (sdk >= 28) {
            UsageStatsManager usage = context.getSystemService(UsageStatsManager.class);
            if (usage != null) b.standbyBucket(StandbyBucket.fromConstant(usage.getAppStandbyBucket()));
            ActivityManager activity = context.getSystemService(ActivityManager.class);
            if (activity != null) b.backgroundRestricted(activity.isBackgroundRestricted());
        }
        if (sdk >= 23) {
            PowerManager power = context.getSystemService(PowerManager.class);
            if (power != null) b.ignoringBatteryOptimizations(power.isIgnoringBatteryOptimizations(context.getPackageName()));
        }
        Boolean forceStopped = null;
        if (sdk >= 35) {
            ActivityManager activity = context.getSystemService(ActivityManager.class);
            List<ApplicationStartInfo> starts = activity == null ? null : activity.getHistoricalProcessStartReasons(1);
            if (starts != null && !starts.isEmpty()) forceStopped = starts.get(0).wasForceStopped();
        }
        b.forceStoppedBeforeStart(ProcessStart.unrecorded(forceStopped));
        return b.build();
    }
}
