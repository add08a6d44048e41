package dev.pushledger.fakes;

import android.os.Build;
import android.os.SystemClock;

import androidx.activity.ComponentActivity;

/**
 * The state of the fake phone that no single framework object owns: the app's notification
 * switch, the POST_NOTIFICATIONS permission as the system dialog changes it, and the dialog
 * itself. The dialog behaves as Android 13+ documents it: it shows until the user denied twice,
 * a denial is counted only by "Don't allow" (back or a tap outside counts nothing), the
 * rationale flag is true after one denial only, and after two the OS answers "denied" without
 * showing anything, after {@link #osAnswerMillis}.
 */
public final class Device {
    public static boolean notificationsEnabled = true;
    public static boolean postNotificationsGranted;
    public static int denials;
    /** How long the OS takes to answer a request it shows nothing for (a slow device: over a second). */
    public static long osAnswerMillis = 150;
    private static ComponentActivity waiting;
    private static int waitingIndex = -1;

    private Device() {}

    /** A new phone at API {@code sdk}: every switch on, the permission never asked. */
    public static void reset(int sdk) {
        Build.VERSION.SDK_INT = sdk;
        Build.VERSION.RELEASE = String.valueOf(sdk);
        notificationsEnabled = true;
        postNotificationsGranted = false;
        denials = 0;
        osAnswerMillis = 150;
        waiting = null;
        waitingIndex = -1;
    }

    public static boolean rationale() { return !postNotificationsGranted && denials == 1; }

    /** The system dialog is showing, waiting for the user. */
    public static boolean dialogShowing() { return waiting != null; }

    /** Called by the fake launcher of a {@code RequestPermission} contract. */
    public static void launchPermission(ComponentActivity activity, int index) {
        if (postNotificationsGranted || denials >= 2) {
            SystemClock.fakeAdvance(osAnswerMillis);
            activity.fakeDeliver(index, postNotificationsGranted);
            return;
        }
        waiting = activity;
        waitingIndex = index;
    }

    /** The activity was recreated under the dialog: the answer goes to the new one. */
    public static void recreated(ComponentActivity from, ComponentActivity to) {
        if (waiting == from) waiting = to;
    }

    public static void userAllows(long thinkMillis) { answer(thinkMillis, true, false); }

    public static void userDenies(long thinkMillis) { answer(thinkMillis, false, true); }

    public static void userDismisses(long thinkMillis) { answer(thinkMillis, false, false); }

    private static void answer(long thinkMillis, boolean grant, boolean deny) {
        if (waiting == null) throw new IllegalStateException("no dialog is showing");
        SystemClock.fakeAdvance(thinkMillis);
        if (grant) postNotificationsGranted = true;
        if (deny) denials++;
        ComponentActivity to = waiting;
        waiting = null;
        to.fakeDeliver(waitingIndex, grant);
    }
}
