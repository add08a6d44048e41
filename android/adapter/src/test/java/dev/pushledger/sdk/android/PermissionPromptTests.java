package dev.pushledger.sdk.android;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import androidx.activity.ComponentActivity;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.json.JSONObject;
import org.junit.jupiter.api.Test;

import dev.pushledger.fakes.Device;
import dev.pushledger.sdk.PromptResult;

/** The wrapper around the system dialog, through rotations, the process's death, slow devices and both denials. */
class PermissionPromptTests {
    private final List<PromptResult> results = Collections.synchronizedList(new ArrayList<PromptResult>());

    private PermissionPrompt prompt(ComponentActivity activity) { return new PermissionPrompt(activity, results::add); }

    private static List<String> recorded(FakeApp phone) throws Exception {
        List<String> words = new ArrayList<>();
        for (JSONObject e : phone.journal("permission_prompt")) words.add(e.getString("placement") + ":"
                + e.getString("result"));
        return words;
    }

    @Test
    void aRotationUnderTheDialogRecordsTheAnswerWithItsPlacement() throws Exception {
        FakeApp phone = new FakeApp(33);
        phone.start();
        ComponentActivity activity = new ComponentActivity(phone.app);
        prompt(activity).request("after_first_order");
        assertTrue(Device.dialogShowing());
        ComponentActivity rotated = activity.fakeRecreate();
        prompt(rotated);
        Device.userDenies(2_000);
        FakeApp.idle();
        assertEquals(Collections.singletonList("after_first_order:denied"), recorded(phone));
        assertEquals(Collections.singletonList(PromptResult.DENIED), results,
                "the new activity's callback, on the main thread");
    }

    @Test
    void theProcessKilledUnderTheDialogRecordsTheAnswerWhenItComesBack() throws Exception {
        FakeApp phone = new FakeApp(34);
        phone.start();
        ComponentActivity activity = new ComponentActivity(phone.app);
        prompt(activity).request("settings_banner");
        FakeApp.idle();
        ComponentActivity restored = activity.fakeRecreate();
        phone.newProcess();
        phone.start();
        prompt(restored);
        Device.userAllows(3_000);
        FakeApp.idle();
        assertEquals(Collections.singletonList("settings_banner:granted"), recorded(phone));
    }

    @Test
    void bothDenialsThenNothingShownOnASlowDevice() throws Exception {
        FakeApp phone = new FakeApp(35);
        phone.start();
        ComponentActivity activity = new ComponentActivity(phone.app);
        PermissionPrompt prompt = prompt(activity);
        prompt.request("first_screen");
        Device.userDenies(1_500);
        FakeApp.idle();
        prompt.request("after_first_order");
        Device.userDenies(1_500);
        FakeApp.idle();
        Device.osAnswerMillis = 2_500; // a slow device: the OS takes longer than a quick person to answer for nothing
        prompt.request("settings_banner");
        assertFalse(Device.dialogShowing(), "after two denials the OS shows nothing");
        FakeApp.idle();
        assertEquals(java.util.Arrays.asList("first_screen:denied", "after_first_order:denied",
                "settings_banner:already_determined"),
            recorded(phone));
    }

    @Test
    void aDismissalIsNotADenial() throws Exception {
        FakeApp phone = new FakeApp(33);
        phone.start();
        PermissionPrompt prompt = prompt(new ComponentActivity(phone.app));
        prompt.request("first_screen");
        Device.userDismisses(900);
        FakeApp.idle();
        prompt.request("first_screen");
        Device.userDismisses(4_000);
        FakeApp.idle();
        assertEquals(java.util.Arrays.asList("first_screen:dismissed", "first_screen:dismissed"), recorded(phone));
    }

    @Test
    void theRequestWritesNothingOnTheMainThread() throws Exception {
        FakeApp phone = new FakeApp(33);
        phone.start();
        PermissionPrompt prompt = prompt(new ComponentActivity(phone.app));
        CountDownLatch release = new CountDownLatch(1);
        PushLedgerAndroid.IO.execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        File history = new File(new File(phone.storage, "PushLedger"), "permission-requested");
        try {
            prompt.request("first_screen");
            Device.userAllows(1_000);
            assertFalse(history.exists(), "the request's count waits for the I/O thread");
            assertTrue(phone.journal("permission_prompt").isEmpty(), "the answer is journalled on the I/O thread");
        } finally {
            release.countDown();
        }
        FakeApp.idle();
        assertTrue(history.exists());
        assertEquals(Collections.singletonList("first_screen:granted"), recorded(phone));
    }

    @Test
    void belowApi33NothingIsShownAndItIsRecordedSo() throws Exception {
        FakeApp phone = new FakeApp(28);
        phone.start();
        prompt(new ComponentActivity(phone.app)).request("first_screen");
        assertFalse(Device.dialogShowing());
        FakeApp.idle();
        assertEquals(Collections.singletonList("first_screen:already_determined"), recorded(phone));
    }
}
