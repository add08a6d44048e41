package dev.pushledger.sdk.android;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;

import dev.pushledger.sdk.BlockStateChange;
import dev.pushledger.sdk.PushLedgerEvent;

/**
 * Declared in the adapter's manifest for the three API 28+ block-state broadcasts. A receiver has
 * about 10 seconds: it journals a fresh snapshot on a background thread and schedules an upload,
 * never uploads itself.
 */
public final class BlockStateReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(final Context context, Intent intent) {
        if (!BlockStateChange.isBlockStateAction(intent.getAction())) return;
        final PendingResult pending = goAsync();
        final Context app = context.getApplicationContext();
        PushLedgerAndroid.IO.execute(new Runnable() {
            @Override
            public void run() {
                try {
                    PushLedgerAndroid.record(app, PushLedgerEvent.notificationSettings(SettingsReader.read(app)));
                } finally {
                    pending.finish();
                }
            }
        });
    }
}
