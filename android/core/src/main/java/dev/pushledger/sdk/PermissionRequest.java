package dev.pushledger.sdk;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;

import org.jetbrains.annotations.NotNull;

/**
 * How a {@code POST_NOTIFICATIONS} request ended, from what the app can observe: the permission
 * and {@code shouldShowRequestPermissionRationale} before and after the request, whether it
 * asked before on this installation, and how long the answer took. Android reports neither
 * "the dialog was not shown" nor "the dialog was dismissed"; these rules infer both:
 *
 * <ul>
 *   <li>below API 33, or already granted: the OS shows nothing — {@code already_determined};
 *   <li>granted after: {@code granted};
 *   <li>asked before, no rationale before, denied within {@link #NO_DIALOG_MILLIS}: the OS
 *       showed nothing after two denials — {@code already_determined};
 *   <li>denied and the rationale flag changed (false → true: a first denial; true → false: the
 *       second, final denial): {@code denied};
 *   <li>denied and the rationale flag unchanged: no denial was counted, the dialog was closed
 *       by back or a tap outside — {@code dismissed}.
 * </ul>
 */
public final class PermissionRequest {
    /** An answer faster than this, after an earlier request, means no dialog was shown. */
    public static final long NO_DIALOG_MILLIS = 400;

    private PermissionRequest() {}

    public static @NotNull PromptResult result(int sdkInt, boolean grantedBefore, boolean rationaleBefore, boolean askedBefore,
            boolean grantedAfter, boolean rationaleAfter, long elapsedMillis) {
        if (sdkInt < 33 || grantedBefore) return PromptResult.ALREADY_DETERMINED;
        if (grantedAfter) return PromptResult.GRANTED;
        if (askedBefore && !rationaleBefore && !rationaleAfter && elapsedMillis < NO_DIALOG_MILLIS) return PromptResult.ALREADY_DETERMINED;
        return rationaleBefore != rationaleAfter ? PromptResult.DENIED : PromptResult.DISMISSED;
    }

    /**
     * Whether this installation requested the permission before: a marker file next to the
     * journal (no-backup storage, so a restored phone starts afresh like its permissions).
     */
    public static boolean askedBefore(@NotNull File storageDir) {
        return new File(new File(storageDir, "PushLedger"), "permission-requested").exists();
    }

    /** Marks the request as made (call it before requesting). */
    public static void markAsked(@NotNull File storageDir) throws IOException {
        File directory = new File(storageDir, "PushLedger");
        if (!directory.isDirectory() && !directory.mkdirs() && !directory.isDirectory()) throw new IOException("cannot create " + directory);
        try (FileOutputStream out = new FileOutputStream(new File(directory, "permission-requested"))) {
            out.getFD().sync();
        }
    }
}
