import dev.pushledger.sdk.AndroidSettings;
import dev.pushledger.sdk.FlushIncompleteException;
import dev.pushledger.sdk.FlushResult;
import dev.pushledger.sdk.Landing;
import dev.pushledger.sdk.PostNotifications;
import dev.pushledger.sdk.PromptKind;
import dev.pushledger.sdk.PromptResult;
import dev.pushledger.sdk.PushLedger;
import dev.pushledger.sdk.PushLedgerConfig;
import dev.pushledger.sdk.PushLedgerEvent;
import dev.pushledger.sdk.PushProvider;
import dev.pushledger.sdk.StandbyBucket;

import java.io.File;
import java.util.UUID;

/**
 * A program written only from docs/integrations/android.md, compiled against the SDK's jar and
 * org.json alone: it records COUNT events of every type into DIRECTORY, printing each event id
 * once record returned, and flushes every 25 events as an app's upload job would.
 * Usage: java Newcomer DIRECTORY BASE_URL TELEMETRY_KEY COUNT [PAUSE_MS]
 */
public class Newcomer {
    public static void main(String[] args) throws Exception {
        File storageDir = new File(args[0]);
        String telemetryKey = args[2];
        int count = Integer.parseInt(args[3]);
        long pause = args.length > 4 ? Long.parseLong(args[4]) : 0;
        PushLedger ledger = new PushLedger(PushLedgerConfig
            .builder("com.example.shop", args[1], telemetryKey, storageDir)
            .appVersion("5.2.0").osVersion("14").sdkInt(34)
            .logger((level, line) -> System.err.println(line))
            .build());
        UUID installation = ledger.installationId();
        System.err.println("installation " + installation);
        String fcmToken = "fcm-token:APA91b-newcomer";
        for (int i = 0; i < count; i++) {
            UUID notificationId = UUID.randomUUID();
            PushLedgerEvent event;
            switch (i % 6) {
                case 0:
                    event = PushLedgerEvent.notificationSettings(AndroidSettings.builder(true)
                        .postNotifications(PostNotifications.GRANTED)
                        .channel("orders", 4).channel("promotions", 0, "marketing", false)
                        .standbyBucket(StandbyBucket.ACTIVE).build());
                    break;
                case 1:
                    event = PushLedgerEvent.permissionPrompt("after_first_order", PromptKind.SYSTEM, PromptResult.GRANTED);
                    break;
                case 2:
                    event = PushLedgerEvent.experimentExposure("push_prompt_timing", "after_first_order");
                    break;
                case 3:
                    event = PushLedgerEvent.pushToken(PushProvider.FCM, fcmToken);
                    break;
                case 4:
                    event = PushLedgerEvent.notificationReceived(notificationId, "orders", true);
                    break;
                default:
                    event = PushLedgerEvent.notificationOpened(notificationId, "default", "https://shop.example.com/orders/42", Landing.TARGET);
            }
            UUID recorded = ledger.record(event);
            System.out.println(recorded);
            System.out.flush();
            if (i % 25 == 24) flush(ledger);
            if (pause > 0) Thread.sleep(pause);
        }
        flush(ledger);
    }

    private static void flush(PushLedger ledger) {
        try {
            FlushResult result = ledger.flush();
            System.err.println("flushed: " + result.accepted() + " accepted, " + result.duplicates() + " duplicates, "
                + result.rejected().size() + " rejected");
        } catch (FlushIncompleteException e) {
            System.err.println("flush incomplete: " + e.remaining() + " remaining (" + e.getMessage() + ")");
        } catch (Exception e) {
            System.err.println("flush failed: " + e);
        }
    }
}
