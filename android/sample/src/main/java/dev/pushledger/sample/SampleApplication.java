package dev.pushledger.sample;

import android.app.Application;
import android.app.NotificationChannel;
import android.app.NotificationManager;
import android.os.Build;

import dev.pushledger.sdk.android.PushLedgerAndroid;

/** Starts the SDK first thing, whatever started the process (an activity, FCM, the block-state receiver). */
public final class SampleApplication extends Application {
    static final String ORDERS = "orders";

    @Override
    public void onCreate() {
        super.onCreate();
        if (Build.VERSION.SDK_INT >= 26) {
            getSystemService(NotificationManager.class).createNotificationChannel(
                new NotificationChannel(ORDERS, "Orders", NotificationManager.IMPORTANCE_HIGH));
        }
        PushLedgerAndroid.start(this, new PushLedgerAndroid.Settings(getPackageName(), BuildConfig.PUSHLEDGER_URL,
            BuildConfig.PUSHLEDGER_KEY));
    }
}
