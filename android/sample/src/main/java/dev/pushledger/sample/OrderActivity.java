package dev.pushledger.sample;

import android.content.Intent;
import android.os.Bundle;
import android.widget.TextView;

import androidx.activity.ComponentActivity;

import dev.pushledger.sdk.Landing;
import dev.pushledger.sdk.android.PushLedgerMessaging;

/** Where a tap lands: records the open (once per notification, whatever recreates the activity). */
public final class OrderActivity extends ComponentActivity {
    private TextView text;

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        text = new TextView(this);
        setContentView(text);
        handle(getIntent());
    }

    @Override
    protected void onNewIntent(Intent intent) {
        super.onNewIntent(intent);
        setIntent(intent);
        handle(intent);
    }

    private void handle(Intent intent) {
        String link = intent.getStringExtra("link");
        text.setText(link == null ? "No order" : link);
        PushLedgerMessaging.onNotificationOpened(this, intent, "default", link == null ? Landing.FALLBACK
                : Landing.TARGET);
    }
}
