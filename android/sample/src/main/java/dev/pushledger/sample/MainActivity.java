package dev.pushledger.sample;

import android.os.Bundle;
import android.widget.Button;
import android.widget.LinearLayout;

import androidx.activity.ComponentActivity;

import dev.pushledger.sdk.android.PermissionPrompt;
import dev.pushledger.sdk.android.PushLedgerAndroid;

/** The permission prompt where the journey asks for it, and the consent switch. */
public final class MainActivity extends ComponentActivity {
    private PermissionPrompt prompt;

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        // Every onCreate, before the activity starts: a request in flight survives a rotation this way.
        prompt = new PermissionPrompt(this, result -> setTitle("Notifications: " + result));
        LinearLayout layout = new LinearLayout(this);
        layout.setOrientation(LinearLayout.VERTICAL);
        layout.addView(button("Ask for notifications", () -> prompt.request("first_screen")));
        layout.addView(button("Stop collecting and delete the queue", () -> PushLedgerAndroid.setEnabled(this, false,
                true)));
        layout.addView(button("Collect again", () -> PushLedgerAndroid.setEnabled(this, true, false)));
        setContentView(layout);
    }

    private Button button(String text, Runnable action) {
        Button button = new Button(this);
        button.setText(text);
        button.setOnClickListener(v -> action.run());
        return button;
    }
}
